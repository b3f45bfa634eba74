"""AFR and AGU under two windows: each run's own T_peak, as the paper defines
them (eq. 14-17), and the batch's *common window*, the union of every scheduler's T_peak
on the same jobs (``runs.common_window_metrics``, columns ``afr_common``, ``agu_common``).

Over its own T_peak a scheduler is averaged over the period its own queue waited, which
differs between schedulers of the same day; over the common window every scheduler of a
batch is averaged over the same seconds. The paper's numbers, and every verdict of the
report, use the own T_peak; these tables show how much the choice moves the comparison.
"""

from __future__ import annotations

import pandas as pd

from compass.experiments.aggregate import leads, metric_means, ordered, wide
from compass.experiments.comparisons import overall_runs
from compass.experiments.results import Results

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("metric_windows", "window_leads")

#: Each windowed metric: (own T_peak column, common-window column).
WINDOWED = {"afr": "afr_common", "agu": "agu_common"}


def metric_windows(res: Results) -> pd.DataFrame:
    """Overall experiment, per trace and scheduler: AGU and AFR over the own T_peak and over
    the common window, each the mean over the samples, as ``overall`` averages."""
    columns = [c for pair in (("agu", WINDOWED["agu"]), ("afr", WINDOWED["afr"])) for c in pair]
    means = metric_means(overall_runs(res), ["trace"], columns)
    table = wide(means, ["trace"])[["trace", "scheduler", *columns]]
    return ordered(table, "trace", res.config.experiments.overall_traces)


def window_leads(res: Results) -> pd.DataFrame:
    """Overall experiment, per trace and metric (AFR, AGU): the reference's lead over the
    strongest baseline under the own T_peak (the paper's) and under the common window."""
    cfg = res.config
    means = metric_means(overall_runs(res), ["trace"], [*WINDOWED, *WINDOWED.values()])
    common = {v: k for k, v in WINDOWED.items()}
    parts = []
    for label, names in (("own T_peak", list(WINDOWED)), ("common window", list(common))):
        part = means[means["metric"].isin(names)].replace({"metric": common})
        lead = leads(part, cfg.reference, cfg.baselines, ["trace"]).set_index(
            ["trace", "metric"])
        parts.append(lead[["lead", "strongest_baseline"]].rename(columns={
            "lead": f"lead ({label})", "strongest_baseline": f"vs ({label})"}))
    table = pd.concat(parts, axis=1).reset_index()
    return ordered(table, "trace", cfg.experiments.overall_traces)
