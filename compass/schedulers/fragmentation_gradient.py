"""FGD's fragmentation measure in whole-GPU form and its size distributions (baselines.md s. 0).

Shared by ``fgd``, ``cafgd`` and ``mcg``. For a distribution p over instance sizes s in 1..G
(its mass may differ from 1, as in CAFGD):

    F_p(f) = f * sum_{s > f} p_s              expected free GPUs a random instance cannot use
    dF_p(f, g) = F_p(f - g) - F_p(f)          gradient of placing a g-GPU instance on f free

Source: hkust-adsl/kubernetes-scheduler-simulator ``pkg/utils/frag.go``
(``NodeGpuShareFragAmount``, ``GetTypicalPods``): with whole GPUs a GPU is either fully free
or fully used, so FGD's "partially used GPU" term vanishes and CPU terms drop. Node rules
only see a node through (f_n, n), so the gradient is a (G+1) x (G+1) table and node choice
goes through ``greedy_gang`` over the free-GPU buckets, O(G log N) per instance (on K > 1
domains restricted to nodes that keep a panel layout, appendix D.1).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import sub

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import NodeKey, ScoreKey, greedy_gang, panel_fit

#: A size distribution: instance size g -> weight (mass 1 except CAFGD's blended m(tau)).
SizeDistribution = Mapping[int, float]

#: Gradients are rounded to this many decimals so that mathematically equal values tie
#: exactly and fall to the deterministic node-index rule [A] (float noise is not a score).
GRADIENT_DECIMALS = 12
#: Gradients further apart than this keep their order when rounded to GRADIENT_DECIMALS.
UNTIED_GAP = 1e-9


def checked_distribution(p: SizeDistribution, gpus_per_node: int) -> dict[int, float]:
    """A copy of an injected distribution; sizes must lie in 1..G and weights be >= 0."""
    bad = {s: v for s, v in p.items() if not 1 <= int(s) <= gpus_per_node or v < 0}
    if bad:
        raise ValueError(f"invalid size distribution entries {bad} for G={gpus_per_node}")
    return {int(s): float(p[s]) for s in sorted(p, key=int)}


def instance_histogram(jobs: Iterable[Job]) -> Counter[int]:
    """Instances per size: a job adds w_j counts to size g_j (spec s. 2, per-instance count)."""
    counts: Counter[int] = Counter()
    for job in jobs:
        counts[job.gpus_per_instance] += job.num_instances
    return counts


def normalized(counts: Mapping[int, float]) -> dict[int, float]:
    """``counts`` scaled to mass 1, keys ascending (empty stays empty)."""
    total = sum(counts.values())
    return {s: counts[s] / total for s in sorted(counts) if counts[s]} if total else {}


def typical_sizes(counts: Mapping[int, float], share: float, step: int = 1) -> dict[int, float]:
    """FGD's "typical pods" (``GetTypicalPods``), also CAFGD's top-K (``genTopK``).

    Sizes by descending count (ties: smaller size first [A]; the sources iterate a Go map),
    taken ``step`` at a time until their cumulative count reaches ``share`` of the total;
    the kept sizes are renormalised to 1 and the others dropped.
    """
    ranked = sorted((s for s in counts if counts[s] > 0), key=lambda s: (-counts[s], s))
    target = share * sum(counts[s] for s in ranked)
    kept = 0
    covered = 0.0
    while kept < len(ranked) and covered < target:
        for s in ranked[kept:kept + step]:
            covered += counts[s]
        kept += step
    return normalized({s: counts[s] for s in ranked[:kept]})


def blend(a: SizeDistribution, b: SizeDistribution, weight: float) -> dict[int, float]:
    """weight * a + (1 - weight) * b without zero entries (CAFGD's m(tau), MCG's p)."""
    mixed = {s: weight * a.get(s, 0.0) + (1.0 - weight) * b.get(s, 0.0)
             for s in sorted(set(a) | set(b))}
    return {s: v for s, v in mixed.items() if v}


def quantized_score(delta: float) -> int:
    """The FGD/CAFGD plugin score int(100 * sigmoid(-dF)), dF in GPUs (``fgd_score.go``)."""
    return int(100.0 / (1.0 + math.exp(delta)))


def fragmentation(masses: Sequence[float]) -> tuple[float, ...]:
    """F_p(f) = f * sum_{s > f} p_s for f in 0..G, p given per size 0..G: O(G)."""
    frag = [0.0] * len(masses)
    above = 0.0
    for f in range(len(masses) - 1, -1, -1):
        frag[f] = f * above
        above += masses[f]
    return tuple(frag)


def dense(distribution: SizeDistribution, gpus_per_node: int) -> list[float]:
    """A distribution's masses per size 0..G (sizes above G dropped: no node can hold them)."""
    return [distribution.get(s, 0.0) for s in range(gpus_per_node + 1)]


