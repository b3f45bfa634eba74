"""Physical mode end to end on Ray: 2 emulated nodes x 8 GPUs, real (tiny) training jobs.

One local Ray instance serves the module. Each run takes about a minute of wall time on a
2-core machine (actor start-up, i.e. process launch and ``import torch``, dominates).
"""

import threading
import time

import pytest

pytest.importorskip("torch", reason="physical mode needs the 'runtime' extra (torch)")
ray = pytest.importorskip("ray", reason="physical mode needs the 'runtime' extra (ray)")

from trace_rows import trace  # noqa: E402

import compass  # noqa: E402
from compass.cluster import ClusterState  # noqa: E402
from compass.runtime import run_physical  # noqa: E402
from compass.runtime.engine import start_local  # noqa: E402
from compass.runtime.journal import Journal  # noqa: E402
from compass.runtime.worker import NAMESPACE  # noqa: E402
from compass.schedulers import create  # noqa: E402
from compass.sim.dispatch import Dispatcher  # noqa: E402
from compass.sim.records import JOB_COLUMNS, TIMELINE_COLUMNS  # noqa: E402
from compass.traces import jobs_from_frame, validate_trace  # noqa: E402

#: Job 0 (2 x 3 GPUs) departs long before jobs 1 (2 x 1 GPU, a gloo group) and 2; its
#: departure makes COMPASS-ABS's Compact move job 1's instances: a forced migration.
CI_ROWS = [(0, 0, 20, 2, 3), (1, 2, 80, 2, 1), (2, 4, 80, 1, 1), (3, 40, 20, 1, 2),
           (4, 45, 16, 1, 4)]
FAST = {"nodes": 2, "time_scale": 2.5, "steps_per_trace_second": 1.0,
        "checkpoint_interval_s": 1.0}


@pytest.fixture(scope="module", autouse=True)
def emulated_cluster():
    start_local(2, 8, num_cpus=2)
    yield
    ray.shutdown()


def _decisions(frame, workdir):
    """Nodes per (job, reason) launch, replaying the journal through a fresh dispatcher."""
    jobs = {j.job_id: j for j in jobs_from_frame(validate_trace(frame))}
    dispatcher = Dispatcher(create("compass-abs"), ClusterState(2))
    dispatcher.reset(list(jobs.values()))
    out = []
    journal = Journal(workdir / "journal.sqlite")
    for rec in journal.instants():
        instant = dispatcher.step(rec.time, departures=[jobs[j] for j in rec.departed],
                                  timer=rec.timer, arrivals=[jobs[j] for j in rec.arrived])
        for job_id in sorted(instant.migrated_jobs(dispatcher.state)):
            out.append((job_id, "migrate", dispatcher.state.job_nodes(job_id)))
        for job_id in instant.started:
            out.append((job_id, "start", dispatcher.state.job_nodes(job_id)))
    journal.close()
    return out


def _launches(placements, reasons=("start", "migrate")):
    rows = placements[placements["reason"].isin(reasons)]
    return [(int(j), r, tuple(int(n) for n in g["decided"]))
            for (_, j, r), g in rows.groupby(["time", "job_id", "reason"], sort=False)]


def _assert_complete(result):
    jobs = result.jobs
    assert jobs["end_time"].notna().all() and (jobs["end_time"] > jobs["start_time"]).all()
    assert (jobs["steps"] == jobs["step_budget"]).all()
    placements = result.placements
    last = placements.groupby("job_id")["generation"].transform("max") == placements["generation"]
    assert placements.loc[last, "executed"].notna().all()  # every job's final gang ran
    ran = placements["executed"].notna()  # a gang killed before it started never ran
    assert (placements.loc[ran, "decided"] == placements.loc[ran, "executed"]).all()


