"""The paper's experiments (section 6): one function per experiment, tidy DataFrames out.

Start from a profile's results folder, which the Snakemake pipeline fills::

    from compass import experiments as X
    res = X.Results.load("results/quick")
    means = X.overall(res)                        # Fig. 1: trace, scheduler, metric, value
    X.leads(means, "compass-abs", res.config.baselines, ["trace"])

| paper | function |
|---|---|
| Table 1 | ``table1`` (rule ``table1``) |
| 6.1, Fig. 1 | ``overall``, ``overall_leads`` (intervals), ``metric_windows``, ``window_leads`` |
| 6.2, Fig. 2 | ``eta_sweep`` |
| 6.3, Table 2, Fig. 3 | ``composition_days``, ``composition`` |
| 6.4, Table 3 | ``wcc_days``, ``coverage_pairs``, ``top1_table`` |
| 6.5, Fig. 4 | ``cost_sweep``; moves by operator: ``migrations_by_operator``, ``operator_shares`` |
| 6.6, Figs. 5-7 | ``CaseStudy`` (``case_summary``, ``case_head_blocking``) |
| 5.1, Phys-Mix on Ray | ``physical``, ``migration_latencies`` |
| every notebook | ``claims_shown``: the verdicts of the claims it shows (claims.csv) |
| every figure | ``compare``, ``lead_story``, ``series_story``, ``top1_story``: its reading |
| the paper's stated values | ``paper_values`` (paper/paper_values.yaml) |
| the baselines' order | ``ranking_table`` (paper/paper_rankings.yaml) |
| beyond the paper | ``Results.with_extension``, ``extension_leads``: COMPASS-ABS+ (ours) |

``compass.experiments.pipeline`` holds what the Snakemake rules call; ``report`` writes
paper/REPRODUCTION.md. docs/pipeline.md describes the whole.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

# Functions named as their module, imported now: a later import of the module sets the
# package's attribute of that name to the module, which would hide a function bound lazily.
from compass.experiments.composition import composition as composition
from compass.experiments.paper_values import paper_values as paper_values
from compass.experiments.physical import physical as physical

#: The module each public name lives in. They are imported on first use (PEP 562), so that a
#: step importing one module (a simulator batch: ``compass.experiments.runs``) does not load
#: every experiment, the report and the openb readers with it.
_HOMES: dict[str, tuple[str, ...]] = {
    "aggregate": ("METRICS", "leads", "metric_means", "top1", "wide"),
    "case_study": ("AbsentWindow", "CaseStudy", "CaseWindow", "case_head_blocking",
                   "case_summary"),
    "classes": ("table1",),
    "composition": ("composition_days",),
    "coverage": ("BUCKETS", "coverage_pairs", "rho_bucket", "top1_table", "wcc_days"),
    "extension": ("extension_leads",),
    "migrations": ("migrations_by_operator", "operator_shares"),
    "narrative": ("Story", "compare", "lead_story", "series_story", "top1_story"),
    "paper_values": ("PaperValue",),
    "physical": ("migration_latencies", "physical_label"),
    "ranking": ("ranking_table",),
    "verdicts": ("claims_shown",),
    "results": ("Results",),
    "sweeps": ("cost_sweep", "eta_sweep", "overall", "overall_leads"),
    "tables": ("markdown", "write_table"),
    "windows": ("metric_windows", "window_leads"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted([*_WHERE, "composition", "paper_values", "physical"])


def __getattr__(name: str) -> Any:
    """A public name (``X.overall``), imported from its module on first use, or a submodule
    (``X.openb``), imported on first use."""
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
