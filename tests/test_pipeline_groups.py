"""Rule ``simulate`` runs jobs of groups: a group is every (eta, c) batch of one sample (trace,
day, seed), a job several consecutive groups of one trace in one Snakemake job. Which batches
form a group and which groups a job, what a job writes (the rows its batches would write one
by one), that an interrupted job leaves no output to be taken for done, and that runs.csv
keeps the batch order whatever the jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments import pipeline
from compass.experiments.config import ResolvedTrace, RunSettings
from compass.experiments.data import load_days
from compass.experiments.grid import (
    MIN_JOBS,
    SAMPLES_PER_JOB,
    RunGroup,
    RunKey,
    SimJob,
    group_grid,
    job_grid,
    job_size,
)
from compass.experiments.pipeline import collect_runs, make_plan, simulate_job
from compass.experiments.runs import run_batch

ROOT = Path(__file__).parents[1]
#: The samples the tests replay: a few hours of one SYNTHETIC Venus day under two seeds,
#: two cheap schedulers.
BATCHES = [[0.85, 8.0], [0.9, 1.0], [0.9, 8.0]]
SAMPLES = [{"day": 92, "seed": 1, "batches": BATCHES}, {"day": 92, "seed": 0,
                                                         "batches": BATCHES[1:]}]


def plan(name: str) -> pipeline.Plan:
    raw = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
    return make_plan(raw, Path("/nonexistent"))  # no real traces: SYNTHETIC everywhere


def run_record(name: str = "smoke") -> dict:
    """The profile's run settings cut to two cheap schedulers, no variants, no extension."""
    record = {**plan(name).config.run.record(), "schedulers": ["gfs", "fgd"], "variants": {}}
    record.pop("extension", None)
    return record


@pytest.mark.parametrize("name, groups", [("smoke", 8), ("quick", 45), ("full", 1860)])
def test_a_group_is_every_batch_of_one_sample(name, groups):
    p = plan(name)
    assert len(p.groups) == groups
    assert sorted(k for keys in p.groups.values() for k in keys) == p.grid  # each batch once
    for group, keys in p.groups.items():
        assert {k.group for k in keys} == {group}
        assert keys == sorted(keys, key=lambda k: (k.eta, k.cost))
    assert list(p.groups) == sorted(p.groups)


@pytest.mark.parametrize("name, size, jobs", [("smoke", 1, 8), ("quick", 1, 45),
                                              ("medium", 2, 35), ("full", 10, 187)])
