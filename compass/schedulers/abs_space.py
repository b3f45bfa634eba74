"""The Anchor-Based Space (ABS) of section 4.2, with the indexes of Proposition 2.

Every node is *empty*, a *pool* node (only 1-GPU instances, Definition 5) or a *slotted*
node (Definition 4): a multiset of slots S(n) in SlotConf (eq. 5), each slot of width
w(s) = w*(g) in {2, 4, 8} (eq. 3) holding exactly one anchor of g >= 2 GPUs and up to
w(s) - g 1-GPU *fillers* in its vacancy (Definitions 1-3, capacity invariant eq. 4).
``AbsSpace`` holds this state (eq. 7-8) for the COMPASS operators and

* indexes it so that each query of Place / Remove / Compact is O(G log N) and Compact
  enumerates only partial hosts: slotted nodes bucketed by unprofiled residual D(n),
  nodes with an open slot vacancy, pool nodes bucketed by occupancy, empty nodes;
* records every relocation as a ``Move`` (only when the instance changes node) and an
  undo entry, so a refused job is rolled back without a trace (``begin/rollback/commit``);
* checks itself (``check``) against the space's rules and against the ``ClusterState``.

Strays. Remove can orphan a filler for which the 1-GPU rule finds no destination (no
slot vacancy, no partial pool node, no empty node), and then the state leaves the ABS
(docs/theory.md, "Proposition 1"). Such an instance stays on its node as a recorded
*stray*, outside the space, occupying one GPU of the node's unprofiled residual; the
operators re-home strays as soon as a destination appears. ``in_space`` is False while any
stray exists.

Other capacities and widths. The same space serves the panel level of the hierarchical
scheduler (appendix D.1: G -> K panels, w*(g) -> w_p*(p) of eq. 23): the constructor takes
the per-node capacity and the slot-width function. A node may also hold *foreign* units,
occupied by items another level manages (``set_foreign``): like strays they lower D(n)
and the pool room, but the space never moves them.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import mul
from typing import Literal, NamedTuple

from compass.cluster import ClusterState
from compass.model import G_DEFAULT, InstanceKey, slot_width
from compass.schedulers.base import Move

Kind = Literal["empty", "pool", "slotted"]
#: What a 1-GPU instance is to the ABS where it sits (``Spot.role``).
SpotRole = Literal["filler", "pool", "stray"]
#: What the indexes know of a node: (kind, level, has an open vacancy, holds strays);
#: level is D(n) minus strays for a slotted node, its 1-GPU instances for a pool node.
IndexKey = tuple[Kind, int, bool, bool]

_EMPTY_KEY: IndexKey = ("empty", 0, False, False)


#: An index set of nodes: a plain list kept ascending by bisection (iteration, ``[0]`` and
#: ``len`` stay list operations), or a set where the nodes are only counted. Plain lists
#: and module functions rather than a list subclass: a bucket changes on most events, and
#: ``insort`` inserts into an exact list without a method call.
Bucket = list[int] | set[int]


def bucket_add(bucket: Bucket, n: int) -> None:
    """Add node n to the bucket."""
    if type(bucket) is set:
        bucket.add(n)
    else:
        insort(bucket, n)


def bucket_remove(bucket: Bucket, n: int) -> None:
    """Remove node n from the bucket; ``AbsViolation`` if it is not there (a stale index)."""
    if type(bucket) is list:
        i = bisect_left(bucket, n)
        if i < len(bucket) and bucket[i] == n:
            del bucket[i]
            return
    elif n in bucket:
        bucket.remove(n)
        return
    raise AbsViolation(f"node {n} is not in the index")


def bucket_holds(bucket: Bucket, n: int) -> bool:
    """Whether node n is in the bucket (by bisection in a list)."""
    if type(bucket) is set:
        return n in bucket
    i = bisect_left(bucket, n)
    return i < len(bucket) and bucket[i] == n


class AbsViolation(AssertionError):
    """The state left the ABS, or the ABS disagrees with the cluster state."""


@dataclass(slots=True)
class Slot:
    """A slot s (Definitions 1-3): width w(s), its anchor a(s) of g GPUs, its fillers F(s)."""

    anchor: InstanceKey
    g: int
    width: int
    node: int
    fillers: set[InstanceKey] = field(default_factory=set)

    @property
    def vacancy(self) -> int:
        """Unfilled slot vacancy w(s) - g - |F(s)| (eq. 4 holds iff >= 0)."""
        return self.width - self.g - len(self.fillers)

    @property
    def used(self) -> int:
        """GPUs the slot's instances occupy: g + |F(s)|."""
        return self.g + len(self.fillers)


