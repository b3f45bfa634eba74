"""Theorem 2's bounds (appendix D.4, eq. 26) on each platform of the study, computed from
its D domains of K panels, so that fig_nvl72 draws the measured SIF of both levels against
them."""

from __future__ import annotations

import pandas as pd

#: Theorem 2's bound on each level's excess: partial units minus their least number <= 2.
EXCESS = 2
#: What the figure's dotted lines are, in words under its panels.
BOUND_NOTE = ("dotted: Theorem 2's bound for COMPASS-ABS (hierarchical) under both WCCs "
              "(eq. 24-25), at every instant: SIF_GPU <= 2/N_p over the N_p = D K panels; "
              "SIF_panel <= 2/D, the cluster-wide reading of the paper's 2/K per domain "
              "(docs/nvl72.md, \"Theorem 2\")")


def theorem2_bounds(table: pd.DataFrame) -> dict[tuple[str, str], tuple[float, str]]:
    """Per (platform, metric) of the study's table (columns platform, domains, panels): the
    bound as (value, words). GPU level: 2 / N_p with N_p = D K (for K = 1 Theorem 1's 2/N).
    Panel level, for K > 1 only: 2 / D, the reading the simulator's ``sif_panel`` (a count
    over the D domains) can be held against; the paper's 2/K counts panel regions per
    domain, which the simulator does not see (docs/nvl72.md)."""
    bounds: dict[tuple[str, str], tuple[float, str]] = {}
    for row in table[["platform", "domains", "panels"]].drop_duplicates().itertuples():
        panels = int(row.domains) * int(row.panels)
        bounds[(row.platform, "sif_gpu")] = (
            EXCESS / panels, f"Thm 2 (COMPASS-ABS): 2/{panels} = {EXCESS / panels:.3g}")
        if row.panels > 1:
            bounds[(row.platform, "sif_panel")] = (
                EXCESS / row.domains,
                f"Thm 2 (COMPASS-ABS): 2/{row.domains} = {EXCESS / row.domains:.3g}")
    return bounds
