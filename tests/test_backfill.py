"""EASY backfill (compass.schedulers.backfill) and gfs-backfill: a hand-worked case, the
shadow time against a replay from scratch, and EASY's promise that a reserved head starts
by its shadow time when durations are exact and nothing migrates."""

import math

import hypothesis.strategies as st
from hypothesis import given, settings
from trace_rows import gap_trace, trace

import compass
from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.backfill import GfsBackfill, shadow_time
from compass.schedulers.gfs import best_fit_gang


def test_a_short_job_passes_a_blocked_head_and_a_long_one_does_not():
    """Two 8-GPU nodes. A (one 8-GPU instance, 100 s) runs; B needs both nodes and waits
    for A: its shadow time is 100. C (50 s) ends by then and passes B; D (500 s) would not,
    so it waits behind B as under FIFO."""
    tr = trace((0, 0.0, 100.0, 1, 8), (1, 1.0, 10.0, 2, 8), (2, 2.0, 50.0, 1, 8),
               (3, 3.0, 500.0, 1, 8))
    fifo = compass.simulate(tr, "gfs", nodes=2).jobs.set_index("job_id")["start_time"]
    easy = compass.simulate(tr, "gfs-backfill", nodes=2).jobs.set_index("job_id")["start_time"]
    assert list(fifo) == [0.0, 100.0, 110.0, 110.0]
    assert list(easy) == [0.0, 100.0, 2.0, 110.0]


def replayed_shadow(head: Job, state: ClusterState, ends, now: float, width: int) -> float:
    """The first planned end after which the head fits by count, from free GPUs recomputed
    from scratch after each prefix of departures."""
    gone: set[int] = set()
    for k in range(len(ends) + 1):
        free = [state.gpus_per_node] * state.nodes
        for job_id in state.running_jobs():
            if job_id not in gone:
                for inst in state.job_instances(job_id):
                    free[state.node_of(inst)] -= state.size_of(inst)
        if sum(f // width for f in free) >= head.num_instances:
            return now if k == 0 else max(ends[k - 1][0], now)
        if k < len(ends):
            gone.add(ends[k][1])
    return math.inf


@settings(max_examples=150, deadline=None)
@given(jobs=st.lists(st.tuples(st.sampled_from([1, 2, 4, 8]), st.integers(1, 3),
                               st.integers(1, 100)), min_size=1, max_size=12),
       nodes=st.integers(1, 4), g=st.sampled_from([1, 2, 4, 8]), w=st.integers(1, 5),
       now=st.integers(0, 50))
def test_shadow_time_equals_a_replay_from_scratch(jobs, nodes, g, w, now):
    state = ClusterState(nodes)
    ends = []
    for k, (size, count, end) in enumerate(jobs):
        placed = best_fit_gang(state, size, count)
        if placed is not None:
            state.place_job(k, size, placed)
            ends.append((float(end), k))
    ends.sort()
    head = Job(job_id=99, submit_time=0.0, duration=1.0, num_instances=w, gpus_per_instance=g)
    assert shadow_time(head, state, ends, float(now), g) == \
        replayed_shadow(head, state, ends, float(now), g)


class Recording(GfsBackfill):
    """gfs-backfill that records each head's first shadow time."""

    def __init__(self):
        super().__init__()
        self.first_shadow: dict[int, float] = {}

    def place(self, job, state, now):
        gated = self.gate.shadow is not None
        placement = super().place(job, state, now)
        if placement is None and not gated and self.gate.shadow is not None:
            self.first_shadow.setdefault(job.job_id, self.gate.shadow)
        return placement


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 200), st.integers(1, 4),
                               st.sampled_from([1, 2, 4, 8, 8])), min_size=1, max_size=30),
       nodes=st.integers(1, 4))
def test_a_reserved_head_starts_by_its_shadow_time(rows, nodes):
    tr = gap_trace(rows, nodes)
    policy = Recording()
    jobs = compass.simulate(tr, policy, nodes=nodes, debug_checks=True).jobs
    start = jobs.set_index("job_id")["start_time"]
    for job_id, shadow in policy.first_shadow.items():
        assert start[job_id] <= shadow
