"""COMPASS-ABS operators on hand-worked examples (section 4.3, Algorithm 1).

``Driver`` applies the scheduler's decisions to a ``ClusterState`` exactly as the simulator
does (pre-moves and place_job, then each move; on a departure release_job then each move),
with no queue: a refused arrival is dropped. tests/test_compass_theorems.py reuses it.
"""

from __future__ import annotations

import random

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

import compass
from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers import Move, available, create
from compass.schedulers.abs_space import AbsSpace, AbsViolation, Spot
from compass.schedulers.compass_abs import CompassAbs, CompassAbsPaper, one_gpu_spot
from compass.traces import demo_trace

BOTH = ["compass-abs", "compass-abs-paper"]


class Driver:
    """Arrivals and departures applied to a cluster state, one decision at a time (a
placement's pre-moves, then the job, then its moves, as the engine applies them)."""

    def __init__(self, name: str = "compass-abs", nodes: int = 4, **params) -> None:
        self.state = ClusterState(nodes)
        self.scheduler = create(name, **params)
        self.scheduler.reset(self.state, [])
        self.jobs: dict[int, Job] = {}
        self.next_id = 0
        self.last_moves: tuple[Move, ...] = ()
        #: every decision is its own instant (moves of a job started at the same instant
        #: are free, and COMPASS-ABS+ plans with that)
        self.clock = 0.0

    @property
    def space(self) -> AbsSpace:
        return self.scheduler.space

    def arrive(self, g: int, w: int = 1) -> int | None:
        """Offer a job of w instances of g GPUs; its id, or None if refused."""
        job = Job(self.next_id, 0.0, 1.0, w, g)
        self.next_id += 1
        self.clock += 1.0
        placement = self.scheduler.place(job, self.state, self.clock)
        if placement is None:
            return None
        self.state.place_job_after_moves(job.job_id, g, placement.nodes,
                                         [(m.instance, m.dst) for m in placement.pre_moves])
        self._apply(placement.moves)
        self.last_moves = placement.pre_moves + placement.moves
        self.jobs[job.job_id] = job
        return job.job_id

    def depart(self, job_id: int) -> None:
        job = self.jobs.pop(job_id)
        self.state.release_job(job_id)
        self.clock += 1.0
        self._apply(tuple(self.scheduler.on_departure(job, self.state, self.clock)))

    def check(self) -> None:
        self.state.check()
        self.scheduler.check(self.state)

    def widths(self, n: int) -> list[int]:
        return sorted(s.width for s in self.space.slots_on(n))

    def nonfull(self) -> tuple[int, int]:
        """Non-fully-packed (slotted, pool) nodes (Theorem 1)."""
        kinds = [self.space.kind(n) for n in range(self.state.nodes) if self.state.free(n) > 0]
        return kinds.count("slotted"), kinds.count("pool")

    def _apply(self, moves: tuple[Move, ...]) -> None:
        for m in moves:
            self.state.move(m.instance, m.dst)
        self.last_moves = moves


# ------------------------------------------------------------------ registry
def test_both_variants_are_registered():
    assert {"compass-abs", "compass-abs-paper"} <= set(available())
    assert isinstance(create("compass-abs"), CompassAbs) and CompassAbs.repair
    assert isinstance(create("compass-abs-paper"), CompassAbsPaper)
    assert not CompassAbsPaper.repair


def test_scheduling_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        create("compass-abs").place(Job(0, 0, 1, 1, 1), ClusterState(1), 0.0)


def test_abs_needs_eight_gpu_nodes():
    with pytest.raises(ValueError, match="8-GPU"):
        create("compass-abs").reset(ClusterState(2, gpus_per_node=4), [])


# --------------------------------------------------------------------- Place
def test_anchor_goes_to_least_residual_slotted_node():
    d = Driver(nodes=3, compact_on_arrival=False)   # Place alone
    d.arrive(8)                       # node 0 {8}
    d.arrive(2)                       # node 1 {2}, D = 6
    assert d.state.job_nodes(d.arrive(4)) == (1,)        # D(1) = 6 >= 4: {2, 4}
    d.arrive(4)                       # D(1) = 2 < 4: the lowest empty node, 2
    assert d.widths(2) == [4]
    assert d.state.job_nodes(d.arrive(2)) == (1,)        # least D >= 2: node 1 (D=2), not 2 (D=4)
    assert d.widths(1) == [2, 2, 4]
    d.check()


