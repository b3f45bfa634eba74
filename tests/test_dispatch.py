"""The decision core shared by the simulator and the runtime (compass.sim.dispatch)."""

import hypothesis.strategies as st
import pytest
from hypothesis import given

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers import Move, Placement
from compass.schedulers.gfs import GFS
from compass.sim.dispatch import (
    AppliedMove,
    Dispatcher,
    Instant,
    JobQueue,
    SchedulerError,
    UnfitJob,
    check_jobs_fit,
    overrides,
)


def job(job_id: int, w: int, g: int, submit: float = 0.0) -> Job:
    return Job(job_id, submit, 10.0, w, g)


class Scripted(GFS):
    """Best-fit that also returns scripted moves from its hooks, keyed by hook name."""

    def __init__(self, script: dict[str, list[Move]]) -> None:
        super().__init__()
        self.script = script
        self.calls: list[str] = []

    def _hook(self, name: str) -> list[Move]:
        self.calls.append(name)
        return self.script.pop(name, [])

    def on_departure(self, job, state, now):
        return self._hook(f"departure {job.job_id}")

    def on_timer(self, state, now):
        return self._hook("timer")

    def on_arrival(self, job, state, now):
        return self._hook(f"arrival {job.job_id}")


def test_step_order_and_outcome():
    scheduler = Scripted({"departure 0": [Move((1, 0), 1)], "arrival 2": [Move((1, 0), 0)]})
    d = Dispatcher(scheduler, ClusterState(2))
    d.reset([])
    first = d.step(0.0, arrivals=[job(0, 1, 4), job(1, 1, 2)])
    assert first.started == [0, 1] and not first.moves and not d.queue
    assert d.state.job_nodes(0) == (0,) and d.state.job_nodes(1) == (0,)
    second = d.step(5.0, departures=[job(0, 1, 4)], timer=True, arrivals=[job(2, 2, 8)])
    assert scheduler.calls[-3:] == ["departure 0", "timer", "arrival 2"]
    assert second.departed == [0]
    assert second.moves == [AppliedMove((1, 0), 0, 1), AppliedMove((1, 0), 1, 0)]
    # job 2 (two 8-GPU instances) cannot start while job 1 holds a node: head-of-line wait
    assert second.started == [] and [j.job_id for j in d.queue] == [2]
    assert second.migrated_jobs(d.state) == {1: [0, 1]}


def test_moves_of_started_or_departed_jobs_are_not_migrations():
    d = Dispatcher(Scripted({"departure 1": [Move((0, 0), 1)]}), ClusterState(2))
    d.step(0.0, arrivals=[job(0, 1, 2), job(1, 1, 2)])
    outcome = d.step(1.0, departures=[job(1, 1, 2), job(0, 1, 2)])
    assert outcome.moves == [AppliedMove((0, 0), 0, 1)]
    assert outcome.migrated_jobs(d.state) == {}  # job 0 moved, then departed


class Running:
    """A state stand-in for ``migrated_jobs``: only ``is_running`` is read."""

    def __init__(self, jobs: set[int]) -> None:
        self.jobs = jobs

    def is_running(self, job_id: int) -> bool:
        return job_id in self.jobs


@given(moved=st.lists(st.integers(0, 6), max_size=12), started=st.sets(st.integers(0, 6)),
       running=st.sets(st.integers(0, 6)))
def test_migrated_jobs_are_the_moved_jobs_running_before_and_after(moved, started, running):
    instant = Instant(0.0, started=sorted(started),
                      moves=[AppliedMove((j, 0), 0, 1) for j in moved])
    simple: dict[int, list[int]] = {}
    for i, j in enumerate(moved):
        if j not in started and j in running:
            simple.setdefault(j, []).append(i)
    got = instant.migrated_jobs(Running(running))
    assert got == simple and list(got) == sorted(simple)


