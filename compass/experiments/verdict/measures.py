"""The measures of paper/claims*.yaml: one function per ``measure.kind``, each reading the
experiments' tables of one results folder (``Evidence``) and returning our value
(``claims.Measured``), with its interval over the samples where it is a statistic of them.
``MEASURES`` maps every kind of paper/claims.yaml to its function; ``measure_function``
finds a kind there or among those a study registers (``registry``: the openb kinds of
paper/claims_openb.yaml)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compass.experiments.aggregate import LOWER_IS_BETTER, METRICS, lead_intervals
from compass.experiments.case_study import AbsentWindow, CaseStudy, WindowName
from compass.experiments.comparisons import (
    cost_runs,
    cost_sweep,
    eta_runs,
    eta_sweep,
    overall,
    overall_runs,
)
from compass.experiments.composition import (
    SHARE_COLUMNS,
    composition,
    composition_days,
    composition_runs,
)
from compass.experiments.config import PipelineConfig
from compass.experiments.coverage import coverage_pairs
from compass.experiments.layout import TABLE1
from compass.experiments.migrations import migrations_by_operator, operator_shares
from compass.experiments.physical import migration_latencies, physical_label
from compass.experiments.results import Results
from compass.experiments.stats import (
    CLASSES,
    Interval,
    classify,
    lead_steps,
    paired_lead,
    unpaired_lead_steps,
)
from compass.experiments.verdict.claims import Margin, Measured, Tally, Trend, fmt
from compass.experiments.verdict.registry import registered_measures


@dataclass
class Evidence:
    """The experiments' tables for one results folder, each computed once."""

    res: Results
    tables: Path
    #: practical-equivalence margins by metric (paper/claims.yaml, ``margins``)
    margins: Mapping[str, Margin] = field(default_factory=dict)
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

    def runs(self, name: str) -> pd.DataFrame:
        """The runs of a metric-means experiment; for the composition experiment, every run
        of its traces at its eta and c (its chosen days and the others replayed there)."""
        key = f"{name}:runs"
        if key not in self.cache:
            x = self.cfg.experiments
            self.cache[key] = {
                "overall": overall_runs, "eta_sweep": eta_runs, "cost_sweep": cost_runs,
                "composition": lambda res: res.select(x.composition_traces,
                                                      [x.composition_eta],
                                                      [self.cfg.migration_cost]),
            }[name](self.res)
        return self.cache[key]

    def lead_table(self, name: str) -> tuple[pd.DataFrame, tuple[str, ...]]:
        """(leads with paired intervals over the samples, traces) of a metric-means
        experiment (``aggregate.lead_intervals`` on the experiment's runs)."""
        _, by, traces = self.experiment(name)
        key = f"{name}:leads"
        if key not in self.cache:
            runs = composition_runs(self.res) if name == "composition" else self.runs(name)
            self.cache[key] = lead_intervals(runs, self.cfg.reference, self.cfg.baselines, by)
        return self.cache[key], traces

    @cached_property
    def chosen_days(self) -> pd.DataFrame:
        return composition_days(self.res)

    @cached_property
    def blocked_jobs(self) -> pd.DataFrame:
        """The case study's distinct blocked head jobs (``CaseStudy.blocked_jobs``)."""
        return self.case[0].blocked_jobs()

    @cached_property
    def pairs(self) -> pd.DataFrame:
        return coverage_pairs(self.res)

    @cached_property
    def case(self) -> tuple[CaseStudy, pd.DataFrame]:
        study = CaseStudy.load(self.res)
        return study, study.summary()

    def margin(self, metric: str, baseline: float, reference: float | None = None
               ) -> float | None:
        """The margin of a comparison on ``metric`` between a baseline and the reference of
        those values (``claims.Margin.size``; None: the claims give no margin for the
        metric)."""
        if metric not in self.margins:
            return None
        return self.margins[metric].size(baseline, reference, LOWER_IS_BETTER[metric])

    def schedulers(self, names: str | Sequence[str]) -> list[str]:
        return list(self.cfg.baselines) if names == "baselines" else list(names)


