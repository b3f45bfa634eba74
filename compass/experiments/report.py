"""The claims report: paper/REPRODUCTION.md puts every claim of paper/claims.yaml beside the
value this pipeline measured, names the data it came from, and gives a verdict.

Each claim names a *measure* (a function below, in ``MEASURES``) and a *check* (the rule
that turns our value and the paper's into a verdict, with the size of the difference).
Leads come with a 95 % paired bootstrap interval over the samples (``aggregate.
lead_intervals``); a check on a value with an interval says "holds" when the whole interval
satisfies it, "differs" when none of it does, and "inconclusive" when it admits both
readings. Claims the pipeline cannot measure (theorems checked by tests, the physical
cluster's latency) say so. Known deviations come from paper/deviations.yaml. On SYNTHETIC
data every verdict is about the synthetic stand-ins; claims whose number the synthetic
traces are calibrated to agree by construction, and the report marks them.

``write_claims`` measures every claim into one tidy table, paper/tables/claims.csv, the
single source that ``write_report`` (paper/REPRODUCTION.md) and the notebooks read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compass.experiments.aggregate import METRICS, lead_intervals, top1, wide
from compass.experiments.case_study import AbsentWindow, CaseStudy, WindowName
from compass.experiments.composition import (
    SHARE_COLUMNS,
    composition,
    composition_days,
    composition_runs,
)
from compass.experiments.config import PAPER_SCHEDULERS, PipelineConfig
from compass.experiments.coverage import coverage_pairs
from compass.experiments.extension import BACKFILL_REFERENCE, STRONGEST
from compass.experiments.extension import LEADS_TABLE as EXTENSION_TABLE
from compass.experiments.layout import NOTEBOOKS, TABLE1
from compass.experiments.migrations import migrations_by_operator, operator_shares
from compass.experiments.openb import NOTEBOOK as OPENB_NOTEBOOK
from compass.experiments.openb import OPENB_MEASURES
from compass.experiments.openb import PRODUCTS as OPENB_PRODUCTS
from compass.experiments.physical import migration_latencies, physical_label
from compass.experiments.results import Results
from compass.experiments.stats import Interval, direction
from compass.experiments.sweeps import (
    cost_runs,
    cost_sweep,
    eta_runs,
    eta_sweep,
    overall,
    overall_runs,
)
from compass.experiments.tables import markdown, write_table
from compass.experiments.windows import window_leads

#: Verdicts, in the order the summary counts them.
VERDICTS = ("holds", "differs", "inconclusive", "no data", "not measured")
#: Columns of paper/tables/claims.csv, in order.
CLAIM_COLUMNS = ["id", "section", "statement", "paper", "ours", "ci_low", "ci_high", "n",
                 "relative_pct", "unit", "verdict", "detail", "direction", "ours_text", "data",
                 "variant", "deviation", "explained_by", "shown_in"]
#: The claims table's stem under the tables folder.
CLAIMS_TABLE = "claims"
#: The variant of the profile's own parameters (the paper-faithful baselines).
DEFAULT_VARIANT = "default"
#: Measures re-taken under each sensitivity variant: the comparisons between schedulers.
SENSITIVE_KINDS = ("lead", "wins", "leads_grow")


@dataclass(frozen=True)
class Claim:
    """One entry of paper/claims.yaml."""

    id: str
    section: str
    statement: str
    paper: str
    measure: dict[str, Any]
    check: dict[str, Any]
    unit: str
    evidence: list[str]
    how: str
    calibrated: bool = False


@dataclass(frozen=True)
class Measured:
    """Our value: ``value`` for the check, ``text`` for people, ``traces`` it came from, and
    for a statistic over samples its ``interval`` and size relative to the baseline (%)."""

    value: Any
    text: str
    traces: tuple[str, ...] = ()
    interval: Interval | None = None
    relative_pct: float = math.nan


@dataclass(frozen=True)
class Verdict:
    status: str
    detail: str = ""


def fmt(x: Any) -> str:
    """A number as the report prints it."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    ax = abs(float(x))
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


# ---------------------------------------------------------------------------- evidence
@dataclass
class Evidence:
    """The experiments' tables for one results folder, each computed once."""

    res: Results
    tables: Path
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def cfg(self) -> PipelineConfig:
        return self.res.config

    def experiment(self, name: str) -> tuple[pd.DataFrame, list[str], tuple[str, ...]]:
        """(means, grouping columns, traces) of a metric-means experiment."""
        x = self.cfg.experiments
        table = {"overall": (overall, ["trace"], x.overall_traces),
                 "eta_sweep": (eta_sweep, ["trace", "eta"], (x.eta_trace,)),
                 "cost_sweep": (cost_sweep, ["trace", "cost"], x.migration_traces),
                 "composition": (composition, ["trace", "day"], x.composition_traces)}
        function, by, traces = table[name]
        if name not in self.cache:
            self.cache[name] = function(self.res)
        return self.cache[name], by, tuple(traces)

    def lead_table(self, name: str) -> tuple[pd.DataFrame, tuple[str, ...]]:
        """(leads with paired intervals over the samples, traces) of a metric-means
        experiment (``aggregate.lead_intervals`` on the experiment's runs)."""
        runs = {"overall": overall_runs, "eta_sweep": eta_runs, "cost_sweep": cost_runs,
                "composition": composition_runs}[name]
        _, by, traces = self.experiment(name)
        key = f"{name}:leads"
        if key not in self.cache:
            self.cache[key] = lead_intervals(runs(self.res), self.cfg.reference,
                                             self.cfg.baselines, by)
        return self.cache[key], traces

    @cached_property
    def chosen_days(self) -> pd.DataFrame:
        return composition_days(self.res)

    @cached_property
    def pairs(self) -> pd.DataFrame:
        return coverage_pairs(self.res)

    @cached_property
    def case(self) -> tuple[CaseStudy, pd.DataFrame]:
        study = CaseStudy.load(self.res)
        return study, study.summary()

    def schedulers(self, names: str | Sequence[str]) -> list[str]:
        return list(self.cfg.baselines) if names == "baselines" else list(names)


# ---------------------------------------------------------------------------- measures
def _not_measured(ev: Evidence, reason: str) -> Measured:
    return Measured(None, reason)


