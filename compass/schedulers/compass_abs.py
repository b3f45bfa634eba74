"""COMPASS-ABS: the Place, Remove and Compact operators of section 4.3 and Algorithm 1.

The scheduler keeps the cluster inside the Anchor-Based Space (``abs_space.AbsSpace``) and
answers the simulator through the protocol: an admitted job's ``Placement`` carries the
anchors' or 1-GPU instances' nodes, then every migration of Place (filler draws) and of the
Compact that Algorithm 1 runs after the arrival; a departure returns the migrations of
Remove and of the Compact after it. It never mutates the ``ClusterState`` itself.

Two variants are registered (docs/theory.md explains why):

* ``compass-abs-paper``: Compact exactly as the pseudo-code of section 4.3.4, three
  BestFitDrain passes over the classes pool, w4, w2;
* ``compass-abs``: the same passes, then a repair that merges non-fully-packed (or
  stray-holding) slotted nodes pairwise while a merge lowers their number; without strays
  at most one non-fully-packed slotted node remains. The paper's passes can leave two or
  three (Lemma A.4's survivor argument has a gap), which breaks Theorem 1 and Proposition 3.

Choices the paper leaves open, all deterministic (ties: lowest node index; slots and
instances on a node in key order):

* Anchor (g >= 2): the slotted node with the least unprofiled residual D(n) >= w*(g)
  (Place line 5), else the lowest-index empty node. A job's instances are placed
  simultaneously (section 4.3: "admitted only when all of its instances can be placed
  simultaneously"; the engine places them all before any migration): first every anchor,
  then each new slot draws its fillers, so a pool node emptied by those draws is not
  reused for the same job's anchors.
* Fillers (Place line 9, and Remove's replacement of a departed filler) are drawn from the
  pool node with the fewest occupants, which keeps the pool compact.
* The 1-GPU rule (Place lines 11-13): the open slot vacancy on the lowest-index node; else
  the fullest partial pool node (best fit); else an empty node. A filler orphaned by Remove
  takes its own node as that empty node when the dissolution left it holding nothing else
  (no migration), else the lowest-index empty node.
* Waiting rule (default): a 1-GPU instance that finds no slot vacancy, no partial pool node
  and no empty node is not placed, even if slotted nodes have free GPUs, so its job waits
  (the pseudo-code offers no other destination). ``one_gpu_overflow=True`` instead puts it
  on the slotted node with the least residual >= 1, as a stray (outside the ABS).
* Remove treats the departing job as a whole, as the engine releases all its instances
  first: a departed filler's replacement is never a sibling that departs too.
* Strays: a filler orphaned by Remove with no destination under the 1-GPU rule stays on its
  node as a recorded stray; strays are re-homed by the 1-GPU rule whenever a destination
  appears, and Compact runs again afterwards (``settle``).
* BestFitDrain: the partial set N is built once per pass and sorted once by descending
  room (ties lowest index); the head is the first remaining node; the destination is the
  node of N with the least room that can take the item (ties lowest index).
* ``compact_on_arrival=False`` gives appendix A's stripped-down policy (Proposition 3):
  best fit on arrival, Compact after departures only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from compass.cluster import ClusterState
from compass.model import InstanceKey, Job, slot_width
from compass.schedulers.abs_space import AbsSpace, Slot, Spot
from compass.schedulers.base import Move, Placement, Scheduler
from compass.schedulers.registry import register


# --------------------------------------------------------------------- Place
def one_gpu_spot(space: AbsSpace, own: int | None = None, overflow: bool = False) -> Spot | None:
    """The 1-GPU rule of Place (lines 11-13); None means the instance waits."""
    slot = space.open_vacancy()
    if slot is not None:
        return space.filler_spot(slot)
    node = space.fullest_partial_pool()  # each next choice is looked up only if needed
    if node is None and own is not None and space.holds_only_strays(own):
        node = own
    if node is None:
        node = space.lowest_empty()
    if node is not None:
        return Spot("pool", node)
    if overflow:
        node = space.best_slotted(1)
        if node is not None:
            return Spot("stray", node)
    return None


def draw_fillers(space: AbsSpace, slot: Slot) -> None:
    """Fill the slot vacancy from pool nodes, sparsest first, as far as the pool allows."""
    while slot.vacancy > 0:
        node = space.sparsest_pool()
        if node is None:
            return
        space.move_one(space.pool_on(node)[0], space.filler_spot(slot))


def place_instances(space: AbsSpace, job: Job, overflow: bool = False,
                    mixed: bool = False) -> list[int] | None:
    """Place every instance of ``job`` (Algorithm 1 lines 4-8); None if one cannot be placed
    (the caller rolls back). ``mixed`` (COMPASS-ABS+'s extended space): an anchor that finds
    no slotted or empty node takes the fullest pool node with room, whose occupants become
    strays; a 1-GPU instance with no destination becomes a stray as with ``overflow``."""
    g = job.gpus_per_instance
    if g == 1:
        nodes = []
        for key in job.instances():
            spot = one_gpu_spot(space, overflow=overflow or mixed)
            if spot is None:
                return None
            space.add_one(key, spot)
            nodes.append(spot.node)
        return nodes
    width = slot_width(g)
    space.operator = "place"
    slots = []
    for key in job.instances():
        node = space.best_slotted(width)
        if node is None:
            node = space.lowest_empty()
        if node is None and mixed and (node := space.fullest_pool_with_room(width)) is not None:
            space.mix(node)
        if node is None:
            return None
        slots.append(space.open_slot(key, g, node))
    for slot in slots:
        draw_fillers(space, slot)
    return [slot.node for slot in slots]


# -------------------------------------------------------------------- Remove
def remove_instances(space: AbsSpace, job: Job, rehome: bool = True) -> None:
    """Remove every instance of a departing job (Algorithm 1 lines 11-15), then re-home the
    strays that have a destination (unless not ``rehome``: COMPASS-ABS+ keeps them)."""
    space.operator = "remove"
    if job.gpus_per_instance == 1:
        vacated: list[InstanceKey] = []
        for key in job.instances():
            spot = space.remove_one(key)
            if spot.role == "filler" and spot.anchor not in vacated:
                vacated.append(spot.anchor)
        for anchor in vacated:
            draw_fillers(space, space.slot(anchor))
    else:
        for key in job.instances():
            space.dissolve_slot(key)
    if rehome:
        rehome_strays(space)


def rehome_strays(space: AbsSpace) -> bool:
    """Send each stray through the 1-GPU rule; True if any found a destination."""
    space.operator = "rehome"
    if space.in_space:
        return False
    moved = False
    for node, key in space.strays():
        spot = one_gpu_spot(space, own=node)
        if spot is not None:
            space.move_one(key, spot)
            moved = True
    return moved


# ------------------------------------------------------------------- Compact
@dataclass(frozen=True, slots=True)
class DrainClass:
    """A class C of Compact (section 4.3.4): its partial hosts with room_C, and items."""

    #: the partial hosts -> room_C, most room first (ties: lowest index)
    hosts: Callable[[AbsSpace], dict[int, int]]
    items: Callable[[AbsSpace, int], list[InstanceKey]]
    migrate: Callable[[AbsSpace, InstanceKey, int], None]
    #: ``Move.operator`` of the pass's migrations
    operator: str
    #: an upper bound on len(hosts), O(G): a pass with fewer than two builds no host list
    bound: Callable[[AbsSpace], int]


def _slot_class(width: int) -> DrainClass:
    """Width-``width`` anchored slots on slotted hosts, room floor(D(n) / width)."""

    def items(space: AbsSpace, n: int) -> list[InstanceKey]:
        return [s.anchor for s in space.slots_on(n) if s.width == width]

    def hosts(space: AbsSpace) -> dict[int, int]:
        candidates = space.slotted_with_residual(width)
        if len(candidates) < 2:  # too few to drain, whatever their slots
            return {}
        rooms = [(space.residual(n) // width, n) for n in candidates if items(space, n)]
        return {n: room for room, n in sorted(rooms, key=lambda x: (-x[0], x[1]))}

    return DrainClass(hosts, items, AbsSpace.move_slot, f"compact-w{width}",
                      lambda space: space.slotted_count(width))


def _pool_hosts(space: AbsSpace) -> dict[int, int]:
    """Partial pool nodes -> room G - |P(n)|, by occupancy then index: the drain order."""
    return dict(space.partial_pool_rooms())


POOL_CLASS = DrainClass(
    _pool_hosts,
    AbsSpace.pool_on,
    lambda space, x, dst: space.move_one(x, Spot("pool", dst)),
    "compact-pool",
    AbsSpace.partial_pool_count,
)
#: The slot classes of Compact, w4 then w2.
SLOT_CLASSES = (_slot_class(4), _slot_class(2))
#: The classes of Compact, in the order of its pseudo-code (line 2).
DRAIN_CLASSES = (POOL_CLASS, *SLOT_CLASSES)


def best_fit_drain(space: AbsSpace, cls: DrainClass) -> None:
    """BestFitDrain as the pseudo-code of Compact (lines 3-15) states it.

    The hosts' rooms are read once: a migration lowers its destination's room by exactly
    one (one instance, or one slot of the class's width) and changes no other host's room
    but the head's, which is never a destination."""
    space.operator = cls.operator
    if cls.bound(space) < 2:  # nothing to drain into
        return
    rooms = cls.hosts(space)
    if len(rooms) < 2:
        return
    hosts = list(rooms)
    while len(hosts) >= 2:
        src, progress = hosts[0], False
        for item in cls.items(space, src):
            fits = [(rooms[n], n) for n in hosts[1:] if rooms[n] >= 1]
            if not fits:
                break
            dst = min(fits)[1]  # least room, then lowest index
            cls.migrate(space, item, dst)
            rooms[dst] -= 1
            progress = True
        if not cls.items(space, src):
            hosts.pop(0)
        if not progress:
            break


def merge_partial_slotted(space: AbsSpace) -> None:
    """compass-abs's repair: while some pair of non-fully-packed or stray-holding slotted
    nodes can be merged into fewer such nodes, merge the first such pair (densest first).
    Visits only those nodes; each merge lowers their count, so the loop ends."""
    space.operator = "repair"
    while space.slotted_count(1) + space.stray_count() >= 2:  # else no pair to merge
        partial, strays = space.slotted_with_residual(1), space.stray_nodes()
        hosts = [n for n in partial if space.slots_on(n)]
        hosts += [n for n in strays if n not in hosts and space.slots_on(n)]
        if len(hosts) < 2:
            return
        merge = next((m for i, a in enumerate(hosts) for b in hosts[i + 1:]
                      if (m := _best_merge(space, a, b)) is not None), None)
        if merge is None:
            return
        for key in merge.strays:
            space.move_one(key, Spot("stray", merge.giver))
        for slot in merge.slots:
            space.move_slot(slot.anchor, merge.taker)


@dataclass(frozen=True, slots=True)
class _Merge:
    """Move ``strays`` from ``taker`` to ``giver``, then ``slots`` from ``giver`` to ``taker``."""

    score: tuple[int, int]
    cost: int
    giver: int
    taker: int
    strays: tuple[InstanceKey, ...]
    slots: tuple[Slot, ...]


def _score(space: AbsSpace, profiled: int, has_slots: bool, strays: int) -> tuple[int, int]:
    """(non-fully-packed, holds strays) of a slotted node; a node left without slots counts
    for nothing (it becomes empty, or a pool node once its strays are re-homed)."""
    if not has_slots:
        return (0, 0)
    return (int(profiled + strays < space.gpus_per_node), int(strays > 0))


def _best_merge(space: AbsSpace, a: int, b: int) -> _Merge | None:
    """The cheapest one-way move of slots (after moving the taker's strays the other way, if
    that helps) that lowers the pair's (non-fully-packed, stray-holding) node counts.

    Without strays such a move always exists for two non-fully-packed nodes: their slots
    (widths 2 and 4) total W <= 12 GPUs; if W <= 8 one node takes all, else one node's
    residual (2 or 4) is matched by a subset of the other's slots.
    """
    def pair_score(x: int, y: int) -> tuple[int, int]:
        sx = _score(space, space.profiled(x), True, len(space.strays_on(x)))
        sy = _score(space, space.profiled(y), True, len(space.strays_on(y)))
        return (sx[0] + sy[0], sx[1] + sy[1])

    best = None
    for giver, taker in ((a, b), (b, a)):
        slots, strays = space.slots_on(giver), tuple(space.strays_on(taker))
        for carry in ((), strays) if strays else ((),):
            if len(carry) > space.residual(giver):
                continue
            room = space.residual(taker) + len(carry)
            for mask in range(1 << len(slots)):
                chosen = tuple(s for i, s in enumerate(slots) if mask >> i & 1)
                width = sum(s.width for s in chosen)
                if (not chosen and not carry) or width > room:
                    continue
                sg = _score(space, space.profiled(giver) - width, len(chosen) < len(slots),
                            len(space.strays_on(giver)) + len(carry))
                st = _score(space, space.profiled(taker) + width, True,
                            len(space.strays_on(taker)) - len(carry))
                cost = len(carry) + sum(1 + len(s.fillers) for s in chosen)
                option = _Merge((sg[0] + st[0], sg[1] + st[1]), cost, giver, taker, carry, chosen)
                if best is None or (option.score, option.cost) < (best.score, best.cost):
                    best = option
    return best if best is not None and best.score < pair_score(a, b) else None


def compact(space: AbsSpace, repair: bool) -> None:
    """Compact (section 4.3.4): BestFitDrain over pool, w4, w2; then, if ``repair``, the
    merge that restores Theorem 1's "at most one non-fully-packed slotted node".

    After the pool pass, fewer than two partial or stray-holding slotted nodes leave the
    slot passes and the repair without a pair (the usual case): they are skipped, and the
    operator is left as the last of them would leave it."""
    best_fit_drain(space, POOL_CLASS)
    if space.slotted_count(1) + space.stray_count() < 2:
        space.operator = "repair" if repair else SLOT_CLASSES[-1].operator
        return
    for cls in SLOT_CLASSES:
        best_fit_drain(space, cls)
    if repair:
        merge_partial_slotted(space)


def settle(space: AbsSpace, repair: bool) -> None:
    """End of an event (Algorithm 1 lines 9, 16): Compact, then re-home any stray that
    gained a destination and compact again."""
    compact(space, repair)
    while not space.in_space and rehome_strays(space):
        compact(space, repair)


# ------------------------------------------------------------------ scheduler
@register
class CompassAbs(Scheduler):
    """COMPASS-ABS (Algorithm 1) with the corrected Compact (docs/theory.md)."""

    name = "compass-abs"
    role = "paper"
    display = "COMPASS-ABS"
    color = "#d55e00"
    rank = 0
    #: Place is a function of the space (which mirrors the state) and the job; a refusal
    #: leaves no trace, so a pass repeated with no event between refuses again
    skip_idle_instants = True
    #: Run the slotted repair after the paper's BestFitDrain passes.
    repair: ClassVar[bool] = True

    def __init__(self, *, seed: int = 0, compact_on_arrival: bool = True,
                 one_gpu_overflow: bool = False) -> None:
        super().__init__(seed=seed)
        self.compact_on_arrival = compact_on_arrival
        self.one_gpu_overflow = one_gpu_overflow
        self._space: AbsSpace | None = None
        #: the last job refused and ``space.changes`` then: Place is a function of the job
        #: and the space, so the same job on an unchanged space is refused again at once
        self._refused: tuple[Job, int] | None = None

    @property
    def space(self) -> AbsSpace:
        """The ABS state of the current run."""
        if self._space is None:
            raise RuntimeError(f"{self.name}: reset() must be called before scheduling")
        return self._space

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self._space = AbsSpace(state.nodes, state.gpus_per_node)
        self._refused = None

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Place each instance, then Compact (Algorithm 1 lines 3-9); None leaves no trace."""
        space = self.space
        refused = (job, space.changes)
        if refused == self._refused:
            return None
        if type(space) is AbsSpace:  # a job that cannot fit is refused without a trial
            room = space.room_for(job.gpus_per_instance, self.one_gpu_overflow)
            if room is not None and room < job.num_instances:
                self._refused = refused
                return None
        space.begin()
        nodes = place_instances(space, job, self.one_gpu_overflow)
        if nodes is None:
            space.rollback()
            self._refused = (job, space.changes)
            return None
        space.keep()
        if self.compact_on_arrival:
            settle(space, self.repair)
        else:
            rehome_strays(space)  # filler draws may have opened a destination
        return Placement(job.job_id, tuple(nodes), space.commit())

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        """Remove each instance, then Compact (Algorithm 1 lines 10-16)."""
        space = self.space
        space.begin(undo=False)
        remove_instances(space, job)
        settle(space, self.repair)
        return space.commit()

    def check(self, state: ClusterState) -> None:
        self.space.check(state)


@register
class CompassAbsPaper(CompassAbs):
    """COMPASS-ABS with Compact exactly as the pseudo-code of section 4.3.4."""

    name = "compass-abs-paper"
    role = "variant"
    rank = 1
    repair = False
