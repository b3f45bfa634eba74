"""Admission by compaction (COMPASS-ABS+): the cheapest migrations that let a blocked head in.

When the FIFO head cannot be placed, not even in COMPASS-ABS+'s extended space (mixed
nodes), but the idle GPUs could hold it after moving a few instances, ``find_plan`` returns
the move set with the fewest moved jobs, then the fewest moved instances.

Model. A *unit* is what can move: an anchored slot of width 2 or 4 with its fillers, or a
1-GPU instance outside slots (a pool occupant or a stray). A node's *room* is G minus its
slot widths and its 1-GPU instances outside slots; an anchor of width W = w*(g) fits a node
whose room is >= W (on a pool node its occupants become strays). Units move only between
*candidate* nodes: the partial nodes with room >= 1, at most ``max_nodes`` of them, read from
the space's indexes (never a scan of all nodes); the head may also use the empty nodes.

Exact feasibility. All sizes divide each other (1 | 2 | 4 | 8), so items fit rooms r_n iff
for every s: (total size of the items of size >= s) <= sum_n s floor(r_n / s) (place items
largest first on any node that fits: each s-item lowers every such sum by its size,
wherever it goes). Moving units M out of their nodes and re-placing them with the head's w
anchors therefore works iff, for every s in {2, 4, 8} with s <= W,

    sum_{n in C} s floor((R(n) + m_n(<s)) / s) + 8 E >= W w,

with m_n(<s) the size of M's units smaller than s on node n (units of size >= s add as much
room as they take) and E the empty nodes. The condition is monotone: moving more units never
hurts. So a set J of jobs can admit the head iff moving all of J's units does.

Search. Job sets J of increasing size (up to ``max_jobs``) among the jobs with units on the
candidates; at the first size where some J is feasible, each such J's cheapest unit subset
(fewest instances: every count vector over J's units grouped by node and size, cheapest
units of a group first) is realised, and the cheapest plan wins (ties: lowest job ids).
A realisation gives each moved unit a destination (largest first, best fit among the other
candidates, the head's anchors placed first on a virtual copy) and orders the moves so that
none over-commits; a unit set with no such realisation is skipped. ``max_evals`` bounds the
job sets tried; the search is exact when neither bound binds (tests compare it with a brute
force over every move set on small clusters).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, product

from compass.model import InstanceKey, slot_width
from compass.schedulers.abs_space import AbsSpace, Spot


@dataclass(frozen=True, slots=True)
class Unit:
    """A movable unit on ``node``: a slot (``key`` its anchor) or a 1-GPU instance ``key``."""

    node: int
    size: int
    key: InstanceKey
    is_slot: bool
    instances: int
    jobs: frozenset[int]


@dataclass(frozen=True, slots=True)
class MovePlan:
    """Migrations that make room for the head: ``moves`` ((unit, destination), in an order
    that never over-commits), and their cost."""

    moves: tuple[tuple[Unit, int], ...]
    jobs: int
    instances: int

    @property
    def cost(self) -> tuple[int, int]:
        return (self.jobs, self.instances)


def room(space: AbsSpace, n: int) -> int:
    """G minus node n's slot widths and its 1-GPU instances outside slots."""
    if space.kind(n) == "pool":
        return space.gpus_per_node - space.used(n)
    return space.residual(n)


def candidate_nodes(space: AbsSpace, max_nodes: int) -> list[int]:
    """The partial nodes with room >= 1, most room first (ties: lowest index), at most
    ``max_nodes``; from the residual and occupancy buckets."""
    nodes = [(-space.residual(n), n) for n in space.slotted_with_residual(1)]
    nodes += [(space.used(n) - space.gpus_per_node, n) for n in space.partial_pool_nodes()]
    return [n for _, n in sorted(nodes)[:max_nodes]]


def units_on(space: AbsSpace, n: int) -> list[Unit]:
    """The units of node n: its slots narrower than G, then its pool occupants and strays."""
    units = [Unit(n, s.width, s.anchor, True, 1 + len(s.fillers),
                  frozenset({s.anchor[0], *(f[0] for f in s.fillers)}))
             for s in space.slots_on(n) if s.width < space.gpus_per_node]
    ones = space.pool_on(n) if space.kind(n) == "pool" else space.strays_on(n)
    units += [Unit(n, 1, key, False, 1, frozenset({key[0]})) for key in ones]
    return units


