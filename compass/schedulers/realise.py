"""Target per-node instance counts -> an ordered list of ``Move``s (baselines.md sections 5, 7).

FFT's ILP and SIFOpt's witness both give a target count ``c[n, g]`` of size-g instances per
node. Same-size instances are interchangeable, so the spec's selection rule picks which ones
move: on each (n, g) with surplus a - c > 0, instances of jobs already being moved first, then
the most recently started job, then the lowest ``(job_id, k)``; each goes to the lowest-index
node still short of size g. Nodes are visited in index order, sizes in descending order
[A: the spec leaves this visiting order open].

The engine applies moves one by one and refuses over-commit, so ``order_moves`` orders them:
repeatedly apply, in plan order, every move whose destination has room (vacate before fill).
A dependency cycle with no room on any of its destinations is broken by staging one of its
instances on another node with room (one extra hop; the job pauses once per instant anyway
under the default "per-event" rule). Each instance is staged at most once; when no blocked
instance can be staged, the caller gets ``None``: no order was found. The greedy is not
complete: with an empty node outside the target it fails on ~1 in 2,000 random targets.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import mul

import numpy as np

from compass.cluster import ClusterState
from compass.model import InstanceKey
from compass.schedulers.base import Move


@dataclass(frozen=True, slots=True)
class PlannedMove:
    """One instance of ``size`` GPUs to go from ``src`` to ``dst``."""

    instance: InstanceKey
    src: int
    dst: int
    size: int


def node_counts(state: ClusterState) -> np.ndarray:
    """Running instances per node and size: ``a[n, g]``, shape (N, G + 1); O(N + I) in C."""
    width = state.gpus_per_node + 1
    nodes, sizes = state.instance_nodes_and_sizes()
    cells = (np.fromiter(nodes, dtype=np.int64, count=len(nodes)) * width
             + np.fromiter(sizes, dtype=np.int64, count=len(sizes)))
    return np.bincount(cells, minlength=state.nodes * width).reshape(state.nodes, width)


def realise(state: ClusterState, target: np.ndarray,
            current: np.ndarray | None = None) -> tuple[Move, ...] | None:
    """Moves that turn the running placement into ``target`` counts, valid one by one.

    ``target`` must hold exactly the running instances (same total per size) with every node
    within capacity; ``current`` is ``node_counts(state)`` if the caller has it. Returns None
    when no valid order was found (see ``order_moves``).
    """
    return order_moves(state, select_moves(state, target, current))


def select_moves(state: ClusterState, target: np.ndarray,
                 current: np.ndarray | None = None) -> list[PlannedMove]:
    """The spec's selection rule (section 5, "Realising the counts"), in plan order.

    One pass in C finds the nodes whose counts change; ``select_row_moves`` plans on those.
    """
    surplus = (node_counts(state) if current is None else current) - target
    if target.shape != surplus.shape or (target < 0).any():
        raise ValueError(f"target must be non-negative counts of shape {surplus.shape}")
    rows = np.flatnonzero(surplus.any(axis=1))
    return select_row_moves(state, rows.tolist(), target[rows].tolist(), surplus[rows].tolist())


def select_row_moves(state: ClusterState, rows: Sequence[int], target: Sequence[Sequence[int]],
                     surplus: Sequence[Sequence[int]]) -> list[PlannedMove]:
    """``select_moves`` given only the nodes ``rows`` (ascending) whose counts change, with
    their ``target`` counts and ``surplus`` (current minus target); O(rows + moves), so a
    witness that changes a handful of the N nodes costs a handful. The start order of the
    running jobs is copied only if jobs compete for a move, and searched from its recent end
    only for those.
    """
    _check_target(state, rows, target, surplus)
    latest: list[int] = []  # running jobs, the most recently started first
    age: dict[int, int] = {}  # a job's position in ``latest``
    moving: set[int] = set()

    def recent_first(key: InstanceKey) -> tuple[bool, int, InstanceKey]:
        """Sort key: jobs already moving, then the most recently started, then the key."""
        job = key[0]
        if job not in age:
            latest.extend(() if latest else reversed(list(state.running_jobs())))
            age[job] = latest.index(job)
        return job not in moving, age[job], key

    G = state.gpus_per_node
    destinations = {g: _deficit_nodes(rows, surplus, g) for g in range(1, G + 1)}
    planned: list[PlannedMove] = []
    for n, extra in zip(rows, surplus):
        for g in range(G, 0, -1):
            if extra[g] <= 0:
                continue
            candidates = [key for key, size in state.instances_on(n).items() if size == g]
            for _ in range(extra[g]):
                key = min(candidates, key=recent_first)
                candidates.remove(key)
                moving.add(key[0])
                planned.append(PlannedMove(key, n, next(destinations[g]), g))
    return planned


def order_moves(state: ClusterState, planned: Sequence[PlannedMove]) -> tuple[Move, ...] | None:
    """Order ``planned`` so that every intermediate state fits; None if none was found.

    Passes over the pending moves apply each one whose destination has room; when a pass
    makes no progress, one pending instance (never staged before) is staged on the node with
    the most free GPUs that is no pending destination if possible, then the passes go on.
    O(M * passes + N) for M moves.
    """
    free = state.free_list()
    pending = list(planned)
    staged: set[InstanceKey] = set()
    moves: list[Move] = []
    while pending:
        blocked = []
        for p in pending:
            if free[p.dst] >= p.size:
                free[p.src] += p.size
                free[p.dst] -= p.size
                moves.append(Move(p.instance, p.dst))
            else:
                blocked.append(p)
        if len(blocked) == len(pending):
            blocked = _stage(blocked, free, staged, moves)
            if blocked is None:
                return None
        pending = blocked
    return tuple(moves)


def _stage(
    blocked: list[PlannedMove], free: list[int], staged: set[InstanceKey], moves: list[Move]
) -> list[PlannedMove] | None:
    """Hop one blocked instance to a node with room; the pending list, or None if none can."""
    busy = {p.dst for p in blocked}
    for i, p in enumerate(blocked):
        if p.instance in staged:
            continue
        hosts = [n for n, f in enumerate(free) if f >= p.size and n not in (p.src, p.dst)]
        if not hosts:
            continue
        hop = min(hosts, key=lambda n: (n in busy, -free[n], n))
        free[p.src] += p.size
        free[hop] -= p.size
        moves.append(Move(p.instance, hop))
        staged.add(p.instance)
        return [*blocked[:i], PlannedMove(p.instance, hop, p.dst, p.size), *blocked[i + 1 :]]
    return None


def _deficit_nodes(rows: Sequence[int], surplus: Sequence[Sequence[int]], g: int) -> Iterator[int]:
    """Each node of ``rows`` short of size g, once per missing instance, lowest index first."""
    for n, extra in zip(rows, surplus):
        for _ in range(-extra[g]):
            yield n


def _check_target(state: ClusterState, rows: Sequence[int], target: Sequence[Sequence[int]],
                  surplus: Sequence[Sequence[int]]) -> None:
    """Raise ValueError unless the target, on the changed ``rows``, moves the running
    instances only (same total per size) and over-commits no node; the other rows equal the
    running placement, which is valid."""
    if any(map(sum, zip(*surplus))):
        raise ValueError("target must hold exactly the running instances of every size")
    G = state.gpus_per_node
    over = [n for n, row in zip(rows, target) if sum(map(mul, row, range(G + 1))) > G]
    if over:
        raise ValueError(f"target over-commits node(s) {over}")