def test_unfriendly_anchor_draws_fillers_from_the_sparsest_pool_node():
    d = Driver(nodes=3)
    d.arrive(1, 8)                    # pool node 0, full
    d.arrive(1, 2)                    # pool node 1, 2 occupants
    job = d.arrive(5)                 # width-8 slot on node 2, vacancy 3
    slot = d.space.slot((job, 0))
    assert slot.node == 2 and slot.width == 8 and slot.vacancy == 0
    assert sorted(slot.fillers) == [(0, 0), (1, 0), (1, 1)]   # node 1 first, then node 0
    assert d.space.kind(1) == "empty" and len(d.space.pool_on(0)) == 7
    assert d.last_moves == (Move((1, 0), 2), Move((1, 1), 2), Move((0, 0), 2))
    assert {m.operator for m in d.last_moves} == {"place"}
    d.check()


def test_a_jobs_anchors_are_placed_before_its_fillers_are_drawn():
    """A pool node emptied by a job's own filler draws is not reused for its anchors: the
    engine places every instance before it applies any migration."""
    d = Driver(nodes=3)
    d.arrive(1, 3)                    # pool node 0 with 3
    job = d.arrive(5, 2)
    assert d.state.job_nodes(job) == (1, 2)
    assert d.space.kind(0) == "empty"
    d.check()


def test_departed_filler_is_replaced_from_the_pool():
    d = Driver(nodes=3)
    d.arrive(1)                       # pool node 0
    fuf = d.arrive(3)                 # node 1 {4}, draws the pool's only instance
    one = d.arrive(1)                 # pool node 0 again
    d.depart(0)                       # the filler leaves; the pool refills the slot
    assert d.space.slot((fuf, 0)).fillers == {(one, 0)}
    assert d.space.kind(0) == "empty"
    assert d.last_moves == (Move((one, 0), 1),)
    assert [m.operator for m in d.last_moves] == ["remove"]
    extra = d.arrive(1)
    assert d.space.spot((extra, 0)) == Spot("pool", 0)
    d.check()


def test_one_gpu_rule_order_on_a_hand_built_space():
    space = AbsSpace(4)
    space.add_one((0, 0), Spot("pool", 2))
    for k in range(5):
        space.add_one((1, k), Spot("pool", 1))
    for k in range(3):
        space.add_one((2, k), Spot("pool", 3))
    assert one_gpu_spot(space) == Spot("pool", 1)        # fullest partial pool node
    for k in range(5, 8):
        space.add_one((1, k), Spot("pool", 1))
    assert one_gpu_spot(space) == Spot("pool", 3)
    slot = space.open_slot((9, 0), 3, 0)
    assert one_gpu_spot(space) == space.filler_spot(slot)  # a vacancy beats any pool node


def test_waiting_rule_refuses_a_one_gpu_job_without_a_destination():
    d = Driver(nodes=1)
    d.arrive(4)                       # node 0 {4}: 4 free GPUs, but no vacancy/pool/empty
    before = d.space.layout()
    assert d.arrive(1) is None
    assert d.space.layout() == before and d.state.used_gpus == 4
    d.check()


def test_overflow_option_places_the_one_gpu_instance_as_a_stray():
    d = Driver(nodes=2, one_gpu_overflow=True)
    d.arrive(4)
    d.arrive(1, 8)                    # pool node 1, full
    one = d.arrive(1)
    assert d.space.spot((one, 0)) == Spot("stray", 0) and not d.space.in_space
    d.check()
    d.depart(1)                       # the pool empties: the stray is re-homed there
    assert d.space.in_space and d.space.spot((one, 0)) == Spot("pool", 1)
    d.check()


@pytest.mark.parametrize("compact_on_arrival", [True, False])
def test_stray_is_rehomed_when_a_filler_draw_opens_a_pool_node(compact_on_arrival):
    d = Driver(nodes=2, one_gpu_overflow=True, compact_on_arrival=compact_on_arrival)
    d.arrive(2)                       # node 0 {2}
    d.arrive(1, 8)                    # pool node 1, full
    one = d.arrive(1)                 # a stray on node 0
    fuf = d.arrive(3)                 # node 0 {2, 4}: its filler comes from pool node 1 ...
    assert d.space.slot((fuf, 0)).fillers == {(1, 0)}
    assert d.space.spot((one, 0)) == Spot("pool", 1)   # ... and the stray takes that place
    assert d.space.in_space
    d.check()


