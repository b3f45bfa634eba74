"""Backfill's bounded pass and runtime estimates (compass.schedulers.backfill, estimates):
the candidate index against brute force, the bounded pass against the full scan of the
queue (same frames) under every estimate, the user and history estimators' contracts, and
EASY's promise as it holds under each estimate."""

from __future__ import annotations

import math
import random

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from trace_rows import gap_trace, trace

import compass
from compass.model import Job
from compass.schedulers.backfill import GfsBackfill, _MinTree
from compass.schedulers.compass_abs_plus import CompassAbsPlus
from compass.schedulers.estimates import (
    ESTIMATES,
    HistoryEstimator,
    UserEstimates,
    UserEstimator,
    label,
)

PLUS = "compass-abs-plus"


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.integers(0, 50).map(float), st.just(math.inf)),
                       min_size=1, max_size=70),
       removed=st.sets(st.integers(0, 69)), start=st.integers(0, 75),
       limit=st.integers(-1, 55).map(float))
def test_min_tree_first_is_the_first_index_under_the_limit(values, removed, start, limit):
    tree = _MinTree()
    for v in values:
        tree.append(v)
    kept = list(values)
    for k in removed:
        if k < len(values):
            tree.set(k, math.inf)
            kept[k] = math.inf
    want = next((i for i in range(start, len(kept)) if kept[i] <= limit), -1)
    assert tree.first(start, limit) == want


class FullScan:
    """The pass before the candidate index: the whole queue offered in FIFO order."""

    def admission_order(self, queue, state, now):
        self.gate.open_pass()
        return queue, False


class ScanPlus(FullScan, CompassAbsPlus):
    pass


class ScanGfs(FullScan, GfsBackfill):
    pass


def busy_trace(rng: random.Random, n: int, nodes: int):
    """A random stream that keeps a queue: bursts of arrivals, mixed shapes and lengths."""
    rows, t = [], 0
    for k in range(n):
        t += rng.choice([0, 0, 1, 2, 5])
        g = rng.choice([1, 1, 2, 4, 8])
        w = rng.choice([1, 1, 2, 3])
        rows.append((k, float(t), float(rng.choice([1, 3, 10, 40, 200, 900, 4000])),
                     min(w, nodes * (8 // g)), g))
    return trace(*rows)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 6),
       estimate=st.sampled_from(ESTIMATES), plus=st.booleans())
def test_the_bounded_pass_makes_the_full_scans_decisions(seed, nodes, estimate, plus):
    tr = busy_trace(random.Random(seed), 70, nodes)
    fast_cls, scan_cls = (CompassAbsPlus, ScanPlus) if plus else (GfsBackfill, ScanGfs)
    runs = [compass.simulate(tr, cls(seed=seed, runtime_estimate=estimate), nodes=nodes,
                             migration_cost=5.0, seed=seed)
            for cls in (fast_cls, scan_cls)]
    assert runs[0].jobs.equals(runs[1].jobs)
    assert runs[0].migrations.equals(runs[1].migrations)


def test_user_estimates_round_up_to_the_popular_limits_and_never_undercut():
    model = UserEstimates()
    rng = random.Random(0)
    for _ in range(2000):
        d = rng.lognormvariate(7, 2)
        r = model.request(d, rng.random())
        assert r >= d
        assert r in model.limits or r % model.limits[-1] == 0
        assert r <= model.request(d, 1.0)  # at most the limit for the lowest accuracy


def test_user_estimates_are_seeded_per_job_and_order_free():
    jobs = [Job(job_id=k, submit_time=0.0, duration=100.0 * (k + 1), num_instances=1,
                gpus_per_instance=1) for k in range(50)]
    a, b, c = UserEstimator(3), UserEstimator(3), UserEstimator(4)
    forward = [a.job_part(j) for j in jobs]
    backward = [b.job_part(j) for j in reversed(jobs)][::-1]
    assert forward == backward
    assert forward != [c.job_part(j) for j in jobs]


def test_history_never_reads_a_waiting_jobs_duration_and_learns_from_completions():
    h = HistoryEstimator()
    short = Job(job_id=1, submit_time=0.0, duration=10.0, num_instances=1, gpus_per_instance=2)
    long = Job(job_id=2, submit_time=0.0, duration=1e6, num_instances=1, gpus_per_instance=2)
    assert h.estimate(short) == h.estimate(long) == h.params.prior_s
    for k in range(10):
        h.completed(Job(job_id=10 + k, submit_time=0.0, duration=100.0 + k, num_instances=1,
                        gpus_per_instance=2))
    assert h.estimate(short) == h.estimate(long) == 109.0  # the 0.9 quantile of 100..109
    other = Job(job_id=3, submit_time=0.0, duration=5.0, num_instances=4, gpus_per_instance=8)
    assert h.estimate(other) == 109.0  # a shape never seen: the quantile over all shapes


def test_the_clairvoyant_label():
    assert label("exact") == "clairvoyant"
    with pytest.raises(ValueError):
        GfsBackfill(runtime_estimate="oracle")


class Recording(GfsBackfill):
    """gfs-backfill recording each head's first shadow time and each job's planned end."""

    def __init__(self, runtime_estimate):
        super().__init__(runtime_estimate=runtime_estimate)
        self.first_shadow: dict[int, float] = {}
        self.planned: dict[int, float] = {}

    def place(self, job, state, now):
        gated = self.gate.shadow is not None
        placement = super().place(job, state, now)
        if placement is None and not gated and self.gate.shadow is not None:
            self.first_shadow.setdefault(job.job_id, self.gate.shadow)
        if placement is not None:
            self.planned[job.job_id] = self.gate.planned_end(job.job_id)
        return placement


ROWS = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 400), st.integers(1, 4),
                          st.sampled_from([1, 2, 4, 8, 8])), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(rows=ROWS, nodes=st.integers(1, 4), estimate=st.sampled_from(("exact", "user")))
def test_with_estimates_never_short_a_head_starts_by_its_first_shadow_time(
        rows, nodes, estimate):
    """``exact`` and ``user`` estimates are never below the duration (no migrations under
    gfs-backfill, so no pauses): EASY's promise holds as with exact durations."""
    tr = gap_trace(rows, nodes)
    policy = Recording(estimate)
    r = compass.simulate(tr, policy, nodes=nodes, debug_checks=True)
    start = r.jobs.set_index("job_id")["start_time"]
    for job_id, shadow in policy.first_shadow.items():
        assert start[job_id] <= shadow
    assert policy.gate.late_heads == 0


@settings(max_examples=80, deadline=None)
@given(rows=ROWS, nodes=st.integers(1, 4))
def test_under_history_a_head_is_late_only_by_jobs_that_outlived_their_estimates(rows, nodes):
    """``history`` may under-estimate. A job outliving its estimate is not killed and
    counts as leaving at every instant after its planned end, so the reservation is
    recomputed: a head starts by its first shadow time or, at the latest, when the last
    job that outlived its estimate and started before the head has ended."""
    tr = gap_trace(rows, nodes)
    policy = Recording("history")
    r = compass.simulate(tr, policy, nodes=nodes, debug_checks=True)
    jobs = r.jobs.set_index("job_id")
    for job_id, shadow in policy.first_shadow.items():
        start = jobs.at[job_id, "start_time"]
        overran = [0.0] + [jobs.at[j, "end_time"] for j, end in policy.planned.items()
                           if jobs.at[j, "end_time"] > end and jobs.at[j, "start_time"] < start]
        assert start <= max(shadow, max(overran))
    assert policy.gate.late_heads <= len(policy.first_shadow)