class _Problem:
    """The rooms, units and head of one search (see the module docstring)."""

    def __init__(self, space: AbsSpace, g: int, count: int, empty: Sequence[int],
                 max_nodes: int):
        self.space = space
        self.width = slot_width(g) if g > 1 else 1
        self.count = count
        self.empty = list(empty)
        self.nodes = candidate_nodes(space, max_nodes)
        self.room = {n: room(space, n) for n in self.nodes}
        self.units = [u for n in self.nodes for u in units_on(space, n)]
        self.sizes = [s for s in (2, 4, 8) if s <= self.width]
        free = len(self.empty) * space.gpus_per_node
        self.base = {s: free + sum(s * (r // s) for r in self.room.values()) for s in self.sizes}

    def fits(self, units: Sequence[Unit]) -> bool:
        """Whether moving ``units`` makes room for the head (the condition above)."""
        moved: dict[int, list[int]] = {}
        for u in units:
            moved.setdefault(u.node, []).append(u.size)
        need = self.width * self.count
        for s in self.sizes:
            total = self.base[s]
            for n, sizes in moved.items():
                r = self.room[n]
                total += s * ((r + sum(x for x in sizes if x < s)) // s) - s * (r // s)
            if total < need:
                return False
        return True

    def realise(self, units: Sequence[Unit]) -> tuple[tuple[Unit, int], ...] | None:
        """Destinations for ``units`` and an order of their moves in which none over-commits,
        or None (module docstring)."""
        G = self.space.gpus_per_node
        final = dict(self.room)
        for u in units:
            final[u.node] += u.size
        virtual = dict(final)
        virtual.update({n: G for n in self.empty})
        leaving = {n for n in self.nodes
                   if final[n] == G and sum(1 for u in self.units if u.node == n)
                   == sum(1 for u in units if u.node == n)}
        items: list[tuple[int, int, Unit | None]] = [(-self.width, 0, None)] * self.count
        items += [(-u.size, 1, u) for u in units]
        dests = []
        for neg, _, u in sorted(items, key=lambda x: (x[0], x[1])):
            size = -neg
            fits = [(r, n) for n, r in virtual.items() if r >= size and (
                u is None or (n != u.node and n in final and not (u.is_slot and n in leaving)))]
            if not fits:
                return None
            _, n = min(fits)
            virtual[n] -= size
            if u is not None:
                dests.append((u, n))
        return _order(dests, dict(self.room))


def _order(dests: list[tuple[Unit, int]], room: dict[int, int]
           ) -> tuple[tuple[Unit, int], ...] | None:
    """The moves in an order where each destination has room when its unit arrives."""
    pending, out = list(dests), []
    while pending:
        for i, (u, n) in enumerate(pending):
            if room[n] >= u.size:
                room[n] -= u.size
                room[u.node] += u.size
                out.append(pending.pop(i))
                break
        else:
            return None
    return tuple(out)


#: Most count vectors ``_cheapest_subsets`` enumerates; beyond, all of a pool is moved.
MAX_SUBSETS = 512


def _cheapest_subsets(units: Sequence[Unit], free_jobs: frozenset[int]
                      ) -> Iterator[tuple[tuple[int, int], list[Unit]]]:
    """((moved jobs, moved instances), subset) for every subset of ``units`` that takes the
    cheapest units of each (node, size, kind) group, cheapest first (ties: the order of the
    count vectors); units of ``free_jobs`` only cost nothing. Just all ``units`` when there
    are more than ``MAX_SUBSETS`` such subsets (a bound of the search)."""
    def cost(u: Unit) -> int:
        return 0 if u.jobs <= free_jobs else u.instances

    def price(chosen: Sequence[Unit]) -> tuple[int, int]:
        jobs = frozenset().union(*(u.jobs for u in chosen)) - free_jobs
        return len(jobs), sum(map(cost, chosen))

    groups: dict[tuple[int, int, bool], list[Unit]] = {}
    for u in units:
        groups.setdefault((u.node, u.size, u.is_slot), []).append(u)
    lists = [sorted(g, key=lambda u: (cost(u), u.key)) for g in groups.values()]
    total = 1
    for g in lists:
        total *= len(g) + 1
    if total > MAX_SUBSETS:
        yield price(units), list(units)
        return
    options = []
    for counts in product(*(range(len(g) + 1) for g in lists)):
        chosen = [u for g, k in zip(lists, counts) for u in g[:k]]
        if chosen:
            options.append((price(chosen), counts, chosen))
    options.sort(key=lambda x: (x[0], x[1]))
    for cheapest, _, chosen in options:
        yield cheapest, chosen


def find_plan(space: AbsSpace, g: int, count: int, empty: Sequence[int], *,
              free_jobs: frozenset[int] = frozenset(), max_nodes: int = 6, max_jobs: int = 2,
              max_evals: int = 400, beat: tuple[int, int] | None = None) -> MovePlan | None:
    """The cheapest migrations after which ``count`` anchors of g GPUs fit (module
    docstring), or None.

    ``empty``: the empty nodes the anchors may use, lowest index first. ``free_jobs``: jobs
    whose moves cost nothing (started at this instant: they are launched where they end
    up); they are not counted. Only the room is planned here: the caller applies the moves
    and places the anchors by the ordinary (mixed) Place rule, which finds the room made.
    ``beat``: return only a plan cheaper than this cost (the search prunes by it).

    Unit pools tried: each candidate node's units (a whole node evacuated, or part of it),
    then the units of each job set of up to ``max_jobs`` jobs that could still beat the best
    plan found (``max_evals`` pools in all); for a G-wide anchor only the job sets that hold
    every job of some candidate node (one must be emptied), which loses nothing.
    """
    problem = _Problem(space, g, count, empty, max_nodes)
    if problem.width == 1 or not problem.units or not problem.fits(problem.units):
        return None  # 1-GPU heads never need moves in the extended space
    best: MovePlan | None = None
    limit = beat  # the cost to beat
    evals = 0

    def consider(units: Sequence[Unit]) -> None:
        nonlocal best, limit, evals
        evals += 1
        if not units or not problem.fits(units):
            return
        for price, subset in _cheapest_subsets(units, free_jobs):
            if limit is not None and price >= limit:
                return
            if problem.fits(subset) and (moves := problem.realise(subset)) is not None:
                best = MovePlan(moves, *price)
                limit = best.cost
                return

    by_node: dict[int, list[Unit]] = {}
    by_job: dict[int, list[Unit]] = {}
    for u in problem.units:
        by_node.setdefault(u.node, []).append(u)
        for j in u.jobs:
            by_job.setdefault(j, []).append(u)
    for units in by_node.values():
        consider(units)
    for chosen in _job_sets(problem, by_node, sorted(set(by_job) - free_jobs), free_jobs,
                            max_jobs):
        if limit is not None and (len(chosen), len(chosen)) >= limit:
            break  # k jobs move at least k instances
        if evals >= max_evals:
            return best
        allowed = free_jobs | set(chosen)
        consider(list({u.key: u for j in allowed for u in by_job.get(j, ())
                       if u.jobs <= allowed}.values()))
    return best


def _job_sets(problem: _Problem, by_node: dict[int, list[Unit]], jobs: list[int],
              free_jobs: frozenset[int], max_jobs: int) -> Iterator[tuple[int, ...]]:
    """The job sets ``find_plan`` tries, by size then ids: all of up to ``max_jobs`` jobs;
    for a G-wide anchor only those that hold every job of some candidate node (a node must
    be emptied, and a unit moves only with all of its jobs)."""
    sizes = range(0 if free_jobs else 1, max_jobs + 1)
    if problem.width < problem.space.gpus_per_node:
        for k in sizes:
            yield from combinations(jobs, k)
        return
    found = set()
    for units in by_node.values():
        seed = frozenset().union(*(u.jobs for u in units)) - free_jobs
        if len(seed) <= max_jobs:
            rest = [j for j in jobs if j not in seed]
            for k in range(max_jobs - len(seed) + 1):
                found.update(tuple(sorted(seed.union(extra))) for extra in combinations(rest, k))
    yield from sorted(found, key=lambda chosen: (len(chosen), chosen))


def find_fill(space: AbsSpace, *, free_jobs: frozenset[int] = frozenset(),
              max_nodes: int = 6, max_jobs: int = 2, max_evals: int = 400) -> MovePlan | None:
    """The cheapest moves that fill one partial node exactly (it becomes full, so the
    partial nodes drop by at least one), or None.

    Targets: the candidate nodes with the least room (``max_nodes`` of them, no open slot
    vacancy), least room first; the units come from the other partial nodes (the
    ``max_nodes`` with the most room and the other targets). For each job set of up to
    ``max_jobs`` jobs (plus ``free_jobs``, which cost nothing; ``max_evals`` sets in all),
    the units it may move fill a room r iff some a + 2b + 4d = r with a 1-GPU units, b
    width-2 and d width-4 slots; the cheapest choice wins (ties: least room, lowest
    target, then job ids). It stops at a plan no other can beat (k jobs move at least k
    instances). The moves all go into the target, so any order is valid.
    """
    G = space.gpus_per_node
    partial = [(room(space, n), n) for n in candidate_nodes(space, space.nodes)]
    targets = sorted(partial)[:max_nodes]
    nodes = sorted({n for _, n in targets} | {n for _, n in partial[:max_nodes]})
    units = [u for n in nodes for u in units_on(space, n)]
    floor = (0, 0) if free_jobs else (1, 1)
    best: MovePlan | None = None
    evals = 0
    for r, t in targets:
        if best is not None and best.cost <= floor:
            break
        if r >= G or any(x.vacancy > 0 for x in space.slots_on(t)):
            continue
        by_job: dict[int, list[Unit]] = {}
        counts: dict[int, list[int]] = {}  # per job: its units of sizes 1, 2, 4 (a bound)
        for u in units:
            if u.node != t and u.size <= r:
                for j in u.jobs:
                    by_job.setdefault(j, []).append(u)
                    counts.setdefault(j, [0, 0, 0, 0, 0])[u.size] += 1
        free = [sum(counts[j][x] for j in free_jobs if j in counts) for x in (1, 2, 4)]
        # jobs by what they can contribute (capped at r): job sets are feasible or not by
        # class, so only the classes whose units can make r are expanded into job sets
        classes: dict[tuple[int, int, int], list[int]] = {}
        for j in sorted(set(by_job) - free_jobs):
            c = counts[j]
            classes.setdefault((min(c[1], r), min(c[2], r // 2), min(c[4], r // 4)),
                               []).append(j)
        for k in range(0 if free_jobs else 1, max_jobs + 1):
            if best is not None and (k > best.jobs or best.cost <= (k, k)):
                break
            for chosen in _feasible_job_sets(r, k, classes, free):
                evals += 1
                if evals > max_evals:
                    return best
                allowed = free_jobs | set(chosen)
                pool = {u.key: u for j in allowed for u in by_job.get(j, ()) if u.jobs <= allowed}
                plan = _fill(t, r, list(pool.values()), free_jobs)
                if plan is not None and (best is None or plan.cost < best.cost):
                    best = plan
                    if best.cost <= (k, k):
                        break  # k jobs move at least k instances: nothing with k is cheaper
    return best


def _feasible_job_sets(r: int, k: int, classes: dict[tuple[int, int, int], list[int]],
                       free: Sequence[int]) -> list[tuple[int, ...]]:
    """The k-job sets, by ids, whose units (with the free jobs') could sum to r, from the
    jobs' classes (counts of 1-, 2-, 4-GPU units, capped at r)."""
    out: list[tuple[int, ...]] = []
    for picked in combinations_with_replacement(sorted(classes), k):
        total = [free[i] + sum(c[i] for c in picked) for i in range(3)]
        if not _sums_to(r, *total):
            continue
        groups = [(c, picked.count(c)) for c in sorted(set(picked))]
        for parts in product(*(combinations(classes[c], n) for c, n in groups)):
            out.append(tuple(sorted(j for part in parts for j in part)))
    return sorted(out)


def _sums_to(r: int, ones: int, twos: int, fours: int) -> bool:
    """Whether a + 2b + 4d = r for some a <= ones, b <= twos, d <= fours."""
    return any(0 <= r - 4 * d - 2 * b <= ones for d in range(min(fours, r // 4) + 1)
               for b in range(min(twos, (r - 4 * d) // 2) + 1))


def _fill(target: int, r: int, units: Sequence[Unit], free_jobs: frozenset[int]
          ) -> MovePlan | None:
    """The cheapest units (by instances) of sizes summing to exactly ``r``, moved into
    ``target``."""
    def cost(u: Unit) -> int:
        return 0 if u.jobs <= free_jobs else u.instances

    by_size = {size: sorted((u for u in units if u.size == size), key=lambda u: (cost(u), u.key))
               for size in (1, 2, 4)}
    best = None
    for d in range(min(len(by_size[4]), r // 4) + 1):
        for b in range(min(len(by_size[2]), (r - 4 * d) // 2) + 1):
            a = r - 4 * d - 2 * b
            if a > len(by_size[1]):
                continue
            chosen = by_size[4][:d] + by_size[2][:b] + by_size[1][:a]
            jobs = frozenset().union(*(u.jobs for u in chosen)) - free_jobs
            price = (len(jobs), sum(map(cost, chosen)))
            if best is None or price < best[0]:
                best = (price, chosen)
    if best is None:
        return None
    (jobs, instances), chosen = best
    return MovePlan(tuple((u, target) for u in chosen), jobs, instances)


def apply_plan(space: AbsSpace, plan: MovePlan) -> None:
    """Apply the plan's moves to the space (recorded as migrations of the current decision)."""
    for unit, dst in plan.moves:
        if unit.is_slot:
            if space.kind(dst) == "pool":
                space.mix(dst)
            space.move_slot(unit.key, dst)
        else:
            if space.holds_only_strays(dst):
                pool_in_place(space, dst)
            kind = space.kind(dst)
            space.move_one(unit.key, Spot("stray" if kind == "slotted" else "pool", dst))


def pool_in_place(space: AbsSpace, n: int) -> None:
    """Make the strays of a node that lost its last slot its pool occupants (no moves)."""
    for key in space.strays_on(n):
        space.move_one(key, Spot("pool", n))