def test_gang_refusal_of_anchors_leaves_no_trace():
    d = Driver(nodes=2)
    d.arrive(1, 2)                    # pool node 0
    before, used = d.space.layout(), d.state.used_gpus
    assert d.arrive(5, 2) is None     # one empty node only: the second anchor has none
    assert d.space.layout() == before and d.state.used_gpus == used
    d.check()


def test_gang_refusal_undoes_the_instances_already_planned():
    d = Driver(nodes=1)
    d.arrive(3)                       # {4} with vacancy 1
    d.arrive(4)                       # {4, 4}
    before = d.space.layout()
    assert d.arrive(1, 2) is None     # the first instance fits the vacancy, the second nothing
    assert d.space.layout() == before
    assert d.space.slot((0, 0)).fillers == set()
    d.check()


# -------------------------------------------------------------------- Remove
def test_orphaned_fillers_stay_on_their_node_as_a_pool_node():
    d = Driver(nodes=2)
    d.arrive(1, 3)                    # pool node 0
    fuf = d.arrive(5)                 # node 1 {8}: all three fillers come from node 0
    assert d.space.kind(0) == "empty"
    d.depart(fuf)                     # no vacancy, no partial pool: the own node is empty
    assert d.last_moves == ()
    assert d.space.pool_on(1) == [(0, 0), (0, 1), (0, 2)] and d.space.kind(0) == "empty"
    d.check()


def test_orphaned_fillers_take_a_slot_vacancy_first():
    d = Driver(nodes=3)
    d.arrive(1, 3)                    # pool node 0
    big = d.arrive(5)                 # node 1 {8} with 3 fillers; node 0 empty
    small = d.arrive(3)               # node 0 {4}; the pool is empty: vacancy 1 stays
    assert d.space.slot((small, 0)).vacancy == 1
    d.depart(big)
    assert d.space.slot((small, 0)).vacancy == 0
    assert d.last_moves == (Move((0, 0), 0),)
    assert d.space.pool_on(1) == [(0, 1), (0, 2)]
    d.check()


def test_departed_filler_is_never_replaced_by_a_departing_sibling():
    d = Driver(nodes=3)
    ones = d.arrive(1, 2)             # pool node 0 with 2
    fuf = d.arrive(3)                 # draws one of them; the other stays in the pool
    d.depart(ones)                    # filler and pool sibling leave together
    assert d.last_moves == ()
    assert d.space.slot((fuf, 0)).vacancy == 1
    d.check()


# ------------------------------------------------------------------- Compact
def test_pool_pass_drains_the_sparsest_pool_node_into_the_fullest():
    d = Driver(nodes=3)
    a = d.arrive(1, 6)                # node 0: a x 6
    d.arrive(1, 6)                    # node 0 +2 (full), node 1: 4
    d.arrive(1, 3)                    # node 1: 7
    d.depart(a)                       # node 0 keeps 2: partial pool nodes 0 (room 6), 1 (room 1)
    assert d.last_moves == (Move((1, 0), 1),)
    assert [m.operator for m in d.last_moves] == ["compact-pool"]
    assert (len(d.space.pool_on(0)), len(d.space.pool_on(1))) == (1, 8)
    d.check()


@pytest.mark.parametrize("name", BOTH)
def test_width4_pass_merges_two_half_nodes(name):
    d = Driver(name, nodes=2)
    d.arrive(4)                       # node 0 {4}
    pair = d.arrive(4, 2)             # node 0 {4, 4}, node 1 {4}
    d.arrive(4)                       # node 1 {4, 4}
    d.depart(pair)                    # nodes 0 and 1 each {4}: node 0 is drained into 1
    assert d.last_moves == (Move((0, 0), 1),)
    assert [m.operator for m in d.last_moves] == ["compact-w4"]
    assert d.widths(1) == [4, 4] and d.space.kind(0) == "empty"
    d.check()


