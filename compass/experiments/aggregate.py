"""Metric means over samples, leads over the strongest baseline with their intervals, and
who ranks first (section 6).

Each (trace, day, seed, eta, c) replay gives one AFR, AJCT and AGU per scheduler (section
5.5). An experiment averages them over its samples ((day, seed) pairs; a real trace's days),
each weighing the same. The *strongest baseline* on a metric is the best of the baselines
present on it (lowest AFR, lowest AJCT, highest AGU); the reference's *lead* is positive when
the reference is better, and ``lead_intervals`` gives it with its paired bootstrap interval
(``stats.paired_lead``). A scheduler ranks *top-1* when no competitor beats it (ties count
as top-1). AFR and AGU are undefined (NaN) on a replay whose queue never waits (T_peak
empty, eq. 14); such values are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from compass.experiments.stats import bootstrap_mean, paired_lead
from compass.sim.metrics import LOWER_IS_BETTER, METRICS

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("METRICS", "leads", "metric_means", "top1", "wide")

#: Which way is better for every measure a figure plots: the three metrics and the others.
MEASURE_LOWER_IS_BETTER = {
    **LOWER_IS_BETTER, "sif": True, "sif_gpu": True, "sif_panel": True, "nsif": True,
    "partial_nodes": True, "allocated_share": False, "pause_per_job": True,
    "migrations_per_job": True, "gpu_util": False, "empty_nodes": False}
#: Relative tolerance under which two values tie.
TIE_TOLERANCE = 1e-9
#: The columns that identify a sample: one replay of the same jobs under every scheduler.
SAMPLE = ("day", "seed")


def _mean_interval(values: pd.Series) -> tuple[float, float]:
    """The 95 % bootstrap interval of the mean of the defined ``values`` (NaN ends with
    fewer than two)."""
    defined = values.dropna().to_numpy(dtype=float)
    if defined.size == 0:
        return np.nan, np.nan
    interval = bootstrap_mean(defined)
    return interval.low, interval.high


def metric_means(runs: pd.DataFrame, by: Sequence[str],
                 metrics: Sequence[str] = METRICS, intervals: bool = False) -> pd.DataFrame:
    """Long table: ``by`` + scheduler, metric, value (mean over samples), samples (values
    used); ``intervals``: also ci_low and ci_high, each mean's 95 % percentile bootstrap
    interval over its samples (``stats.bootstrap_mean``), so that a figure of the means
    shows how far the samples let them move."""
    keys = [*by, "scheduler"]
    long = runs.melt(id_vars=keys, value_vars=list(metrics), var_name="metric")
    grouped = long.groupby([*keys, "metric"], sort=False)["value"]
    out = grouped.agg(value="mean", samples="count").reset_index()
    columns = [*keys, "metric", "value", "samples"]
    if intervals:
        ends = {key: _mean_interval(group) for key, group in grouped}
        spans = [ends[key] for key in out[[*keys, "metric"]].itertuples(index=False, name=None)]
        out["ci_low"] = [low for low, _ in spans]
        out["ci_high"] = [high for _, high in spans]
        columns += ["ci_low", "ci_high"]
    return out[columns]


def _best(values: pd.Series, metric: str,
          lower_is_better: Mapping[str, bool] = LOWER_IS_BETTER) -> float:
    return float(values.min() if lower_is_better[metric] else values.max())


def leads(means: pd.DataFrame, reference: str, baselines: Sequence[str],
          by: Sequence[str], lower_is_better: Mapping[str, bool] = LOWER_IS_BETTER
          ) -> pd.DataFrame:
    """Per group and metric: the reference's value, the strongest baseline and the lead;
    ``lower_is_better``: each metric's direction (measures beyond the paper's three)."""
    rows = []
    for key, group in means.groupby([*by, "metric"], sort=False):
        key = key if isinstance(key, tuple) else (key,)
        metric = key[-1]
        ref = group.loc[group["scheduler"] == reference, "value"]
        base = group[group["scheduler"].isin(baselines)].dropna(subset=["value"])
        row = dict(zip([*by, "metric"], key))
        row.update(reference=reference, reference_value=float(ref.iloc[0]) if len(ref) else
                   np.nan, strongest_baseline=None, baseline_value=np.nan, lead=np.nan)
        if len(base):
            best = _best(base["value"], metric, lower_is_better)
            row.update(strongest_baseline=base.loc[base["value"] == best, "scheduler"].iloc[0],
                       baseline_value=best)
            sign = 1.0 if lower_is_better[metric] else -1.0
            row["lead"] = sign * (best - row["reference_value"])
        rows.append(row)
    return pd.DataFrame(rows)


def lead_intervals(runs: pd.DataFrame, reference: str, baselines: Sequence[str],
                   by: Sequence[str], metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """Per group and metric: the reference's lead over the strongest baseline, paired over
    the group's samples (``SAMPLE`` columns present in ``runs``) that every scheduler
    completed with a defined value, with its 95 % bootstrap interval [ci_low, ci_high], the
    number of samples n, the strongest baseline, its mean over those samples, the
    reference's mean over them and the lead relative to the baseline's (%)."""
    sample = [c for c in SAMPLE if c in runs.columns and c not in by]
    rows = []
    for key, group in runs.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        present = [b for b in baselines if b in set(group["scheduler"])]
        for metric in metrics:
            row: dict[str, object] = {**dict(zip(by, key)), "metric": metric,
                                      "reference": reference, "strongest_baseline": None,
                                      "lead": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                                      "n": 0, "baseline_mean": np.nan, "reference_mean": np.nan,
                                      "relative_pct": np.nan}
            table = group.pivot_table(index=sample, columns="scheduler", values=metric,
                                      aggfunc="first", dropna=False) if sample else None
            if table is not None and reference in table and present:
                complete = table[[reference, *present]].dropna()
                if len(complete):
                    lead = paired_lead(complete[reference].to_numpy(),
                                       complete[present].to_numpy(), LOWER_IS_BETTER[metric])
                    row.update(strongest_baseline=present[lead.strongest],
                               lead=lead.interval.value, ci_low=lead.interval.low,
                               ci_high=lead.interval.high, n=lead.interval.n,
                               baseline_mean=lead.baseline_mean,
                               reference_mean=float(complete[reference].mean()),
                               relative_pct=lead.relative_pct)
            rows.append(row)
    return pd.DataFrame(rows)


def top1(values: pd.DataFrame, reference: str, competitors: Sequence[str],
         by: Sequence[str], metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """Per group and metric: whether the reference ranks first among ``competitors``.

    ``values`` holds one row per group and scheduler with a column per metric. ``defined`` is
    False where the reference's or every competitor's value is NaN; ``top1`` is then False.
    """
    rows = []
    for key, group in values.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        ref = group[group["scheduler"] == reference]
        others = group[group["scheduler"].isin(competitors) & (group["scheduler"] != reference)]
        for metric in metrics:
            mine = float(ref[metric].iloc[0]) if len(ref) else np.nan
            theirs = others[metric].dropna()
            defined = bool(np.isfinite(mine) and len(theirs))
            first = False
            if defined:
                best = _best(theirs, metric)
                slack = TIE_TOLERANCE * max(abs(best), abs(mine), 1.0)
                first = mine <= best + slack if LOWER_IS_BETTER[metric] else mine >= best - slack
            rows.append({**dict(zip(by, key)), "metric": metric, "defined": defined,
                         "top1": bool(first)})
    return pd.DataFrame(rows)


def ordered(frame: pd.DataFrame, column: str, order: Sequence[object]) -> pd.DataFrame:
    """Rows sorted by ``column`` in the given order (stable: ties keep their order)."""
    rank = {value: i for i, value in enumerate(order)}
    return frame.sort_values(column, key=lambda c: c.map(rank), kind="stable",
                             ignore_index=True)


def wide(means: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """One row per group and scheduler, one column per metric (from ``metric_means``);
    where the means carry intervals, each metric's column is followed by
    ``<metric>_ci_low`` and ``<metric>_ci_high``, so that a figure's table holds what it draws."""
    ends = [c for c in ("ci_low", "ci_high") if c in means.columns]
    table = means.pivot_table(index=[*by, "scheduler"], columns="metric",
                              values=["value", *ends], sort=False, dropna=False)
    order = [(kind, m) for m in dict.fromkeys(means["metric"]) for kind in ("value", *ends)]
    table = table.reindex(columns=order)
    table.columns = [m if kind == "value" else f"{m}_{kind}" for kind, m in order]
    return table.reset_index()
