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

import functools
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from compass.cluster import ClusterState
from compass.fragmentation import Bins, InfeasiblePacking, inherent_partial_nodes, witness_bins
from compass.model import Job
from compass.schedulers.base import Move, Placement, Scheduler, tag_moves
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.realise import node_counts, order_moves, select_row_moves
from compass.schedulers.registry import register
from compass.schedulers.repack import NODE_LIMIT, repack

Plan = dict[int, tuple[int, ...]]


@functools.cache
def _key_digits(gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
    """Weight and radix of each size g in a node's content key (index 0 unused): digit g
    counts the size-g instances, 0..G // g, so keys identify contents and stay exact in
    float64 (below 2^27 for G = 16)."""
    radix = [1] + [gpus_per_node // g + 1 for g in range(1, gpus_per_node + 1)]
    weights = [0] + np.cumprod(radix[:-1]).tolist()
    return np.array(weights, dtype=np.int64), np.array(radix, dtype=np.int64)


def node_keys(state: ClusterState) -> np.ndarray:
    """Each node's content (its instances per size) as one integer, O(N + I) in C: nodes with
    the same content, and only those, share a key; an empty node has key 0."""
    weights = _key_digits(state.gpus_per_node)[0]
    nodes, sizes = state.instance_nodes_and_sizes()
    size = np.fromiter(sizes, dtype=np.int64, count=len(sizes))
    node = np.fromiter(nodes, dtype=np.int64, count=len(nodes))
    return np.bincount(node, weights=weights[size], minlength=state.nodes).astype(np.int64)


def key_counts(keys: np.ndarray, gpus_per_node: int) -> np.ndarray:
    """The counts per size (rows of shape G + 1) of the contents with these keys."""
    weights, radix = _key_digits(gpus_per_node)
    counts = keys[:, None] // np.maximum(weights, 1) % radix
    counts[:, 0] = 0
    return counts


def _bin_counts(bins: Bins, width: int) -> np.ndarray:
    """Counts per size of each bin group's content (one row per group)."""
    rows = np.zeros((len(bins), width), dtype=np.int64)
    for b, (content, _) in enumerate(bins):
        for g in content:
            rows[b, g] += 1
    return rows


def assign_bins(bins: Bins, keys: np.ndarray, gpus_per_node: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the witness changes the placement (spec section 7, step 3): each bin on a
    distinct node maximising the total overlap with the current contents (``keys``, from
    ``node_keys``), ties to fuller bins on lower nodes. ``bins`` are distinct contents with
    multiplicities, in bin order (``witness_bins``). Returns the nodes that may change,
    ascending, and their target counts (rows of shape G + 1); every other node keeps its
    content.

    A node whose content equals a bin's keeps it (an exchange argument shows some maximum
    assignment does: min(x, a) + min(a, y) - a <= min(x, y) per size), the lowest-index such
    nodes first; the rest is a rectangular ``linear_sum_assignment`` over the other bins and
    nodes, of which only as many empty nodes as bins, lowest index first, can matter.
    """
    if sum(m for _, m in bins) > len(keys):
        raise ValueError(f"{sum(m for _, m in bins)} bins do not fit {len(keys)} nodes")
    width = gpus_per_node + 1
    content = _bin_counts(bins, width)
    spare, nodes = _keep_identical(content, [m for _, m in bins], keys, gpus_per_node)
    target = np.zeros((len(nodes), width), dtype=np.int64)
    if len(spare):
        here = key_counts(keys[nodes], gpus_per_node)
        rows, cols = _max_overlap(content[spare], here, nodes, len(keys))
        target[cols] = content[spare[rows]]
    return nodes, target


def _keep_identical(
    content: np.ndarray, multiplicity: list[int], keys: np.ndarray, gpus_per_node: int
) -> tuple[np.ndarray, np.ndarray]:
    """Give bins to the lowest-index nodes with the same content; return the group of each
    bin left, in bin order, and the nodes left (ascending), keeping only as many empty
    nodes as bins are left."""
    by_key = np.argsort(keys, kind="stable")  # by content, then node index
    sorted_keys = keys[by_key]
    bin_keys = content @ _key_digits(gpus_per_node)[0]
    lo = np.searchsorted(sorted_keys, bin_keys).tolist()  # nodes of each content: [lo, hi)
    hi = np.searchsorted(sorted_keys, bin_keys, "right").tolist()
    taken = np.zeros(len(keys), dtype=bool)
    given: dict[int, int] = {}  # nodes of a content already kept by an earlier group
    spare: list[int] = []
    for group, (key, m) in enumerate(zip(bin_keys.tolist(), multiplicity)):
        start = lo[group] + given.get(key, 0)
        kept = min(m, hi[group] - start)
        taken[by_key[start : start + kept]] = True
        given[key] = given.get(key, 0) + kept
        spare += [group] * (m - kept)
    empty = int(np.searchsorted(sorted_keys, 0, "right"))  # key 0 first, by node index
    taken[by_key[given.get(0, 0) + len(spare) : empty]] = True
    return np.array(spare, dtype=np.int64), np.flatnonzero(~taken)


def _max_overlap(
    content: np.ndarray, here: np.ndarray, nodes: np.ndarray, total_nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (bins) and columns (positions in ``nodes``, whose counts are ``here``) of a
    maximum-overlap assignment; ``total_nodes`` is N."""
    width = here.shape[1]
    overlap = np.minimum(content[:, None, 1:], here[None, :, 1:]).sum(axis=2)
    load = content @ np.arange(width)
    tie = np.outer(load, total_nodes - 1 - nodes)
    weight = overlap * (int(load.sum()) * total_nodes + 1) + tie  # integers, exact in float64
    return linear_sum_assignment(weight.astype(float), maximize=True)


def reserve(
    nodes: np.ndarray, target: np.ndarray, current: np.ndarray, jobs: Sequence[Job]
) -> tuple[Plan, np.ndarray]:
    """Nodes for each admitted job's instances in the target's deficits (lowest node first,
    FIFO), and the target left for the running instances; ``target`` and ``current`` are the
    counts of ``nodes`` (ascending), the only nodes that change."""
    deficit = np.maximum(target - current, 0)
    plan: Plan = {}
    for job in jobs:
        g = job.gpus_per_instance
        hosts: list[int] = []
        for i in np.flatnonzero(deficit[:, g]).tolist():
            take = min(int(deficit[i, g]), job.num_instances - len(hosts))
            hosts.extend([int(nodes[i])] * take)
            deficit[i, g] -= take
            if len(hosts) == job.num_instances:
                break
        assert len(hosts) == job.num_instances, "the witness holds every admitted instance"
        plan[job.job_id] = tuple(hosts)
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
        admitted, phi = self._admissible(state, counts)
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
        keys = node_keys(state)
        bins = witness_bins(counts, state.nodes, state.gpus_per_node)
        nodes, target = assign_bins(bins, keys, state.gpus_per_node)
        current = key_counts(keys[nodes], state.gpus_per_node)
        plan, moves = _realise_target(state, nodes, target, current, admitted)
        if moves is not None:
            return plan, moves
        self.repairs += 1
        current = node_counts(state)
        added = np.array(counts) - current.sum(axis=0)
        repair = repack(state, self.repair_time_limit, "highs", added=added,
                        objective="repair", max_partial=phi, node_limit=self.repair_node_limit)
        if repair is not None:
            nodes = np.flatnonzero((repair.target != current).any(axis=1))
            plan, moves = _realise_target(state, nodes, repair.target[nodes], current[nodes],
                                          admitted)
            if moves is not None:
                return plan, moves
        self.unrealised += 1
        return _best_fit_prefix(state, admitted)[0], ()

    def _admissible(self, state: ClusterState, counts: list[int]) -> tuple[list[Job], int]:
        """Queue prefix whose instances fit with the running ones (adds them to ``counts``),
        and Phi* of running + prefix."""
        phi = inherent_partial_nodes(tuple(counts), state.nodes, state.gpus_per_node)
        admitted = []
        for job in self._queue:
            g = job.gpus_per_instance
            counts[g] += job.num_instances
            try:
                phi = inherent_partial_nodes(tuple(counts), state.nodes, state.gpus_per_node)
            except InfeasiblePacking:
                counts[g] -= job.num_instances
                break
            admitted.append(job)
        return admitted, phi


def _best_fit_if_optimal(state: ClusterState, jobs: Sequence[Job], phi: int) -> Plan | None:
    """Best-fit nodes for ``jobs`` if they all fit and leave exactly ``phi`` partial nodes."""
    plan, partial = _best_fit_prefix(state, jobs)
    return plan if len(plan) == len(jobs) and partial == phi else None


def _realise_target(
    state: ClusterState, nodes: np.ndarray, target: np.ndarray, current: np.ndarray,
    jobs: Sequence[Job],
) -> tuple[Plan, tuple[Move, ...] | None]:
    """Reserve the admitted jobs' slots in ``target`` and order the running instances' moves;
    ``target`` and ``current`` are the counts of ``nodes`` (ascending), the only ones that
    change."""
    plan, running = reserve(nodes, target, current, jobs)
    return plan, order_moves(state, select_row_moves(state, nodes, running, current - running))


def _best_fit_prefix(state: ClusterState, jobs: Sequence[Job]) -> tuple[Plan, int]:
    """Best-fit nodes for the FIFO prefix of ``jobs`` that fits without migrations, and the
    partial nodes it leaves. The state is copied only when a further job has to see one
    placed: one admitted job, the common case, is planned by reading the state."""
    plan: Plan = {}
    scratch, partial = state, state.partial_nodes
    for job in jobs:
        g = job.gpus_per_instance
        nodes = best_fit_gang(scratch, g, job.num_instances)
        if nodes is None:
            break
        partial += _partial_change(scratch, g, nodes)
        plan[job.job_id] = nodes
        if len(plan) < len(jobs):
            scratch = state.copy() if scratch is state else scratch
            scratch.place_job(job.job_id, g, nodes)
    return plan, partial


def _partial_change(state: ClusterState, g: int, nodes: Sequence[int]) -> int:
    """How many more partial nodes placing g-GPU instances on ``nodes`` leaves."""
    G = state.gpus_per_node
    change = 0
    for n in set(nodes):
        free = state.free(n)
        left = free - g * nodes.count(n)
        change += (0 < left < G) - (0 < free < G)
    return change
