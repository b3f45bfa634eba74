"""Simulator semantics: event order, migration pauses, validation, determinism, invariants."""

import math

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from trace_rows import gap_trace, trace

import compass
from compass.schedulers import Move, Placement, Scheduler, available, create
from compass.schedulers.gfs import GFS
from compass.sim.metrics import interval_lengths
from compass.sim.records import JOB_COLUMNS, job_columns, number_frame
from compass.sim.simulator import SchedulerError, SimulationError


class Logging(GFS):
    """Best-fit that logs every hook call, with a timer."""

    name = "logging"
    timer_period = 10.0

    def __init__(self, **kw):
        super().__init__(**kw)
        self.log = []

    def on_departure(self, job, state, now):
        self.log.append(("departure", now, job.job_id))
        return ()

    def on_arrival(self, job, state, now):
        self.log.append(("arrival", now, job.job_id))
        return ()

    def on_timer(self, state, now):
        self.log.append(("timer", now))
        return ()

    def place(self, job, state, now):
        self.log.append(("place", now, job.job_id))
        return super().place(job, state, now)


def test_equal_time_order_departures_timer_arrivals_pass():
    s = Logging()
    compass.simulate(trace((0, 0, 10, 1, 8), (1, 10, 5, 1, 8)), s, nodes=1)
    at10 = [e for e in s.log if e[1] == 10]
    assert at10 == [("departure", 10, 0), ("timer", 10), ("arrival", 10, 1), ("place", 10, 1)]
    # timers stop once the work is done
    assert max(e[1] for e in s.log if e[0] == "timer") <= 20


class MoveAt(GFS):
    """Best-fit plus scripted moves at timer instants: {time: [Move, ...]}."""

    name = "move-at"

    def __init__(self, script, period=5.0, **kw):
        super().__init__(**kw)
        self.script = script
        self.timer_period = period

    def on_timer(self, state, now):
        return self.script.get(now, ())


@pytest.mark.parametrize("rule, pause", [("per-event", 8.0), ("per-migration", 16.0)])
def test_migration_pause_holds_gpus_and_delays_departure(rule, pause):
    # job 0: two 1-GPU instances on node 0; both move to node 1 at t=5
    script = {5.0: [Move((0, 0), 1), Move((0, 1), 1)]}
    r = compass.simulate(trace((0, 0, 10, 2, 1)), MoveAt(script), nodes=2, pause_rule=rule)
    job = r.jobs.iloc[0]
    assert job["end_time"] == 10 + pause and job["pause_time"] == pause
    assert job["migrations"] == 1 and job["instance_moves"] == 2
    assert r.summary["migrations"] == 1
    tl = r.timeline.set_index("time")
    assert tl.loc[10.0, "used_gpus"] == 2  # still held during the pause
    assert list(r.migrations["src"]) == [0, 0] and list(r.migrations["dst"]) == [1, 1]


def test_moves_at_two_instants_stack_pauses():
    script = {5.0: [Move((0, 0), 1)], 10.0: [Move((0, 0), 0)]}
    r = compass.simulate(trace((0, 0, 10, 1, 1)), MoveAt(script), nodes=2, migration_cost=3)
    assert r.jobs.iloc[0]["end_time"] == 16 and r.jobs.iloc[0]["migrations"] == 2


class PlaceThenMove(GFS):
    name = "place-then-move"

    def place(self, job, state, now):
        p = super().place(job, state, now)
        if p is None:
            return None
        dst = 1 - p.nodes[0]
        return Placement(job.job_id, p.nodes, (Move((job.job_id, 0), dst),))


def test_moving_a_job_started_in_the_same_instant_is_free():
    r = compass.simulate(trace((0, 0, 10, 1, 2)), PlaceThenMove(), nodes=2)
    assert r.jobs.iloc[0]["end_time"] == 10 and r.jobs.iloc[0]["migrations"] == 0
    assert list(r.migrations["charged"]) == [False]


class Bad(Scheduler):
    name = "bad"

    def __init__(self, answer, **kw):
        super().__init__(**kw)
        self.answer = answer

    def place(self, job, state, now):
        return self.answer(job, state)


