"""The exact inherent-fragmentation oracle Phi* (section 3.2, appendix C) against brute force."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.cluster import ClusterState
from compass.oracle import fragmentation as fr
from compass.oracle.fragmentation import (
    InfeasiblePacking,
    bin_configurations,
    configuration_ilp,
    inherent_fragmentation,
    inherent_partial_nodes,
    partial_bins,
    sif,
    state_phi_star,
    total_demand,
    wcc_deficit,
    wcc_holds,
    witness_packing,
)

INF = math.inf


# ------------------------------------------------------------------ independent reference
def count_vectors(max_demand: int, g_max: int = 8) -> Iterator[tuple[int, ...]]:
    """Every count vector n[0..G] (n[0] = 0) with sum_g g * n_g <= max_demand."""

    def rec(g: int, room: int) -> Iterator[tuple[int, ...]]:
        if g == 0:
            yield (0,)
            return
        for k in range(room // g + 1):
            for head in rec(g - 1, room - g * k):
                yield head + (k,)

    yield from rec(g_max, max_demand)


def fillings(rest: tuple[int, ...], top: int, room: int) -> Iterator[tuple[int, ...]]:
    """Every sub-multiset e[0..top] of ``rest`` over sizes 1..top with sum g * e_g <= room."""
    if top == 0:
        yield (0,)
        return
    for k in range(min(rest[top], room // top) + 1):
        for head in fillings(rest, top - 1, room - k * top):
            yield head + (k,)


@functools.cache
def brute_phi(n: tuple[int, ...], bins_left: int | None, g_max: int = 8) -> float:
    """Least partial bins packing ``n`` into ``bins_left`` bins (None: unbounded); INF if none.

    Fills one bin at a time: the bin holding one largest remaining item, with every
    sub-multiset of the other items that fits beside it.
    """
    if not any(n):
        return 0
    if bins_left == 0:
        return INF
    top = max(g for g, k in enumerate(n) if k)
    rest = n[:top] + (n[top] - 1,) + n[top + 1 :]
    nxt = None if bins_left is None else bins_left - 1
    best = INF
    for extra in fillings(rest, top, g_max - top):
        load = top + sum(g * k for g, k in enumerate(extra))
        left = tuple(r - (extra[g] if g <= top else 0) for g, r in enumerate(rest))
        best = min(best, (load < g_max) + brute_phi(left, nxt, g_max))
    return best


def brute_min_bins(n: tuple[int, ...], g_max: int = 8) -> int:
    k = 0
    while brute_phi(n, k, g_max) == INF:
        k += 1
    return k


def demand(n: Sequence[int]) -> int:
    return sum(g * k for g, k in enumerate(n))


def as_dict(n: Sequence[int]) -> dict[int, int]:
    return {g: k for g, k in enumerate(n) if g and k}


def assert_valid_packing(
    packing: list[tuple[int, ...]], n: Sequence[int], nodes: int | None = None, g_max: int = 8
) -> None:
    """Same multiset, every bin non-empty, descending and within capacity, fullest first."""
    assert Counter(g for b in packing for g in b) == Counter(as_dict(n)), packing
    assert all(b and sum(b) <= g_max and list(b) == sorted(b, reverse=True) for b in packing)
    loads = [sum(b) for b in packing]
    assert loads == sorted(loads, reverse=True)
    assert nodes is None or len(packing) <= nodes


# ------------------------------------------------------------------ configurations
def partitions_up_to(total: int) -> int:
    """Number of integer partitions of 1..total (independent recursion)."""

    @functools.cache
    def p(m: int, largest: int) -> int:
        if m == 0:
            return 1
        return sum(p(m - g, g) for g in range(1, min(m, largest) + 1))

    return sum(p(t, t) for t in range(1, total + 1))


@pytest.mark.parametrize("g_max", range(1, 11))
def test_bin_configurations_are_all_multisets_that_fit(g_max: int) -> None:
    configs = bin_configurations(g_max)
    assert len(configs) == len(set(configs)) == partitions_up_to(g_max)
    assert all(0 < sum(c) <= g_max and list(c) == sorted(c, reverse=True) for c in configs)


def test_sixty_six_configurations_for_eight_gpus() -> None:
    assert len(bin_configurations(8)) == 66


# ------------------------------------------------------------------ exhaustive checks
def test_phi_star_matches_brute_force_on_every_vector_up_to_32_gpus() -> None:
    checked = 0
    for n in count_vectors(32):
        phi = inherent_partial_nodes(n)
        assert phi == brute_phi(n, None), as_dict(n)
        packing = witness_packing(n)
        assert_valid_packing(packing, n)
        assert partial_bins(packing) == phi, (as_dict(n), packing)
        checked += 1
    assert checked == 21402


def test_phi_star_bounded_matches_brute_force_up_to_24_gpus() -> None:
    for n in count_vectors(24):
        least = brute_min_bins(n)
        if least:
            with pytest.raises(InfeasiblePacking):
                inherent_partial_nodes(n, least - 1)
            with pytest.raises(InfeasiblePacking):
                witness_packing(n, least - 1)
        for nodes in range(least, least + 4):
            phi = inherent_partial_nodes(n, nodes)
            assert phi == brute_phi(n, nodes), (as_dict(n), nodes)
            packing = witness_packing(n, nodes)
            assert_valid_packing(packing, n, nodes)
            assert partial_bins(packing) == phi


@pytest.mark.parametrize("nodes_slack", [None, 0, 1])
def test_configuration_ilp_alone_matches_brute_force(nodes_slack: int | None) -> None:
    """The ILP without any fast path, on every vector up to 14 GPUs (sec. 3.2)."""
    for n in count_vectors(14):
        nodes = None if nodes_slack is None else brute_min_bins(n) + nodes_slack
        bins = configuration_ilp(n, nodes)
        packing = [c for c, m in bins.items() for _ in range(m)]
        assert_valid_packing(packing, n, nodes)
        assert partial_bins(packing) == brute_phi(n, nodes), (as_dict(n), nodes)


@pytest.mark.parametrize("g_max", [1, 2, 3, 4, 6, 12])
def test_other_node_sizes_match_brute_force(g_max: int) -> None:
    for n in count_vectors(min(3 * g_max, 20), g_max):
        phi = inherent_partial_nodes(n, gpus_per_node=g_max)
        assert phi == brute_phi(n, None, g_max), (g_max, as_dict(n))
        packing = witness_packing(n, gpus_per_node=g_max)
        assert_valid_packing(packing, n, g_max=g_max)
        assert partial_bins(packing, g_max) == phi


# ------------------------------------------------------------------ WCC closed form (eq. 21)
def test_wcc_closed_form_against_brute_force() -> None:
    under_wcc = [n for n in count_vectors(32) if n[1] >= n[3] + 3 * n[5] + 2 * n[6] + n[7]]
    assert len(under_wcc) > 5000
    for n in under_wcc:
        assert wcc_holds(n)
        assert brute_phi(n, None) == (demand(n) % 8 != 0), as_dict(n)
        assert brute_min_bins(n) == -(-demand(n) // 8)


def test_wcc_is_sufficient_not_necessary() -> None:
    assert not wcc_holds({2: 1, 3: 2})
    assert inherent_partial_nodes({2: 1, 3: 2}) == 0  # 3 + 3 + 2 = 8


wcc_vectors = st.tuples(*[st.integers(0, 40)] * 7).map(
    lambda t: (0, t[0] + t[2] + 3 * t[4] + 2 * t[5] + t[6]) + t[1:]
)


@settings(max_examples=200, deadline=None)
@given(n=wcc_vectors, spare_ones=st.integers(0, 20))
def test_algorithm_2_witness_attains_the_closed_form(n: tuple[int, ...], spare_ones: int) -> None:
    n = (0, n[1] + spare_ones) + n[2:]
    assert wcc_holds(n)
    t = demand(n)
    least = -(-t // 8)
    packing = witness_packing(n, least)
    assert_valid_packing(packing, n, least)
    assert len(packing) == least
    assert partial_bins(packing) == inherent_partial_nodes(n, least) == (t % 8 != 0)
    if least:
        with pytest.raises(InfeasiblePacking):
            inherent_partial_nodes(n, least - 1)


# ------------------------------------------------------------------ solvers on larger vectors
scarce_filler_vectors = (
    st.tuples(st.integers(0, 6), *[st.integers(0, 10)] * 7)
    .map(lambda t: (0,) + t)
    .filter(lambda n: demand(n) <= 200)
)


@settings(max_examples=25, deadline=None)
@given(n=scarce_filler_vectors, slack=st.sampled_from([None, 0, 1, 3]))
def test_highs_and_cbc_agree(n: tuple[int, ...], slack: int | None) -> None:
    nodes = None if slack is None else -(-demand(n) // 8) + slack
    results = {}
    for solver in ("highs", "cbc"):
        try:
            bins = configuration_ilp(n, nodes, solver=solver)
        except InfeasiblePacking:
            results[solver] = None
            continue
        packing = [c for c, m in bins.items() for _ in range(m)]
        assert_valid_packing(packing, n, nodes)
        results[solver] = (partial_bins(packing), len(packing))  # partial bins, then bins
    assert results["highs"] == results["cbc"], (as_dict(n), nodes, results)


@settings(max_examples=150, deadline=None)
@given(n=scarce_filler_vectors, slack=st.sampled_from([None, 0, 2]))
def test_fast_paths_agree_with_the_ilp_on_larger_vectors(
    n: tuple[int, ...], slack: int | None
) -> None:
    nodes = None if slack is None else -(-demand(n) // 8) + slack
    try:
        exact = partial_bins([c for c, m in configuration_ilp(n, nodes).items() for _ in range(m)])
    except InfeasiblePacking:
        with pytest.raises(InfeasiblePacking):
            inherent_partial_nodes(n, nodes)
        return
    assert inherent_partial_nodes(n, nodes) == exact >= (demand(n) % 8 != 0)
    packing = witness_packing(n, nodes)
    assert_valid_packing(packing, n, nodes)
    assert partial_bins(packing) == exact


def test_public_oracle_agrees_across_solvers() -> None:
    counts = {1: 1, 2: 3, 3: 7, 5: 4, 6: 2, 7: 3}
    assert not wcc_holds(counts)
    assert inherent_partial_nodes(counts, solver="cbc") == inherent_partial_nodes(counts)
    assert inherent_partial_nodes(counts, 11, solver="cbc") == inherent_partial_nodes(counts, 11)


# ------------------------------------------------------------------ hand examples
def test_forced_partial_nodes_of_section_3_1() -> None:
    """One 4-GPU instance and two 5-GPU instances: three forced partial nodes."""
    counts = {4: 1, 5: 2}
    assert inherent_partial_nodes(counts) == inherent_partial_nodes(counts, 3) == 3
    assert sorted(witness_packing(counts)) == [(4,), (5,), (5,)]
    with pytest.raises(InfeasiblePacking):
        inherent_partial_nodes(counts, 2)


def test_fillers_complete_a_five() -> None:
    counts = {1: 3, 5: 1, 8: 2}
    assert wcc_holds(counts) and total_demand(counts) == 24
    assert inherent_partial_nodes(counts, 3) == 0
    assert witness_packing(counts) == [(8,), (8,), (5, 1, 1, 1)]


def test_algorithm_2_residual_step_is_not_optimal_here() -> None:
    """WCC fails (delta = 1). Algorithm 2 combines 3 + 1, packs {3,1,2} into one bin and
    must open a new bin for the last 3: 2 partial nodes. The optimum 3 + 3 + 2 | 1 has 1."""
    counts = {1: 1, 2: 1, 3: 2}
    assert wcc_deficit(counts) == 1
    assert inherent_partial_nodes(counts) == 1
    assert witness_packing(counts) == [(3, 3, 2), (1,)]


@pytest.mark.parametrize(
    ("counts", "phi"),
    [
        ({}, 0),
        ({8: 5}, 0),
        ({7: 2}, 2),
        ({5: 2}, 2),
        ({3: 3}, 2),
        ({6: 1, 2: 1, 3: 2}, 1),
        ({4: 3}, 1),
        ({2: 4, 5: 2}, 2),
        ({1: 1, 7: 1, 5: 1, 3: 1}, 0),
    ],
)
def test_hand_examples(counts: dict[int, int], phi: int) -> None:
    assert inherent_partial_nodes(counts) == phi


def test_empty_cluster_fits_in_zero_nodes() -> None:
    assert inherent_partial_nodes({}, 0) == 0
    assert witness_packing((0,) * 9, 0) == []


# ------------------------------------------------------------------ inputs, cache, metrics
def test_mapping_sequence_and_cluster_counts_are_equivalent() -> None:
    state = ClusterState(4)
    state.place_job(1, 5, [0, 1])
    state.place_job(2, 3, [0])
    state.place_job(3, 1, [2, 2])
    assert state.counts == (0, 2, 0, 1, 0, 2, 0, 0, 0)
    phi = inherent_partial_nodes(state.counts, state.nodes)
    assert (
        phi
        == inherent_partial_nodes({1: 2, 3: 1, 5: 2}, 4)
        == inherent_partial_nodes([0, 2, 0, 1, 0, 2], 4)
    )
    assert phi == inherent_partial_nodes(state.counts_by_size(), 4) == 1  # 5+3 | 5+1+1
    assert phi == inherent_partial_nodes(np.array(state.counts), np.int64(4))
    assert state.partial_nodes == 2  # {5, 3} is full; {5} and {1, 1} are partial
    assert sif(state.partial_nodes, phi, state.nodes) == (2 - 1) / 4


def test_results_are_memoised_and_witnesses_are_copies() -> None:
    counts = {2: 3, 3: 5, 6: 2, 7: 1}
    assert not wcc_holds(counts)
    fr._optimal_bins.cache_clear()
    first = witness_packing(counts, 20)
    misses = fr._optimal_bins.cache_info().misses
    first.append((99,))
    again = witness_packing(tuple(counts.get(g, 0) for g in range(9)), 20)
    assert fr._optimal_bins.cache_info().misses == misses
    assert fr._optimal_bins.cache_info().hits >= 1
    assert again == first[:-1]
    assert inherent_partial_nodes(counts, 20) == partial_bins(again)


def test_wcc_path_does_not_fill_the_cache() -> None:
    fr._optimal_bins.cache_clear()
    inherent_partial_nodes({1: 10, 5: 2, 4: 1}, 10)
    assert fr._optimal_bins.cache_info().currsize == 0


def test_wcc_quantities() -> None:
    counts = {1: 2, 3: 1, 5: 1, 6: 1, 7: 1, 8: 4}
    assert wcc_deficit(counts) == 1 + 3 + 2 + 1 - 2
    assert not wcc_holds(counts)
    assert wcc_holds({1: 7, 3: 1, 5: 1, 6: 1, 7: 1})
    assert total_demand(counts) == 2 + 3 + 5 + 6 + 7 + 32
    assert total_demand([0, 1, 1], gpus_per_node=2) == 3


def test_sif_and_inherent_fragmentation() -> None:
    assert sif(5, 1, 10) == pytest.approx(0.4)
    assert sif(0, 0, 1) == 0.0
    assert inherent_fragmentation({4: 1, 5: 2}, 6) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="negative SIF"):
        sif(1, 2, 10)
    with pytest.raises(ValueError):
        sif(0, 0, 0)
    with pytest.raises(ValueError):
        inherent_fragmentation({4: 1}, 0)


@pytest.mark.parametrize(
    ("counts", "kwargs", "error"),
    [
        ({1: -1}, {}, ValueError),
        ([0, 2, -3], {}, ValueError),
        ({9: 1}, {}, ValueError),
        ({0: 1}, {}, ValueError),
        ([0] * 9 + [1], {}, ValueError),
        ({1: 1.5}, {}, ValueError),
        ({"2": 1}, {}, ValueError),
        ({4: 1}, {"nodes": -1}, ValueError),
        ({4: 1}, {"gpus_per_node": 0}, ValueError),
        ({4: 1}, {"gpus_per_node": 17}, NotImplementedError),
        ({4: 1}, {"solver": "glpk"}, ValueError),
        ({5: 3}, {"nodes": 2}, InfeasiblePacking),
        ({1: 17}, {"nodes": 2}, InfeasiblePacking),
        ({8: 3, 1: 1}, {"nodes": 3}, InfeasiblePacking),
    ],
)
def test_bad_input_is_refused(counts: object, kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        inherent_partial_nodes(counts, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(error):
        witness_packing(counts, **kwargs)  # type: ignore[arg-type]


def test_infeasible_is_a_value_error_and_zero_sizes_are_ignored() -> None:
    assert issubclass(InfeasiblePacking, ValueError)
    assert inherent_partial_nodes({3: 2, 9: 0}) == inherent_partial_nodes([7, 0, 0, 2, 0]) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=8, max_size=8), st.sampled_from([0, 1, 8]))
def test_state_fast_path_agrees_with_the_public_oracle(n: list[int], spare: int) -> None:
    counts = (0, *n)
    t = demand(counts)
    nodes = sum(n) + spare  # every instance on its own node fits
    assert state_phi_star(counts, t, nodes, 8) == (
        inherent_partial_nodes(counts, nodes), wcc_holds(counts)
    )