def _not_measured(ev: Evidence, reason: str) -> Measured:
    return Measured(None, reason)


def _wins(ev: Evidence, experiment: str, by: list[str]) -> Measured:
    """Per cell (group x metric): the reference's paired lead over the strongest baseline,
    its sign decided first: a win (the whole interval above zero), a loss (below zero), a
    tie (inside the metric's margin) or undecided (``stats.classify``), tallied
    W / T / L / U."""
    table, traces = ev.lead_table(experiment)
    cells = [(" ".join(str(getattr(r, k)) for k in [*by, "metric"]),
              classify(Interval(r.lead, r.ci_low, r.ci_high, int(r.n)),
                       ev.margin(r.metric, r.baseline_mean, r.reference_mean) or 0.0))
             for r in table[table["lead"].notna()].itertuples(index=False)]
    classes = [c for _, c in cells]
    tally = Tally(*(classes.count(c) for c in CLASSES))
    text = tally.text() + "".join(
        f"; {c} on " + ", ".join(name for name, k in cells if k == c)
        for c in ("loss", "undecided") if c in classes)
    return Measured(tally, text, traces)


#: A sample stalls when some scheduler's mean queueing time exceeds one day (seconds): its
#: AJCT is then mostly head-of-line waiting, and one such sample can carry a whole lead.
STALL_S = 86_400.0


def _where(frame: pd.DataFrame, where: dict[str, Any]) -> pd.DataFrame:
    """The rows of ``frame`` whose columns hold the values of ``where`` (floats: isclose)."""
    for column, value in where.items():
        frame = frame[np.isclose(frame[column], value) if isinstance(value, float)
                      else frame[column] == value]
    return frame


def _span(row: Any, scale: float) -> str:
    """A row of ``lead_intervals`` as "lead [low, high] (n = ...)", times ``scale``."""
    span = f" [{fmt(row.ci_low * scale)}, {fmt(row.ci_high * scale)}]" if pd.notna(
        row.ci_low) else ""
    return f"{fmt(row.lead * scale)}{span} (n = {int(row.n)})"


def _beside(ev: Evidence, runs: pd.DataFrame, by: list[str], metric: str, scale: float,
            strongest: str) -> str:
    """The lines beside a lead: the lead over the point estimate's strongest baseline held
    fixed, and for AJCT the samples that stall (``STALL_S``) with the lead without them."""
    ref = ev.cfg.reference
    fixed = lead_intervals(runs, ref, [strongest], by, [metric]).iloc[0]
    text = f"; vs {strongest} alone: {_span(fixed, scale)}"
    if metric != "ajct":
        return text
    queue = runs.groupby(["day", "seed"])["mean_queue_time"].max()
    stalled = queue[queue > STALL_S]
    if stalled.empty:
        return text
    names = ", ".join(f"day {d} seed {s} ({fmt(q / 86_400)} d)" for (d, s), q in stalled.items())
    kept = runs.set_index(["day", "seed"]).drop(index=stalled.index).reset_index()
    rest = lead_intervals(kept, ref, ev.cfg.baselines, by, [metric])
    without = (_span(rest.iloc[0], scale) if len(rest) and pd.notna(rest["lead"].iloc[0])
               else "no sample left")
    return (text + f"; stalled samples (a mean queue over a day): {names}; without them: "
            f"{without}")