@pytest.mark.parametrize(
    "answer, match",
    [
        (lambda j, s: Placement(j.job_id, (0, 0)), "2 nodes"),
        (lambda j, s: Placement(j.job_id, (5,)), "not in 0..1"),
        (lambda j, s: Placement(99, (0,)), "returned"),
        (lambda j, s: Placement(j.job_id, (0,), (Move((42, 0), 1),)), "not running"),
    ],
)
def test_invalid_decisions_raise_naming_the_scheduler(answer, match):
    with pytest.raises(SchedulerError, match=rf"^bad: .*{match}"):
        compass.simulate(trace((0, 0, 10, 1, 4)), Bad(answer), nodes=2)


def test_over_commit_is_refused():
    t = trace((0, 0, 10, 1, 8), (1, 1, 10, 1, 8))
    with pytest.raises(SchedulerError, match="over-commit"):
        compass.simulate(t, Bad(lambda j, s: Placement(j.job_id, (0,))), nodes=2)


def test_job_larger_than_cluster_is_rejected_up_front():
    with pytest.raises(SimulationError, match="job 0 .*cannot fit an empty cluster of 2 nodes"):
        compass.simulate(trace((0, 0, 10, 3, 8)), "gfs", nodes=2)


def test_scheduler_that_never_places_is_reported():
    with pytest.raises(SimulationError, match="cannot place job 0"):
        compass.simulate(trace((0, 0, 10, 1, 1)), Bad(lambda j, s: None), nodes=2)


# ------------------------------------------------------------------ properties
job_rows = st.lists(
    st.tuples(
        st.integers(0, 40),  # inter-arrival gap
        st.integers(1, 60),  # duration
        st.integers(1, 4),  # w
        st.sampled_from([1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8]),  # g
    ),
    min_size=1,
    max_size=25,
)


def check_run_invariants(tr, r, nodes):
    jobs = r.jobs
    assert len(jobs) == len(tr)
    assert jobs["end_time"].notna().all(), "every job completes"
    assert (jobs["start_time"] >= jobs["submit_time"]).all()
    assert np.allclose(jobs["end_time"] - jobs["start_time"], jobs["duration"] + jobs["pause_time"])
    tl = r.timeline
    assert (tl["sif"] >= 0).all() and (tl["phi_star"] <= tl["partial_nodes"]).all()
    assert (tl["used_gpus"] <= nodes * 8).all()
    assert tl["used_gpus"].iloc[-1] == 0 and tl["queue_len"].iloc[-1] == 0
    # GPU-seconds conserved: the integral of allocated GPUs equals each job's held time
    held = float(np.dot(tl["used_gpus"], interval_lengths(tl)))
    gpus = jobs["num_instances"] * jobs["gpus_per_instance"]
    assert held == pytest.approx(float((gpus * (jobs["end_time"] - jobs["start_time"])).sum()))


@settings(max_examples=40, deadline=None)
@given(rows=job_rows, nodes=st.integers(1, 5), scheduler=st.sampled_from(available()))
def test_every_scheduler_keeps_the_invariants(rows, nodes, scheduler):
    tr = gap_trace(rows, nodes)
    r = compass.simulate(tr, scheduler, nodes=nodes, debug_checks=True)
    check_run_invariants(tr, r, nodes)


@settings(max_examples=30, deadline=None)
@given(rows=job_rows, nodes=st.integers(1, 5))
def test_fifo_head_of_line_starts_jobs_in_submit_order(rows, nodes):
    tr = gap_trace(rows, nodes)
    for name in ("gfs", "first-fit"):
        starts = compass.simulate(tr, name, nodes=nodes).jobs["start_time"].to_numpy()
        assert (np.diff(starts) >= 0).all()


@pytest.mark.parametrize("scheduler", available())
def test_same_inputs_give_identical_outputs(scheduler):
    tr = compass.traces.demo_trace(num_jobs=120, seed=1)
    a = compass.simulate(tr, scheduler, nodes=8, seed=3)
    b = compass.simulate(tr, scheduler, nodes=8, seed=3)
    assert a.jobs.equals(b.jobs) and a.timeline.equals(b.timeline)
    assert a.migrations.equals(b.migrations)
    assert {k: v for k, v in a.summary.items() if not (isinstance(v, float) and math.isnan(v))} == \
        {k: v for k, v in b.summary.items() if not (isinstance(v, float) and math.isnan(v))}


