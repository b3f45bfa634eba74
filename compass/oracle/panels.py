"""Panels of multi-panel NVLink domains (appendix D.1): panel demand and layout feasibility.

A node of G = 8K GPUs is an NVLink domain of K panels of 8 GPUs (eq. 22). A sub-panel
instance (g <= 8) lives inside one panel, a multi-panel one (g = 8p) on p whole panels
(eq. 23). The dispatcher, the node rules of the baselines, the hierarchical schedulers and
the NVL72 workload need only these rules; the panel-level fragmentation (the best layout
and its partial panels, eq. 26) is the oracle's (``compass.oracle.fragmentation.domain_layout``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

#: GPUs per panel, the 8-GPU baseboard of appendix D (eq. 22: G_dom = G_p * K).
PANEL_GPUS = 8


def domain_panels(gpus_per_node: int) -> int | None:
    """Panels K per NVLink domain of ``gpus_per_node`` GPUs (eq. 22), None if not 8K."""
    return gpus_per_node // PANEL_GPUS if gpus_per_node % PANEL_GPUS == 0 else None


def multi_panels(gpus_per_node: int) -> int | None:
    """K where nodes of ``gpus_per_node`` GPUs are NVLink domains of K > 1 panels (G = 8K,
    eq. 22), else None: where panels matter to placement and fragmentation at all."""
    panels = domain_panels(gpus_per_node)
    return panels if panels is not None and panels > 1 else None


def instance_panels(g: int) -> int:
    """Panel demand p = g / 8 of a multi-panel instance (g = 8p, p >= 2; appendix D.1).

    Sub-panel instances (g <= 8) return 0: they live inside one panel.
    """
    if g <= PANEL_GPUS:
        return 0
    if g % PANEL_GPUS:
        raise ValueError(f"a multi-panel instance needs g a multiple of {PANEL_GPUS}, got {g}")
    return g // PANEL_GPUS


@functools.cache
def has_panel_layout(sizes: tuple[int, ...], panels: int) -> bool:
    """Whether one domain of ``panels`` panels can hold instance ``sizes`` (sorted ascending):
    every sub-panel instance inside one panel, every multi-panel one on whole panels
    (appendix D.1, eq. 23).

    Exact, memoised by the sorted multiset also when no layout exists; the panel-aware node
    rules of the baselines ask it (docs/baselines.md). It is the feasibility side of
    ``compass.oracle.fragmentation.domain_layout`` without its optimisation (tests compare them).
    """
    multi = sum(map(instance_panels, sizes))
    if multi > panels:
        return False
    counts = [0] * (PANEL_GPUS + 1)
    for g in sizes:
        if g <= PANEL_GPUS:
            counts[g] += 1
    return _packs(tuple(counts), panels - multi)


@functools.cache
def _packs(n: tuple[int, ...], bins: int) -> bool:
    """Whether ``n[g]`` items of g GPUs (g = 1..8) fit into ``bins`` panels of 8.

    Branches on the contents of the panel that holds the largest item, trying only maximal
    contents (no remaining item fits beside them): moving an item into that panel keeps a
    packing feasible, so some feasible packing has a maximal one. Exact, memoised.
    """
    demand = sum(g * k for g, k in enumerate(n))
    if demand == 0:
        return True
    if demand > PANEL_GPUS * bins or sum(n[PANEL_GPUS // 2 + 1:]) > bins:
        return False  # two items of more than 4 GPUs never share a panel
    largest = max(g for g, k in enumerate(n) if k)
    rest = list(n)
    rest[largest] -= 1
    return any(_packs(left, bins - 1)
               for left in _maximal_fills(tuple(rest), PANEL_GPUS - largest, largest))


def _maximal_fills(n: tuple[int, ...], room: int, size: int) -> Iterator[tuple[int, ...]]:
    """What is left of ``n`` after each maximal filling of ``room`` GPUs with items of at
    most ``size`` GPUs, fullest-first (greedy) fillings first."""
    if size == 0:
        if all(k == 0 for g, k in enumerate(n) if 0 < g <= room):
            yield n
        return
    for take in range(min(n[size], room // size), -1, -1):
        left = list(n)
        left[size] -= take
        yield from _maximal_fills(tuple(left), room - take * size, size - 1)