def test_ci_run_executes_the_schedulers_decisions_with_a_migration(tmp_path):
    frame = trace(*CI_ROWS)
    start = time.monotonic()
    result = run_physical(frame, "compass-abs", workdir=tmp_path, **FAST)
    wall = time.monotonic() - start
    _assert_complete(result)
    assert list(result.jobs.columns[:len(JOB_COLUMNS)]) == list(JOB_COLUMNS)
    assert list(result.timeline.columns) == list(TIMELINE_COLUMNS)
    assert result.summary["mode"] == "emulated" and result.summary["timings"].startswith("measured")
    # every gang was launched where the scheduler decided, in the order it decided
    assert _launches(result.placements) == _decisions(frame, tmp_path)
    migrations = result.migrations
    assert len(migrations) >= 1 and 1 in set(migrations["job_id"])
    assert migrations["latency_s"].notna().all() and (migrations["latency_s"] > 0).all()
    assert result.jobs.set_index("job_id").loc[1, "migrations"] >= 1
    assert result.jobs["restarts"].sum() == 0
    parts = migrations[["checkpoint_s", "launch_s", "restore_s", "latency_s"]].round(2)
    print(f"CI physical run: {wall:.1f}s wall; migrations (s):\n{parts.to_string()}")


def test_text_job_ids_come_back_as_given(tmp_path):
    """The controller and its journal number text-id jobs by FIFO position; every table
    run_physical returns carries the given ids (job 1 still migrates)."""
    names = ["train-a", "job 7", "0042", "x", "last"]
    frame = trace(*CI_ROWS).assign(job_id=names)
    result = run_physical(frame, "compass-abs", workdir=tmp_path, **FAST)
    _assert_complete(result)
    assert result.jobs["job_id"].tolist() == names
    assert "job 7" in set(result.migrations["job_id"])
    assert set(result.placements["job_id"]) == set(names)
    assert set(result.restarts["job_id"]) <= set(names)


def _kill_when_checkpointed(workdir, suffix, done):
    """Kill the actor whose name ends with ``suffix`` once its job has a checkpoint."""
    while not done.is_set():
        names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)]
        hit = [n for n in names if n.endswith(suffix)]
        if hit and (workdir / "checkpoints" / "job-0.pt").exists():
            ray.kill(ray.get_actor(hit[0], namespace=NAMESPACE), no_restart=True)
            return
        time.sleep(0.2)


def test_a_killed_actor_restarts_its_job_from_the_last_checkpoint(tmp_path):
    frame = trace((0, 0, 40, 1, 1), (1, 1, 16, 1, 2))
    done = threading.Event()
    killer = threading.Thread(target=_kill_when_checkpointed, args=(tmp_path, "/j0/k0/g1", done))
    killer.start()
    try:
        result = run_physical(frame, "compass-abs", workdir=tmp_path, **FAST)
    finally:
        done.set()
        killer.join()
    _assert_complete(result)
    job = result.jobs.set_index("job_id").loc[0]
    assert job["restarts"] == 1
    restart = result.restarts.iloc[0]
    assert (restart["job_id"], restart["generation"]) == (0, 2)
    assert 0 < restart["restored_step"] < job["step_budget"]
    gens = result.placements[result.placements["job_id"] == 0]
    assert gens["reason"].tolist() == ["start", "restart"]
    assert gens["decided"].nunique() == 1  # same placement: the scheduler is not involved


def _kill_then_damage_checkpoints(workdir, done):
    """Once jobs 0 and 1 each have a previous checkpoint: kill both actors, then damage job
    0's latest checkpoint and both of job 1's (the restarts launch after the kill: seconds)."""
    ckpt = workdir / "checkpoints"
    while not done.is_set():
        if all((ckpt / f"job-{j}.pt.prev").exists() for j in (0, 1)):
            names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)]
            for suffix in ("/j0/k0/g1", "/j1/k0/g1"):
                name = next(n for n in names if n.endswith(suffix))
                ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
            for path in (ckpt / "job-0.pt", ckpt / "job-1.pt", ckpt / "job-1.pt.prev"):
                path.write_bytes(b"damaged")
            return
        time.sleep(0.1)


def test_an_unreadable_checkpoint_restarts_from_the_previous_one_or_from_scratch(tmp_path,
                                                                                 caplog):
    frame = trace((0, 0, 60, 1, 1), (1, 0, 60, 1, 2))
    done = threading.Event()
    saboteur = threading.Thread(target=_kill_then_damage_checkpoints, args=(tmp_path, done))
    saboteur.start()
    try:
        with caplog.at_level("WARNING", logger="compass.runtime.controller"):
            result = run_physical(frame, "compass-abs", workdir=tmp_path, **FAST)
    finally:
        done.set()
        saboteur.join()
    _assert_complete(result)
    assert result.jobs["restarts"].tolist() == [1, 1]
    # rows in the order the restarts came up, which the load decides: by job, then file
    faults = result.checkpoint_faults.sort_values(["job_id", "file"]).reset_index(drop=True)
    assert faults["job_id"].tolist() == [0, 1, 1] and (faults["generation"] == 2).all()
    assert faults["file"].str.endswith(("job-0.pt", "job-1.pt", "job-1.pt.prev")).all()
    assert faults["resumed_from"].tolist() == ["previous", "scratch", "scratch"]
    restored = result.restarts.set_index("job_id")["restored_step"]
    assert restored[0] > 0 and faults["step"].iloc[0] == restored[0] and restored[1] == 0
    assert result.summary["corrupt_checkpoints"] == 3
    logged = [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()]
    assert len(logged) == 3 and sum("resumed from scratch" in m for m in logged) == 2


