"""SIFOpt: the oracle that migrates to an exact Phi* witness at every event (paper appendix C).

Source: the paper's appendix C (Algorithm 2 and its prose: the witness packing P*(t) is the
target placement SIFOpt moves towards) and section 5.4; no code is public. Rules:
docs/baselines.md, "SIFOpt". The witness is the foundation's
``fragmentation.witness_packing``: Algorithm 2 under the WCC, else an exact optimum (greedy
when it meets the bound, else the configuration ILP), so Phi* is attained after every event
even when the WCC fails; appendix C's heuristic residual ILP is therefore not needed.
Assumptions [A] (the paper does not spell out SIFOpt's per-event steps):

* admission: queued jobs in FIFO order, admit J while the instances of running + admitted + J
  fit into N nodes (under the WCC: total demand <= G * N); stop at the first that does not;
* bins are mapped to nodes by a maximum-overlap assignment (overlap = sum_g min(bin count,
  node count); ``scipy.optimize.linear_sum_assignment``), ties towards fuller bins on lower
  nodes; nodes without a bin are emptied; admitted instances fill the target's deficits,
  lowest node first, in FIFO order; running instances realise the rest (``realise``);
* ``keep_optimal`` (default on): when the current placement, with the admitted jobs placed
  best-fit, already has Phi* partial nodes it *is* a witness and nothing migrates;
* migrations cost the simulator's c like everyone's (run with ``migration_cost=0`` for the
  idealised bound).

The protocol places an admitted job before its moves, but a witness may need room that only
migrations make. So SIFOpt rearranges in the event hooks (``on_arrival``, ``on_departure``),
which run before the admission pass: it mirrors the FIFO queue, moves running instances to
the witness of running + admissible prefix while leaving that prefix's slots free, and
``place`` then hands out those reserved slots. Per rearrangement O(I log I + N^3).

The engine applies moves one at a time, each within capacity, and a max-overlap witness can
need a swap that no order allows (a 4 against a {2, 1} on two nodes with 1 free GPU each and
no room elsewhere). SIFOpt then repairs [A]: the repacking ILP (``repack``, objective
"repair", at most Phi* partial nodes) gives the packing that moves the fewest GPUs, realised
instead. If that cannot be ordered either (seen only where the WCC fails: 1 instant in
~56,000 on random small-cluster streams), nothing migrates, the admissible jobs go best-fit
where they fit, and ``unrealised`` counts the event (SIF may then be > 0 until the next one).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from compass.cluster import ClusterState
from compass.fragmentation import InfeasiblePacking, inherent_partial_nodes, witness_packing
from compass.model import Job
from compass.schedulers.base import Move, Placement, Scheduler, tag_moves
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.realise import node_counts, realise
from compass.schedulers.registry import register
from compass.schedulers.repack import NODE_LIMIT, repack

Plan = dict[int, tuple[int, ...]]


def assign_bins(bins: Sequence[tuple[int, ...]], current: np.ndarray) -> np.ndarray:
    """Target counts per node (spec section 7, step 3): each bin on a distinct node maximising
    total overlap with ``current`` (N x (G+1) counts), ties to fuller bins on lower nodes.

    A node whose content equals a bin's keeps it (an exchange argument shows some maximum
    assignment does: min(x, a) + min(a, y) - a <= min(x, y) per size), the lowest-index such
    nodes first; the rest is a rectangular ``linear_sum_assignment`` over the other bins and
    nodes, of which only as many empty nodes as bins, lowest index first, can matter.
    """
    N, width = current.shape
    if len(bins) > N:
        raise ValueError(f"{len(bins)} bins do not fit {N} nodes")
    cells = [b * width + g for b, items in enumerate(bins) for g in items]
    content = np.bincount(cells, minlength=len(bins) * width).reshape(len(bins), width)
    target = np.zeros_like(current)
    spare_bins, spare_nodes = _keep_identical(content, current, target)
    if spare_bins.size:
        rows, cols = _max_overlap(content[spare_bins], current, spare_nodes)
        target[spare_nodes[cols]] = content[spare_bins[rows]]
    return target


def _keep_identical(
    content: np.ndarray, current: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Give bins to the lowest-index nodes with the same content (in ``target``); return the
    bins and the nodes left, keeping only as many empty nodes as bins are left."""
    base = content.shape[1] ** np.arange(content.shape[1])  # counts per size <= G < base
    bin_keys, node_keys = content @ base, current @ base
    by_key = np.argsort(node_keys, kind="stable")  # by content, then node index
    sorted_keys = node_keys[by_key]
    bins = np.argsort(bin_keys, kind="stable")  # by content, then bin index
    keys = bin_keys[bins]
    lo = np.searchsorted(sorted_keys, keys)  # the nodes of each bin's content: [lo, hi)
    hi = np.searchsorted(sorted_keys, keys, "right")
    rank = np.arange(len(keys)) - np.searchsorted(keys, keys)  # the i-th bin of its content
    kept = rank < hi - lo  # ... takes the i-th node of that content, if there is one
    nodes = by_key[(lo + rank)[kept]]
    target[nodes] = content[bins[kept]]
    taken = np.zeros(len(node_keys), dtype=bool)
    taken[nodes] = True
    spare_bins = np.sort(bins[~kept])
    empty = np.flatnonzero((node_keys == 0) & ~taken)
    taken[empty[len(spare_bins) :]] = True
    return spare_bins.astype(np.int64), np.flatnonzero(~taken)