def _lead(ev: Evidence, experiment: str, metric: str, where: dict[str, Any],
          scale: float = 1.0) -> Measured:
    """The reference's lead over the strongest baseline, paired over the samples, with its
    interval (times ``scale``: 100 turns AGU's fraction into percentage points). The
    strongest baseline is re-chosen in each resample (``stats.paired_lead``); the lead over
    the point estimate's strongest alone is given beside it, and for AJCT the samples that
    stall with the lead without them. A composition day that is not among the three chosen
    is measured on its replays at the experiment's eta and c, and says so."""
    table, traces = ev.lead_table(experiment)
    rows = _where(table[table["metric"] == metric], where)
    _, by, _ = ev.experiment(experiment)
    runs = _where(ev.runs(experiment), where)
    note = ""
    if (rows.empty or pd.isna(rows["lead"].iloc[0])) and experiment == "composition":
        rows = lead_intervals(runs, ev.cfg.reference, ev.cfg.baselines, by, [metric])
        note = "; not a chosen day: its replays at the experiment's eta and c"
    if rows.empty or pd.isna(rows["lead"].iloc[0]):
        which = ", ".join(f"{k} {v}" for k, v in where.items())
        return Measured(None, f"no {experiment} result for {which}", traces)
    row = rows.iloc[0]
    interval = Interval(float(row["lead"]) * scale, float(row["ci_low"]) * scale,
                        float(row["ci_high"]) * scale, int(row["n"]))
    margin = ev.margin(metric, float(row["baseline_mean"]), float(row["reference_mean"]))
    span = (f" [{fmt(interval.low)}, {fmt(interval.high)}]" if interval.defined else "")
    strongest = str(row["strongest_baseline"])
    return Measured(interval.value, f"{fmt(interval.value)}{span} (strongest baseline, "
                    f"re-chosen in each resample ({strongest} in the point estimate), "
                    f"n = {interval.n}, {float(row['relative_pct']):+.2g} %{note})"
                    + _beside(ev, runs, by, metric, scale, strongest),
                    (where["trace"],) if "trace" in where else traces, interval,
                    float(row["relative_pct"]), None if margin is None else margin * scale)


def _leads_grow(ev: Evidence, experiment: str, metric: str) -> Measured:
    """Whether the lead grows as eta falls: the leads from the loosest to the tightest eta on
    the samples replayed at every eta, each with its paired interval (``stats.paired_lead``:
    the same resamples as the steps'), and each step between them with its paired bootstrap
    interval (``stats.lead_steps``); the value is both (``claims.Trend``)."""
    _, _, traces = ev.experiment(experiment)
    runs = ev.runs(experiment)
    etas = sorted(runs["eta"].unique(), reverse=True)
    names = [ev.cfg.reference, *(b for b in ev.cfg.baselines if b in set(runs["scheduler"]))]
    table = runs.pivot_table(index=["trace", "day", "seed"], columns=["eta", "scheduler"],
                             values=metric, aggfunc="first")
    columns = [(e, s) for e in etas for s in names]
    if len(etas) < 2 or len(names) < 2 or not set(columns) <= set(table.columns):
        return Measured(None, "fewer than two eta values with a lead", traces)
    values = table[columns].dropna().to_numpy().reshape(-1, len(etas), len(names))
    if not len(values):
        return Measured(None, "no sample replayed at every eta", traces)
    lower = LOWER_IS_BETTER[metric]
    _, steps = lead_steps(values[:, :, 0], values[:, :, 1:], lower)
    leads = [paired_lead(values[:, j, 0], values[:, j, 1:], lower).interval
             for j in range(len(etas))]
    text = (" -> ".join(f"{_interval_text(v)} (eta {e:g})" for v, e in zip(leads, etas))
            + "; steps " + ", ".join(_interval_text(s) for s in steps)
            + f" (paired, n = {len(values)})")
    return Measured(Trend(tuple(leads), tuple(steps)), text, traces)


def _interval_text(iv: Interval) -> str:
    return f"{fmt(iv.value)}" + (f" [{fmt(iv.low)}, {fmt(iv.high)}]" if iv.defined else "")