def _wins(ev: Evidence, experiment: str, by: list[str]) -> Measured:
    means, _, traces = ev.experiment(experiment)
    flags = top1(wide(means, by), ev.cfg.reference, ev.cfg.ranked, by)
    flags = flags[flags["defined"]]
    lost = flags[~flags["top1"]]
    text = f"{int(flags['top1'].sum())} of {len(flags)}"
    if len(lost):
        text += "; not best on " + ", ".join(
            " ".join(str(v) for v in row) for row in lost[[*by, "metric"]].itertuples(index=False))
    return Measured((int(flags["top1"].sum()), len(flags)), text, traces)


def _lead(ev: Evidence, experiment: str, metric: str, where: dict[str, Any],
          scale: float = 1.0) -> Measured:
    """The reference's lead over the strongest baseline, paired over the samples, with its
    interval (times ``scale``: 100 turns AGU's fraction into percentage points)."""
    table, traces = ev.lead_table(experiment)
    rows = table[table["metric"] == metric]
    for column, value in where.items():
        rows = rows[np.isclose(rows[column], value) if isinstance(value, float)
                    else rows[column] == value]
    if rows.empty or pd.isna(rows["lead"].iloc[0]):
        which = ", ".join(f"{k} {v}" for k, v in where.items())
        return Measured(None, f"no {experiment} result for {which}", traces)
    row = rows.iloc[0]
    interval = Interval(float(row["lead"]) * scale, float(row["ci_low"]) * scale,
                        float(row["ci_high"]) * scale, int(row["n"]))
    span = (f" [{fmt(interval.low)}, {fmt(interval.high)}]" if interval.defined else "")
    return Measured(interval.value, f"{fmt(interval.value)}{span} (vs "
                    f"{row['strongest_baseline']}, n = {interval.n}, "
                    f"{float(row['relative_pct']):+.2g} %)",
                    (where["trace"],) if "trace" in where else traces, interval,
                    float(row["relative_pct"]))


def _leads_grow(ev: Evidence, experiment: str, metric: str) -> Measured:
    """Whether the lead grows as eta falls, on the same paired leads the per-eta claims use."""
    table, traces = ev.lead_table(experiment)
    rows = table[table["metric"] == metric].sort_values("eta", ascending=False)
    values = rows["lead"].to_numpy(dtype=float)
    if values.size < 2 or np.isnan(values).any():
        return Measured(None, "fewer than two eta values with a lead", traces)
    text = " -> ".join(f"{fmt(v)} (eta {e:g})" for v, e in zip(values, rows["eta"]))
    return Measured(bool(np.all(np.diff(values) > 0)), text, traces)


def _values(ev: Evidence, experiment: str, metric: str, names: list[str]) -> pd.Series:
    means, _, _ = ev.experiment(experiment)
    part = means[(means["metric"] == metric) & means["scheduler"].isin(names)]
    return part["value"].dropna()


def _reference_range(ev: Evidence, experiment: str, metric: str) -> Measured:
    v = _values(ev, experiment, metric, [ev.cfg.reference])
    traces = ev.experiment(experiment)[2]
    if v.empty:
        return Measured(None, "no value", traces)
    return Measured((float(v.min()), float(v.max())), f"{fmt(v.min())}-{fmt(v.max())}", traces)


def _baseline_range(ev: Evidence, experiment: str, metric: str) -> Measured:
    v = _values(ev, experiment, metric, list(ev.cfg.baselines))
    traces = ev.experiment(experiment)[2]
    if v.empty:
        return Measured(None, "no value", traces)
    return Measured((float(v.min()), float(v.max())), f"{fmt(v.min())}-{fmt(v.max())}", traces)


def _reference_min(ev: Evidence, experiment: str, metric: str) -> Measured:
    v = _values(ev, experiment, metric, [ev.cfg.reference])
    traces = ev.experiment(experiment)[2]
    return Measured(float(v.min()) if len(v) else None, fmt(v.min()) if len(v) else "no value",
                    traces)


def _afr_below_bound(ev: Evidence) -> Measured:
    x, cfg = ev.cfg.experiments, ev.cfg
    runs = ev.res.select(x.overall_traces, [x.overall_eta], [cfg.migration_cost])
    mine = runs[(runs["scheduler"] == cfg.reference) & runs["afr"].notna()]
    below = mine["afr"] * mine["nodes"] < 2
    parts = [f"{t}: {int(below[mine['trace'] == t].sum())}/{int((mine['trace'] == t).sum())}"
             for t in x.overall_traces]
    return Measured((int(below.sum()), len(mine)), "days with AFR < 2/N: " + ", ".join(parts),
                    x.overall_traces)


def _nsif_bound(ev: Evidence) -> Measured:
    mine = ev.res.ok[ev.res.ok["scheduler"] == ev.cfg.reference]
    v = mine["max_nsif_wcc"].dropna()
    if v.empty:
        return Measured(None, "no run of the reference with the WCC holding")
    over = int((v > 2).sum())
    return Measured(float(v.max()), f"max {fmt(v.max())} over {len(v)} runs ({over} above 2)",
                    tuple(sorted(mine["trace"].unique())))


def _class_shares(ev: Evidence, trace: str) -> Measured:
    table = pd.read_csv(ev.tables / f"{TABLE1}.csv")
    row = table[table["trace"] == trace]
    if row.empty:
        return Measured(None, f"no Table 1 row for {trace}")
    values = [float(row[c].iloc[0]) for c in row.columns if c.endswith(" %")]
    return Measured(values, " / ".join(f"{v:.2f}" for v in values), (trace,))


def _composition_days(ev: Evidence) -> Measured:
    chosen = ev.chosen_days
    pairs = [(str(t), int(d)) for t, d in zip(chosen["trace"], chosen["day"])]
    return Measured(sorted(pairs), ", ".join(f"{t} {d}" for t, d in pairs),
                    ev.cfg.experiments.composition_traces)


def _day_composition(ev: Evidence, trace: str, day: int) -> Measured:
    days = ev.res.day_table(trace)
    row = days[days["day"] == day]
    if row.empty:
        return Measured(None, f"{trace} day {day} is not replayed in this profile", (trace,))
    values = [float(row[c].iloc[0]) for c in SHARE_COLUMNS]
    return Measured(values, " / ".join(f"{v:.3f}" for v in values), (trace,))