def test_runs_do_not_share_state():
    s = create("gfs")
    tr = compass.traces.demo_trace(num_jobs=60, seed=2)
    first = compass.simulate(tr, s, nodes=6)
    second = compass.simulate(tr, s, nodes=6)
    assert first.jobs.equals(second.jobs)



class MoveOnDeparture(GFS):
    """When job 0 departs, move job 1's instance; job 1 departs at the same instant."""

    name = "move-on-departure"

    def on_departure(self, job, state, now):
        if job.job_id == 0 and state.is_running(1):
            dst = 1 - state.node_of((1, 0))
            return (Move((1, 0), dst),)
        return ()


def test_a_job_moved_then_departing_in_the_same_instant_is_not_charged():
    r = compass.simulate(trace((0, 0, 10, 1, 8), (1, 0, 10, 1, 4)), MoveOnDeparture(), nodes=2)
    assert list(r.jobs["end_time"]) == [10, 10] and r.summary["migrations"] == 0
    assert list(r.migrations["charged"]) == [False]


# ------------------------------------------------------- skipped idle instants
def eager(scheduler: Scheduler) -> Scheduler:
    """The same scheduler with every instant handled (the reference)."""
    scheduler.skip_idle_instants = False
    return scheduler


def skipping_schedulers(period: float) -> list:
    """Schedulers that skip idle instants: with timers, and migrating ones (whose pauses
    leave superseded departures)."""
    return [lambda: create("fft", round_s=period), lambda: create("drr", re_time=period),
            lambda: create("drr", re_time=period, util_threshold=0.9, re_num=2),
            lambda: create("compass-abs"), lambda: create("compass-abs-paper"),
            lambda: create("sifopt")]


@settings(max_examples=60, deadline=None)
@given(rows=job_rows, nodes=st.integers(1, 5), period=st.sampled_from([7.0, 30.0, 100.0]),
       which=st.integers(0, 5))
def test_skipping_idle_instants_changes_no_decision(rows, nodes, period, which):
    """A scheduler that declares ``skip_idle_instants`` makes the same decisions as when every
    instant is handled; the timeline loses only rows equal to the row before them."""
    make = skipping_schedulers(period)[which]
    assert make().skip_idle_instants
    tr = gap_trace(rows, nodes)
    lazy = compass.simulate(tr, make(), nodes=nodes, debug_checks=True, migration_cost=13.0)
    ref = compass.simulate(tr, eager(make()), nodes=nodes, migration_cost=13.0)
    assert lazy.jobs.equals(ref.jobs) and lazy.migrations.equals(ref.migrations)
    full, kept = ref.timeline, ref.timeline["time"].isin(lazy.timeline["time"]).to_numpy()
    assert full[kept].reset_index(drop=True).equals(lazy.timeline)
    values = full.drop(columns="time").astype(object)
    same_as_before = [i > 0 and values.iloc[i].equals(values.iloc[i - 1])
                      for i in range(len(full))]
    assert all(same_as_before[i] for i in np.flatnonzero(~kept))
    for metric in ("afr", "agu", "ajct", "peak_seconds", "horizon_seconds"):
        a, b = lazy.summary[metric], ref.summary[metric]
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)


def test_idle_rounds_are_skipped_and_busy_ones_kept():
    """On a loaded demo stream FFT skips most of its idle rounds, still repacks as often."""
    tr = compass.traces.demo_trace(num_jobs=200, seed=4, max_instances=4)
    lazy, ref = create("fft", round_s=60.0), eager(create("fft", round_s=60.0))
    a = compass.simulate(tr, lazy, nodes=6)
    b = compass.simulate(tr, ref, nodes=6)
    assert lazy.stats.rounds < ref.stats.rounds / 2 and len(a.timeline) < len(b.timeline)
    assert lazy.stats.repacks == ref.stats.repacks > 0