def _leads_ordered(ev: Evidence, experiment: str, metric: str,
                   order: list[dict[str, Any]]) -> Measured:
    """Whether the leads at the groups of ``order`` (e.g. three composition days) fall in
    that order, largest first: each step between consecutive leads with a bootstrap interval
    that resamples each group's own samples (``stats.unpaired_lead_steps``; the groups are
    different days, so nothing pairs them) and each lead with its own interval
    (``stats.paired_lead``). The value (``claims.Trend``) is the leads and the steps, the
    steps negated so that a falling lead reads as a positive step (the ``increasing``
    check)."""
    _, _, traces = ev.experiment(experiment)
    runs = ev.runs(experiment)
    names = [ev.cfg.reference, *(b for b in ev.cfg.baselines if b in set(runs["scheduler"]))]
    groups, labels = [], []
    for where in order:
        table = _where(runs, where).pivot_table(index=["day", "seed"], columns="scheduler",
                                                values=metric, aggfunc="first")
        if not set(names) <= set(table.columns) or table[names].dropna().empty:
            which = ", ".join(f"{k} {v}" for k, v in where.items())
            return Measured(None, f"no {experiment} runs for {which}", traces)
        complete = table[names].dropna().to_numpy()
        groups.append((complete[:, 0], complete[:, 1:]))
        labels.append(" ".join(str(v) for v in where.values()))
    lower = LOWER_IS_BETTER[metric]
    _, steps = unpaired_lead_steps(groups, lower)
    leads = tuple(paired_lead(ref, base, lower).interval for ref, base in groups)
    falls = tuple(Interval(-s.value, -s.high, -s.low, s.n) for s in steps)
    text = " > ".join(f"{_interval_text(v)} ({name})" for v, name in zip(leads, labels))
    text += "; falls " + ", ".join(f"{_interval_text(f)} (n = {f.n})" for f in falls)
    return Measured(Trend(leads, falls), text, traces)


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


def _top1_share(ev: Evidence, trace: str, metric: str,
                buckets: list[str] | None = None) -> Measured:
    """The share of (day, eta) pairs on which the reference ranks first on ``metric``, over
    every pair or over those in the rho ``buckets`` (Table 3's columns)."""
    p = ev.pairs
    p = p[(p["trace"] == trace) & (p["metric"] == metric) & p["defined"]]
    if buckets is not None:
        p = p[p["bucket"].isin(buckets)]
    if p.empty:
        return Measured(None, "no pair with a defined value"
                        + (f" in {', '.join(buckets)}" if buckets else ""), (trace,))
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
    sweep's runs at its largest c (``migrations.operator_shares``)."""
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
    """A case measure on every window of the case study (the paper's, the busiest, the most
    fragmented; ``case_study``), each window's value in the text. Only a window that shows
    the phenomenon, some fragmentation-induced blocking under the baselines, is judged
    (``Measured.windows``); a degenerate one is marked "not applicable" with its reason."""
    def on_windows(ev: Evidence, **args: Any) -> Measured:
        study, summary = ev.case
        texts, shown = [], []
        for win in study.windows:
            if isinstance(win, AbsentWindow):
                texts.append(f"{win.window} window absent ({win.reason})")
                continue
            mine = measure(ev, window=win.window, **args)
            rows = summary[(summary["window"] == win.window)
                           & summary["scheduler"].isin(ev.cfg.baselines)]
            if rows["frag_blocked_s"].sum() > 0:
                shown.append((win.window, mine))
                why = f" (not applicable: {mine.inapplicable})" if mine.inapplicable else ""
                texts.append(f"{win.window} window ({win.span}): {mine.text}{why}")
            else:
                texts.append(f"{win.window} window ({win.span}): not applicable, no "
                             f"fragmentation-induced blocking under the baselines "
                             f"({mine.text})")
        return Measured(shown[0][1].value if shown else None, "; ".join(texts),
                        (study.trace,), windows=tuple(shown))
    return on_windows


def _inapplicable(rows: pd.DataFrame, window: WindowName, needs: str | None) -> str:
    """Why a case claim has nothing to test in a window ("": it has): ``needs`` names a
    summary column (e.g. ``frag_episodes``) that is zero for every scheduler of the claim,
    so there is no event to judge."""
    if needs is not None and not (rows[needs].fillna(0) > 0).any():
        blocked = _case_values(rows, "blocked_s")
        return (f"no {needs.replace('_', ' ')} to judge in the {window} window (blocked s: "
                f"{blocked})")
    return ""