def _pair_shares(ev: Evidence, trace: str, buckets: list[str]) -> tuple[list[float], int]:
    pairs = ev.pairs[ev.pairs["trace"] == trace].drop_duplicates(["day", "eta"])
    n = len(pairs)
    return [float((pairs["bucket"] == b).sum() / n) if n else math.nan for b in buckets], n


def _rho_share(ev: Evidence, trace: str, buckets: list[str]) -> Measured:
    shares, n = _pair_shares(ev, trace, buckets)
    if not n:
        return Measured(None, "no (day, eta) pair", (trace,))
    total = float(sum(shares))
    return Measured(total, f"{fmt(total)} ({round(total * n)} of {n} pairs)", (trace,))


def _rho_shares(ev: Evidence, trace: str, buckets: list[str]) -> Measured:
    shares, n = _pair_shares(ev, trace, buckets)
    if not n:
        return Measured(None, "no (day, eta) pair", (trace,))
    return Measured(shares, " / ".join(fmt(s) for s in shares) + f" ({n} pairs)", (trace,))


def _top1_share(ev: Evidence, trace: str, metric: str) -> Measured:
    p = ev.pairs
    p = p[(p["trace"] == trace) & (p["metric"] == metric) & p["defined"]]
    if p.empty:
        return Measured(None, "no pair with a defined value", (trace,))
    share = float(p["top1"].mean())
    return Measured(share, f"{fmt(share)} ({int(p['top1'].sum())} of {len(p)})", (trace,))


def _top1_worst_bucket(ev: Evidence, trace: str, metrics: list[str]) -> Measured:
    p = ev.pairs
    p = p[(p["trace"] == trace) & p["metric"].isin(metrics) & p["defined"]
          & (p["bucket"] != "1.0")]
    if p.empty:
        return Measured(None, "no (day, eta) pair with rho < 1 in this profile", (trace,))
    shares = p.groupby(["bucket", "metric"])["top1"].mean()
    worst = shares.idxmin()
    return Measured(float(shares.min()), f"{fmt(shares.min())} ({worst[1]} in {worst[0]})",
                    (trace,))


