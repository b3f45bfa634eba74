"""The physical mode shows migrations: Phys-Mix-migrate on 4 emulated nodes x 8 GPUs, real
(tiny) PyTorch jobs, each migration a checkpoint-and-restart whose latency is measured,
and the run's AFR / AJCT / AGU against its simulator twin (``TwinTolerance``).

CI runs the first 6 of the scenario's 10 jobs (the simulator migrates them 5 times at the
design cost, at least 3 times under the delays a loaded machine adds), about 11 actor
launches; ``compass run-physical --trace physmix-migrate --time-scale 60`` runs all 10.
"""

import math

import pytest

pytest.importorskip("torch", reason="physical mode needs the 'runtime' extra (torch)")
ray = pytest.importorskip("ray", reason="physical mode needs the 'runtime' extra (ray)")

from compass.experiments.physical import simulator_twin, twin_comparison  # noqa: E402
from compass.runtime import PHYSMIX_MIGRATE, run_physical  # noqa: E402
from compass.runtime.engine import start_local  # noqa: E402
from compass.traces.physmix_migrate import NODES, TIME_SCALE  # noqa: E402

CI_JOBS = 6


@pytest.fixture(scope="module", autouse=True)
def emulated_testbed():
    start_local(NODES, 8, num_cpus=2)
    yield
    ray.shutdown()


def test_the_scenario_migrates_by_checkpoint_and_restart_like_its_simulator_twin(tmp_path):
    result = run_physical(PHYSMIX_MIGRATE, "compass-abs", nodes=NODES, time_scale=TIME_SCALE,
                          max_jobs=CI_JOBS, workdir=tmp_path / "work")
    jobs, migrations, summary = result.jobs, result.migrations, result.summary
    assert summary["trace"] == PHYSMIX_MIGRATE and summary["trace_source"].startswith("synthetic")
    assert len(jobs) == CI_JOBS and (jobs["steps"] == jobs["step_budget"]).all()
    assert jobs["restarts"].sum() == 0
    # every migration a real checkpoint-restart, its latency and parts measured
    assert len(migrations) >= 2 and summary["migrations"] == len(migrations)
    parts = migrations[["checkpoint_s", "launch_s", "restore_s", "latency_s"]]
    assert parts.notna().all().all() and (parts > 0).all().all()
    assert (migrations["latency_s"] >= parts[["checkpoint_s", "launch_s", "restore_s"]]
            .sum(axis=1) - 1e-6).all()
    assert migrations["step"].notna().all()
    assert summary["mean_migration_latency_s"] == pytest.approx(migrations["latency_s"].mean())
    assert jobs["pause_time"].sum() == pytest.approx(migrations["latency_trace_s"].sum())
    # the simulator's run of the same jobs, charged what the physical world measured
    cost = summary["mean_migration_latency_s"] * TIME_SCALE
    table = twin_comparison(summary, simulator_twin(jobs, "compass-abs", NODES, cost))
    print(f"physical vs simulator twin ({summary['wall_s']:.0f} s wall):\n{table.to_string()}")
    judged = table.dropna(subset=["tolerance"])
    assert judged["within"].all(), table.to_string()
    assert not math.isnan(summary["ajct"])
