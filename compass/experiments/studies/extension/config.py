"""The extension study's settings: COMPASS-ABS+ and its fair reference, the goal's traces,
days and bound, the ablation's variants, and the names of its tables and figure."""

from __future__ import annotations

from compass.experiments.config import TraceSpec
from compass.schedulers import names_with_role

#: COMPASS-ABS+, our extension's scheduler (role extension, kept apart from
#: config.PAPER_SCHEDULERS).
PLUS = names_with_role("extension")[0]
#: Best-fit under the same EASY backfill (role reference): what the queue policy alone gives
#: (the fair comparison for COMPASS-ABS+'s backfill; never one of the goal's baselines).
BACKFILL_REFERENCE = names_with_role("reference")[0]
#: The six baselines of section 5.4 (MCG under the shared FIFO queue by default).
BASELINES = names_with_role("baseline")
#: The goal's traces and days (SYNTHETIC stand-ins; Table 2 days).
GOAL_TRACES = {"gfs": TraceSpec("gfs", "gfs-synth"), "venus": TraceSpec("venus", "venus-synth")}
GOAL_DAYS = {"gfs": (26, 58), "venus": (92, 94)}
#: Ablation: COMPASS-ABS+ with one mechanism off, label -> parameters.
ABLATION: dict[str, dict[str, object]] = {
    "no mixed nodes": {"mixed_nodes": False, "admit_by_compaction": False},
    "no admission by compaction": {"admit_by_compaction": False},
    "no lazy compaction": {"lazy_compaction": False},
    "no backfill": {"backfill": False},
    "no end alignment": {"end_aligned": False},
    "all off (= compass-abs)": {"mixed_nodes": False, "admit_by_compaction": False,
                                "lazy_compaction": False, "backfill": False},
}
#: COMPASS-ABS+ with a looser bound for its lazy compaction (what the bound costs).
RELAXED: dict[str, dict[str, object]] = {
    "bound N x SIF <= 4": {"bound_slack": 2},
    "bound N x SIF <= 8": {"bound_slack": 6},
}
#: The goal's pause bound (s per job).
PAUSE_GOAL = 1.0

#: The extension's leads table's stem under the tables folder (rule ``extension_leads``).
LEADS_TABLE = "extension_leads"
#: Columns of that table, in order.
LEAD_COLUMNS = ["trace", "data", "scheduler", "runtime_estimate", "measure", "against",
                "strongest", "value", "ci_low", "ci_high", "n", "relative_pct", "unit",
                "reading"]
#: The measures of that table: the three metrics of section 5.5 as leads, and the pause.
LEAD_METRICS = {"ajct": "s", "agu": "share of GPUs", "afr": "share of nodes"}
PAUSE = "pause_per_job"
#: What the leads over the best of the paper's baselines are against.
STRONGEST = "the strongest baseline"
#: How a lead's ``stats.direction`` reads.
READINGS = {"ahead": "above zero over its whole 95 % interval",
            "behind": "below zero over its whole 95 % interval",
            "undecided": "not shown above zero: its 95 % interval spans zero",
            "": "not measured: no sample where every scheduler has a value"}


#: The schedulers whose backfill reads runtime estimates (MCG's ``backfill`` option skips
#: a refused job without a reservation, so it plans with no runtime and has no estimate).
ESTIMATING = (PLUS, BACKFILL_REFERENCE)
#: The per-estimate leads table's stem under the tables folder.
ESTIMATE_TABLE = "extension_estimates"

#: The bound slacks k of the bound-slack curve, and its figure's stem.
SLACKS = (0, 1, 2, 3, 4)
SLACK_FIGURE = "fig_bound_slack"
