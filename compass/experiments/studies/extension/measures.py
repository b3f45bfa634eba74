"""The extension study's measures: the goal's table and the ablation's (``goal_table``,
``ablation_table``), COMPASS-ABS+'s leads per runtime estimate (``estimate_leads``), the
bound-slack curve (``slack_curve``, ``smallest_slack``), and the pipeline's table of the
extension's lane on the overall experiment (``extension_leads``, rule ``extension_leads``),
each lead paired over the samples with its bootstrap interval."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from compass.experiments.aggregate import LOWER_IS_BETTER, lead_intervals, ordered
from compass.experiments.comparisons import overall_runs
from compass.experiments.config import lane_label
from compass.experiments.results import Results
from compass.experiments.stats import Interval, bootstrap_mean, direction
from compass.experiments.studies.extension.config import (
    BACKFILL_REFERENCE,
    BASELINES,
    ESTIMATE_TABLE,
    GOAL_TRACES,
    LEAD_COLUMNS,
    LEAD_METRICS,
    LEADS_TABLE,
    PAUSE,
    PAUSE_GOAL,
    PLUS,
    READINGS,
    STRONGEST,
)
from compass.experiments.tables import write_table
from compass.schedulers.estimates import label

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("extension_leads",)


def goal_table(runs: pd.DataFrame, baselines: Sequence[str] = BASELINES,
               resamples: int = 2000) -> pd.DataFrame:
    """Per (trace, day): the mean AJCT, AGU and pause of every scheduler over the seeds,
    then COMPASS-ABS+'s paired leads over the best baseline of each seed (AJCT: best - ours,
    AGU: ours - best; > 0 is a lead) with a 95 % percentile bootstrap interval over seeds,
    and whether each goal is met (lead >= 0 on every seed; mean pause < 1 s); then, where
    ``gfs-backfill`` ran, the same leads over it ("... vs gfs-backfill", no goal)."""
    main = runs[runs["variant"] == runs["scheduler"]]
    rows = []
    for (trace, day), group in main.groupby(["trace", "day"], sort=False):
        by = group.pivot_table(index="seed", columns="scheduler",
                               values=["ajct", "agu", "pause_per_job"])
        row: dict[str, object] = {"trace": trace, "data": group["data"].iloc[0], "day": day,
                                  "seeds": len(by)}
        for s in group["scheduler"].unique():
            row[f"ajct {s}"] = by["ajct"][s].mean()
            row[f"agu {s}"] = by["agu"][s].mean()
            row[f"pause {s}"] = by["pause_per_job"][s].mean()
        leads = {"": list(baselines)}
        if BACKFILL_REFERENCE in by["ajct"]:
            leads[f" vs {BACKFILL_REFERENCE}"] = [BACKFILL_REFERENCE]
        for suffix, rivals in leads.items():
            ajct_lead = by["ajct"][rivals].min(axis=1) - by["ajct"][PLUS]
            agu_lead = by["agu"][PLUS] - by["agu"][rivals].max(axis=1)
            for name, lead in ((f"ajct lead{suffix}", ajct_lead),
                               (f"agu lead{suffix}", agu_lead)):
                interval = bootstrap_mean(lead.to_numpy(), resamples=resamples)
                row.update({name: interval.value, f"{name} low": interval.low,
                            f"{name} high": interval.high,
                            f"{name} >= 0 on every seed": bool((lead >= 0).all())})
        row["pause goal met"] = bool(by["pause_per_job"][PLUS].mean() < PAUSE_GOAL)
        rows.append(row)
    return pd.DataFrame(rows)


def ablation_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Each COMPASS-ABS+ variant's means over every (trace, day, seed) sample, and the
    change against the full scheduler: what switching that mechanism off costs."""
    plus = runs[runs["scheduler"] == PLUS]
    metrics = ["ajct", "agu", "afr", "pause_per_job", "migrations_per_job", "max_nsif_wcc",
               "nsif_over_2_wcc", "blocked_s"]
    per_trace = plus.groupby(["trace", "variant"], sort=False)[metrics].mean().reset_index()
    full = per_trace[per_trace["variant"] == PLUS].set_index("trace")
    for m in ("ajct", "agu", "pause_per_job"):
        per_trace[f"{m} change"] = per_trace[m] - per_trace["trace"].map(full[m])
    return per_trace



def _lead_reading(name: str, metric: str, against: str, interval: Interval) -> str:
    """A plain sentence: whether ``name``'s lead is above zero."""
    way = direction(interval)
    if way.endswith("(one sample)"):
        way = f"{way.split()[0]} on its one sample (no interval)"
    return f"{name}'s {metric.upper()} lead over {against} is {READINGS.get(way, way)}"