def test_a_job_is_consecutive_groups_of_one_trace(name, size, jobs):
    """Every group in exactly one job; a job's groups are of one trace, in order, at most
    `size` (SAMPLES_PER_JOB, fewer for small grids); a trace with n groups has
    ceil(n / size) jobs; at least MIN_JOBS jobs unless there are fewer samples."""
    p = plan(name)
    assert job_size(len(p.groups)) == size <= SAMPLES_PER_JOB
    assert len(p.jobs) == jobs >= min(MIN_JOBS, len(p.groups))
    members = [g for groups in p.jobs.values() for g in groups]
    assert members == sorted(p.groups)  # each group once, in order
    for job, groups in p.jobs.items():
        assert {g.trace for g in groups} == {job.trace}
        assert 1 <= len(groups) <= size
    for trace in {g.trace for g in p.groups}:
        n = sum(g.trace == trace for g in p.groups)
        assert sum(j.trace == trace for j in p.jobs) == -(-n // size)


def test_a_job_takes_its_samples_and_batches_as_a_parameter():
    """The samples and their (eta, c) lists are a rule parameter: another eta or c for a
    sample redoes its job (Snakemake's params trigger), and only that job."""
    p = plan("medium")  # two samples per job
    samples = json.loads(p.job_samples({"trace": "gfs", "part": "4"}))
    # gfs days 10, 26, 40, 58, ... with seeds 0-2: part 4 is (40, 2) and (58, 0); 58 is a
    # day of the migration-cost sweep (c in 1, 5, 8, 10 s), 40 is not
    assert [(s["day"], s["seed"]) for s in samples] == [(40, 2), (58, 0)]
    assert samples[0]["batches"] == [[0.85, 8.0], [0.9, 8.0], [0.95, 8.0]]
    assert samples[1]["batches"] == [[0.85, 8.0], [0.9, 1.0], [0.9, 5.0], [0.9, 8.0],
                                     [0.9, 10.0], [0.95, 8.0]]


def test_job_grid_cuts_each_trace_in_order():
    groups = [RunGroup("gfs", d, s) for d in (3, 1) for s in (1, 0)] + [RunGroup("venus", 1, 0)]
    assert job_grid(groups, size=3) == {
        SimJob("gfs", 0): [RunGroup("gfs", 1, 0), RunGroup("gfs", 1, 1), RunGroup("gfs", 3, 0)],
        SimJob("gfs", 1): [RunGroup("gfs", 3, 1)],
        SimJob("venus", 0): [RunGroup("venus", 1, 0)],
    }


def test_group_grid_orders_groups_and_their_batches():
    keys = [RunKey("gfs", 2, 0.9, 8.0, 1), RunKey("gfs", 2, 0.85, 8.0, 1),
            RunKey("gfs", 2, 0.9, 1.0, 0), RunKey("venus", 1, 0.9, 8.0, 0)]
    assert group_grid(keys) == {
        RunGroup("gfs", 2, 0): [keys[2]],
        RunGroup("gfs", 2, 1): [keys[1], keys[0]],
        RunGroup("venus", 1, 0): [keys[3]],
    }


def test_a_job_writes_the_rows_its_batches_write_one_by_one(tmp_path, capfd):
    """Running several samples in one process and drawing each day once for all its batches
    changes no value: the job's CSV holds, in order, the rows of each batch run alone (apart
    from the seconds each run took)."""
    p, out = plan("smoke"), tmp_path / "job.csv"
    simulate_job("venus", SAMPLES, p.traces["venus"].record(), run_record(), [], str(out))
    trace = ResolvedTrace.from_record(p.traces["venus"].record())
    alone = []
    for sample in SAMPLES:
        settings = RunSettings.from_record({**run_record(), "seed": sample["seed"]})
        for eta, cost in sample["batches"]:
            jobs = load_days(trace, sample["seed"], [92])[92]
            key = RunKey("venus", 92, eta, cost, sample["seed"])
            alone.append(run_batch(jobs, key, trace, settings))
    # through a CSV, as runs.csv reads them
    expected = pd.concat(alone, ignore_index=True)
    expected.to_csv(tmp_path / "alone.csv", index=False)
    got, want = pd.read_csv(out), pd.read_csv(tmp_path / "alone.csv")
    timing = ["wall_s", "cpu_s"]  # measured, so never equal between two runs
    pd.testing.assert_frame_equal(got.drop(columns=timing), want.drop(columns=timing))
    log = capfd.readouterr().err
    assert "venus: 2 samples, start-up" in log
    assert "venus day 92 seed 1: batch 3 of 3 (eta 0.9, c 8) done in" in log
    assert "venus day 92 seed 0: batch 2 of 2 (eta 0.9, c 8) done in" in log


def test_an_interrupted_job_leaves_no_output_and_its_rerun_completes(tmp_path, monkeypatch,
                                                                    capfd):
    """A job stopped after some batches writes nothing (Snakemake sees the output missing
    and redoes the job on the next run); its log says how far it got."""
    p, out = plan("smoke"), tmp_path / "job.csv"
    calls = []

    def stopped_at_the_fourth(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 4:
            raise KeyboardInterrupt
        return run_batch(*args, **kwargs)

    monkeypatch.setattr(pipeline, "run_batch", stopped_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        simulate_job("venus", SAMPLES, p.traces["venus"].record(), run_record(), [], str(out))
    assert not out.exists()
    assert "seed 1: batch 3 of 3 (eta 0.9, c 8) done" in capfd.readouterr().err
    monkeypatch.undo()
    simulate_job("venus", SAMPLES, p.traces["venus"].record(), run_record(), [], str(out))
    assert len(pd.read_csv(out)) == (len(BATCHES) + len(BATCHES) - 1) * 2


def test_collect_runs_keeps_the_batch_order_whatever_the_groups(tmp_path):
    """runs.csv lists rows by batch (trace, day, eta, c, seed), each batch's schedulers in
    the profile's order, as when each batch was its own file."""
    def rows(seed: int, etas: list[float]) -> pd.DataFrame:
        return pd.DataFrame([{"trace": "gfs", "day": 26, "eta": eta, "cost": 8.0,
                              "seed": seed, "scheduler": s, "status": "ok"}
                             for eta in etas for s in ("mcg", "gfs")])

    paths = []
    for seed in (1, 0):
        paths.append(str(tmp_path / f"day26_s{seed}.csv"))
        rows(seed, [0.85, 0.9]).to_csv(paths[-1], index=False)
    collect_runs(paths, str(tmp_path / "runs.csv"))
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert list(runs.itertuples(index=False, name=None)) == [
        ("gfs", 26, eta, 8.0, seed, s, "ok") for eta in (0.85, 0.9) for seed in (0, 1)
        for s in ("mcg", "gfs")]


@pytest.mark.parametrize("name, groups, size, jobs", [("quick", 25, 1, 25), ("medium", 49, 1, 49),
                                                      ("full", 1147, 10, 116)])
def test_the_real_venus_plans_group_one_sample_per_real_day(name, groups, size, jobs):
    """The profiles as run (the repository's data/: REAL Venus, one sample per day)."""
    raw = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
    p = make_plan(raw, ROOT)
    assert p.traces["venus"].origin == "real"
    assert len(p.groups) == groups and job_size(len(p.groups)) == size
    assert len(p.jobs) == jobs
    venus = [g for g in p.groups if g.trace == "venus"]
    assert len(venus) == len(p.traces["venus"].days) and {g.seed for g in venus} == {0}


@pytest.mark.parametrize("name, samples, size", [("smoke", 8 + 6, 1), ("quick", 45 + 3 * 40, 5)])
def test_a_profile_and_its_regimes_are_sized_together(name, samples, size):
    """One run simulates a profile and its regimes side by side: their jobs are cut by the
    samples of all of them (a regime's small samples share a process), each group in one
    job of its own plan."""
    from compass.experiments.pipeline import sized_together
    from compass.experiments.studies.regime.config import regime_plans

    p = plan(name)
    plans = sized_together([p, *regime_plans(p).values()])
    assert sum(len(q.groups) for q in plans) == samples and job_size(samples) == size
    for q in plans:
        assert q.run_samples == samples
        assert [g for groups in q.jobs.values() for g in groups] == sorted(q.groups)
        assert max(len(groups) for groups in q.jobs.values()) == min(size, max(
            sum(g.trace == t for g in q.groups) for t in q.traces))