class Spot(NamedTuple):
    """Where a 1-GPU instance sits: a filler of the slot anchored by ``anchor``, a pool
    occupant of ``node``, or a stray on ``node`` (outside the ABS). A named tuple: one is
    made per placement and per migration, and a tuple is the cheapest immutable record."""

    role: SpotRole
    node: int
    anchor: InstanceKey | None = None


class AbsSpace:
    """The ABS state of a cluster of ``nodes`` nodes of G units (eq. 7-8), indexed.

    ``width`` maps an anchor's size g to its slot width; by default w*(g) of eq. 3, which
    is defined for G = 8 GPUs only. Another capacity needs its own width function (the
    panel level's w_p*(p) of eq. 23 on K-panel domains, ``hierarchical_paper.PanelSpace``).
    """

    def __init__(self, nodes: int, gpus_per_node: int = G_DEFAULT,
                 width: Callable[[int], int] | None = None) -> None:
        if width is None and gpus_per_node != G_DEFAULT:
            raise ValueError(f"the ABS is defined for {G_DEFAULT}-GPU nodes, got {gpus_per_node}")
        if nodes < 1:
            raise ValueError(f"a cluster needs at least one node, got nodes={nodes}")
        G = gpus_per_node
        self.nodes = nodes
        self.gpus_per_node = G
        #: slot width of a g-unit anchor: w*(g) of eq. 3 unless the constructor was given one
        self.width: Callable[[int], int] = slot_width if width is None else width
        self._slots: list[dict[InstanceKey, Slot]] = [{} for _ in range(nodes)]
        self._pool: list[set[InstanceKey]] = [set() for _ in range(nodes)]
        self._strays: list[set[InstanceKey]] = [set() for _ in range(nodes)]
        self._slot_of: dict[InstanceKey, Slot] = {}
        self._spot: dict[InstanceKey, Spot] = {}
        #: per node: total slot width sum w(s), GPUs occupied (foreign units included, kept
        #: by the primitives), and foreign units (``set_foreign``)
        self._profiled = [0] * nodes
        self._load = [0] * nodes
        self._foreign = [0] * nodes
        #: per node: open slot vacancy sum_{s in S(n)} (w(s) - g - |F(s)|), kept by the
        #: primitives so that the vacancy index needs no walk over the node's slots
        self._open = [0] * nodes
        self._key: list[IndexKey] = [_EMPTY_KEY] * nodes
        self._empty: list[int] = list(range(nodes))
        self._pool_by_used: list[list[int]] = [[] for _ in range(G + 1)]
        #: slotted nodes by residual; the fully profiled ones (D(n) = 0, most of a busy
        #: cluster) are only counted, never searched, so they sit in a plain set
        self._slotted_by_residual: list[Bucket] = [set(), *([] for _ in range(G))]
        self._vacancy_nodes: list[int] = []
        #: the bucket of an index key (kind, level, ...): ``_homes[kind][level]``
        self._homes: dict[Kind, list[Bucket]] = {
            "empty": [self._empty], "pool": self._pool_by_used,
            "slotted": self._slotted_by_residual}
        self._stray_nodes: list[int] = []
        self._undo: list[Callable[[], None]] = []
        self._recording = True
        self._moves: list[Move] = []
        #: the operator whose migrations are being recorded (``Move.operator``)
        self.operator = ""
        #: primitives applied so far (each ends in ``_reindex``): an unchanged count means
        #: an unchanged space
        self.changes = 0

    # ------------------------------------------------------------ node queries
    def kind(self, n: int) -> Kind:
        """Node type t(n) (section 4.2)."""
        return self._key[n][0]

    def slots_on(self, n: int) -> list[Slot]:
        """S(n), ordered by anchor."""
        return [self._slots[n][a] for a in sorted(self._slots[n])]

    def pool_on(self, n: int) -> list[InstanceKey]:
        """P(n) of a pool node, ordered."""
        return sorted(self._pool[n])

    def strays_on(self, n: int) -> list[InstanceKey]:
        return sorted(self._strays[n])

    def profiled(self, n: int) -> int:
        """Total slot width sum_{s in S(n)} w(s)."""
        return self._profiled[n]

    def residual(self, n: int) -> int:
        """Unprofiled residual D(n) = G - sum w(s) (Definition 4), less the node's strays and
        foreign units."""
        return self.gpus_per_node - self._profiled[n] - len(self._strays[n]) - self._foreign[n]

    def used(self, n: int) -> int:
        """GPUs occupied on node n, by the ABS's account (foreign units included; slot
        vacancies are free)."""
        return self._load[n]

    def foreign(self, n: int) -> int:
        """Units of node n that items outside the space occupy (``set_foreign``)."""
        return self._foreign[n]

    def slot(self, anchor: InstanceKey) -> Slot:
        return self._slot_of[anchor]

    def spot(self, key: InstanceKey) -> Spot:
        return self._spot[key]

    def layout(self) -> tuple[tuple, ...]:
        """Canonical description of every node (kind, slots with fillers, pool, strays)."""
        return tuple(
            (self.kind(n),
             tuple((s.anchor, s.g, s.width, tuple(sorted(s.fillers))) for s in self.slots_on(n)),
             tuple(self.pool_on(n)), tuple(self.strays_on(n)))
            for n in range(self.nodes)
        )

    @property
    def in_space(self) -> bool:
        """True iff no stray exists, i.e. the state lies in the ABS Sigma (eq. 8)."""
        return not self._stray_nodes

    # ------------------------------------------------------------ index queries
    # The bucket scans below take the first non-empty bucket with ``filter`` over a slice
    # of the buckets: the same first bucket as a loop, without a bytecode per bucket.
    def best_slotted(self, width: int) -> int | None:
        """The slotted node with the least residual D(n) >= width (Place line 5), lowest index."""
        bucket = next(filter(None, self._slotted_by_residual[width:]), None)
        return None if bucket is None else bucket[0]

    def lowest_empty(self, room: int = 1) -> int | None:
        """The lowest-index empty node with at least ``room`` free units: the lowest empty
        node unless foreign units occupy some (appendix D's panel-empty domain with room)."""
        most_foreign = self.gpus_per_node - room
        for n in self._empty:
            if self._foreign[n] <= most_foreign:
                return n
        return None

    def holds_only_strays(self, n: int) -> bool:
        """True for a node whose last slot was dissolved while orphans still sit on it."""
        return bool(self._strays[n]) and not self._slots[n] and not self._pool[n]

    def open_vacancy(self) -> Slot | None:
        """A slot with g + |F| < w (Place line 11): lowest node index, then lowest anchor."""
        if not self._vacancy_nodes:
            return None
        return next(s for s in self.slots_on(self._vacancy_nodes[0]) if s.vacancy > 0)

    def fullest_partial_pool(self) -> int | None:
        """The partial pool node with the least room (best fit), lowest index."""
        bucket = next(filter(None, self._pool_by_used[self.gpus_per_node - 1:0:-1]), None)
        return None if bucket is None else bucket[0]

    def sparsest_pool(self) -> int | None:
        """The pool node with the fewest occupants (full ones included), lowest index."""
        bucket = next(filter(None, self._pool_by_used[1:]), None)
        return None if bucket is None else bucket[0]

    def room_for(self, g: int, overflow: bool = False) -> int | None:
        """An upper bound on how many g-GPU instances of one job Place can take now, in
        O(G + vacancy nodes), or None where none is computed (the 1-GPU overflow rule).

        Anchors of width w take the slotted residuals and the empty nodes, floor(D(n) / w)
        each (G / w per empty node); 1-GPU instances take open slot vacancies, the room of
        partial pool nodes and empty nodes (G each). A job that needs more cannot be placed.
        """
        G = self.gpus_per_node
        if g >= 2:
            width = self.width(g)
            room = len(self._empty) * (G // width)
            for r in range(width, G + 1):
                room += len(self._slotted_by_residual[r]) * (r // width)
            return room
        if overflow:
            return None
        # G - used free GPUs on each partial pool node, used = 1 .. G - 1
        room = len(self._empty) * G + sum(map(mul, map(len, self._pool_by_used[1:G]),
                                              range(G - 1, 0, -1)))
        if self._vacancy_nodes:
            room += sum(self._open[n] for n in self._vacancy_nodes)
        return room

    def partial_pool_count(self) -> int:
        """len(partial_pool_nodes()) without building the list, O(G)."""
        return sum(map(len, self._pool_by_used[1:self.gpus_per_node]))

    def slotted_count(self, at_least: int) -> int:
        """len(slotted_with_residual(at_least)) without building the list, O(G)."""
        return sum(map(len, self._slotted_by_residual[at_least:self.gpus_per_node + 1]))

    def partial_pool_nodes(self) -> list[int]:
        """Pool nodes with 0 < |P(n)| < G, by occupancy then index."""
        return [n for b in self._pool_by_used[1:self.gpus_per_node] for n in b]

    def partial_pool_rooms(self) -> list[tuple[int, int]]:
        """(node, G - used) of each partial pool node, by occupancy then index: the room
        read from the node's bucket (its level is its occupancy)."""
        G = self.gpus_per_node
        buckets = self._pool_by_used
        return [(n, G - used) for used in range(1, G) for n in buckets[used]]

    def slotted_with_residual(self, at_least: int) -> list[int]:
        """Slotted nodes with residual >= ``at_least`` >= 1 (partial hosts only), by residual
        then index."""
        if at_least < 1:
            raise ValueError(f"the fully profiled slotted nodes are not ordered: {at_least=}")
        G = self.gpus_per_node
        return [n for b in self._slotted_by_residual[at_least:G + 1] for n in b]

    def stray_count(self) -> int:
        """How many nodes hold strays."""
        return len(self._stray_nodes)

    def stray_nodes(self) -> list[int]:
        """Nodes holding strays, ascending."""
        return list(self._stray_nodes)

    def strays(self) -> list[tuple[int, InstanceKey]]:
        """Every stray as (node, key), ordered."""
        return [(n, k) for n in self._stray_nodes for k in sorted(self._strays[n])]

    # -------------------------------------------------------------- mutations
    def open_slot(self, anchor: InstanceKey, g: int, node: int) -> Slot:
        """Profile a slot of width ``width(g)`` (w*(g), eq. 3) on ``node`` with the arriving
        ``anchor`` (Place line 7)."""
        width = self.width(g)
        if self.kind(node) == "pool" or self.residual(node) < width:
            raise AbsViolation(f"node {node} cannot profile a width-{width} slot")
        slot = Slot(anchor, g, width, node)
        self._put_slot(slot)
        return slot

    def dissolve_slot(self, anchor: InstanceKey) -> list[InstanceKey]:
        """Dissolve a departing anchor's slot (Remove line 8); its fillers become strays on
        the node until the 1-GPU rule re-homes them. Returns the orphaned fillers."""
        slot = self._slot_of[anchor]
        orphans = sorted(slot.fillers)
        for f in orphans:
            self._take_one(f)
        self._take_slot(slot)
        for f in orphans:
            self._put_one(f, Spot("stray", slot.node))
        return orphans

    def add_one(self, key: InstanceKey, spot: Spot) -> None:
        """Install an arriving 1-GPU instance at ``spot``."""
        self._check_room(spot)
        self._put_one(key, spot)

    def remove_one(self, key: InstanceKey) -> Spot:
        """Detach a departing 1-GPU instance (Remove line 10); returns where it was."""
        return self._take_one(key)

    def move_one(self, key: InstanceKey, spot: Spot) -> None:
        """Migrate a running 1-GPU instance to ``spot`` (a Move only if its node changes)."""
        old = self._take_one(key)
        self._check_room(spot)
        self._put_one(key, spot)
        if old.node != spot.node:
            self._moves.append(Move(key, spot.node, self.operator))

    def move_slot(self, anchor: InstanceKey, dst: int) -> None:
        """Migrate a slot with its anchor and fillers to slotted node ``dst`` (Compact)."""
        slot = self._slot_of[anchor]
        if dst == slot.node or self.kind(dst) != "slotted" or self.residual(dst) < slot.width:
            raise AbsViolation(f"slot of {anchor} cannot move from {slot.node} to {dst}")
        self._relocate_slot(slot, dst)
        self._moves.append(Move(anchor, dst, self.operator))
        self._moves.extend(Move(f, dst, self.operator) for f in sorted(slot.fillers))

    def filler_spot(self, slot: Slot) -> Spot:
        return Spot("filler", slot.node, slot.anchor)

    def set_foreign(self, n: int, count: int) -> None:
        """Record that ``count`` units of node n hold items outside the space (another
        level's, appendix D.3's disjoint populations): they lower D(n) and the pool room
        and are never moved. Not undo-logged: set between decisions, not inside one."""
        self._load[n] += count - self._foreign[n]
        self._foreign[n] = count
        self._reindex(n)

    # ----------------------------------------------------------- transactions
    def begin(self, undo: bool = True) -> None:
        """Start recording one scheduler decision: its moves, and an undo log unless ``undo``
        is False (a decision that is never refused, such as a departure's)."""
        self._undo.clear()
        self._moves.clear()
        self._recording = undo

    def keep(self) -> None:
        """The decision since ``begin`` will not be refused: drop its undo log and log no
        more until the next ``begin`` (Compact after a successful Place needs none)."""
        self._undo.clear()
        self._recording = False

    def rollback(self) -> None:
        """Undo everything since ``begin``: a refused job leaves no trace."""
        if not self._recording:
            raise RuntimeError("rollback of a decision begun without undo, or after keep()")
        self._recording = False
        try:
            while self._undo:
                self._undo.pop()()
        finally:
            self._recording = True
        self._moves.clear()

    def commit(self) -> tuple[Move, ...]:
        """Keep everything since ``begin``; return the migrations in order."""
        moves = tuple(self._moves)
        self._undo.clear()
        self._moves.clear()
        return moves

    # ------------------------------------- COMPASS-ABS+ (compass_abs_plus.py)
    # Its extended space lets 1-GPU instances sit as strays on a slotted node's residual on
    # purpose (mixed nodes): an anchor may take a pool node's free GPUs, whose occupants then
    # become strays, and admission by compaction may fold instances into slotted nodes.
    def mix(self, n: int) -> None:
        """Turn pool node ``n``'s occupants into strays where they are (no instance moves),
        so that slots can be profiled over its free GPUs."""
        for key in sorted(self._pool[n]):
            self._take_one(key)
            self._put_one(key, Spot("stray", n))

    def fullest_pool_with_room(self, width: int) -> int | None:
        """The pool node with the most occupants that still has ``width`` free GPUs."""
        for used in range(self.gpus_per_node - width, 0, -1):
            bucket = self._pool_by_used[used]
            if bucket:
                return bucket[0]
        return None

    def capacity(self, width: int) -> int:
        """How many width-``width`` anchors (1: 1-GPU instances, slot vacancies included)
        the nodes take without moves in the extended space: sum over nodes of
        floor(room / width), room = G - slot widths - 1-GPU instances outside slots. O(G)."""
        G = self.gpus_per_node
        total = len(self._empty) * (G // width)
        for level in range(1, G + 1):
            total += len(self._slotted_by_residual[level]) * (level // width)
            total += len(self._pool_by_used[G - level]) * (level // width) if level < G else 0
        if width == 1:
            total += sum(self._open[n] for n in self._vacancy_nodes)
        return total

    def recorded_moves(self) -> int:
        """Migrations recorded since ``begin``."""
        return len(self._moves)

    def partial_count(self) -> int:
        """Non-empty nodes with a free GPU (section 3.1) by the ABS's account, from the
        indexes: O(G + nodes with an open slot vacancy)."""
        G = self.gpus_per_node
        partial = sum(map(len, self._pool_by_used[1:G]))
        partial += sum(map(len, self._slotted_by_residual[1:]))
        return partial + sum(1 for n in self._vacancy_nodes if self._key[n][1] == 0)

    # ----------------------------------------------------------------- checks
    def check(self, state: ClusterState, strays_anywhere: bool = False) -> None:
        """Raise ``AbsViolation`` on any violation of the space (eq. 3-8), any stale index,
        a stray that has a legal destination (unless ``strays_anywhere``: COMPASS-ABS+'s
        extended space), or any disagreement with ``state``."""
        require(state.nodes == self.nodes, f"cluster has {state.nodes} nodes, ABS {self.nodes}")
        self.check_space()
        for n in range(self.nodes):
            mine = {a: s.g for a, s in self._slots[n].items()}
            for s in self._slots[n].values():
                mine.update(dict.fromkeys(s.fillers, 1))
            mine.update(dict.fromkeys(self._pool[n] | self._strays[n], 1))
            require(dict(state.instances_on(n)) == mine,
                    f"node {n}: cluster holds {dict(state.instances_on(n))}, ABS {mine}")
        if self._stray_nodes and not strays_anywhere:
            require(self.open_vacancy() is None and not self.partial_pool_nodes()
                    and self.lowest_empty() is None,
                    f"strays {self.strays()} while a 1-GPU destination exists")

    def check_space(self) -> None:
        """Raise ``AbsViolation`` on any violation of the space (eq. 3-8) or any stale index:
        ``check`` without a cluster state to agree with (the panel level's check)."""
        for n in range(self.nodes):
            self._check_node(n)
            self._check_index(n)
        indexed = (len(self._empty) + sum(map(len, self._pool_by_used))
                   + sum(map(len, self._slotted_by_residual)))
        require(indexed == self.nodes, f"{indexed} index entries for {self.nodes} nodes")
        ones = sum(len(s.fillers) for s in self._slot_of.values())
        ones += sum(map(len, self._pool)) + sum(map(len, self._strays))
        require(len(self._spot) == ones, f"{len(self._spot)} 1-GPU records for {ones} placed")
        require(sum(map(len, self._slots)) == len(self._slot_of), "a slot record is orphaned")

    def _check_node(self, n: int) -> None:
        slots, pool, strays = self._slots[n], self._pool[n], self._strays[n]
        require(not (slots and pool), f"node {n} is both slotted and pool")
        require(not strays or slots, f"node {n} holds strays {sorted(strays)} but no slot")
        require(len(pool) + self._foreign[n] <= self.gpus_per_node,
                f"pool node {n} holds {len(pool)} + {self._foreign[n]} foreign > G")
        widths = sorted(s.width for s in slots.values())
        require(self._profiled[n] == sum(widths), f"node {n}: stale profiled width")
        load = sum(s.used for s in slots.values()) + len(pool) + len(strays) + self._foreign[n]
        require(self._load[n] == load, f"node {n}: stale load {self._load[n]} != {load}")
        vacancy = sum(s.vacancy for s in slots.values())
        require(self._open[n] == vacancy, f"node {n}: stale vacancy {self._open[n]} != {vacancy}")
        require(self.residual(n) >= 0, f"node {n}: S(n) = {widths} plus strays exceed G")
        for anchor, s in slots.items():
            require(s.anchor == anchor and s.node == n and self._slot_of.get(anchor) is s,
                     f"slot {anchor} misfiled on node {n}")
            require(2 <= s.g <= self.gpus_per_node and s.width == self.width(s.g),
                    f"slot {anchor}: width {s.width} != w*({s.g}) (eq. 3)")
            require(s.vacancy >= 0, f"slot {anchor}: g + |F| > w (eq. 4)")
            for f in s.fillers:
                require(self._spot.get(f) == Spot("filler", n, anchor), f"filler {f} misfiled")
        for key in pool:
            require(self._spot.get(key) == Spot("pool", n), f"pool occupant {key} misfiled")
        for key in strays:
            require(self._spot.get(key) == Spot("stray", n), f"stray {key} misfiled")

    def _check_index(self, n: int) -> None:
        key = self._index_key(n)
        require(self._key[n] == key, f"node {n}: stale index key {self._key[n]} != {key}")
        kind, level, vacancy, stray = key
        home = self._homes[kind][level]
        require(bucket_holds(home, n), f"node {n} missing from its {kind} index")
        require(bucket_holds(self._vacancy_nodes, n) == vacancy,
                f"node {n}: vacancy index stale")
        require(bucket_holds(self._stray_nodes, n) == stray, f"node {n}: stray index stale")

    # --------------------------------------------- primitives (undo-logged)
    def _check_room(self, spot: Spot) -> None:
        role, n, anchor = spot
        if role == "filler":
            slot = self._slot_of[anchor]
            ok = slot.vacancy > 0 and slot.node == n
        elif role == "pool":
            ok = not self._slots[n] and self._load[n] < self.gpus_per_node
        else:
            ok = bool(self._slots[n]) and self.residual(n) >= 1
        if not ok:
            raise AbsViolation(f"no room for a 1-GPU instance at {spot}")

    def _put_one(self, key: InstanceKey, spot: Spot) -> None:
        role, n, anchor = spot
        if role == "filler":
            self._slot_of[anchor].fillers.add(key)
            self._open[n] -= 1
        elif role == "pool":
            self._pool[n].add(key)
        else:
            self._strays[n].add(key)
        self._spot[key] = spot
        self._load[n] += 1
        self._reindex(n)
        if self._recording:  # the inverse, for rollback
            self._undo.append(lambda: self._take_one(key))

    def _take_one(self, key: InstanceKey) -> Spot:
        spot = self._spot.pop(key)
        role, n, anchor = spot
        if role == "filler":
            self._slot_of[anchor].fillers.remove(key)
            self._open[n] += 1
        elif role == "pool":
            self._pool[n].remove(key)
        else:
            self._strays[n].remove(key)
        self._load[n] -= 1
        self._reindex(n)
        if self._recording:  # the inverse, for rollback
            self._undo.append(lambda: self._put_one(key, spot))
        return spot

    def _put_slot(self, slot: Slot) -> None:
        self._slots[slot.node][slot.anchor] = slot
        self._slot_of[slot.anchor] = slot
        self._profiled[slot.node] += slot.width
        self._load[slot.node] += slot.used
        self._open[slot.node] += slot.vacancy
        self._reindex(slot.node)
        if self._recording:  # the inverse, for rollback
            self._undo.append(lambda: self._take_slot(slot))

    def _take_slot(self, slot: Slot) -> None:
        del self._slots[slot.node][slot.anchor]
        del self._slot_of[slot.anchor]
        self._profiled[slot.node] -= slot.width
        self._load[slot.node] -= slot.used
        self._open[slot.node] -= slot.vacancy
        self._reindex(slot.node)
        if self._recording:  # the inverse, for rollback
            self._undo.append(lambda: self._put_slot(slot))

    def _relocate_slot(self, slot: Slot, dst: int) -> None:
        src = slot.node
        del self._slots[src][slot.anchor]
        self._slots[dst][slot.anchor] = slot
        slot.node = dst
        self._profiled[src] -= slot.width
        self._profiled[dst] += slot.width
        self._load[src] -= slot.used
        self._load[dst] += slot.used
        self._open[src] -= slot.vacancy
        self._open[dst] += slot.vacancy
        for f in slot.fillers:
            self._spot[f] = Spot("filler", dst, slot.anchor)
        self._reindex(src)
        self._reindex(dst)
        if self._recording:  # the inverse, for rollback
            self._undo.append(lambda: self._relocate_slot(slot, src))

    # ---------------------------------------------------------------- indexes
    def _index_key(self, n: int) -> IndexKey:
        strays = len(self._strays[n])
        if self._slots[n] or (strays and not self._pool[n]):
            residual = self.gpus_per_node - self._profiled[n] - strays - self._foreign[n]
            return ("slotted", residual, self._open[n] > 0, strays > 0)
        if self._pool[n]:
            return ("pool", self._load[n], False, strays > 0)  # pool + strays + foreign
        return _EMPTY_KEY

    def _reindex(self, n: int) -> None:
        """Refile node n under its ``_index_key``; runs after every primitive."""
        self.changes += 1
        new, old = self._index_key(n), self._key[n]
        if new == old:
            return
        self._key[n] = new
        kind, level, vacancy, stray = new
        if kind != old[0] or level != old[1]:  # another bucket
            bucket_remove(self._homes[old[0]][old[1]], n)
            bucket_add(self._homes[kind][level], n)
        if vacancy != old[2]:
            (insort if vacancy else bucket_remove)(self._vacancy_nodes, n)
        if stray != old[3]:
            (insort if stray else bucket_remove)(self._stray_nodes, n)


def require(condition: bool, message: str) -> None:
    """Raise ``AbsViolation`` with ``message`` unless ``condition`` holds (the checks)."""
    if not condition:
        raise AbsViolation(message)
