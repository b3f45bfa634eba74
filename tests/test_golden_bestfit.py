"""A hand-checked golden trace under best-fit (gfs) on 2 nodes x 8 GPUs.

Each expectation below was worked out by hand (the derivation is in the comments); it
exercises best-fit choice and ties, gang admission, head-of-line blocking, and the
equal-time order (departures before arrivals before the admission pass).
"""

from pathlib import Path

import pytest

import compass

GOLDEN = Path(__file__).parent / "data" / "golden_bestfit.csv"

# job: (start, end, nodes)
EXPECTED = {
    0: (0, 100, (0,)),  # both nodes free 8: lowest index
    1: (0, 50, (0,)),  # n0 has 4 free < n1's 8: best fit
    2: (10, 110, (1, 1)),  # n0 has 2 free: both 4-GPU instances on n1
    3: (50, 80, (0,)),  # blocked until J1 frees n0 (f=4)
    4: (80, 90, (0,)),  # 1-GPU job blocked behind J3 (HOL) although n0 had 2 free
    5: (80, 100, (0, 0)),  # n0 f=3 after J4
    6: (100, 140, (0,)),  # J0 and J5 both leave at 100 -> n0 empty
    7: (110, 130, (1, 1, 1)),  # arrives as J2 departs: departures go first
    8: (130, 140, (1,)),  # g=3 finds no node with 3 free until J7 leaves
    9: (130, 135, (1,)),  # blocked behind J8, then best fit on n1 (f=5)
    10: (140, 200, (0, 1)),  # arrives as J6, J8 leave: one 6-GPU instance per node
    11: (150, 160, (0,)),  # n0 f=2 (tie with n1, lowest index)
    12: (150, 160, (1, 1)),  # same submit time, later id: n1 f=2
    13: (160, 190, (0,)),  # tie f=2 on both nodes: n0
    14: (170, 195, (1,)),  # g=2: n0 has 1 free, n1 has 2
    15: (175, 185, (0,)),
    16: (200, 220, (0,)),  # 8-GPU job waits for J10 to leave
    17: (200, 205, (1,)),  # admitted in the same pass as J16
    18: (200, 210, (1,)),  # arrives at 200, queued behind J16, J17, same pass
    19: (220, 230, (0, 1)),  # needs two empty nodes: waits for J16
}


@pytest.fixture(scope="module")
def result():
    return compass.simulate(GOLDEN, "gfs", nodes=2, debug_checks=True)


def test_golden_start_and_end_times(result):
    jobs = result.jobs.set_index("job_id")
    for job_id, (start, end, _) in EXPECTED.items():
        assert jobs.loc[job_id, "start_time"] == start, f"job {job_id} start"
        assert jobs.loc[job_id, "end_time"] == end, f"job {job_id} end"
    assert result.summary["ajct"] == pytest.approx(
        sum(end - s for (_, end, _), s in zip(EXPECTED.values(), jobs["submit_time"])) / 20
    )


def test_golden_nodes():
    """Replays the golden trace step by step through a recording scheduler."""
    from compass.schedulers.gfs import GFS

    seen: dict[int, tuple[int, ...]] = {}

    class Recording(GFS):
        def place(self, job, state, now):
            placement = super().place(job, state, now)
            if placement is not None:
                seen[job.job_id] = placement.nodes
            return placement

    compass.simulate(GOLDEN, Recording(), nodes=2)
    assert seen == {j: nodes for j, (_, _, nodes) in EXPECTED.items()}


def test_golden_timeline_rows(result):
    tl = result.timeline.set_index("time")
    # t=25: J3 (4 GPUs) heads the queue, J4 behind it; n0 holds J0+J1 (2 free), n1 full
    assert tl.loc[25, "queue_len"] == 2 and tl.loc[25, "head_demand"] == 4
    assert tl.loc[25, "partial_nodes"] == 1 and tl.loc[25, "used_gpus"] == 14
    # t=100: J6 fills n0 right after J0 and J5 leave; n1 still holds J2
    assert tl.loc[100, "used_gpus"] == 16 and tl.loc[100, "empty_nodes"] == 0
    # one row per event instant
    assert tl.index.is_unique and tl.index.is_monotonic_increasing