def _sweep(ev: Evidence) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The migration-cost means of the ranked schedulers (the paper's seven)."""
    means, _, traces = ev.experiment("cost_sweep")
    return means[means["scheduler"].isin(ev.cfg.ranked)], traces


def _pause_per_job(ev: Evidence) -> Measured:
    means, traces = _sweep(ev)
    top = means[(means["metric"] == "pause_per_job") & (means["cost"] == means["cost"].max())]
    if top.empty:
        return Measured(None, "no sweep", traces)
    row = top.loc[top["value"].idxmax()]
    return Measured(float(row["value"]), f"{fmt(row['value'])} ({row['scheduler']}, "
                    f"{row['trace']}, c = {row['cost']:g} s)", traces)


def _pause_per_job_operators(ev: Evidence) -> Measured:
    """``pause_per_job``, and which operators issued the reference's charged moves in the
    sweep's runs at its largest c (``migrations.operator_shares``, issue 12)."""
    measured = _pause_per_job(ev)
    runs = cost_runs(ev.res)
    cost = runs["cost"].max()
    moves = migrations_by_operator(runs[(runs["cost"] == cost)
                                        & (runs["scheduler"] == ev.cfg.reference)])
    if measured.value is None or moves.empty:
        return measured
    shares = operator_shares(moves)
    parts = [f"{op} {100 * share:.1f} %" for op, share in zip(shares["operator"],
                                                            shares["share"])]
    lead = "most" if shares["share"].iloc[0] > 0.5 else "the largest share"
    return Measured(measured.value, f"{measured.text}; of {ev.cfg.reference}'s "
                    f"{int(shares['instance_moves'].sum()):,} charged moves at c = {cost:g} s, "
                    f"{lead} from {parts[0]}" + "".join(f", {p}" for p in parts[1:]),
                    measured.traces)


def _flatness(ev: Evidence) -> Measured:
    means, traces = _sweep(ev)
    means = means[means["metric"].isin(METRICS)]
    if means["cost"].nunique() < 2:
        return Measured(None, "fewer than two migration costs", traces)
    g = means.groupby(["trace", "scheduler", "metric"])["value"]
    spread = ((g.max() - g.min()) / g.mean().abs()).dropna()
    worst = spread.idxmax()
    return Measured(float(spread.max()), f"{fmt(spread.max())} ({' '.join(worst)})", traces)


def _case_rows(ev: Evidence, schedulers: str | Sequence[str], window: WindowName
               ) -> tuple[pd.DataFrame, tuple]:
    study, summary = ev.case
    rows = summary[(summary["window"] == window)
                   & summary["scheduler"].isin(ev.schedulers(schedulers))]
    return rows, (study.trace,)


def _case_values(rows: pd.DataFrame, column: str) -> str:
    return ", ".join(f"{s} {fmt(v)}" for s, v in zip(rows["scheduler"], rows[column]))


def _case_windows(measure: Callable[..., Measured]) -> Callable[..., Measured]:
    """A case measure judged on the paper's window (section 6.6's day 113, 21:00-22:30 of the
    replayed data), with the busiest comparable window's value beside it in the text; no
    data, with the reason, when the profile does not replay the paper's window."""
    def both(ev: Evidence, **args: Any) -> Measured:
        study, _ = ev.case
        paper = study.window("paper")
        busiest = next(w for w in study.present if w.window == "busiest")  # always replayed
        theirs = measure(ev, window="busiest", **args)
        beside = f"busiest window ({busiest.span}): {theirs.text}"
        if isinstance(paper, AbsentWindow):
            return Measured(None, f"the paper's window is absent ({paper.reason}); {beside}",
                            theirs.traces)
        ours = measure(ev, window="paper", **args)
        return Measured(ours.value, f"paper window ({paper.span}): {ours.text}; {beside}",
                        ours.traces)
    return both


def _case_min(ev: Evidence, column: str, schedulers: str | Sequence[str],
              window: WindowName) -> Measured:
    rows, traces = _case_rows(ev, schedulers, window)
    v = rows[column].dropna()
    if v.empty:
        return Measured(None, "no scheduler of the claim ran the case study", traces)
    return Measured(float(v.min()), f"min {fmt(v.min())}: {_case_values(rows, column)}", traces)


def _case_max(ev: Evidence, column: str, schedulers: str | Sequence[str],
              window: WindowName) -> Measured:
    rows, traces = _case_rows(ev, schedulers, window)
    v = rows[column].dropna()
    if v.empty:
        return Measured(None, "no value (no such run, or no blocking)", traces)
    return Measured(float(v.max()), fmt(v.max()) if len(rows) == 1
                    else f"max {fmt(v.max())}: {_case_values(rows, column)}", traces)


def _case_band(ev: Evidence, column: str, schedulers: str | Sequence[str],
               window: WindowName) -> Measured:
    rows, traces = _case_rows(ev, schedulers, window)
    if rows.empty:
        return Measured(None, "no scheduler of the claim ran the case study", traces)
    lo, hi = float(rows[f"{column}_p10"].min()), float(rows[f"{column}_p90"].max())
    return Measured((lo, hi), f"{fmt(lo)}-{fmt(hi)} (p10-p90)", traces)


def _case_wide_blocked(ev: Evidence, window: WindowName, by: str = "count") -> Measured:
    """The baselines' share of blocked jobs (``by: count``) or of blocked time (``by:
    time``) with g = 8 and w > 30, pooled; the other weighing is given beside it."""
    rows, traces = _case_rows(ev, "baselines", window)
    n, seconds = rows["blocked_jobs"].sum(), rows["blocked_s"].sum()
    if not n:
        return Measured(None, "no blocked job under the baselines", traces)
    count = float((rows["blocked_g8_w31_share"].fillna(0) * rows["blocked_jobs"]).sum() / n)
    time = float((rows["blocked_g8_w31_time_share"].fillna(0) * rows["blocked_s"]).sum()
                 / seconds)
    text = {"count": f"{fmt(count)} of {int(n)} blocked jobs",
            "time": f"{fmt(time)} of {fmt(float(seconds))} s blocked"}
    other = "time" if by == "count" else "count"
    return Measured(count if by == "count" else time, f"{text[by]} (by {other}: {text[other]})",
                    traces)


def _physical_latency(ev: Evidence) -> Measured:
    spec = ev.cfg.experiments.physical
    if spec is None:
        return Measured(None, "no physical runs in this profile (experiments.physical is null)")
    if not ev.res.layout.physical_summary.exists():
        return Measured(None, physical_label(ev.res), (spec.trace,))
    latencies = migration_latencies(ev.res)
    measured = latencies["latency_s"].dropna() if len(latencies) else latencies
    if not len(measured):
        return Measured(None, "the physical runs made no migration", (spec.trace,))
    mean = float(measured.mean())
    return Measured(mean, f"{fmt(mean)} s over {len(measured)} checkpoint-restarts "
                    f"({physical_label(ev.res)})", (spec.trace,))


MEASURES: dict[str, Callable[..., Measured]] = {
    "not_measured": _not_measured, "wins": _wins, "lead": _lead, "leads_grow": _leads_grow,
    "reference_range": _reference_range, "baseline_range": _baseline_range,
    "reference_min": _reference_min, "afr_below_bound": _afr_below_bound,
    "nsif_bound": _nsif_bound, "class_shares": _class_shares,
    "composition_days": _composition_days, "day_composition": _day_composition,
    "rho_share": _rho_share, "rho_shares": _rho_shares, "top1_share": _top1_share,
    "top1_worst_bucket": _top1_worst_bucket, "pause_per_job": _pause_per_job,
    "flatness": _flatness, "case_min": _case_windows(_case_min),
    "case_max": _case_windows(_case_max), "case_band": _case_windows(_case_band),
    "case_wide_blocked": _case_windows(_case_wide_blocked),
    "physical_latency": _physical_latency, "pause_per_job_operators": _pause_per_job_operators,
    **OPENB_MEASURES,  # paper/claims_openb.yaml (compass.experiments.openb)
}


# ---------------------------------------------------------------------------- checks
def _band(check: dict[str, Any]) -> tuple[float, float] | None:
    """The values a check accepts, as a closed band, for the checks that have one."""
    if "at_least" in check:
        return float(check["at_least"]), math.inf
    if "at_most" in check:
        return -math.inf, float(check["at_most"])
    if "within" in check:
        lo, hi = (float(b) for b in check["within"])
        return lo, hi
    if "approx" in check and np.isscalar(check["approx"]["value"]):
        value, tol = float(check["approx"]["value"]), float(check["approx"]["tol"])
        return value - tol, value + tol
    return None


def judge(check: dict[str, Any], value: Any, unit: str = "",
          interval: Interval | None = None) -> Verdict:
    """The verdict of a check on our value (see paper/claims.yaml for the rules). With an
    interval over samples: "holds" if the check accepts all of it, "differs" if it accepts
    none of it, else "inconclusive" (the interval admits both readings)."""
    u = f" {unit}" if unit else ""
    band = _band(check)
    if interval is not None and interval.defined and band is not None:
        lo, hi = band
        ci = f"interval [{fmt(interval.low)}, {fmt(interval.high)}]{u}"
        if interval.low >= lo - 1e-12 and interval.high <= hi + 1e-12:
            return Verdict("holds", f"the whole {ci} satisfies it")
        if interval.high < lo - 1e-12 or interval.low > hi + 1e-12:
            return Verdict("differs", f"the whole {ci} is outside; " +
                           judge(check, value, unit).detail)
        return Verdict("inconclusive", f"the {ci} admits both readings")
    if "at_least" in check:
        x, v = float(check["at_least"]), float(value)
        return Verdict("holds") if v >= x - 1e-12 else Verdict(
            "differs", f"ours is lower by {fmt(x - v)}{u}")
    if "at_most" in check:
        x, v = float(check["at_most"]), float(value)
        return Verdict("holds") if v <= x + 1e-12 else Verdict(
            "differs", f"ours is higher by {fmt(v - x)}{u}")
    if "within" in check:
        lo, hi = (float(b) for b in check["within"])
        a, b = (value, value) if np.isscalar(value) else value
        if a >= lo - 1e-12 and b <= hi + 1e-12:
            return Verdict("holds")
        gaps = ([f"reaches {fmt(lo - a)}{u} below the band"] if a < lo else []) + (
            [f"reaches {fmt(b - hi)}{u} above the band"] if b > hi else [])
        return Verdict("differs", "; ".join(gaps))
    if "approx" in check:
        target = np.atleast_1d(np.asarray(check["approx"]["value"], dtype=float))
        gap = float(np.max(np.abs(np.atleast_1d(np.asarray(value, dtype=float)) - target)))
        tol = float(check["approx"]["tol"])
        return Verdict("holds") if gap <= tol + 1e-12 else Verdict(
            "differs", f"off by {fmt(gap)}{u} (tolerance {fmt(tol)})")
    if "all" in check:
        won, n = value
        return Verdict("holds") if n and won == n else Verdict(
            "differs", f"{n - won} of {n} not won")
    if "increasing" in check:
        return Verdict("holds") if value else Verdict("differs", "not increasing")
    if "same" in check:
        paper = sorted((str(t), int(d)) for t, d in check["same"])
        missing = [f"{t} {d}" for t, d in paper if (t, d) not in value]
        return Verdict("holds") if sorted(value) == paper else Verdict(
            "differs", "the paper's " + ", ".join(missing) + " not chosen")
    raise ValueError(f"unknown check {check}")


def assess(claim: Claim, ev: Evidence) -> tuple[Measured, Verdict]:
    """Measure one claim and judge it."""
    args = {k: v for k, v in claim.measure.items() if k != "kind"}
    measured = MEASURES[claim.measure["kind"]](ev, **args)
    if claim.measure["kind"] == "not_measured":
        return measured, Verdict("not measured", measured.text)
    if measured.value is None:
        return measured, Verdict("no data", measured.text)
    return measured, judge(claim.check, measured.value, claim.unit, measured.interval)


# ---------------------------------------------------------------------------- writing
def load_claims(path: str | Path | Sequence[str | Path]) -> list[Claim]:
    """The claims of one file, or of several in turn (paper/claims.yaml, then the others)."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    claims = []
    for one in paths:
        with open(one) as fh:
            claims += [Claim(**entry) for entry in yaml.safe_load(fh)["claims"]]
    return claims


def load_deviations(path: str | Path) -> list[dict[str, Any]]:
    with open(path) as fh:
        return list((yaml.safe_load(fh) or {}).get("deviations") or [])


def _relative(target: Path, report: Path) -> str:
    """``target`` as a link from the report's folder."""
    return Path(os.path.relpath(target, report.parent)).as_posix()


def _links(stems: list[str], figures: Path, tables: Path, report_dir: Path) -> str:
    figure_stems = {s for p in NOTEBOOKS.values() for s in p.figures}
    out = []
    for stem in stems:
        target = figures / f"{stem}.png" if stem in figure_stems else tables / f"{stem}.md"
        out.append(f"[{stem}]({Path(os.path.relpath(target, report_dir)).as_posix()})")
    return ", ".join(out) or "-"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _data_label(res: Results, measured: Measured, claim: Claim) -> str:
    if not measured.traces:
        return "-"
    labels = [res.traces[t].label for t in measured.traces if t in res.traces]
    text = "; ".join(labels)
    synthetic = any(res.traces[t].origin == "synthetic" for t in measured.traces
                    if t in res.traces)
    if claim.calibrated and synthetic:
        text += " (calibrated to this number: agreement by construction)"
    return text


def _failures(res: Results, case_status: pd.DataFrame) -> list[str]:
    lines = []
    failed = res.failed
    if len(failed):
        grouped = failed.groupby(["scheduler", "error"], sort=False)
        lines.append(f"{len(failed)} of {len(res.runs)} runs raised; they are left out of "
                     "every number above.\n")
        for (scheduler, error), part in grouped:
            where = ", ".join(f"{t} day {d} seed {s} eta {e:g} c {c:g}" for t, d, s, e, c in
                              part[["trace", "day", "seed", "eta", "cost"]].head(5).itertuples(
                                  index=False))
            more = f" and {len(part) - 5} more" if len(part) > 5 else ""
            lines.append(f"- **{scheduler}** ({len(part)} runs: {where}{more}): `{error}`")
    bad = case_status[case_status["status"] != "ok"]
    lines += [f"- case study, **{r.scheduler}**: `{r.error}`" for r in bad.itertuples()]
    return lines


def _cost(res: Results) -> str:
    ok = res.ok.assign(cpu_s=res.ok["cpu_s"] if "cpu_s" in res.ok else math.nan)
    per = ok.groupby(["trace", "scheduler"]).agg(runs=("cpu_s", "size"),
                                                 cpu_seconds=("cpu_s", "sum"),
                                                 wall_seconds=("wall_s", "sum"),
                                                 jobs=("jobs", "sum")).reset_index()
    per["CPU s per 1,000 jobs"] = 1000 * per["cpu_seconds"] / per["jobs"]
    order = {s: i for i, s in enumerate(PAPER_SCHEDULERS)}
    per = per.sort_values(["trace", "scheduler"], key=lambda c: c.map(order).fillna(99)
                          if c.name == "scheduler" else c)
    batches = len(res.runs[["trace", "day", "seed", "eta", "cost"]].drop_duplicates())
    head = (f"{len(res.runs)} simulator runs in {batches} batches took "
            f"{fmt(ok['cpu_s'].sum())} CPU seconds of simulation (each run's process and "
            f"solver child processes; {fmt(ok['wall_s'].sum())} wall seconds, which include "
            "waiting for a core when runs share the machine). Notebooks, data preparation, "
            "Python start-up and Snakemake's own overhead are not included. Per trace and "
            "scheduler:\n\n")
    return head + markdown(per[["trace", "scheduler", "runs", "cpu_seconds", "wall_seconds",
                                "jobs", "CPU s per 1,000 jobs"]])


def _number(value: Any) -> float:
    """A scalar measured value as a float for the claims table; NaN for anything else."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return math.nan
    return float(value)


def experiments_behind(claim: Claim) -> list[str]:
    """The experiments that explain a claim's value beyond its own measure (issue 12, item 6):
    the baseline variants for a comparison, the common window for an AFR or AGU lead, the
    two windows and blocked time by head class for the case study, moves by operator for the
    migration pause."""
    kind, metric = claim.measure["kind"], claim.measure.get("metric")
    out = []
    if kind in SENSITIVE_KINDS:
        out.append("sensitivity")
    if kind == "lead" and metric in ("afr", "agu"):
        out.append("metric_windows")
    if kind.startswith("case_"):
        out += ["case_blocking", "case_head_blocking"]
    if kind.startswith("pause_per_job"):
        out.append("migrations_by_operator")
    return out


def _attribute(frame: pd.DataFrame, claims: list[Claim]) -> pd.DataFrame:
    """``explained_by`` of every default row that does not hold: the experiments behind it
    and, for a comparison, each baseline variant under which its verdict changes."""
    behind = {c.id: experiments_behind(c) for c in claims}
    variants = frame[frame["variant"] != DEFAULT_VARIANT]
    frame = frame.copy()
    for i, row in frame[frame["variant"] == DEFAULT_VARIANT].iterrows():
        if row["verdict"] not in ("differs", "inconclusive"):
            continue
        flips = variants[(variants["id"] == row["id"]) & (variants["verdict"] != row["verdict"])]
        parts = [f"{v.variant}: {v.verdict}" for v in flips.itertuples()]
        frame.at[i, "explained_by"] = "; ".join([*behind.get(row["id"], []), *parts])
    return frame


def claims_table(claims: list[Claim], ev: Evidence, deviations: list[dict[str, Any]],
                 variant: str = DEFAULT_VARIANT) -> pd.DataFrame:
    """One row per claim (``CLAIM_COLUMNS``): the paper's value, ours with its interval and
    sample count where it is a statistic over samples, the verdict and its detail, the data
    it came from, the scheduler ``variant`` it was measured under (``default``: the
    profile's parameters) and the figures and tables that show it (stems, ``;``-separated)."""
    marked = {c: d["id"] for d in deviations for c in d.get("claims") or []}
    rows = []
    for claim in claims:
        measured, verdict = assess(claim, ev)
        iv = measured.interval
        shown = measured.value is not None or verdict.status == "not measured"
        rows.append({
            "id": claim.id, "section": claim.section, "statement": claim.statement,
            "paper": claim.paper, "ours": _number(measured.value),
            "ci_low": iv.low if iv else math.nan, "ci_high": iv.high if iv else math.nan,
            "n": iv.n if iv else math.nan, "relative_pct": measured.relative_pct,
            "unit": claim.unit, "verdict": verdict.status, "detail": verdict.detail,
            "direction": direction(iv) if claim.measure["kind"] == "lead" else "",
            "ours_text": measured.text if shown else "-",
            "data": _data_label(ev.res, measured, claim), "variant": variant,
            "deviation": marked.get(claim.id, ""), "explained_by": "",
            "shown_in": ";".join(claim.evidence),
        })
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def write_claims(results: str | Path, claims_path: str | Path | Sequence[str | Path],
                 deviations_path: str | Path, tables: str | Path) -> list[Path]:
    """Measure every claim on a results folder into paper/tables/claims.csv (and .md), then
    the comparisons (``SENSITIVE_KINDS``) again under each sensitivity variant: the same
    samples with one baseline's runs replaced by its variant's (rows with that
    ``variant``; they never change a default row's verdict)."""
    res, claims = Results.load(results), load_claims(claims_path)
    deviations = load_deviations(deviations_path)
    sensitive = [c for c in claims if c.measure["kind"] in SENSITIVE_KINDS]
    frame = pd.concat([claims_table(claims, Evidence(res, Path(tables)), deviations),
                       *(claims_table(sensitive, Evidence(res.with_variant(v), Path(tables)),
                                      deviations, v) for v in res.config.variants)],
                      ignore_index=True)
    frame = _attribute(frame, claims)
    return write_table(frame, tables, CLAIMS_TABLE, "Every claim of the paper beside our "
                       f"value and its verdict ({res.label()})")


def read_claims(tables: str | Path) -> pd.DataFrame:
    """paper/tables/claims.csv as ``write_claims`` wrote it (empty texts as "")."""
    frame = pd.read_csv(Path(tables) / f"{CLAIMS_TABLE}.csv")
    text = ["detail", "direction", "ours_text", "data", "deviation", "explained_by",
            "shown_in", "unit"]
    frame[text] = frame[text].fillna("")
    return frame


def claims_shown(tables: str | Path, notebook: str) -> pd.DataFrame:
    """The claims (default variant) that a notebook's figures and tables show, from
    claims.csv: what each notebook renders under its figures, so no number is typed by
    hand. Empty, with a note, before the pipeline's ``claims`` rule has run."""
    products = NOTEBOOKS.get(notebook) or (OPENB_PRODUCTS if notebook == OPENB_NOTEBOOK
                                           else None)
    if products is None:
        raise ValueError(f"unknown notebook {notebook!r}")
    if not (Path(tables) / f"{CLAIMS_TABLE}.csv").is_file():
        print(f"{Path(tables) / CLAIMS_TABLE}.csv not found: run the pipeline's claims rule")
        return pd.DataFrame(columns=["id", "paper", "ours", "verdict", "detail"])
    stems = {*products.figures, *products.tables}
    frame = read_claims(tables)
    shown = frame[(frame["variant"] == DEFAULT_VARIANT) & frame["shown_in"].map(
        lambda s: bool(stems & set(s.split(";"))))]
    return shown[["id", "paper", "ours_text", "verdict", "detail"]].rename(
        columns={"ours_text": "ours"}).reset_index(drop=True)


def _report_rows(frame: pd.DataFrame, figures: Path, tables: Path,
                 report_dir: Path) -> list[dict[str, str]]:
    """The report's claims table: one row per row of claims.csv."""
    rows = []
    for r in frame.itertuples(index=False):
        text = r.verdict + (f": {r.detail}" if r.detail else "")
        if r.deviation:
            text += f" (see deviation `{r.deviation}`)"
        if r.explained_by:
            text += f"; explained by: {r.explained_by}"
        stems = [s for s in r.shown_in.split(";") if s]
        rows.append({"id": r.id, "section": r.section, "claim": r.statement,
                     "paper": r.paper, "ours": r.ours_text, "data": r.data or "-",
                     "verdict": text, "shown in": _links(stems, figures, tables, report_dir)})
    return rows


def _findings(table: pd.DataFrame, res: Results) -> list[str]:
    """"What we found": plain lines computed from claims.csv (never typed by hand): the
    data, the verdicts, where COMPASS-ABS's leads stand and how far the paper's margins
    are, the theorem's bound, and which verdicts a baseline variant changes."""
    frame = table[table["variant"] == DEFAULT_VARIANT]
    leads = frame[frame["direction"] != ""]
    counts = frame["verdict"].value_counts()
    synthetic = any(t.origin == "synthetic" for t in res.traces.values())
    lines = ["## What we found", "",
             f"- Data: {res.label()}. " + ("Every comparison is between schedulers on the "
                                           "SYNTHETIC stand-ins, not on the paper's traces."
                                           if synthetic else "Real traces."),
             "- Verdicts: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
             + f" of {len(frame)} claims."]
    if len(leads):
        ways = leads["direction"].str.split(" ").str[0].value_counts()
        worst = leads.loc[leads["relative_pct"].abs().idxmax()] if leads[
            "relative_pct"].notna().any() else None
        lines.append(
            f"- COMPASS-ABS's leads over the strongest baseline ({len(leads)} lead claims): "
            f"ahead on {int(ways.get('ahead', 0))}, behind on {int(ways.get('behind', 0))}, "
            f"undecided (the interval spans zero) on {int(ways.get('undecided', 0))}"
            + (f"; the largest is {worst['relative_pct']:+.2g} % of the baseline "
               f"(`{worst['id']}`)" if worst is not None else "") + ".")
        met = leads[leads["verdict"] == "holds"]
        lines.append(f"- The paper's margins: {len(met)} of {len(leads)} lead claims reach "
                     "the paper's value over their whole interval"
                     + (f" ({', '.join(f'`{i}`' for i in met['id'])})" if len(met) else "")
                     + "; the median lead is "
                     f"{leads['relative_pct'].abs().median():.2g} % of the baseline's value "
                     "in size.")
    bound = frame[frame["id"] == "thm1-sif-bound"]
    if len(bound):
        lines.append(f"- Theorem 1 (N x SIF <= 2 under the WCC) on every replay: "
                     f"{bound['verdict'].iloc[0]} ({bound['ours_text'].iloc[0]}).")
    for variant in res.config.variants:
        mine = table[table["variant"] == variant].set_index("id")["verdict"]
        base = frame.set_index("id")["verdict"].reindex(mine.index)
        changed = [i for i in mine.index if mine[i] != base[i]]
        lines.append(f"- Baseline variant **{variant}**: {len(changed)} of {len(mine)} "
                     "comparison verdicts change"
                     + (" (" + ", ".join(f"`{i}`: {base[i]} -> {mine[i]}" for i in changed)
                        + ")" if changed else "") + " (section \"Sensitivity\").")
    return [*lines, ""]


def _windows_section(res: Results, claims: list[Claim]) -> list[str]:
    """The overall experiment's AFR and AGU leads under both windows (issue 12): each run's
    own T_peak, the paper's definition and the claims', and the batch's common window."""
    if "afr_common" not in res.runs:
        return []  # a results folder written before the common window was recorded
    table = window_leads(res)
    points = table["metric"] == "agu"
    lead_columns = [c for c in table if c.startswith("lead")]
    table.loc[points, lead_columns] = table.loc[points, lead_columns] * 100
    ids = [c.id for c in claims if c.measure.get("kind") == "lead"
           and c.measure.get("metric") in ("afr", "agu")]
    return ["## AFR and AGU: own T_peak and a common window", "",
            "The paper averages AFR and AGU over each run's own T_peak (eq. 14-17), the "
            "period its own queue waited; every claim above uses that definition"
            + (f" ({', '.join(f'`{i}`' for i in ids)})" if ids else "") + ". Averaged over "
            "each batch's common window instead (the union of every scheduler's T_peak on "
            "the same jobs; a run that finished inside it counts as idle there), the overall "
            "experiment's leads of the reference over the strongest baseline are "
            "(AGU in percentage points; table `metric_windows`, docs/pipeline.md):", "",
            markdown(table)]


def _sensitivity(table: pd.DataFrame, res: Results) -> list[str]:
    """The sensitivity section: every comparison claim's verdict (and our value) under the
    profile's parameters and under each variant of a baseline."""
    variants = res.config.variants
    if not variants:
        return []
    sensitive = table[table["variant"] != DEFAULT_VARIANT]
    ids = list(dict.fromkeys(sensitive["id"]))
    cell = {(r.id, r.variant): f"{r.verdict}: {r.ours_text}" for r in table.itertuples()}
    names = [DEFAULT_VARIANT, *variants]
    lines = ["## Sensitivity: the comparisons under other baseline variants", "",
             "Each variant replaces one baseline's runs by the same baseline with other "
             "parameters, on the same samples; the verdicts above use the default "
             "(paper-faithful) parameters and are not changed by this section.", "",
             *[f"- **{v}**: {spec['scheduler']} with "
               + ", ".join(f"{k} = {val}" for k, val in spec["params"].items())
               for v, spec in variants.items()], "",
             "| claim | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1),
             *["| " + " | ".join([i, *(_cell(cell.get((i, v), "-")) for v in names)]) + " |"
               for i in ids], ""]
    return lines


def _extension_section(res: Results, tables: Path, out: Path) -> list[str]:
    """Our extension's own section, after the paper's claims and apart from them: the table
    the rule ``extension_leads`` wrote (``extension.extension_leads``), a line per trace on
    the issue's goal (the AJCT and AGU leads over the strongest baseline above zero, with
    intervals), and the lane's failed runs and cost. Nothing when the profile runs none."""
    cfg = res.config
    if not cfg.extension:
        return []
    csv = tables / f"{EXTENSION_TABLE}.csv"
    table = pd.read_csv(csv).fillna({"against": "", "strongest": ""})
    x, runs = cfg.experiments, res.extension_runs
    names = ", ".join(f"`{s}`" for s in cfg.extension)
    lines = ["## Beyond the paper: COMPASS-ABS+ (our extension)", "",
             f"{names}: our own extension beyond the paper (docs/theory.md, section 8), not "
             "one of its schedulers. Every batch runs the lane beside the paper's schedulers "
             "(profile key `extension`) on the same samples, eta, c and seeds; no claim above, "
             "no verdict and no paper lead uses its runs. On the overall experiment's samples "
             f"(eta = {x.overall_eta:g}, c = {cfg.migration_cost:g} s): each one's lead over "
             f"the strongest paper baseline ({', '.join(cfg.baselines)}), over "
             f"{cfg.reference} and over `{BACKFILL_REFERENCE}` where it ran, paired over the "
             "samples with the 95 % bootstrap interval and "
             "n (positive: ours is better; AGU and AFR as shares), and its mean migration "
             "pause per job ([" + f"{EXTENSION_TABLE}.csv]({_relative(csv, out)})). Its "
             "`backfill` lets jobs pass a blocked FIFO head when they end before the head's "
             "reservation; it reads the jobs' durations from the trace (a perfect runtime "
             "estimate, which a real cluster does not have) and is a queue policy any "
             "baseline could adopt, while every paper scheduler here is FIFO with "
             "head-of-line blocking, so most of an AJCT lead can come from it "
             "(docs/theory.md, section 8, ablation). `gfs-backfill` is best-fit under the "
             "same backfill: the lead over it is what COMPASS-ABS+ adds beyond its queue "
             "policy.", ""]
    goal = table[(table["against"] == STRONGEST)
                 & table["measure"].isin(["ajct lead", "agu lead"])]
    for (trace, name), part in goal.groupby(["trace", "scheduler"], sort=False):
        met = len(part) == 2 and bool((part["ci_low"] > 0).all())
        lines.append(f"- **{trace}** ({part['data'].iloc[0]}), {name}: "
                     + ", ".join(f"{r.measure.split()[0].upper()} lead {_with_interval(r)} "
                                 f"over {r.strongest}" for r in part.itertuples())
                     + ": " + ("both" if met else "not both") + " above zero over their "
                     "whole 95 % interval.")
    rows = [{"trace": r.trace, "scheduler": r.scheduler, "measure": r.measure,
             "against": r.against or "-", "strongest": r.strongest or "-",
             "ours [95 % CI]": _with_interval(r), "n": fmt(int(r.n)), "reading": r.reading}
            for r in table.itertuples(index=False)]
    if rows:
        columns = list(rows[0])
        lines += ["", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
                  *["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows]]
    failed = runs[runs["status"] != "ok"]
    batches = len(runs[["trace", "day", "seed", "eta", "cost"]].drop_duplicates())
    cpu = float(runs["cpu_s"].sum()) if "cpu_s" in runs else math.nan
    lines += ["", f"Its {len(runs)} runs in {batches} batches took "
              f"{fmt(cpu)} CPU seconds of simulation"
              + (f"; {len(failed)} raised and are left out ("
                 + ", ".join(sorted(set(failed["error"]))) + ")." if len(failed) else ".")
              + " They are not in the section \"Cost\" above.", ""]
    return lines


def _with_interval(row: Any) -> str:
    """A row of the extension's table as "value [low, high] unit" (no interval: the value)."""
    span = f" [{fmt(row.ci_low)}, {fmt(row.ci_high)}]" if pd.notna(row.ci_low) else ""
    return f"{fmt(row.value)}{span} {row.unit}"


def _header(res: Results) -> list[str]:
    """Title, profile, and what data every number comes from."""
    cfg = res.config
    traces = [res.traces[name] for name in cfg.traces]
    lines = [
        "# Reproduction report", "",
        "Generated by the pipeline (`snakemake`, docs/pipeline.md) from "
        f"`{res.layout.root.as_posix()}`: profile **{cfg.profile}** ({cfg.raw['description']})",
        "", "## Data", "",
        *[f"- **{t.name}**: {t.label}, {len(t.days)} day(s)"
          + (f", hours {t.spec.hours[0]:g}-{t.spec.hours[1]:g}" if t.spec.hours != (0, 24)
             else "") for t in traces],
        *[f"- **{t.note}**" for t in traces if t.note], "",
    ]
    synthetic = [t.spec.synthetic for t in traces if t.origin == "synthetic"]
    if synthetic:
        lines += ["**SYNTHETIC data.** " + ", ".join(synthetic) + " are synthetic stand-ins "
                  "calibrated to published statistics of the real traces (docs/traces.md). "
                  "Every value below measures the schedulers on them, not the paper's traces; "
                  "a verdict says whether the paper's claim holds on this data.", ""]
    missing = [s for s in PAPER_SCHEDULERS if s not in set(res.runs["scheduler"])]
    if missing:
        lines += [f"Not run in this profile: {', '.join(missing)} (claims about them have "
                  "no data).", ""]
    return lines


def write_report(results: str | Path, claims_path: str | Path | Sequence[str | Path],
                 deviations_path: str | Path,
                 out: str | Path, figures: str | Path, tables: str | Path) -> None:
    """Write the Markdown report from paper/tables/claims.csv (``write_claims``) and the
    claims' texts (how each value is measured) and deviations."""
    res, out = Results.load(results), Path(out)
    claims, deviations = load_claims(claims_path), load_deviations(deviations_path)
    table = read_claims(tables)
    frame = table[table["variant"] == DEFAULT_VARIANT]
    rows = _report_rows(frame, Path(figures), Path(tables), out.parent)
    counts = frame["verdict"].value_counts()
    columns = list(rows[0])
    lines = [*_header(res), *_findings(table, res), "## Summary", "",
             ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
             + f" ({len(frame)} claims).", "",
             "Leads are paired over the samples (every sample replays the same jobs under "
             "every scheduler) and given with their 95 % bootstrap interval, the number of "
             "samples n and their size relative to the strongest baseline. A verdict is "
             "*holds* when the whole interval satisfies the paper's claim, *differs* when "
             "none of it does, *inconclusive* when it admits both readings; values without "
             "an interval are judged as they are. Every value is in "
             f"[{CLAIMS_TABLE}.csv]({_relative(Path(tables) / f'{CLAIMS_TABLE}.csv', out)}).",
             ""]
    failures = _failures(res, CaseStudy.load(res).status)
    if failures:
        lines += ["## Failed runs", "", *failures, ""]
    lines += ["## Claims", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
              *["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows], "",
              *_windows_section(res, claims), *_sensitivity(table, res),
              "## Known deviations", ""]
    lines += [f"- **{d['id']}**: {d.get('title', '')}. {d.get('text', '')}"
              + (f" (claims: {', '.join(d['claims'])})" if d.get("claims") else "")
              for d in deviations] or ["None recorded."]
    lines += ["", "## How each value is measured", "",
              *[f"- `{c.id}`: {c.how}" for c in claims], "", "## Cost", "", _cost(res),
              *_extension_section(res, Path(tables), out)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip() + "\n")