class ControllerCrash(RuntimeError):
    pass


def test_a_restarted_controller_resumes_without_losing_or_duplicating_jobs(tmp_path,
                                                                           monkeypatch):
    frame = trace((0, 0, 30, 1, 1), (1, 2, 30, 2, 1), (2, 20, 10, 1, 2))
    monkeypatch.chdir(tmp_path)  # a relative workdir: actors get it resolved
    workdir = "work"

    def crash_after_job_1_starts(instant):
        if 1 in instant.started:
            raise ControllerCrash

    with pytest.raises(ControllerCrash):
        run_physical(frame, "compass-abs", workdir=workdir, on_instant=crash_after_job_1_starts,
                     **FAST)
    with pytest.raises(FileExistsError, match="another run left, a journal"):
        run_physical(frame, "compass-abs", workdir=workdir, **FAST)
    with pytest.raises(ValueError, match="differs"):
        run_physical(frame, "compass-abs", workdir=workdir, resume=True,
                     **{**FAST, "time_scale": 3.0})
    # job 0's actor is lost while no controller runs; job 1's gang (a gloo group) lives on
    name = next(a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                if a["name"].endswith("/j0/k0/g1"))
    ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)
    result = run_physical(frame, "compass-abs", workdir=workdir, resume=True, **FAST)
    _assert_complete(result)
    assert result.placements["executed"].isna().sum() <= 1  # job 0's first gang, if unstarted
    # job 1's live gang was adopted (one launch, no restart); job 0 was relaunched once
    assert result.placements.groupby("job_id")["generation"].max().tolist() == [2, 1, 1]
    assert result.jobs["restarts"].tolist() == [1, 0, 0]
    assert result.restarts["reason"].tolist() == ["controller restart"]
    assert _launches(result.placements) == _decisions(frame, tmp_path / workdir)
    assert len(result.timeline) == len(Journal(tmp_path / workdir / "journal.sqlite").instants())


#: The issue-14 smallest case: a 4 x 1-GPU job and a 4-GPU job run, an 8-GPU job arrives;
#: COMPASS-ABS+ admits it by first moving the 4-GPU instance (a pre-move).
PRE_MOVE_ROWS = [(0, 0, 40, 4, 1), (1, 1, 40, 1, 4), (2, 3, 16, 1, 8)]


def test_a_pre_move_is_a_checkpoint_restart_before_the_admitted_job_starts(tmp_path):
    """The controller checkpoint-restarts the 4-GPU job on node 0 and starts the 8-GPU job
    on node 1 at the same instant, as the simulator does."""
    frame = trace(*PRE_MOVE_ROWS)
    result = run_physical(frame, "compass-abs-plus", workdir=tmp_path, **FAST)
    jobs = result.jobs.set_index("job_id")
    assert jobs["end_time"].notna().all() and (jobs["steps"] == jobs["step_budget"]).all()
    simulated = compass.simulate(frame, "compass-abs-plus", nodes=2).jobs.set_index("job_id")
    assert jobs.loc[2, "start_time"] == simulated.loc[2, "start_time"] == 3
    assert jobs.loc[1, "migrations"] == 1
    launches = result.placements
    move = launches[(launches["job_id"] == 1) & (launches["reason"] == "migrate")]
    assert list(move["decided"]) == [0] and (move["executed"] == move["decided"]).all()
    start = launches[(launches["job_id"] == 2) & (launches["reason"] == "start")]
    assert list(start["decided"]) == [1] and (start["executed"] == 1).all()
    migration = result.migrations.set_index("job_id").loc[1]
    assert migration["latency_s"] > 0