class FragmentationGradient:
    """F_p(0..G) and the rows dF_p(., g) for one distribution p on G-GPU nodes."""

    __slots__ = ("_distribution", "_masses", "gpus_per_node", "frag", "_rows", "_exact",
                 "_rounded")

    def __init__(self, distribution: dict[int, float] | None, gpus_per_node: int,
                 frag: tuple[float, ...], masses: Sequence[float] | None = None) -> None:
        """``frag`` is F_p; p is ``distribution``, or its ``masses`` per size 0..G, spelt out
        as a dictionary only when ``distribution`` is read (a per-job gradient never is)."""
        self._distribution = distribution
        self._masses = masses
        self.gpus_per_node = gpus_per_node
        self.frag = frag
        self._rows: dict[int, tuple[float, ...]] = {}
        self._exact: dict[int, tuple[float, ...]] = {}
        #: g -> {f: dF_p(f, g) rounded}, the entries ``placement_gradients`` visited
        self._rounded: dict[int, dict[int, float]] = {}

    def __repr__(self) -> str:
        return (f"FragmentationGradient({self.distribution!r}, {self.gpus_per_node}, "
                f"{self.frag!r})")

    @property
    def distribution(self) -> dict[int, float]:
        """p: size -> weight (of a blend: its non-zero masses of sizes 1..G)."""
        if self._distribution is None:
            self._distribution = {s: m for s, m in enumerate(self._masses) if s and m}
        return self._distribution

    @classmethod
    def of(cls, distribution: SizeDistribution, gpus_per_node: int) -> FragmentationGradient:
        """F_p(f) = f * sum_{s > f} p_s for f in 0..G: O(G)."""
        return cls(dict(distribution), gpus_per_node,
                   fragmentation(dense(distribution, gpus_per_node)))

    @classmethod
    def blended(cls, a: Sequence[float], b: Sequence[float], weight: float
                ) -> FragmentationGradient:
        """``of(blend(a, b, weight), G)`` for masses a, b given per size 0..G (index 0 unused),
        with the same floats but no dictionary: O(G) for a per-job or per-pass mix (CAFGD's
        m(tau), MCG's p)."""
        rest = 1.0 - weight
        masses = [weight * x + rest * y for x, y in zip(a, b, strict=True)]
        return cls(None, len(masses) - 1, fragmentation(masses), masses)

    def exact_delta(self, g: int) -> tuple[float, ...]:
        """F_p(f - g) - F_p(f) for f in 0..G (inf where f < g), not rounded: O(G), once per g."""
        row = self._exact.get(g)
        if row is None:
            frag = self.frag
            row = self._exact[g] = (math.inf,) * g + tuple(map(sub, frag, frag[g:]))
        return row

    def delta(self, g: int) -> tuple[float, ...]:
        """dF_p(f, g) for f in 0..G (inf where f < g), computed once per g: O(G)."""
        row = self._rows.get(g)
        if row is None:
            row = self._rows[g] = tuple(round(d, GRADIENT_DECIMALS)
                                        for d in self.exact_delta(g))
        return row

    def node_key(self, g: int, quantize: bool = False) -> NodeKey:
        """FGD's node rule for g-GPU instances: min (dF, n), or max (score, then min n).

        When no two finite gradients of the row lie within ``UNTIED_GAP`` of each other, the
        unrounded row orders the free counts exactly as ``delta`` does (rounding is monotone
        and moves a value by far less than the gap), so it is the key and the G rounds per
        row are saved: the one per-job cost of CAFGD and per-pass cost of MCG that dominated.
        """
        if quantize:
            return ScoreKey([-quantized_score(d) for d in self.delta(g)])
        row = self.exact_delta(g)
        return ScoreKey(row if untied(row[g:]) else self.delta(g))

    def placement_gradients(self, state: ClusterState, g: int, nodes: Iterable[int]
                            ) -> list[float]:
        """dF of a gang's first k instances placed in order on ``nodes``, k = 1, 2, ...: the
        last is the gang's dF_J (spec s. 3), the others are those of its greedy prefixes (a
        greedy placement of fewer instances is a prefix). Only visited entries are rounded,
        each once per row."""
        row = self.exact_delta(g)
        rounded = self._rounded.get(g)
        if rounded is None:
            rounded = self._rounded[g] = {}
        free: dict[int, int] = {}
        total = 0.0
        sums = []
        for n in nodes:
            f = free.get(n)
            if f is None:
                f = state.free(n)
            d = rounded.get(f)
            if d is None:
                d = rounded[f] = round(row[f], GRADIENT_DECIMALS)
            total += d
            sums.append(total)
            free[n] = f - g
        return sums