def _pause_reading(name: str, interval: Interval) -> str:
    """A plain sentence: whether ``name``'s mean pause per job is under the goal."""
    goal = f"the goal of {PAUSE_GOAL:g} s per job"
    if not interval.defined:
        side = "under" if interval.value < PAUSE_GOAL else "not under"
        return f"{name}'s mean pause is {side} {goal} on its one sample (no interval)"
    if interval.high < PAUSE_GOAL:
        return f"{name}'s mean pause is under {goal} over its whole 95 % interval"
    if interval.low >= PAUSE_GOAL:
        return f"{name}'s mean pause is not under {goal}: its whole 95 % interval is above"
    return f"{name}'s mean pause is not shown under {goal}: its 95 % interval spans it"


def extension_leads(res: Results) -> pd.DataFrame:
    """The extension's lane on the overall experiment (every sample of its traces at its
    eta and the profile's c): per trace, extension scheduler and runtime estimate (the
    trace's durations, "clairvoyant", then each of the profile's ``extension_estimates``,
    runs labelled ``config.lane_label``), its lead over the strongest paper baseline, over
    the reference (COMPASS-ABS) and, for the others, over ``gfs-backfill`` under the same
    estimate when it ran (best-fit under the same backfill) on AJCT, AGU and AFR, paired
    over the samples with a 95 % bootstrap interval (``aggregate.lead_intervals``;
    positive: the extension is better), and its mean migration pause per job with its
    bootstrap interval (``stats.bootstrap_mean``); n samples and a plain ``reading`` each.
    Empty (``LEAD_COLUMNS``) when the profile runs no extension."""
    cfg, x = res.config, res.config.experiments
    runs = overall_runs(res.with_extension(estimates=True))
    rows: list[dict[str, object]] = []
    for estimate in ("exact", *cfg.run.extension_estimates):
        fair = lane_label(BACKFILL_REFERENCE, estimate)
        for name in cfg.extension:
            mine, shown = lane_label(name, estimate), label(estimate)
            versus = [(STRONGEST, cfg.baselines), (cfg.reference, (cfg.reference,))]
            if BACKFILL_REFERENCE in cfg.extension and name != BACKFILL_REFERENCE:
                versus.append((fair, (fair,)))
            for against, rivals in versus:
                leads = lead_intervals(runs, mine, rivals, ["trace"], tuple(LEAD_METRICS))
                for r in leads.itertuples(index=False):
                    interval = Interval(r.lead, r.ci_low, r.ci_high, int(r.n))
                    strongest = (r.strongest_baseline or "") if against == STRONGEST else ""
                    rows.append({"trace": r.trace, "scheduler": name,
                                 "runtime_estimate": shown, "measure": f"{r.metric} lead",
                                 "against": against, "strongest": strongest, "value": r.lead,
                                 "ci_low": r.ci_low, "ci_high": r.ci_high, "n": int(r.n),
                                 "relative_pct": r.relative_pct,
                                 "unit": LEAD_METRICS[r.metric],
                                 "reading": _lead_reading(mine, r.metric, against + (
                                     f" ({strongest})" if strongest else ""), interval)})
            own = runs[runs["scheduler"] == mine]
            for trace in x.overall_traces:
                pauses = own.loc[own["trace"] == trace, PAUSE].dropna().to_numpy()
                if not pauses.size:
                    continue
                interval = bootstrap_mean(pauses)
                rows.append({"trace": trace, "scheduler": name, "runtime_estimate": shown,
                             "measure": "pause per job", "against": "", "strongest": "",
                             "value": interval.value, "ci_low": interval.low,
                             "ci_high": interval.high, "n": interval.n,
                             "relative_pct": float("nan"), "unit": "s per job",
                             "reading": _pause_reading(mine, interval)})
    frame = pd.DataFrame(rows, columns=LEAD_COLUMNS)
    frame["data"] = frame["trace"].map(lambda t: res.traces[t].label)
    return ordered(frame, "trace", x.overall_traces)


def write_extension_leads(results: str | Path, tables: str | Path) -> list[Path]:
    """Rule ``extension_leads``: ``extension_leads`` of a results folder as
    ``<tables>/extension_leads.{csv,md}``, captioned with its data."""
    res = Results.load(results)
    x = res.config.experiments
    caption = (f"Beyond the paper: {', '.join(res.config.extension)} (our extension, not the "
               "paper's) against the strongest paper baseline, COMPASS-ABS and best-fit with "
               "the same backfill and runtime estimate, per estimate (clairvoyant: the "
               "trace's durations), paired over "
               f"the samples, η = {x.overall_eta:g}, c = {res.config.migration_cost:g} s. "
               f"{res.label(x.overall_traces)}")
    return write_table(extension_leads(res), tables, LEADS_TABLE, caption)



