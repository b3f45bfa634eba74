"""Figs. 1, 2 and 4: metric means per scheduler across traces, eta values and migration costs.

* ``overall`` (section 6.1, Fig. 1): eta = 0.90 on Venus, GFS and Phys-Mix;
* ``eta_sweep`` (section 6.2, Fig. 2): GFS at eta 0.85 / 0.90 / 0.95;
* ``cost_sweep`` (section 6.5, Fig. 4): c = 1..10 s on GFS and Venus at eta 0.90, on
  the same days for every c; adds the migration pause per job (c times the paused instants).

Each returns ``aggregate.metric_means``'s long table; ``aggregate.leads`` and
``aggregate.top1`` turn it into the paper's comparisons.
"""

from __future__ import annotations

import pandas as pd

from compass.experiments.aggregate import METRICS, lead_intervals, metric_means, ordered
from compass.experiments.grid import eta_days, migration_days
from compass.experiments.results import Results

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("cost_sweep", "eta_sweep", "overall", "overall_leads")


def overall_runs(res: Results) -> pd.DataFrame:
    """The runs of Fig. 1: every sample of the overall traces at the overall eta."""
    x = res.config.experiments
    return res.select(x.overall_traces, [x.overall_eta], [res.config.migration_cost])


def overall(res: Results) -> pd.DataFrame:
    """Fig. 1: mean AFR, AJCT, AGU per trace and scheduler at the overall eta, with each
    mean's 95 % bootstrap interval over the samples (ci_low, ci_high)."""
    x = res.config.experiments
    return ordered(metric_means(overall_runs(res), ["trace"], intervals=True), "trace",
                   x.overall_traces)


def overall_leads(res: Results) -> pd.DataFrame:
    """Fig. 1's leads: per trace and metric, COMPASS-ABS's lead over the strongest baseline
    paired over the samples, with its 95 % interval (``aggregate.lead_intervals``)."""
    x, cfg = res.config.experiments, res.config
    leads = lead_intervals(overall_runs(res), cfg.reference, cfg.baselines, ["trace"])
    return ordered(leads, "trace", x.overall_traces)


def eta_runs(res: Results) -> pd.DataFrame:
    """The runs of Fig. 2: every sample of the sweep's days at each eta."""
    x = res.config.experiments
    runs = res.select([x.eta_trace], x.etas, [res.config.migration_cost])
    return runs[runs["day"].isin(eta_days(res.config, res.traces[x.eta_trace]))]


def eta_sweep(res: Results) -> pd.DataFrame:
    """Fig. 2: mean AFR, AJCT, AGU per eta and scheduler on the sweep's trace, with each
    mean's 95 % bootstrap interval over the samples (ci_low, ci_high)."""
    x = res.config.experiments
    return ordered(metric_means(eta_runs(res), ["trace", "eta"], intervals=True), "eta",
                   sorted(x.etas))


def cost_runs(res: Results) -> pd.DataFrame:
    """The runs of Fig. 4: the sweep's days (every seed) at each c."""
    x = res.config.experiments
    runs = res.select(x.migration_traces, [x.migration_eta], x.migration_costs)
    return pd.concat([runs[(runs["trace"] == t) & runs["day"].isin(
        migration_days(res.config, res.traces[t]))] for t in x.migration_traces])


def cost_sweep(res: Results) -> pd.DataFrame:
    """Fig. 4: mean AFR, AJCT, AGU and migration pause per job, per trace, c and scheduler."""
    x = res.config.experiments
    means = metric_means(cost_runs(res), ["trace", "cost"], [*METRICS, "pause_per_job",
                                                              "migrations_per_job"])
    return ordered(ordered(means, "cost", sorted(x.migration_costs)), "trace",
                   x.migration_traces)
