"""Pre-moves: migrations a Placement carries before the job starts (ClusterState,
Dispatcher, simulator). Validated with the placement, all or nothing, with no over-commit
at any step; charged like every other migration; applied in order at their instant."""

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from trace_rows import trace

import compass
from compass.cluster import ClusterState, PlacementError
from compass.model import Job
from compass.schedulers import Move, Placement
from compass.schedulers.gfs import GFS
from compass.sim.dispatch import AppliedMove, Dispatcher, SchedulerError


def snapshot(s: ClusterState) -> tuple:
    """Everything a plan could change, placement order on each node included."""
    return (s.free_list(), [list(s.instances_on(n).items()) for n in range(s.nodes)],
            list(s.running_jobs()), s.counts, s.used_gpus, s.partial_nodes)


def two_full_nodes() -> ClusterState:
    """Node 0: job 0 (4 GPUs), free 4. Node 1: jobs 1 and 2 (4 GPUs each), full."""
    s = ClusterState(2)
    s.place_job(0, 4, [0])
    s.place_job(1, 4, [1])
    s.place_job(2, 4, [1])
    return s


# ------------------------------------------------------------------ ClusterState
def test_moves_then_the_job():
    s = two_full_nodes()
    sources = s.place_job_after_moves(3, 4, [1], [((1, 0), 0)])
    assert sources == [1]
    assert s.job_nodes(1) == (0,) and s.job_nodes(3) == (1,) and s.free_list() == [0, 0]
    s.check()


def test_each_step_is_checked_on_the_state_the_steps_before_leave():
    """Job 1 to node 0 then job 0 to node 1 is valid; the other order over-commits node 1
    at its first step although the end state is the same: refused, and no trace."""
    s = two_full_nodes()
    before = snapshot(s)
    with pytest.raises(PlacementError, match="move 0 of \\(0, 0\\) to node 1 is refused"):
        s.place_job_after_moves(3, 2, [0], [((0, 0), 1), ((1, 0), 0)])
    assert snapshot(s) == before
    assert s.place_job_after_moves(3, 2, [0], [((1, 0), 0), ((0, 0), 1)]) == [1, 0]
    s.check()


@pytest.mark.parametrize("nodes, moves, match", [
    ([0], [((1, 0), 0)], "node 0 has 0 free GPUs after the moves"),   # the job over-commits
    ([1], [((9, 0), 0)], "not running"),
    ([1], [((1, 0), 1)], "it is on node 1"),                           # a move onto its node
    ([1], [((1, 0), 5)], "not in 0..1"),
    ([7], [((1, 0), 0)], "not in 0..1"),
    ([1], [((1, 0), 0), ((1, 0), 0)], "it is on node 0"),               # moved twice the same way
])
def test_a_refused_plan_leaves_no_trace(nodes, moves, match):
    s = two_full_nodes()
    before = snapshot(s)
    with pytest.raises(PlacementError, match=match):
        s.place_job_after_moves(3, 4, nodes, moves)
    assert snapshot(s) == before
    s.check()


@pytest.mark.parametrize("job_id, size, nodes, match", [
    (0, 4, [1], "already running"), (3, 9, [1], "does not fit"), (3, 4, [], "at least one")])
def test_the_jobs_own_errors_come_first_and_leave_no_trace(job_id, size, nodes, match):
    s = two_full_nodes()
    before = snapshot(s)
    with pytest.raises(PlacementError, match=match):
        s.place_job_after_moves(job_id, size, nodes, [((1, 0), 0)])
    assert snapshot(s) == before


def test_an_instance_may_move_twice():
    s = two_full_nodes()
    s.release_job(2)                                    # node 1: job 1, free 4
    assert s.place_job_after_moves(3, 8, [1], [((1, 0), 0), ((0, 0), 1), ((0, 0), 0)]) == [
        1, 0, 1]
    assert s.job_nodes(0) == (0,) and s.job_nodes(1) == (0,)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_all_or_nothing_against_a_step_by_step_reference(data):
    """The reference applies the steps one by one on a copy; the plan must end in the same
    state when every step succeeds there, and refuse leaving no trace otherwise."""
    s = ClusterState(3)
    for j, (g, n) in enumerate(data.draw(st.lists(st.tuples(st.sampled_from([1, 2, 4]),
                                                              st.integers(0, 2)), max_size=8))):
        if s.free(n) >= g:
            s.place_job(j, g, [n])
    keys = [k for j in s.running_jobs() for k in s.job_instances(j)]
    moves = data.draw(st.lists(st.tuples(st.sampled_from(keys + [(99, 0)]), st.integers(0, 2)),
                               max_size=4)) if keys else []
    size = data.draw(st.sampled_from([1, 2, 4, 8]))
    nodes = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=2))
    reference = s.copy()
    try:
        for instance, dst in moves:
            reference.move(instance, dst)
        reference.place_job(50, size, nodes)
        ok = True
    except PlacementError:
        ok = False
    before = snapshot(s)
    try:
        s.place_job_after_moves(50, size, nodes, moves)
        assert ok and s.free_list() == reference.free_list()
        assert all(s.node_of(k) == reference.node_of(k) for k in keys)
    except PlacementError:
        assert not ok and snapshot(s) == before
    s.check()


# -------------------------------------------------------------------- Dispatcher
class PreMoving(GFS):
    """Best-fit, except for scripted placements {job id: Placement}."""

    name = "pre-moving"

    def __init__(self, script):
        super().__init__()
        self.script = script

    def place(self, job, state, now):
        return self.script.get(job.job_id) or super().place(job, state, now)


