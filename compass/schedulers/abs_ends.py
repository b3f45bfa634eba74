"""End-aligned lazy compaction (COMPASS-ABS+, ``end_aligned``): which one-move fill to apply.

When lazy compaction must lower the partial nodes and a fill of one partial node by one
moved instance exists, every such fill costs the same (one job, one instance): the paper's
search (``abs_moves.find_fill``) takes the first by room and node index. A node that
becomes full turns partial again at its first departure, and a departure from a full node
while N x SIF is at its bound costs another compaction; a departure from a node that is
already partial costs nothing. So among the one-move fills this picks the one whose filled
node's first planned departure (start + runtime estimate of its jobs, as backfill plans
them; clairvoyant, as CAFGD, under the default ``exact`` estimate) is latest, preferring a
move that also empties its source: the nodes kept full are those that stay full longest,
the early-ending instances stay on nodes that are partial anyway. It changes only which
fill is applied, never how many.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compass.schedulers.abs_moves import MovePlan, Unit, candidate_nodes, room, units_on
from compass.schedulers.abs_space import AbsSpace

#: Most targets (least room first) and most other sources (most room first) one search
#: reads, as ``find_fill`` bounds its own: at most 2 x 16 nodes however many are partial
#: (on the goal days at most 9 are when lazy compaction runs, so the bound never binds).
MAX_NODES = 16


def aligned_fill(space: AbsSpace, end_of: Callable[[int], float],
                 max_nodes: int = MAX_NODES) -> MovePlan | None:
    """The one-job, one-instance fill (a unit of one instance, a 1-GPU instance or an anchor
    without fillers, moved from a partial node into another whose room it fills exactly,
    which has no open slot vacancy) that empties its source if any does, then leaves the
    filled node's earliest planned end (``end_of`` of a job id) latest; ties: the target,
    then the source, with the most room (``candidate_nodes``'s order: the unit leaves the
    sparser node). Among the ``max_nodes`` partial nodes with the least room and the
    ``max_nodes`` with the most. None if no such fill exists."""
    nodes = candidate_nodes(space, space.nodes)
    if len(nodes) > 2 * max_nodes:
        least = sorted(nodes, key=lambda n: (room(space, n), n))[:max_nodes]
        kept = {*nodes[:max_nodes], *least}
        nodes = [n for n in nodes if n in kept]
    units = {n: units_on(space, n) for n in nodes}
    best: tuple[tuple[bool, float], Unit, int] | None = None
    for t in nodes:
        r = room(space, t)
        if any(s.vacancy > 0 for s in space.slots_on(t)):
            continue
        first = min((end_of(j) for u in units[t] for j in u.jobs), default=math.inf)
        for n in nodes:
            for u in units[n] if n != t else ():
                if u.size == r and u.instances == 1:
                    end = min(first, *map(end_of, u.jobs))
                    key = (len(units[n]) > 1, -end)
                    if best is None or key < best[0]:
                        best = (key, u, t)
    if best is None:
        return None
    _, u, t = best
    return MovePlan(((u, t),), 1, 1)
