"""Theorem 2's bounds on fig_nvl72 (compass.experiments.studies.nvl72.bounds): computed from
each platform's D domains of K panels and drawn where they apply."""

from __future__ import annotations

import pandas as pd
import pytest

from compass.experiments.studies.nvl72.bounds import theorem2_bounds
from compass.experiments.studies.nvl72.config import METRICS, PLATFORMS, SCHEDULERS

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")

from compass import plotting as P  # noqa: E402

#: By hand: 2 / (D K) at the GPU level, 2 / D at the panel level (K > 1 only).
HAND = {("K=1", "sif_gpu"): 2 / 18,                                  # D = 18, K = 1
        ("K=2", "sif_gpu"): 2 / 18, ("K=2", "sif_panel"): 2 / 9,     # D = 9, K = 2
        ("K=9", "sif_gpu"): 2 / 18, ("K=9", "sif_panel"): 2 / 2,     # D = 2, K = 9
        ("8x9", "sif_gpu"): 2 / 72, ("8x9", "sif_panel"): 2 / 8}     # D = 8, K = 9


def _table() -> pd.DataFrame:
    """The study's table shape, values small beside every bound."""
    return pd.DataFrame([{"platform": p.name, "scheduler": s, "domains": p.domains,
                          "panels": p.panels, "sif_gpu": 0.001 * (i + 1),
                          "sif_panel": float("nan") if p.panels == 1 else 0.002 * (i + 1),
                          "ajct": 1000.0 + i, "agu": 0.9 - 0.01 * i}
                         for p in PLATFORMS for i, s in enumerate(SCHEDULERS)])


def test_the_bounds_follow_from_each_platforms_domains_and_panels():
    bounds = theorem2_bounds(_table())
    assert {key: value for key, (value, _) in bounds.items()} == pytest.approx(HAND)
    assert bounds[("8x9", "sif_gpu")][1] == "Thm 2 (COMPASS-ABS): 2/72 = 0.0278"
    assert bounds[("K=2", "sif_panel")][1] == "Thm 2 (COMPASS-ABS): 2/9 = 0.222"


def test_the_figure_draws_each_bound_on_its_panel():
    table = _table()
    means = table.melt(id_vars=["platform", "scheduler"], value_vars=list(METRICS),
                       var_name="metric")
    fig = P.dot_grid(means, "platform", "Appendix D", "SYNTHETIC", metrics=METRICS,
                     bounds=theorem2_bounds(table))
    columns = [p.name for p in PLATFORMS]
    for i, ax in enumerate(fig.axes):
        key = (columns[i % len(columns)], METRICS[i // len(columns)])
        dotted = [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == ":"]
        if key in HAND:
            assert dotted == pytest.approx([HAND[key]]), key
            low, high = ax.get_xlim()
            assert low < HAND[key] < high, key
        else:  # AJCT, AGU, and the panel level of K = 1: no bound
            assert dotted == [], key
