"""Inherent fragmentation Phi*, F* and the SIF metric (section 3.2, appendix C).

Phi*(counts, N) is the least number of partial nodes (non-empty, not full) over every
feasible packing of the active instances into at most N bins of G GPUs. It is computed
exactly: the closed form 1[T mod 8 != 0] under the Workload Composition Condition
(eq. 9, 21), else a greedy packing when it attains the lower bound 1[T mod G != 0], else
an integer program over bin configurations solved by HiGHS (or CBC). Results off the
closed form are memoised by the normalised count vector, N, G and solver.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from operator import index, mul

import numpy as np

from compass.oracle import milp
from compass.oracle.milp import Milp, Solver
from compass.oracle.panels import PANEL_GPUS, instance_panels

#: Node size of the paper (section 2.2); the WCC closed form holds only for it.
WCC_GPUS_PER_NODE = 8
#: Largest node size the configuration enumeration supports.
MAX_GPUS_PER_NODE = 16

Counts = Mapping[int, int] | Sequence[int]
#: A packing as bin contents (descending item sizes) with their multiplicities.
Bins = tuple[tuple[tuple[int, ...], int], ...]


class InfeasiblePacking(ValueError):
    """The instances do not fit into the given number of nodes."""


# ------------------------------------------------------------------ input handling
def _check_gpus_per_node(gpus_per_node: int) -> None:
    if gpus_per_node < 1:
        raise ValueError(f"gpus_per_node must be >= 1, got {gpus_per_node}")
    if gpus_per_node > MAX_GPUS_PER_NODE:
        raise NotImplementedError(
            f"bin-configuration enumeration supports gpus_per_node <= {MAX_GPUS_PER_NODE}, "
            f"got {gpus_per_node}"
        )


def _count(size: object, n: object) -> int:
    if type(n) is not int:
        try:
            n = index(n)  # type: ignore[arg-type]
        except TypeError:
            raise ValueError(f"count of size {size!r} must be an integer, got {n!r}") from None
    if n < 0:  # type: ignore[operator]
        raise ValueError(f"count of size {size!r} must be >= 0, got {n}")
    return n  # type: ignore[return-value]


def _normalise(counts: Counts, gpus_per_node: int) -> tuple[int, ...]:
    """Counts as a tuple ``n[g]`` for g in 0..G (n[0] = 0); sequence index 0 is ignored."""
    if type(counts) is tuple and len(counts) == gpus_per_node + 1:  # ClusterState.counts
        if set(map(type, counts)) == {int} and min(counts) >= 0:
            return (0,) + counts[1:]
    is_mapping = isinstance(counts, Mapping)
    vec = [0] * (gpus_per_node + 1)
    for g, n in counts.items() if is_mapping else enumerate(counts):
        if not (value := _count(g, n)) or (g == 0 and not is_mapping):
            continue
        if not ((type(g) is int or isinstance(g, Integral)) and 1 <= g <= gpus_per_node):
            raise ValueError(f"instance size {g!r} is outside 1..{gpus_per_node}")
        vec[int(g)] = value
    return tuple(vec)


def _as_dict(n: tuple[int, ...]) -> dict[int, int]:
    return {g: n_g for g, n_g in enumerate(n) if n_g}


def _check_nodes(nodes: int | None) -> None:
    if nodes is None or (type(nodes) is int and nodes >= 0):
        return
    if not isinstance(nodes, Integral) or nodes < 0:
        raise ValueError(f"nodes must be None or an integer >= 0, got {nodes!r}")


def _check_solver(solver: str) -> None:
    if solver not in milp.SOLVERS:
        raise ValueError(f"solver must be 'highs' or 'cbc', got {solver!r}")


# ------------------------------------------------------------------ WCC (eq. 9, 18-21)
def total_demand(counts: Counts, gpus_per_node: int = 8) -> int:
    """Total active GPU demand T = sum_g g * n_g (eq. 20)."""
    return _demand(_normalise(counts, gpus_per_node))


def _demand(n: tuple[int, ...]) -> int:
    return sum(map(mul, n, range(len(n))))


def _deficit(n: tuple[int, ...]) -> int:
    return n[3] + 3 * n[5] + 2 * n[6] + n[7] - n[1]


def wcc_deficit(counts: Counts) -> int:
    """Filler shortfall delta = n3 + 3 n5 + 2 n6 + n7 - n1 (appendix C.3); G = 8 only."""
    return _deficit(_normalise(counts, WCC_GPUS_PER_NODE))


def wcc_holds(counts: Counts) -> bool:
    """Workload Composition Condition n1 >= n3 + 3 n5 + 2 n6 + n7 (eq. 9/18); G = 8 only."""
    return wcc_deficit(counts) <= 0


# ------------------------------------------------------------------ packings
def partial_bins(packing: Iterable[Sequence[int]], gpus_per_node: int = 8) -> int:
    """Number nu(P) of partial bins (non-empty, load < G) in a packing (section 3.1)."""
    return sum(1 for b in packing if 0 < sum(b) < gpus_per_node)


def _bins_partial(bins: Bins, gpus_per_node: int) -> int:
    return sum(m for content, m in bins if sum(content) < gpus_per_node)


def _bins_used(bins: Bins) -> int:
    return sum(m for _, m in bins)


def _fits(bins: Bins, nodes: int | None) -> bool:
    return nodes is None or _bins_used(bins) <= nodes


def _canonical(bins: Counter[tuple[int, ...]]) -> Bins:
    """Bins ordered fullest first, then by content descending; zero multiplicities dropped."""
    items = [(c, m) for c, m in bins.items() if m]
    return tuple(sorted(items, key=lambda cm: (sum(cm[0]), cm[0]), reverse=True))


def _best_fit_decreasing(
    items: Iterable[tuple[tuple[int, ...], int]], gpus_per_node: int
) -> Counter[tuple[int, ...]]:
    """Best-Fit-Decreasing over ``(content, count)`` items given in non-increasing size.

    Works on groups of identical bins: the best-fit bin keeps absorbing copies of an item
    until it is too full, so each step fills whole groups at once (O(groups) per step).
    """
    bins: Counter[tuple[int, ...]] = Counter()
    for content, k in items:
        size = sum(content)
        while k:
            host, room = (), gpus_per_node  # the fullest group that fits (the first on ties)
            for c, m in bins.items():
                if m and size <= (free := gpus_per_node - sum(c)) < room:
                    host, room = c, free
            available = bins[host] if host else k  # else fresh bins, as many as needed
            per_bin = room // size
            filled, take = min(k // per_bin, available), per_bin
            if not filled:
                filled, take = 1, k  # fewer copies left than one bin takes
            if host:
                bins[host] -= filled
            bins[tuple(sorted(host + content * take, reverse=True))] += filled
            k -= filled * take
    return bins


def _wcc_packing(n: tuple[int, ...]) -> Counter[tuple[int, ...]]:
    """Algorithm 2, lines 3-7: combine FUF instances into {4, 8} composites, then BFD."""
    left = list(n)
    composites: Counter[tuple[int, ...]] = Counter()

    def combine(content: tuple[int, ...], limit: int) -> int:
        if limit <= 0:  # nothing of the leading size left (most mixes): skip the work
            return 0
        k = min([limit] + [left[g] // content.count(g) for g in set(content)])
        for g in content:
            left[g] -= k
        composites[content] += k
        return k

    fives = n[5] - combine((5, 3), n[5])
    fives -= combine((5, 2, 1), fives)
    combine((5, 1, 1, 1), fives)
    combine((6, 1, 1), n[6] - combine((6, 2), n[6]))
    combine((7, 1), n[7])
    combine((3, 1), left[3])
    assert not any(left[g] for g in (3, 5, 6, 7)), "WCC holds, so every FUF item combines"
    items = [((8,), left[8])] + [(c, k) for c, k in composites.items() if sum(c) == 8]
    items += [((4,), left[4])] + [(c, k) for c, k in composites.items() if sum(c) == 4]
    items += [((2,), left[2]), ((1,), left[1])]
    return _best_fit_decreasing([(c, k) for c, k in items if k], WCC_GPUS_PER_NODE)


def _closed_form(n: tuple[int, ...], nodes: int | None) -> int:
    """Phi* = 1[T mod 8 != 0] under the WCC (eq. 21); ceil(T/8) bins suffice."""
    demand = _demand(n)
    if nodes is not None and -(-demand // WCC_GPUS_PER_NODE) > nodes:
        raise InfeasiblePacking(
            f"total demand {demand} GPUs does not fit into {nodes} nodes of 8 GPUs"
        )
    return int(demand % WCC_GPUS_PER_NODE != 0)


def _uses_closed_form(n: tuple[int, ...], gpus_per_node: int) -> bool:
    return gpus_per_node == WCC_GPUS_PER_NODE and _deficit(n) <= 0


# ------------------------------------------------------------------ configuration ILP
@functools.cache
def bin_configurations(gpus_per_node: int = 8) -> tuple[tuple[int, ...], ...]:
    """All non-empty multisets of sizes 1..G with sum <= G, as descending tuples (66 for G=8)."""
    _check_gpus_per_node(gpus_per_node)
    configs: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], largest: int, room: int) -> None:
        for g in range(min(largest, room), 0, -1):
            configs.append(prefix + (g,))
            extend(prefix + (g,), g, room - g)

    extend((), gpus_per_node, gpus_per_node)
    return tuple(configs)


@functools.cache
def configuration_matrix(gpus_per_node: int) -> np.ndarray:
    """Row per configuration of ``bin_configurations``: how many items of each size 0..G it
    holds (read-only: cached)."""
    configs = bin_configurations(gpus_per_node)
    matrix = np.zeros((len(configs), gpus_per_node + 1), dtype=np.int64)
    for row, config in enumerate(configs):
        for g in config:
            matrix[row, g] += 1
    matrix.flags.writeable = False
    return matrix


#: The feasibility-jump heuristic costs ~10 ms a solve here, and presolve more than it saves
#: on at most 65 variables (a third of the time, measured); neither affects exactness.
_HIGHS_OPTIONS = {"mip_heuristic_run_feasibility_jump": False, "presolve": "off"}


def _solve_ilp(
    n: tuple[int, ...], nodes: int | None, gpus_per_node: int, solver: str
) -> Counter[tuple[int, ...]]:
    """Configuration ILP: x_c bins of configuration c with sum_c a_cg x_c = n_g, sum_c x_c <= N,
    minimising the partial bins, then the bins (size-G items fill bins of their own)."""
    big = n[gpus_per_node]
    max_bins = None if nodes is None else nodes - big
    if max_bins is not None and max_bins < 0:
        raise InfeasiblePacking(
            f"{big} instances of {gpus_per_node} GPUs need more than {nodes} nodes"
        )
    bins: Counter[tuple[int, ...]] = Counter({(gpus_per_node,): big})
    sizes = [g for g in range(1, gpus_per_node) if n[g]]
    if not sizes:
        return bins
    matrix = configuration_matrix(gpus_per_node)
    absent = [g for g in range(1, gpus_per_node + 1) if g not in sizes]
    rows = np.flatnonzero(~matrix[:, absent].any(axis=1))
    a = matrix[np.ix_(rows, sizes)].T
    b = np.array([n[g] for g in sizes])
    loads = matrix[rows] @ np.arange(gpus_per_node + 1)
    # Lexicographic: a partial bin costs more than any number of bins can (items + 1).
    cost = np.where(loads < gpus_per_node, sum(n) + 2.0, 1.0)
    ub = np.where(a > 0, b[:, None] // np.maximum(a, 1), np.iinfo(np.int64).max).min(axis=0)
    if max_bins is not None:  # at most N - n_G bins besides the size-G ones
        a_rows, lower, upper = np.vstack([a, np.ones(a.shape[1])]), [*b, -np.inf], [*b, max_bins]
    else:
        a_rows, lower, upper = a, b, b
    problem = Milp(cost, a_rows, np.asarray(lower, dtype=float), np.asarray(upper, dtype=float),
                   ub.astype(float), np.ones_like(cost), integral_optimum=True)  # integer costs
    try:
        found = milp.solve(problem, solver, highs_options=_HIGHS_OPTIONS)
    except milp.MilpInfeasible:
        raise InfeasiblePacking(
            f"instances {_as_dict(n)} do not fit into {nodes} nodes of {gpus_per_node} GPUs"
        ) from None
    assert found is not None and found.optimal, "no time limit: the solver finishes"
    x = np.rint(found.x).astype(np.int64)
    assert np.array_equal(a @ x, b), "ILP solution must place every instance exactly once"
    configs = bin_configurations(gpus_per_node)
    bins.update({configs[rows[j]]: int(x[j]) for j in np.flatnonzero(x)})
    return bins


@functools.lru_cache(maxsize=1 << 16)
def _optimal_bins(
    n: tuple[int, ...], nodes: int | None, gpus_per_node: int, solver: str
) -> tuple[int, Bins]:
    """Phi* and an optimal packing: greedy BFD when it attains 1[T mod G != 0], else the
    unbounded optimum when it fits in N bins (Phi*(N) >= Phi*(inf)), else the bounded ILP."""
    demand = _demand(n)
    if nodes is not None and -(-demand // gpus_per_node) > nodes:
        raise InfeasiblePacking(
            f"total demand {demand} GPUs does not fit into {nodes} nodes of {gpus_per_node} GPUs"
        )
    lower_bound = int(demand % gpus_per_node != 0)
    items = [((g,), n[g]) for g in range(gpus_per_node, 0, -1) if n[g]]
    greedy = _canonical(_best_fit_decreasing(items, gpus_per_node))
    if _fits(greedy, nodes) and _bins_partial(greedy, gpus_per_node) == lower_bound:
        return lower_bound, greedy
    if nodes is not None:
        unbounded = _optimal_bins(n, None, gpus_per_node, solver)
        if _fits(unbounded[1], nodes):
            return unbounded
    bins = _canonical(_solve_ilp(n, nodes, gpus_per_node, solver))
    return _bins_partial(bins, gpus_per_node), bins


def _prepare(counts: Counts, nodes: int | None, gpus_per_node: int, solver: str) -> tuple[int, ...]:
    _check_gpus_per_node(gpus_per_node)
    _check_nodes(nodes)
    _check_solver(solver)
    return _normalise(counts, gpus_per_node)


# ------------------------------------------------------------------ public oracle
def inherent_partial_nodes(
    counts: Counts, nodes: int | None = None, gpus_per_node: int = 8, solver: Solver = "highs"
) -> int:
    """Exact Phi* = min over feasible packings of the partial-node count (section 3.2, eq. 1).

    ``counts`` is ``{g: n_g}`` or a sequence indexed by g (index 0 ignored); ``nodes=None``
    means unbounded. Raises ``InfeasiblePacking`` if the instances cannot fit.
    """
    n = _prepare(counts, nodes, gpus_per_node, solver)
    if _uses_closed_form(n, gpus_per_node):
        return _closed_form(n, nodes)
    return _optimal_bins(n, nodes, gpus_per_node, solver)[0]


def state_phi_star(
    n: tuple[int, ...], demand: int, nodes: int, gpus_per_node: int
) -> tuple[int, bool | None]:
    """Phi* and whether the WCC holds (None unless G = 8) for a live cluster state.

    The hot path of the timeline: ``n`` is ``ClusterState.counts`` (a tuple indexed 0..G of
    non-negative ints) and ``demand`` its used GPUs, which fit by construction, so input
    checks are skipped; eq. 21's closed form 1[T mod 8 != 0] answers whenever the WCC
    holds, the memoised exact oracle otherwise.
    """
    if gpus_per_node == WCC_GPUS_PER_NODE:
        if _deficit(n) <= 0:
            return int(demand % WCC_GPUS_PER_NODE != 0), True
        return _optimal_bins(n, nodes, gpus_per_node, "highs")[0], False
    _check_gpus_per_node(gpus_per_node)
    return _optimal_bins(n, nodes, gpus_per_node, "highs")[0], None


def inherent_fragmentation(
    counts: Counts, nodes: int, gpus_per_node: int = 8, solver: Solver = "highs"
) -> float:
    """F* = Phi* / N (eq. 1)."""
    if not isinstance(nodes, int) or nodes < 1:
        raise ValueError(f"F* needs a cluster of nodes >= 1, got {nodes!r}")
    return inherent_partial_nodes(counts, nodes, gpus_per_node, solver) / nodes


def witness_packing(
    counts: Counts, nodes: int | None = None, gpus_per_node: int = 8, solver: Solver = "highs"
) -> list[tuple[int, ...]]:
    """One packing attaining Phi* (Algorithm 2 under the WCC, else the greedy or the ILP).

    Each bin is a tuple of item sizes, descending; bins are ordered fullest first.
    """
    return [content for content, m in witness_bins(counts, nodes, gpus_per_node, solver)
            for _ in range(m)]


def witness_bins(
    counts: Counts, nodes: int | None = None, gpus_per_node: int = 8, solver: Solver = "highs"
) -> Bins:
    """``witness_packing`` grouped: each distinct bin content once, with its multiplicity, in
    the same order (a witness has a few distinct contents but up to N bins)."""
    n = _prepare(counts, nodes, gpus_per_node, solver)
    if _uses_closed_form(n, gpus_per_node):
        phi = _closed_form(n, nodes)
        bins = _canonical(_wcc_packing(n))
        assert _bins_partial(bins, gpus_per_node) == phi, "Algorithm 2 attains eq. 21"
        return bins
    return _optimal_bins(n, nodes, gpus_per_node, solver)[1]


def configuration_ilp(
    counts: Counts, nodes: int | None = None, gpus_per_node: int = 8, solver: Solver = "highs"
) -> dict[tuple[int, ...], int]:
    """Solve the bin-configuration ILP directly (no fast paths, no cache): config -> bins."""
    n = _prepare(counts, nodes, gpus_per_node, solver)
    return dict(_canonical(_solve_ilp(n, nodes, gpus_per_node, solver)))


def sif(partial_nodes: int, phi_star: int, nodes: int) -> float:
    """Scheduler-induced fragmentation SIF = F^pi - F* = (nu(P^pi) - Phi*) / N (eq. 2)."""
    if nodes < 1:
        raise ValueError(f"SIF needs a cluster of nodes >= 1, got {nodes}")
    if not 0 <= phi_star <= partial_nodes <= nodes:
        raise ValueError(
            f"need 0 <= Phi* ({phi_star}) <= partial nodes ({partial_nodes}) <= N ({nodes}); "
            "a negative SIF means a bug in the placement or the oracle"
        )
    return (partial_nodes - phi_star) / nodes


# ------------------------------------------------------------------ multi-panel domains
@dataclass(frozen=True)
class DomainLayout:
    """The panel layout the simulator assumes for one NVLink domain (appendix D.1).

    Multi-panel instances hold ``multi_panels`` whole panels; the sub-panel instances
    (g <= 8) are packed into the other panels by the exact oracle so that as few panels as
    possible are partial (``partial_panels``); ``sub_panels`` panels host them.
    """

    multi_panels: int
    sub_panels: int
    partial_panels: int

    @property
    def occupied_panels(self) -> int:
        """Panels holding at least one instance."""
        return self.multi_panels + self.sub_panels


@functools.cache
def domain_layout(sizes: tuple[int, ...], panels: int) -> DomainLayout:
    """Best panel layout of one domain's instance ``sizes`` on ``panels`` panels.

    Raises ``InfeasiblePacking`` if no layout keeps every sub-panel instance in one panel.
    """
    multi = sum(map(instance_panels, sizes))
    if multi > panels:
        raise InfeasiblePacking(f"multi-panel instances need {multi} > {panels} panels")
    small = Counter(g for g in sizes if g <= PANEL_GPUS)
    bins = witness_packing(small, nodes=panels - multi, gpus_per_node=PANEL_GPUS)
    return DomainLayout(multi, len(bins), partial_bins(bins, PANEL_GPUS))


@dataclass(frozen=True)
class HierarchicalFragmentation:
    """Observed and inherent partial counts at both levels of eq. 26 (docs/nvl72.md).

    GPU level: partial panels across the cluster's N_p = D K panels, against
    Phi*_GPU = the least partial panels of any packing of the sub-panel instances into the
    panels the multi-panel instances leave free (exact). Panel level: domains with some
    but not all panels occupied, against Phi*_panel = the least such count over packings of
    the panel items (each multi-panel instance as p, each occupied sub-panel panel as 1)
    into D bins of K (exact via the configuration ILP for K <= 16, else NaN).
    """

    partial_panels: int
    phi_star_gpu: int
    sif_gpu: float
    panel_partial_domains: int
    phi_star_panel: float
    sif_panel: float


@dataclass
class LayoutTotals:
    """``DomainLayout`` fields summed over a cluster's domains, kept up to date by ``add``
    and ``remove`` as single domains change (the timeline's incremental panel columns)."""

    panels: int
    multi_panels: int = 0
    sub_panels: int = 0
    partial_panels: int = 0
    partial_domains: int = 0

    def add(self, layout: DomainLayout, sign: int = 1) -> None:
        self.multi_panels += sign * layout.multi_panels
        self.sub_panels += sign * layout.sub_panels
        self.partial_panels += sign * layout.partial_panels
        self.partial_domains += sign * (0 < layout.occupied_panels < self.panels)

    def remove(self, layout: DomainLayout) -> None:
        self.add(layout, -1)


def hierarchical_fragmentation(
    domains: Sequence[tuple[int, ...]], panels: int
) -> HierarchicalFragmentation:
    """Both levels of eq. 26 for ``domains`` (each a sorted tuple of instance sizes)."""
    totals = LayoutTotals(panels)
    for sizes in domains:
        totals.add(domain_layout(sizes, panels))
    counts = Counter(g for sizes in domains for g in sizes)
    return combine_levels(totals, counts, len(domains))


def combine_levels(
    totals: LayoutTotals, counts: Mapping[int, int], domains: int
) -> HierarchicalFragmentation:
    """Eq. 26 from the summed domain layouts and the cluster's instances per size."""
    panels = totals.panels
    small = {g: n for g, n in counts.items() if g <= PANEL_GPUS}
    n_panels = domains * panels
    phi_gpu = inherent_partial_nodes(small, nodes=n_panels - totals.multi_panels,
                                     gpus_per_node=PANEL_GPUS)
    if panels <= MAX_GPUS_PER_NODE:
        items: Counter[int] = Counter()
        for g, n in counts.items():
            if g > PANEL_GPUS:
                items[instance_panels(g)] += n
        items[1] += totals.sub_panels
        phi_panel: float = inherent_partial_nodes(items, nodes=domains, gpus_per_node=panels)
    else:
        phi_panel = float("nan")
    partial, partial_domains = totals.partial_panels, totals.partial_domains
    return HierarchicalFragmentation(
        partial, phi_gpu, sif(partial, phi_gpu, n_panels),
        partial_domains, phi_panel, (partial_domains - phi_panel) / domains,
    )