def _max_overlap(
    content: np.ndarray, current: np.ndarray, nodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (bins) and columns (positions in ``nodes``) of a maximum-overlap assignment."""
    N, width = current.shape
    here = current[nodes]
    overlap = sum(np.minimum.outer(content[:, g], here[:, g]) for g in range(1, width))
    load = content @ np.arange(width)
    tie = np.outer(load, N - 1 - nodes)
    weight = overlap * (int(load.sum()) * N + 1) + tie  # integers, exact in float64
    return linear_sum_assignment(weight.astype(float), maximize=True)


def reserve(
    target: np.ndarray, current: np.ndarray, jobs: Sequence[Job]
) -> tuple[Plan, np.ndarray]:
    """Nodes for each admitted job's instances in the target's deficits (lowest node first,
    FIFO), and the target left for the running instances."""
    deficit = np.maximum(target - current, 0)
    plan: Plan = {}
    for job in jobs:
        g = job.gpus_per_instance
        nodes: list[int] = []
        for n in np.flatnonzero(deficit[:, g]).tolist():
            take = min(int(deficit[n, g]), job.num_instances - len(nodes))
            nodes.extend([n] * take)
            deficit[n, g] -= take
            if len(nodes) == job.num_instances:
                break
        assert len(nodes) == job.num_instances, "the witness holds every admitted instance"
        plan[job.job_id] = tuple(nodes)
    reserved = np.maximum(target - current, 0) - deficit
    return plan, target - reserved


@register
class SIFOpt(Scheduler):
    """Oracle: after every event the placement is a Phi* witness (SIF = 0)."""

    name = "sifopt"

    def __init__(
        self, *, keep_optimal: bool = True, repair_time_limit: float | None = None,
        repair_node_limit: int = NODE_LIMIT, seed: int = 0
    ) -> None:
        super().__init__(seed=seed)
        self.keep_optimal = keep_optimal
        self.repair_time_limit = repair_time_limit
        self.repair_node_limit = repair_node_limit
        self._queue: deque[Job] = deque()
        self._plan: Plan = {}
        #: Rearrangements whose witness moves had no valid one-by-one order (repaired) ...
        self.repairs = 0
        #: ... and those the repair could not order either (left undone: SIF may be > 0).
        self.unrealised = 0

    def params(self) -> dict[str, Any]:
        return {"keep_optimal": self.keep_optimal, "repair_time_limit": self.repair_time_limit,
                "repair_node_limit": self.repair_node_limit, "seed": self.seed}

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self._queue = deque()
        self._plan = {}
        self.repairs = 0
        self.unrealised = 0

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> tuple[Move, ...]:
        self._queue.append(job)
        return self._rearrange(state)

    def on_departure(self, job: Job, state: ClusterState, now: float) -> tuple[Move, ...]:
        return self._rearrange(state)

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """The slots reserved for ``job`` by the last rearrangement, or None (not admitted)."""
        nodes = self._plan.pop(job.job_id, None)
        if nodes is None:
            return None
        head = self._queue.popleft()
        assert head.job_id == job.job_id, "SIFOpt admits in FIFO order"
        return Placement(job.job_id, nodes)

    def check(self, state: ClusterState) -> None:
        running = [j.job_id for j in self._queue if state.is_running(j.job_id)]
        assert not running, f"jobs {running} are both queued and running"
        assert not self._plan, f"reserved slots of {list(self._plan)} were not used"

    def _rearrange(self, state: ClusterState) -> tuple[Move, ...]:
        """Admit the FIFO prefix that fits, then move to a witness of running + prefix."""
        counts = list(state.counts)
        admitted = self._admissible(state, counts)
        phi = inherent_partial_nodes(counts, state.nodes, state.gpus_per_node)
        plan = _best_fit_if_optimal(state, admitted, phi) if self.keep_optimal else None
        moves: tuple[Move, ...] = ()
        if plan is None:
            plan, moves = self._to_witness(state, counts, phi, admitted)
        self._plan = plan
        return tag_moves(moves, "witness")

    def _to_witness(
        self, state: ClusterState, counts: list[int], phi: int, admitted: list[Job]
    ) -> tuple[Plan, tuple[Move, ...]]:
        """Slots and moves for the max-overlap witness; if no move order reaches it, for the
        repair; if none reaches that either, best-fit slots and no moves."""
        current = node_counts(state)
        bins = witness_packing(counts, state.nodes, state.gpus_per_node)
        plan, moves = _realise_target(state, assign_bins(bins, current), current, admitted)
        if moves is not None:
            return plan, moves
        self.repairs += 1
        added = np.array(counts) - current.sum(axis=0)
        repair = repack(state, self.repair_time_limit, "highs", added=added,
                        objective="repair", max_partial=phi, node_limit=self.repair_node_limit)
        if repair is not None:
            plan, moves = _realise_target(state, repair.target, current, admitted)
            if moves is not None:
                return plan, moves
        self.unrealised += 1
        return _best_fit_prefix(state, admitted)[0], ()

    def _admissible(self, state: ClusterState, counts: list[int]) -> list[Job]:
        """Queue prefix whose instances fit with the running ones (adds them to ``counts``)."""
        admitted = []
        for job in self._queue:
            g = job.gpus_per_instance
            counts[g] += job.num_instances
            try:
                inherent_partial_nodes(counts, state.nodes, state.gpus_per_node)
            except InfeasiblePacking:
                counts[g] -= job.num_instances
                break
            admitted.append(job)
        return admitted


def _best_fit_if_optimal(state: ClusterState, jobs: Sequence[Job], phi: int) -> Plan | None:
    """Best-fit nodes for ``jobs`` if they all fit and leave exactly ``phi`` partial nodes."""
    if not jobs:
        return {} if state.partial_nodes == phi else None
    plan, scratch = _best_fit_prefix(state, jobs)
    return plan if len(plan) == len(jobs) and scratch.partial_nodes == phi else None


def _realise_target(
    state: ClusterState, target: np.ndarray, current: np.ndarray, jobs: Sequence[Job]
) -> tuple[Plan, tuple[Move, ...] | None]:
    """Reserve the admitted jobs' slots in ``target`` and order the running instances' moves."""
    plan, running_target = reserve(target, current, jobs)
    return plan, realise(state, running_target, current)


def _best_fit_prefix(state: ClusterState, jobs: Sequence[Job]) -> tuple[Plan, ClusterState]:
    """Best-fit nodes for the FIFO prefix of ``jobs`` that fits without migrations, and the
    state with them placed."""
    scratch = state.copy()
    plan: Plan = {}
    for job in jobs:
        nodes = best_fit_gang(scratch, job.gpus_per_instance, job.num_instances)
        if nodes is None:
            break
        scratch.place_job(job.job_id, job.gpus_per_instance, nodes)
        plan[job.job_id] = nodes
    return plan, scratch
