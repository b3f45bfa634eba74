"""Panel rules of multi-panel domains (compass/oracle/panels.py, appendix D.1).

``has_panel_layout`` is checked against an exhaustive search on small domains and against
the oracle's ``domain_layout`` (its optimising counterpart) on random multisets; the module
must stay free of the Phi* oracle and scipy, which is why it exists.
"""

from __future__ import annotations

import subprocess
import sys

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from compass.oracle.fragmentation import InfeasiblePacking, domain_layout
from compass.oracle.panels import (
    PANEL_GPUS,
    domain_panels,
    has_panel_layout,
    instance_panels,
    multi_panels,
)


def _brute(sizes: tuple[int, ...], panels: int) -> bool:
    """Reference: try every panel for every sub-panel instance (no pruning but symmetry)."""
    free = panels - sum(g // PANEL_GPUS for g in sizes if g > PANEL_GPUS)
    if free < 0:
        return False
    small = sorted((g for g in sizes if g <= PANEL_GPUS), reverse=True)

    def place(i: int, loads: tuple[int, ...]) -> bool:
        if i == len(small):
            return True
        return any(place(i + 1, loads[:b] + (load + small[i],) + loads[b + 1:])
                   for b, load in enumerate(loads) if load + small[i] <= PANEL_GPUS)

    return place(0, (0,) * free)


def _oracle(sizes: tuple[int, ...], panels: int) -> bool:
    try:
        domain_layout(sizes, panels)
    except InfeasiblePacking:
        return False
    return True


def test_by_hand() -> None:
    assert domain_panels(72) == 9 and domain_panels(8) == 1 and domain_panels(12) is None
    assert [instance_panels(g) for g in (1, 8, 16, 72)] == [0, 0, 2, 9]
    with pytest.raises(ValueError, match="multiple of 8"):
        instance_panels(12)
    assert has_panel_layout((5, 5), 2) and not has_panel_layout((5, 5, 6), 2)
    assert has_panel_layout((3, 3, 3, 3, 2, 2), 2)      # 3+3+2, 3+3+2
    assert not has_panel_layout((3, 3, 3, 3, 3), 2)     # 15 GPUs, but 3s pack 2 a panel
    assert has_panel_layout((2, 2, 2, 3, 3, 4), 2)      # 4+2+2, 3+3+2: the fullest first
    # panel (4+3, 1 GPU left) leaves 3+2+2+2 = 9 GPUs for the other one
    assert has_panel_layout((1, 3, 5, 24), 9) and not has_panel_layout((16, 16), 3)
    assert has_panel_layout((), 1) and has_panel_layout((8,), 1)


small_domains = st.tuples(
    st.lists(st.integers(1, PANEL_GPUS), max_size=9), st.lists(st.sampled_from([16, 24]),
                                                                 max_size=2),
    st.integers(1, 4))


@settings(max_examples=400, deadline=None)
@given(small_domains)
def test_equals_an_exhaustive_search(case) -> None:
    subs, multis, panels = case
    sizes = tuple(sorted(subs + multis))
    assert has_panel_layout(sizes, panels) == _brute(sizes, panels)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, PANEL_GPUS), max_size=40),
       st.lists(st.sampled_from([16, 24, 32, 72]), max_size=3), st.integers(1, 9))
def test_equals_the_oracles_domain_layout(subs, multis, panels) -> None:
    sizes = tuple(sorted(subs + multis))
    assert has_panel_layout(sizes, panels) == _oracle(sizes, panels)


def test_imports_neither_the_oracle_nor_scipy() -> None:
    code = ("import sys, compass.oracle.panels; "
            "print(sorted(m for m in sys.modules if m.startswith(('scipy', 'compass.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['compass.oracle', 'compass.oracle.panels']"


def test_multi_panels_is_k_only_where_nodes_are_domains_of_several_panels():
    """eq. 22: G = 8K with K > 1; an 8-GPU node is one panel, and a G not a multiple of 8 has
    no panels, so neither needs the panel rules."""
    assert [multi_panels(G) for G in (4, 8, 12, 16, 24, 72)] == [None, None, None, 2, 3, 9]
