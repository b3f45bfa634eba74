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
``place`` then hands out those reserved slots. Per rearrangement O(I + N log N) in C (the
nodes' content keys, ``node_keys``, sorted to find the nodes that keep a bin) plus Python work
on the few nodes that change only, and the assignment over those (O(S^3) for S of them).

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
from collections import Counter, deque
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.fragmentation import Bins, InfeasiblePacking, state_phi_star, witness_bins
from compass.schedulers.base import Move, Placement, Scheduler, tag_moves
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.realise import node_counts, order_moves, select_row_moves
from compass.schedulers.registry import register
from compass.schedulers.repack import NODE_LIMIT, repack

Plan = dict[int, tuple[int, ...]]


@functools.cache
def _key_digits(gpus_per_node: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Weight and radix of each size g in a node's content key (index 0 unused): digit g
    counts the size-g instances, 0..G // g, so keys identify contents and stay exact in
    float64 (below 2^27 for G = 16)."""
    radix = [1] + [gpus_per_node // g + 1 for g in range(1, gpus_per_node + 1)]
    weights = [0] + np.cumprod(radix[:-1]).tolist()
    return tuple(weights), tuple(radix)


def node_keys(state: ClusterState) -> np.ndarray:
    """Each node's content (its instances per size) as one integer, O(N + I) in C: nodes with
    the same content, and only those, share a key; an empty node has key 0."""
    weights = np.array(_key_digits(state.gpus_per_node)[0])
    nodes, sizes = state.instance_nodes_and_sizes()
    size = np.fromiter(sizes, dtype=np.int64, count=len(sizes))
    node = np.fromiter(nodes, dtype=np.int64, count=len(nodes))
    return np.bincount(node, weights=weights[size], minlength=state.nodes).astype(np.int64)


def key_counts(keys: Iterable[int], gpus_per_node: int) -> list[list[int]]:
    """The counts per size (lists of G + 1) of the contents with these keys."""
    weights, radix = _key_digits(gpus_per_node)
    digits = list(zip(weights, radix))[1:]
    return [[0] + [key // w % r for w, r in digits] for key in keys]


def assign_bins(
    bins: Bins, keys: np.ndarray, gpus_per_node: int
) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """Where the witness changes the placement (spec section 7, step 3): each bin on a
    distinct node maximising the total overlap with the current contents (``keys``, from
    ``node_keys``), ties to fuller bins on lower nodes. ``bins`` are distinct contents with
    multiplicities, in bin order (``witness_bins``). Returns the nodes that may change,
    ascending, with their counts now and their target counts (lists of G + 1); every other
    node keeps its content.

    A node whose content equals a bin's keeps it (an exchange argument shows some maximum
    assignment does: min(x, a) + min(a, y) - a <= min(x, y) per size), the lowest-index such
    nodes first; the rest is a rectangular ``linear_sum_assignment`` over the other bins and
    nodes, of which only as many empty nodes as bins, lowest index first, can matter.
    """
    if sum(m for _, m in bins) > len(keys):
        raise ValueError(f"{sum(m for _, m in bins)} bins do not fit {len(keys)} nodes")
    weights = _key_digits(gpus_per_node)[0]
    bin_keys = [sum(weights[g] for g in content) for content, _ in bins]
    spare, nodes = _keep_identical(bin_keys, [m for _, m in bins], keys)
    current = key_counts(keys[nodes].tolist(), gpus_per_node)
    target = [[0] * (gpus_per_node + 1) for _ in nodes]
    if spare:
        content = [[bins[group][0].count(g) for g in range(gpus_per_node + 1)]
                   for group in spare]
        rows, cols = _max_overlap(content, current, nodes, len(keys))
        for r, c in zip(rows.tolist(), cols.tolist()):
            target[c] = content[r]
    return nodes, current, target


def _keep_identical(
    bin_keys: list[int], multiplicity: list[int], keys: np.ndarray
) -> tuple[list[int], list[int]]:
    """Give bins to the lowest-index nodes with the same content; return the group of each
    bin left, in bin order, and the nodes left (ascending), keeping only as many empty
    nodes as bins are left. O(N log N) in C, then O(groups + nodes left)."""
    by_key = keys.argsort(kind="stable")  # by content, then node index
    sorted_keys = keys[by_key]
    wanted = np.array([*bin_keys, 0])
    lo = sorted_keys.searchsorted(wanted).tolist()  # each content's nodes: [lo, hi)
    hi = sorted_keys.searchsorted(wanted, "right").tolist()
    given: dict[int, int] = {}  # nodes of a content already kept by an earlier group
    spare: list[int] = []
    kept: list[tuple[int, int]] = []  # runs of positions in ``by_key`` that stay as they are
    for group, (key, m) in enumerate(zip(bin_keys, multiplicity)):
        start = lo[group] + given.get(key, 0)
        keep = min(m, hi[group] - start)
        kept.append((start, start + keep))
        given[key] = given.get(key, 0) + keep
        spare += [group] * (m - keep)
    empty = hi[-1]  # key 0 comes first: positions [0, empty) hold the empty nodes
    # empty nodes beyond those the spare bins could take stay empty: not candidates
    kept.append((min(given.get(0, 0) + len(spare), empty), empty))
    left: list[int] = []
    at = 0
    for start, end in sorted(kept):
        left.extend(range(at, start))
        at = max(at, end)
    left.extend(range(at, len(keys)))
    return spare, sorted(by_key[left].tolist())


def _max_overlap(
    content: list[list[int]], here: list[list[int]], nodes: list[int], total_nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (bins, counts ``content``) and columns (``nodes``, counts ``here``) of a
    maximum-overlap assignment; ``total_nodes`` is N."""
    bins, hosts = np.array(content), np.array(here)
    overlap = np.minimum(bins[:, None, 1:], hosts[None, :, 1:]).sum(axis=2)
    load = bins @ np.arange(bins.shape[1])
    tie = np.outer(load, total_nodes - 1 - np.array(nodes))
    weight = overlap * (int(load.sum()) * total_nodes + 1) + tie  # integers, exact in float64
    return linear_sum_assignment(weight.astype(float), maximize=True)


def reserve(
    nodes: Sequence[int], target: Sequence[Sequence[int]], current: Sequence[Sequence[int]],
    jobs: Sequence[Job],
) -> tuple[Plan, list[list[int]]]:
    """Nodes for each admitted job's instances in the target's deficits (lowest node first,
    FIFO), and the target left for the running instances; ``target`` and ``current`` are the
    counts of ``nodes`` (ascending), the only nodes that change. O(rows * G + instances):
    per size, a stack of the rows still short of it, lowest on top."""
    deficit = [[max(t - c, 0) for t, c in zip(row, now)] for row, now in zip(target, current)]
    left = [list(row) for row in deficit]
    short: dict[int, list[int]] = {}
    plan: Plan = {}
    for job in jobs:
        g, w = job.gpus_per_instance, job.num_instances
        if g not in short:
            short[g] = [i for i in range(len(left) - 1, -1, -1) if left[i][g]]
        rows, hosts = short[g], []
        while len(hosts) < w:
            assert rows, "the witness holds every admitted instance"
            i = rows[-1]
            take = min(left[i][g], w - len(hosts))
            hosts.extend([nodes[i]] * take)
            left[i][g] -= take
            if not left[i][g]:
                rows.pop()
        plan[job.job_id] = tuple(hosts)
    running = [[t - d + rest for t, d, rest in zip(row, short_by, unused)]
               for row, short_by, unused in zip(target, deficit, left)]
    return plan, running


@register
class SIFOpt(Scheduler):
    """Oracle: after every event the placement is a Phi* witness (SIF = 0)."""

    name = "sifopt"
    role = "oracle"
    display = "SIFOpt (oracle)"
    color = "#949494"
    rank = 0
    #: ``place`` hands out the slots the last event reserved: a pass with no event between
    #: finds none left
    skip_idle_instants = True

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
        bins = witness_bins(tuple(counts), state.nodes, state.gpus_per_node)
        nodes, current, target = assign_bins(bins, node_keys(state), state.gpus_per_node)
        plan, moves = _realise_target(state, nodes, target, current, admitted)
        if moves is not None:
            return plan, moves
        self.repairs += 1
        current = node_counts(state)
        added = np.array(counts) - current.sum(axis=0)
        repair = repack(state, self.repair_time_limit, "highs", added=added,
                        objective="repair", max_partial=phi, node_limit=self.repair_node_limit)
        if repair is not None:
            changed = np.flatnonzero((repair.target != current).any(axis=1))
            plan, moves = _realise_target(state, changed.tolist(), repair.target[changed].tolist(),
                                          current[changed].tolist(), admitted)
            if moves is not None:
                return plan, moves
        self.unrealised += 1
        return _best_fit_prefix(state, admitted)[0], ()

    def _admissible(self, state: ClusterState, counts: list[int]) -> tuple[list[Job], int]:
        """Queue prefix whose instances fit with the running ones (adds them to ``counts``),
        and Phi* of running + prefix."""
        nodes, G = state.nodes, state.gpus_per_node
        demand = state.used_gpus
        phi = state_phi_star(state.counts, demand, nodes, G)[0]
        admitted = []
        for job in self._queue:
            g, w = job.gpus_per_instance, job.num_instances
            counts[g] += w
            more = _phi_if_fits(counts, demand + g * w, nodes, G)
            if more is None:
                counts[g] -= w
                break
            phi, demand = more, demand + g * w
            admitted.append(job)
        return admitted, phi


def _phi_if_fits(counts: list[int], demand: int, nodes: int, gpus_per_node: int) -> int | None:
    """Phi* of ``counts`` (``demand`` GPUs in all) on ``nodes`` nodes, None if they do not fit
    (``inherent_partial_nodes`` without its input checks: the counts come from the state)."""
    if demand > nodes * gpus_per_node:
        return None
    try:
        return state_phi_star(tuple(counts), demand, nodes, gpus_per_node)[0]
    except InfeasiblePacking:
        return None


def _best_fit_if_optimal(state: ClusterState, jobs: Sequence[Job], phi: int) -> Plan | None:
    """Best-fit nodes for ``jobs`` if they all fit and leave exactly ``phi`` partial nodes."""
    plan, partial = _best_fit_prefix(state, jobs)
    return plan if len(plan) == len(jobs) and partial == phi else None


def _realise_target(
    state: ClusterState, nodes: list[int], target: list[list[int]], current: list[list[int]],
    jobs: Sequence[Job],
) -> tuple[Plan, tuple[Move, ...] | None]:
    """Reserve the admitted jobs' slots in ``target`` and order the running instances' moves;
    ``target`` and ``current`` are the counts of ``nodes`` (ascending), the only ones that
    change."""
    plan, running = reserve(nodes, target, current, jobs)
    surplus = [[c - t for c, t in zip(now, row)] for now, row in zip(current, running)]
    return plan, order_moves(state, select_row_moves(state, nodes, running, surplus))


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
    for n, k in Counter(nodes).items():
        free = state.free(n)
        change += (0 < free - g * k < G) - (0 < free < G)
    return change