@pytest.mark.parametrize("name", BOTH)
def test_width2_pass_moves_a_slot_into_the_fullest_host(name):
    d = Driver(name, nodes=2)
    d.arrive(2, 3)                    # node 0 {2, 2, 2}
    lone = d.arrive(2, 2)             # node 0 full, node 1 {2}
    d.arrive(2)                       # node 1 {2, 2}
    d.depart(0)                       # node 0 {2} (room 3), node 1 {2, 2} (room 2)
    assert d.last_moves == (Move((lone, 0), 1),)
    assert [m.operator for m in d.last_moves] == ["compact-w2"]
    assert d.widths(1) == [2, 2, 2] and d.space.kind(0) == "empty"
    d.check()


def test_corrected_compact_merges_the_survivors_of_the_two_passes():
    """{2, 4} and {4}: the w4 pass sees only {4}, the w2 pass only {2, 4} (theory.md)."""
    paper, ours = Driver("compass-abs-paper", 2), Driver("compass-abs", 2)
    for d in (paper, ours):
        d.arrive(2)
        d.arrive(4, 2)
        d.check()
    assert (paper.widths(0), paper.widths(1)) == ([2, 4], [4])
    assert (ours.widths(0), ours.widths(1)) == ([2], [4, 4])
    assert ours.last_moves == (Move((1, 0), 1),)
    assert [m.operator for m in ours.last_moves] == ["repair"]


# -------------------------------------------------------- checks, determinism
def test_check_catches_a_state_that_disagrees_with_the_abs():
    d = Driver(nodes=2)
    job = d.arrive(2)
    d.check()
    d.state.move((job, 0), 1)
    with pytest.raises(AbsViolation, match="node 0"):
        d.check()


def test_space_refuses_illegal_operations():
    space = AbsSpace(2)
    space.add_one((0, 0), Spot("pool", 0))
    with pytest.raises(AbsViolation):
        space.open_slot((1, 0), 4, 0)             # a slot on a pool node
    space.open_slot((1, 0), 8, 1)
    with pytest.raises(AbsViolation):
        space.open_slot((2, 0), 2, 1)             # SlotConf: no room left
    with pytest.raises(AbsViolation):
        space.move_one((0, 0), space.filler_spot(space.slot((1, 0))))  # FF slot: no vacancy


@pytest.mark.parametrize("g, w", [(8, 1), (1, 9)])
def test_a_refused_job_is_refused_again_at_once_until_the_space_changes(g, w):
    d = Driver(nodes=1)
    first = d.arrive(8)
    trials = []
    room_for = d.space.room_for
    d.space.room_for = lambda *a: trials.append(a) or room_for(*a)
    head = Job(99, 0.0, 1.0, w, g)
    assert d.scheduler.place(head, d.state, 1.0) is None
    assert d.scheduler.place(head, d.state, 2.0) is None
    assert len(trials) == 1  # the second offer found the space unchanged
    assert d.scheduler.place(Job(99, 0.0, 1.0, 1, 1), d.state, 2.0) is None
    assert len(trials) == 2  # another job under the same id is tried
    d.depart(first)
    placement = d.scheduler.place(head, d.state, 3.0)
    assert len(trials) == 3 and (placement is not None) == (w * g <= 8)


def test_a_decision_without_undo_cannot_be_rolled_back():
    space = AbsSpace(2)
    space.begin()
    space.add_one((0, 0), Spot("pool", 0))
    space.rollback()
    assert space.kind(0) == "empty"
    space.begin(undo=False)  # a departure's decision: never refused
    space.add_one((0, 0), Spot("pool", 0))
    with pytest.raises(RuntimeError, match="without undo"):
        space.rollback()
    space.begin()
    space.add_one((1, 0), Spot("pool", 0))
    space.keep()  # Place succeeded: Compact follows, never undone
    with pytest.raises(RuntimeError, match="keep"):
        space.rollback()
    space.begin()  # the next decision logs again
    space.add_one((2, 0), Spot("pool", 1))
    space.rollback()
    assert space.pool_on(0) == [(0, 0), (1, 0)] and space.kind(1) == "empty"


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(BOTH))
def test_refused_jobs_leave_no_trace_and_pool_rooms_match_the_nodes(seed, name):
    """A refused arrival leaves the layout as it was (the undo log covers Place), and the
    pool pass's rooms read from the buckets equal G - used(n) node by node."""
    rng = random.Random(seed)
    d = Driver(name, nodes=5)
    for _ in range(60):
        if d.jobs and rng.random() < 0.4:
            d.depart(rng.choice(sorted(d.jobs)))
        else:
            before = d.space.layout()
            if d.arrive(rng.choice([1, 1, 2, 4, 8]), rng.randint(1, 6)) is None:
                assert d.space.layout() == before
        d.check()
        _check_index_queries(d.space)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 5), st.sampled_from([1, 1, 2, 3, 4, 8])),
                      max_size=40))