def untied(values: Sequence[float]) -> bool:
    """Whether every two of ``values`` differ by more than ``UNTIED_GAP`` (neighbours in
    sorted order; a plain loop beats the C helpers on the <= G values of a row)."""
    ordered = sorted(values)
    for low, high in zip(ordered, ordered[1:]):
        if high - low <= UNTIED_GAP:
            return False
    return True


def gradient_gang(
    state: ClusterState, job: Job, gradient: FragmentationGradient, key: NodeKey
) -> tuple[tuple[int, ...], float] | None:
    """Greedy gang placement by ``key`` and its total gradient dF_J, or None if it does not fit."""
    nodes = greedy_gang(state, job, key)
    if nodes is None:
        return None
    return nodes, gradient.placement_gradients(state, job.gpus_per_instance, nodes)[-1]


def whole_node_gang(state: ClusterState, job: Job) -> tuple[int, ...] | None:
    """Greedy placement of a job of whole-node instances (g = G) under any node rule of the
    family: only empty nodes are candidates and dF_p(G, G) = F_p(0) - F_p(G) = 0 under
    every p (dF_J = 0), so it takes the w lowest empty nodes; on K > 1 domains through
    ``greedy_gang``'s panel test, with any scores."""
    G = state.gpus_per_node
    if panel_fit(state, G) is not None:
        return greedy_gang(state, job, ScoreKey((0.0,) * (G + 1)))
    empty = state.nodes_with_free(G)
    w = job.num_instances
    return tuple(empty[:w]) if len(empty) >= w else None


@dataclass
class SlidingHistogram:
    """The last ``size`` arrived instance sizes, oldest first, with per-size counts and sums
    of arrival indexes (entry k of the run has index k), so position-weighted mixes are O(G).

    The entries are kept as runs [size, count], so feeding or evicting a run of equal sizes
    costs O(1) whatever its length (a job's w_j instances arrive together).
    """

    size: int
    counts: Counter[int] = field(init=False)
    index_sums: Counter[int] = field(init=False)
    added: int = field(init=False, default=0)
    _runs: deque[list[int]] = field(init=False)
    _length: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"window size must be >= 1, got {self.size}")
        self._runs = deque()
        self.counts = Counter()
        self.index_sums = Counter()

    def __len__(self) -> int:
        return self._length

    @property
    def first_index(self) -> int:
        """Arrival index of the oldest entry in the window."""
        return self.added - self._length

    @property
    def oldest(self) -> int:
        """The oldest size in the (non-empty) window."""
        return self._runs[0][0]

    def add(self, value: int, count: int = 1) -> None:
        """Append ``count`` instances of one size, evicting the oldest beyond ``size``: the
        entries of indexes i .. i + k - 1 add k i + k (k - 1) / 2 to their size's index sum."""
        if count < 1:
            return
        size, runs, counts, index_sums = self.size, self._runs, self.counts, self.index_sums
        added = self.added
        length = self._length
        first = added - length  # index of the oldest entry
        if count > size:  # the run's first count - size entries leave it at once
            added += count - size
            count = size
        evict = length + count - size
        if evict > 0:
            length = size - count
            while evict:
                run = runs[0]
                old, k = run
                if k > evict:
                    run[1] = k - evict
                    k = evict
                else:
                    runs.popleft()
                left = counts[old] - k
                if left:
                    counts[old] = left
                    index_sums[old] -= k * first + k * (k - 1) // 2
                else:
                    del counts[old], index_sums[old]
                first += k
                evict -= k
        if runs and runs[-1][0] == value:
            runs[-1][1] += count
        else:
            runs.append([value, count])
        counts[value] = counts.get(value, 0) + count
        index_sums[value] = index_sums.get(value, 0) + count * added + count * (count - 1) // 2
        self._length = length + count
        self.added = added + count

    def tail(self, size: int) -> SlidingHistogram:
        """The window of ``size`` (at most this one's) that was fed the same arrivals: this
        window's last entries, with their arrival indexes; O(runs it holds)."""
        if not 1 <= size <= self.size:
            raise ValueError(f"a tail of a window of {self.size} needs 1 <= size <= it, "
                             f"got {size}")
        tail = SlidingHistogram(size)
        counts, index_sums = tail.counts, tail.index_sums
        take = tail._length = min(size, self._length)
        end = tail.added = self.added  # one past the newest index
        runs = []
        for value, count in reversed(self._runs):
            k = count if count < take else take
            end -= k
            counts[value] = counts.get(value, 0) + k
            index_sums[value] = index_sums.get(value, 0) + k * end + k * (k - 1) // 2
            runs.append([value, k])
            take -= k
            if not take:
                break
        runs.reverse()
        tail._runs = deque(runs)
        return tail

    def distribution(self) -> dict[int, float]:
        """Plain size shares over the window."""
        return normalized(self.counts)