def _contrast(ev: Evidence, column: str, window: WindowName, contrast: Sequence[str] | None,
              pick: Callable[[pd.Series], float]) -> tuple[str, float] | None:
    """(who, value) of the ``contrast`` schedulers in a window, taken as the claim's own
    value is (``pick``: min or max), for ``Measured.contrast``."""
    if contrast is None:
        return None
    rows, _ = _case_rows(ev, contrast, window)
    v = rows[column].dropna()
    return (", ".join(rows["scheduler"]), pick(v)) if len(v) else None


def _case_min(ev: Evidence, column: str, schedulers: str | Sequence[str],
              window: WindowName, needs: str | None = None,
              contrast: Sequence[str] | None = None) -> Measured:
    rows, traces = _case_rows(ev, schedulers, window)
    v = rows[column].dropna()
    if v.empty:
        return Measured(None, "no scheduler of the claim ran the case study", traces)
    return Measured(float(v.min()), f"min {fmt(v.min())}: {_case_values(rows, column)}", traces,
                    inapplicable=_inapplicable(rows, window, needs),
                    contrast=_contrast(ev, column, window, contrast, lambda x: float(x.min())))


def _case_max(ev: Evidence, column: str, schedulers: str | Sequence[str],
              window: WindowName, needs: str | None = None,
              contrast: Sequence[str] | None = None) -> Measured:
    rows, traces = _case_rows(ev, schedulers, window)
    v = rows[column].dropna()
    if v.empty:
        return Measured(None, "no value (no such run, or no blocking)", traces,
                        inapplicable=_inapplicable(rows, window, needs) if len(rows) else "")
    return Measured(float(v.max()), fmt(v.max()) if len(rows) == 1
                    else f"max {fmt(v.max())}: {_case_values(rows, column)}", traces,
                    inapplicable=_inapplicable(rows, window, needs),
                    contrast=_contrast(ev, column, window, contrast, lambda x: float(x.max())))


def _case_band(ev: Evidence, column: str, schedulers: str | Sequence[str],
               window: WindowName) -> Measured:
    rows, traces = _case_rows(ev, schedulers, window)
    if rows.empty:
        return Measured(None, "no scheduler of the claim ran the case study", traces)
    lo, hi = float(rows[f"{column}_p10"].min()), float(rows[f"{column}_p90"].max())
    return Measured((lo, hi), f"{fmt(lo)}-{fmt(hi)} (p10-p90)", traces)


def _case_wide_blocked(ev: Evidence, window: WindowName, by: str = "count") -> Measured:
    """Under the baselines, the share of the distinct jobs that headed a waiting queue with
    g = 8 and w > 30 (``by: count``; a job blocked under several baselines counts once), or
    of the blocked time, pooled over the baselines (``by: time``); the other weighing is
    given beside it."""
    rows, traces = _case_rows(ev, "baselines", window)
    heads = ev.blocked_jobs
    heads = heads[(heads["window"] == window) & heads["scheduler"].isin(ev.cfg.baselines)]
    distinct = heads.drop_duplicates("job_id")
    n, seconds = len(distinct), rows["blocked_s"].sum()
    if not n:
        return Measured(None, "no blocked job under the baselines", traces)
    count = float(distinct["wide"].mean())
    time = float((rows["blocked_g8_w31_time_share"].fillna(0) * rows["blocked_s"]).sum()
                 / seconds)
    text = {"count": f"{fmt(count)} of {n} distinct blocked jobs",
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
    "leads_ordered": _leads_ordered,
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
}


def measure_function(kind: str) -> Callable[..., Measured]:
    """The function of a measure kind: the claims' own (``MEASURES``) or one a study
    registers (``registry.registered_measures``)."""
    return MEASURES[kind] if kind in MEASURES else registered_measures()[kind]