def job(job_id, w, g):
    return Job(job_id, 0.0, 10.0, w, g)


def test_pre_moves_are_applied_before_the_job_and_moves_after_it():
    script = {3: Placement(3, (1,), moves=(Move((3, 0), 2, "place"),),
                           pre_moves=(Move((2, 0), 0, "admit"),))}
    d = Dispatcher(PreMoving(script), ClusterState(3))
    d.step(0.0, arrivals=[job(0, 1, 4), job(1, 1, 4), job(2, 1, 4)])  # node 0: 0, 1; node 1: 2
    d.state.release_job(0)
    instant = d.step(1.0, arrivals=[job(3, 1, 8)])   # 8 GPUs need node 1 emptied first
    assert instant.started == [3]
    assert instant.moves == [AppliedMove((2, 0), 1, 0, "admit"), AppliedMove((3, 0), 1, 2, "place")]
    assert d.state.job_nodes(2) == (0,) and d.state.job_nodes(3) == (2,)
    assert instant.migrated_jobs(d.state) == {2: [0]}


def test_pre_moves_charge_running_jobs_and_not_jobs_started_at_the_instant():
    """Job 1 started earlier: its pre-move is a migration. Job 2 starts at the same instant
    as job 3, whose pre-move moves it: free, it is launched where it ends up."""
    script = {3: Placement(3, (0,), pre_moves=(Move((2, 0), 1), Move((1, 0), 1)))}
    d = Dispatcher(PreMoving(script), ClusterState(2))
    d.step(0.0, arrivals=[job(1, 1, 4)])                                # node 0
    instant = d.step(1.0, arrivals=[job(2, 1, 4), job(3, 1, 8)])        # 2 on node 0
    assert instant.started == [2, 3]
    assert [(m.instance, m.src, m.dst) for m in instant.moves] == [((2, 0), 0, 1), ((1, 0), 0, 1)]
    assert instant.migrated_jobs(d.state) == {1: [1]}


def test_a_refused_plan_raises_naming_the_scheduler_and_leaves_no_trace():
    script = {2: Placement(2, (1,), pre_moves=(Move((0, 0), 1), Move((1, 0), 0)))}
    d = Dispatcher(PreMoving(script), ClusterState(2))
    d.step(0.0, arrivals=[job(0, 1, 8), job(1, 1, 8)])
    before = snapshot(d.state)
    with pytest.raises(SchedulerError, match="^pre-moving: invalid placement at t=1.0: .*move 0"):
        d.step(1.0, arrivals=[job(2, 1, 2)])
    assert snapshot(d.state) == before


def test_a_pre_move_must_be_a_move():
    d = Dispatcher(PreMoving({0: Placement(0, (0,), pre_moves=((5, 0),))}), ClusterState(1))
    with pytest.raises(SchedulerError, match="expected a Move"):
        d.step(0.0, arrivals=[job(0, 1, 2)])


# --------------------------------------------------------------------- simulator
class MakeRoom(GFS):
    """Admits job 2 (8 GPUs) at once by moving job 1 (4 GPUs) next to job 0."""

    name = "make-room"

    def place(self, job, state, now):
        if job.job_id == 2:
            return Placement(2, (1,), pre_moves=(Move((1, 0), 0, "admit"),))
        return Placement(job.job_id, (job.job_id,))


@pytest.mark.parametrize("rule, pause", [("per-event", 6.0), ("per-migration", 6.0)])
def test_the_simulator_charges_pre_moves_like_any_migration(rule, pause):
    t = trace((0, 0, 100, 1, 4), (1, 0, 100, 1, 4), (2, 5, 30, 1, 8))
    r = compass.simulate(t, MakeRoom(), nodes=2, migration_cost=6.0, pause_rule=rule,
                         debug_checks=True)
    jobs = r.jobs.set_index("job_id")
    assert jobs.loc[2, "start_time"] == 5 and jobs.loc[2, "pause_time"] == 0
    assert jobs.loc[1, "pause_time"] == pause and jobs.loc[1, "end_time"] == 100 + pause
    assert jobs.loc[1, "migrations"] == 1 and jobs.loc[1, "instance_moves"] == 1
    assert list(r.migrations[["time", "job_id", "src", "dst", "charged", "operator"]]
                .itertuples(index=False, name=None)) == [(5.0, 1, 1, 0, True, "admit")]
    assert r.timeline.set_index("time").loc[5.0, "used_gpus"] == 16


def test_pre_moves_use_the_room_of_departures_at_the_same_instant():
    """Departures come first in an instant: job 0 ends at t = 10, so job 1's pre-move onto
    node 0 at t = 10 has room, and the 8-GPU job starts on node 1."""
    class AfterDeparture(GFS):
        name = "after-departure"

        def place(self, job, state, now):
            if job.job_id == 2:
                if state.free(0) < 4:
                    return None
                return Placement(2, (1,), pre_moves=(Move((1, 0), 0),))
            return super().place(job, state, now)

    t = trace((0, 0, 10, 1, 8), (1, 0, 100, 1, 4), (2, 5, 30, 1, 8))
    r = compass.simulate(t, AfterDeparture(), nodes=2, migration_cost=1.0, debug_checks=True)
    jobs = r.jobs.set_index("job_id")
    assert jobs.loc[2, "start_time"] == 10 and jobs.loc[1, "pause_time"] == 1.0