@settings(max_examples=200, deadline=None)
@given(period=st.floats(1e-3, 1e4), t=st.floats(0, 1e7))
def test_timer_at_or_after_is_the_first_multiple_not_before(period, t):
    from compass.cluster import ClusterState
    from compass.sim.dispatch import Dispatcher

    sched = create("fft", round_s=period)
    first = Dispatcher(sched, ClusterState(1)).timer_at_or_after(t)
    k = round(first / period)
    assert first == k * period and first >= t and (k - 1) * period < t


def test_a_round_that_moved_is_followed_by_the_next_round():
    """DRR drains one node per cycle here (re_num = 1): three 1-GPU nodes take two
    consecutive cycles with no event between them; neither may be skipped."""
    tr = trace(*[(k, 0.0, 10.0, 1, 7) for k in range(3)],
               *[(k, 0.0, 1000.0, 1, 1) for k in range(3, 6)])
    lazy = compass.simulate(tr, create("drr", re_time=30.0, re_num=1), nodes=3)
    ref = compass.simulate(tr, eager(create("drr", re_time=30.0, re_num=1)), nodes=3)
    assert list(lazy.migrations["time"]) == [30.0, 60.0]
    assert lazy.migrations.equals(ref.migrations) and lazy.jobs.equals(ref.jobs)


class Gather(Scheduler):
    """Places on the last node with room; each round moves one instance to node 0."""

    name = "gather"
    timer_period = 10.0
    skip_idle_instants = True

    def place(self, job, state, now):
        room = [n for n in range(state.nodes) if state.free(n) >= job.gpus_per_instance]
        return Placement(job.job_id, (room[-1],)) if job.num_instances == 1 and room else None

    def on_timer(self, state, now):
        for n in range(state.nodes - 1, 0, -1):
            for key, g in state.instances_on(n).items():
                if state.free(0) >= g:
                    return (Move(key, 0),)
        return ()


def test_a_job_started_at_an_idle_round_wakes_the_next_round():
    """The round at t = 10 finds nothing to do, then a job starts at t = 10: the round at 20
    (no event before it) must still run and move it."""
    lazy = compass.simulate(trace((0, 10.0, 100.0, 1, 1)), Gather(), nodes=2)
    ref = compass.simulate(trace((0, 10.0, 100.0, 1, 1)), eager(Gather()), nodes=2)
    assert list(lazy.migrations["time"]) == [20.0]
    assert lazy.migrations.equals(ref.migrations) and lazy.jobs.equals(ref.jobs)


def test_a_departure_superseded_by_a_pause_makes_no_instant():
    """Job 1 moves at t = 30 (pause 10 s), so its departure at 100 becomes one at 110: the
    reference handles an instant at 100 where nothing happens, the skipping run does not."""
    tr = trace(*[(k, 0.0, 10.0, 1, 7) for k in range(2)], (2, 0.0, 100.0, 1, 1),
               (3, 0.0, 1000.0, 1, 1))
    run = dict(nodes=2, migration_cost=10.0)
    lazy = compass.simulate(tr, create("drr", re_time=30.0), **run)
    ref = compass.simulate(tr, eager(create("drr", re_time=30.0)), **run)
    assert lazy.jobs.equals(ref.jobs) and lazy.migrations.equals(ref.migrations)
    assert 100.0 in set(ref.timeline["time"]) and 100.0 not in set(lazy.timeline["time"])


@pytest.mark.parametrize("values", [[1, 2, 3], [0.5, 2.0, 3.5], [1, 2.5, 3], [math.nan, 1, 2],
                                    [None, 1.0, 2.0], [2**63, 1, 2], [2**70, 1, 2],
                                    ["a", "b", "c"], [True, False, True]])
def test_number_frame_infers_the_dtypes_pandas_infers(values):
    columns = {"x": values, "n": [1, 2, 3]}
    pd.testing.assert_frame_equal(number_frame(columns), pd.DataFrame(columns))


def test_job_columns_are_the_job_table_and_empty_runs_keep_its_columns():
    assert tuple(job_columns([], [], [], [], [], [])) == JOB_COLUMNS
    empty = number_frame(job_columns([], [], [], [], [], []))
    pd.testing.assert_frame_equal(empty, pd.DataFrame([], columns=list(JOB_COLUMNS)))
