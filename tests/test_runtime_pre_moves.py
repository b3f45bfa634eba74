"""Physical mode executes pre-moves: COMPASS-ABS+ admits a job by migrating another first.

The issue's smallest case on 2 emulated nodes: a 4 x 1-GPU job and a 4-GPU job run; an
8-GPU job arrives. The controller must checkpoint-restart the 4-GPU job on node 0 (the
pre-move) and start the 8-GPU job on node 1 at the same instant, as the simulator does.
About a minute of wall time on a 2-core machine.
"""

import pytest

pytest.importorskip("torch", reason="physical mode needs the 'runtime' extra (torch)")
ray = pytest.importorskip("ray", reason="physical mode needs the 'runtime' extra (ray)")

from trace_rows import trace  # noqa: E402

import compass  # noqa: E402
from compass.runtime import run_physical  # noqa: E402
from compass.runtime.worker import NAMESPACE, node_resource  # noqa: E402

ROWS = [(0, 0, 40, 4, 1), (1, 1, 40, 1, 4), (2, 3, 16, 1, 8)]


@pytest.fixture(scope="module", autouse=True)
def emulated_cluster():
    ray.init(num_cpus=2, num_gpus=0, include_dashboard=False, namespace=NAMESPACE,
             resources={node_resource(n): 8 for n in range(2)})
    yield
    ray.shutdown()


def test_a_pre_move_is_a_checkpoint_restart_before_the_admitted_job_starts(tmp_path):
    frame = trace(*ROWS)
    result = run_physical(frame, "compass-abs-plus", workdir=tmp_path, nodes=2,
                          time_scale=2.5, steps_per_trace_second=1.0,
                          checkpoint_interval_s=1.0)
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