def estimate_leads(runs: pd.DataFrame, baselines: Sequence[str] = BASELINES,
                   resamples: int = 2000) -> pd.DataFrame:
    """Per runtime estimate and (trace, day), and per trace over its days: COMPASS-ABS+'s
    paired leads on AJCT, AFR and AGU (> 0: COMPASS-ABS+ better) over gfs-backfill under the
    same estimate and over the strongest of the paper's ``baselines`` that ran (best per
    sample), each with a 95 % bootstrap interval over the samples
    (``stats.bootstrap_mean``), and COMPASS-ABS+'s mean pause per job with its interval."""
    have = [b for b in baselines if b in set(runs["variant"])]
    rows = []
    wide = runs.pivot_table(index=["trace", "day", "seed"], columns="variant",
                            values=list(LEAD_METRICS) + [PAUSE])
    for estimate in runs["runtime_estimate"].dropna().unique():
        ours, ref = f"{PLUS} {estimate}", f"{BACKFILL_REFERENCE} {estimate}"
        if ours not in wide["ajct"] or ref not in wide["ajct"]:
            continue
        groups = [((t, str(d)), g) for (t, d), g in wide.groupby(level=["trace", "day"])]
        groups += [((t, "all"), g) for t, g in wide.groupby(level="trace")]
        for (trace, day), g in groups:
            versus = [(f"{BACKFILL_REFERENCE} ({estimate})", [ref])]
            if have:
                versus.append((STRONGEST, have))
            for against, rivals in versus:
                for metric in LEAD_METRICS:
                    theirs = g[metric][rivals]
                    if LOWER_IS_BETTER[metric]:
                        lead = theirs.min(axis=1) - g[metric][ours]
                    else:
                        lead = g[metric][ours] - theirs.max(axis=1)
                    interval = bootstrap_mean(lead.to_numpy(), resamples=resamples)
                    rows.append({"runtime_estimate": estimate, "trace": trace, "day": day,
                                 "measure": f"{metric} lead", "against": against,
                                 "value": interval.value, "ci_low": interval.low,
                                 "ci_high": interval.high, "n": interval.n,
                                 "unit": LEAD_METRICS[metric],
                                 "reading": _lead_reading(PLUS, metric, against, interval)})
            interval = bootstrap_mean(g[PAUSE][ours].to_numpy(), resamples=resamples)
            rows.append({"runtime_estimate": estimate, "trace": trace, "day": day,
                         "measure": "pause per job", "against": "", "value": interval.value,
                         "ci_low": interval.low, "ci_high": interval.high, "n": interval.n,
                         "unit": "s per job", "reading": _pause_reading(PLUS, interval)})
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame.insert(2, "data", frame["trace"].map(
            {t: f"SYNTHETIC {spec.synthetic}" for t, spec in GOAL_TRACES.items()}))
    return frame


def write_estimate_leads(runs: pd.DataFrame, tables: str | Path) -> list[Path]:
    """``estimate_leads`` as ``<tables>/extension_estimates.{csv,md}``, captioned."""
    caption = ("Beyond the paper: COMPASS-ABS+ (our extension) against best-fit with the same "
               "backfill and runtime estimate, and against the strongest paper baseline, per "
               "runtime estimate (clairvoyant: the trace's durations), paired over seeds "
               "on the goal days, 95 % bootstrap intervals. SYNTHETIC data.")
    return write_table(estimate_leads(runs), tables, ESTIMATE_TABLE, caption)



def slack_curve(runs: pd.DataFrame, resamples: int = 2000) -> pd.DataFrame:
    """Per trace and k: the mean pause per job, AFR and AJCT over the days and seeds, the
    pause's bootstrap interval, and whether it is under the pause goal."""
    rows = []
    for (trace, k), g in runs.groupby(["trace", "bound_slack"]):
        pause = bootstrap_mean(g[PAUSE].to_numpy(), resamples=resamples)
        rows.append({"trace": trace, "bound_slack": int(k), "n": len(g),
                     "pause_per_job": pause.value, "pause_low": pause.low,
                     "pause_high": pause.high, "afr": g["afr"].mean(),
                     "ajct": g["ajct"].mean(), "agu": g["agu"].mean(),
                     "max_nsif_wcc": g["max_nsif_wcc"].max(),
                     "pause goal met": bool(pause.value < PAUSE_GOAL)})
    return pd.DataFrame(rows)


def smallest_slack(curve: pd.DataFrame, trace: str = "gfs") -> dict[str, object] | None:
    """The smallest k whose mean pause on ``trace`` is under the goal, with what it costs
    against k = 0 (AFR, AJCT and AGU changes); None if no k reaches it."""
    mine = curve[curve["trace"] == trace].set_index("bound_slack").sort_index()
    met = mine[mine["pause_per_job"] < PAUSE_GOAL]
    if met.empty:
        return None
    k, base = int(met.index[0]), mine.iloc[0]
    row = mine.loc[k]
    return {"trace": trace, "bound_slack": k, "pause_per_job": row["pause_per_job"],
            **{f"{m} change vs k = {int(mine.index[0])}": row[m] - base[m]
               for m in ("afr", "ajct", "agu")}}