def test_index_queries_on_hand_built_spaces(steps):
    """Spaces no Compact has tidied (several partial pool and slotted nodes at once)."""
    space = AbsSpace(6)
    next_id = 0
    for n, g in steps:
        key, next_id = (next_id, 0), next_id + 1
        if g == 1 and space.kind(n) != "slotted" and space.used(n) < 8:
            space.add_one(key, Spot("pool", n))
        elif g > 1 and space.kind(n) != "pool" and space.residual(n) >= space.width(g):
            space.open_slot(key, g, n)
            if space.sparsest_pool() is not None and space.slot(key).vacancy:
                space.move_one(space.pool_on(space.sparsest_pool())[0],
                               space.filler_spot(space.slot(key)))
        space.check_space()
        _check_index_queries(space)


def _first_node(buckets) -> int | None:
    """The first node of the first non-empty bucket, by a plain loop."""
    for bucket in buckets:
        if bucket:
            return bucket[0]
    return None


def _check_index_queries(space: AbsSpace) -> None:
    """The index queries equal their plain-loop forms over the nodes and buckets."""
    G = space.gpus_per_node
    pools = {u: [n for n in range(space.nodes) if space.kind(n) == "pool" and space.used(n) == u]
             for u in range(G + 1)}
    slotted = {r: [n for n in range(space.nodes)
                   if space.kind(n) == "slotted" and space.residual(n) == r]
               for r in range(G + 1)}
    assert space.partial_pool_rooms() == [(n, G - space.used(n))
                                          for n in space.partial_pool_nodes()]
    assert space.fullest_partial_pool() == _first_node(pools[u] for u in range(G - 1, 0, -1))
    assert space.sparsest_pool() == _first_node(pools[u] for u in range(1, G + 1))
    for width in range(1, G + 1):
        assert space.best_slotted(width) == _first_node(slotted[r] for r in range(width, G + 1))
    vacancy = sum(s.vacancy for n in range(space.nodes) for s in space.slots_on(n))
    empty = sum(space.kind(n) == "empty" for n in range(space.nodes))
    assert space.room_for(1) == empty * G + vacancy + sum(
        len(pools[u]) * (G - u) for u in range(1, G))


def _random_run(name: str, seed: int, scheduler=None) -> list:
    rng = random.Random(seed)
    d = Driver(name, nodes=6)
    if scheduler is not None:
        d.scheduler = scheduler
        scheduler.reset(d.state, [])
    trail = []
    for _ in range(150):
        if d.jobs and rng.random() < 0.4:
            d.depart(rng.choice(sorted(d.jobs)))
        else:
            g = rng.choice([1, 1, 2, 3, 4, 5, 8])
            d.arrive(g, rng.randint(1, 4))
        trail.append((d.last_moves, d.space.layout()))
    return trail


@pytest.mark.parametrize("name", BOTH)
def test_decisions_are_deterministic_and_reset_clears_everything(name):
    first = _random_run(name, 7)
    assert _random_run(name, 7) == first
    reused = create(name)
    _random_run(name, 3, reused)
    assert _random_run(name, 7, reused) == first


@pytest.mark.parametrize("name", BOTH)
def test_simulator_runs_both_variants_with_debug_checks(name):
    trace = demo_trace(num_jobs=150, seed=4, mean_interarrival=60.0)
    result = compass.simulate(trace, name, nodes=12, debug_checks=True)
    assert result.jobs["end_time"].notna().all()
    assert (result.timeline["sif"] >= 0).all()
    if name == "compass-abs":
        under_wcc = result.timeline[result.timeline["wcc"].astype(bool)]
        assert (under_wcc["partial_nodes"] <= 2).all()