def test_invalid_move_names_the_scheduler():
    d = Dispatcher(Scripted({"arrival 1": [Move((0, 0), 5)]}), ClusterState(2))
    d.step(0.0, arrivals=[job(0, 1, 2)])
    with pytest.raises(SchedulerError, match="gfs: invalid move"):
        d.step(1.0, arrivals=[job(1, 1, 2)])


def test_placement_with_wrong_width_is_refused():
    class Short(GFS):
        def place(self, job, state, now):
            return Placement(job.job_id, (0,))

    d = Dispatcher(Short(), ClusterState(2))
    with pytest.raises(SchedulerError, match="has 2 instances"):
        d.step(0.0, arrivals=[job(0, 2, 1)])


def test_stuck_names_the_refused_queue_head():
    class Never(GFS):
        def place(self, job, state, now):
            return None

    d = Dispatcher(Never(), ClusterState(2))
    assert d.stuck() is None
    d.step(0.0, arrivals=[job(7, 1, 2)])
    assert d.stuck() == ("scheduler 'gfs' cannot place job 7 (w=1, g=2) on an idle cluster "
                         "of 2 nodes")


def test_jobs_that_no_empty_cluster_holds_are_refused():
    check_jobs_fit([job(0, 2, 8)], nodes=2, gpus_per_node=8)
    with pytest.raises(UnfitJob, match="job 1 .* cannot fit an empty cluster of 2 nodes"):
        check_jobs_fit([job(0, 2, 8), job(1, 3, 8)], nodes=2, gpus_per_node=8)
    with pytest.raises(UnfitJob, match="multiple of 8"):
        check_jobs_fit([job(0, 1, 12)], nodes=1, gpus_per_node=16)


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 30)), max_size=120))
def test_job_queue_matches_a_list(ops):
    """Appends and removals of any queued jobs keep the FIFO order a plain list keeps;
    indexing, length and iteration agree with it; the dict ``by_id`` stays the same object
    when removals rebuild it."""
    queue, ref, next_id = JobQueue(), [], 0
    by_id = queue.by_id
    for add, pick in ops:
        if add or not ref:
            queue.append(job(next_id, 1, 1))
            ref.append(next_id)
            next_id += 1
        else:
            gone = sorted({ref[pick % len(ref)], ref[(pick * 7) % len(ref)]})
            queue.remove(gone)
            ref = [j for j in ref if j not in gone]
        assert [j.job_id for j in queue] == ref and len(queue) == len(ref)
        assert bool(queue) == bool(ref) and queue.by_id is by_id
        for k in range(-len(ref), len(ref)):
            assert queue[k].job_id == ref[k]
        for k in (len(ref), -len(ref) - 1):
            with pytest.raises(IndexError):
                queue[k]


def test_job_queue_refuses_a_queued_id_and_clears():
    queue = JobQueue([job(1, 1, 1), job(2, 1, 1)])
    with pytest.raises(ValueError, match="queued already"):
        queue.append(job(1, 1, 1))
    queue.clear()
    assert not queue and list(queue) == []


def test_out_of_order_admission_keeps_the_rest_in_order():
    """A non-blocking order that admits a later job leaves the others queued in FIFO order."""

    class LastFirst(GFS):
        def admission_order(self, queue, state, now):
            return list(reversed(list(queue))), False

    d = Dispatcher(LastFirst(), ClusterState(1))
    instant = d.step(0.0, arrivals=[job(0, 1, 8), job(1, 1, 8), job(2, 1, 4), job(3, 1, 4)])
    assert instant.started == [3, 2]
    assert [j.job_id for j in d.queue] == [0, 1]


def test_overrides_tells_inherited_hooks_apart():
    scripted = Scripted({})
    assert overrides(scripted, "on_arrival") and overrides(scripted, "on_timer")
    assert not overrides(scripted, "admission_order") and not overrides(GFS(), "on_arrival")
    plain = GFS()
    plain.on_arrival = lambda job, state, now: ()  # an instance's own hook counts
    assert overrides(plain, "on_arrival")
