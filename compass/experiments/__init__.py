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
| beyond the paper | ``Results.with_extension``, ``extension_leads``: COMPASS-ABS+ (ours) |

``compass.experiments.pipeline`` holds what the Snakemake rules call; ``report`` writes
paper/REPRODUCTION.md. docs/pipeline.md describes the whole.
"""

from compass.experiments.aggregate import METRICS, leads, metric_means, top1, wide
from compass.experiments.case_study import (
    AbsentWindow,
    CaseStudy,
    CaseWindow,
    case_head_blocking,
    case_summary,
)
from compass.experiments.classes import table1
from compass.experiments.composition import composition, composition_days
from compass.experiments.coverage import (
    BUCKETS,
    coverage_pairs,
    rho_bucket,
    top1_table,
    wcc_days,
)
from compass.experiments.extension import extension_leads
from compass.experiments.migrations import migrations_by_operator, operator_shares
from compass.experiments.physical import migration_latencies, physical, physical_label
from compass.experiments.report import claims_shown
from compass.experiments.results import Results
from compass.experiments.sweeps import cost_sweep, eta_sweep, overall, overall_leads
from compass.experiments.tables import markdown, write_table
from compass.experiments.windows import metric_windows, window_leads

__all__ = [
    "BUCKETS",
    "METRICS",
    "AbsentWindow",
    "CaseStudy",
    "CaseWindow",
    "Results",
    "case_head_blocking",
    "case_summary",
    "claims_shown",
    "composition",
    "composition_days",
    "cost_sweep",
    "coverage_pairs",
    "eta_sweep",
    "extension_leads",
    "leads",
    "markdown",
    "metric_means",
    "metric_windows",
    "migration_latencies",
    "migrations_by_operator",
    "operator_shares",
    "overall",
    "overall_leads",
    "physical",
    "physical_label",
    "rho_bucket",
    "table1",
    "top1",
    "top1_table",
    "wcc_days",
    "wide",
    "window_leads",
    "write_table",
]
