"""What a figure shows on this run, in words, beside what the paper states (section 6).

Each notebook ends every figure with one of these stories, computed from the same frames the
figure draws, so that the text cannot drift from the numbers: "On this run: ...; the paper:
..." (the paper's side from ``paper_values``, paper/paper_values.yaml). A ``Story`` renders
as Markdown in Jupyter (``_repr_markdown_``), as plain text elsewhere.

* ``compare``: dot grids and sweeps (Figs. 1-4, Appendix D, openb): per metric, COMPASS-ABS's
  lead over the strongest baseline per group, how often it ranks first, its own range and
  the baselines' beside the paper's stated values;
* ``lead_story``: the leads figure: each lead with its 95 % interval, read as ahead, behind
  or not told apart;
* ``series_story``: Figs. 5-7: per window the range of COMPASS-ABS's and the baselines'
  values over time, and the share of time COMPASS-ABS keeps within a bound;
* ``top1_story``: Table 3: COMPASS-ABS's top-1 share over all (day, eta) pairs per trace.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER, TIE_TOLERANCE, leads
from compass.experiments.paper_values import LEAD, PaperValue

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("Story", "compare", "lead_story", "series_story", "top1_story")

#: How measures are named in the text.
NAMES = {"afr": "AFR", "ajct": "AJCT", "agu": "AGU", "sif": "SIF", "sif_gpu": "SIF (GPU)",
         "sif_panel": "SIF (panel)", "nsif": "N x SIF", "partial_nodes": "partial nodes",
         "allocated_share": "GPUs allocated", "pause_per_job": "pause per job",
         "migrations_per_job": "migrations per job", "gpu_util": "GPU utilisation",
         "empty_nodes": "empty nodes"}
#: The unit written after a value of each measure.
UNITS = {"ajct": " s", "pause_per_job": " s"}


@dataclass(frozen=True)
class Story:
    """A figure's reading: ``ours`` (this run) and ``paper`` (what the paper states), one
    line per metric or window."""

    title: str
    ours: list[str] = field(default_factory=list)
    paper: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        lines = [f"**{self.title}**", "", "On this run:", ""]
        lines += [f"- {line}" for line in self.ours or ["no data"]]
        lines += ["", "The paper:", ""]
        lines += [f"- {line}" for line in self.paper or ["states no value for this figure"]]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __str__(self) -> str:
        return self.markdown()


def number(value: float, metric: str = "") -> str:
    """A value in the text: four significant digits, thousands separated, with its unit."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    text = f"{round(value):,}" if abs(value) >= 1000 else f"{value + 0.0:.4g}"  # no "-0"
    return f"{text}{UNITS.get(metric, '')}"


def _span(values: pd.Series, metric: str) -> str:
    """The range of values in the text: "0.2-0.4", or one value where they are equal."""
    low, high = number(values.min(), metric), number(values.max(), metric)
    return low if low == high else f"{low}-{high}"


def _signed(value: float, metric: str) -> str:
    return ("+" if value > 0 else "") + number(value, metric)


def _group_name(key: object, names: Mapping[object, str]) -> str:
    return names.get(key, str(key))


def _paper_lines(paper: Sequence[PaperValue], metric: str,
                 name: Callable[[object], str]) -> list[str]:
    """The paper's statements about one metric: "lead >= 212 s (Venus)", with where."""
    out = []
    for where in dict.fromkeys(v.where for v in paper if v.metric == metric):
        values = [v for v in paper if v.metric == metric and v.where == where]
        parts = []
        for v in values:
            who = "COMPASS-ABS's lead" if v.who == LEAD else (
                "COMPASS-ABS" if v.who == "compass-abs" else v.who.upper()
                if v.who != "baselines" else "the baselines")
            scope = f" on {name(v.group)}" if v.group is not None else ""
            parts.append(f"{who} {v.text(unit=UNITS.get(metric, ''))}{scope}")
        out.append(f"{NAMES.get(metric, metric)}: {'; '.join(parts)} (section {where})")
    return out


def _within(values: Sequence[float], mark: PaperValue) -> str:
    """Whether all values lie inside the stated range: "inside" / "outside" / "partly"."""
    inside = [(math.isnan(mark.low) or v >= mark.low) and (math.isnan(mark.high)
                                                            or v <= mark.high) for v in values]
    return "inside" if all(inside) else ("outside" if not any(inside) else "partly inside")


def compare(means: pd.DataFrame, by: Sequence[str], reference: str,
            baselines: Sequence[str], paper: Sequence[PaperValue] = (),
            title: str = "", names: Mapping[object, str] | None = None,
            metrics: Sequence[str] | None = None, note: str = "") -> Story:
    """The reading of a dot grid or sweep: per metric, COMPASS-ABS's lead over the strongest
    baseline in each group (positive: COMPASS-ABS better), the groups where it ranks first
    (ties within ``aggregate.TIE_TOLERANCE`` count, as in ``aggregate.top1``), its range and
    the baselines' range against the paper's stated ranges.

    ``means``: long frame (``by``, scheduler, metric, value), as the figure draws it;
    ``note``: a line on the paper's side (e.g. why it states nothing here)."""
    names = dict(names or {})
    if means.empty:
        return Story(title or "What the figure shows", [], [note] if note else [])
    metrics = list(metrics or dict.fromkeys(means["metric"]))
    table = leads(means[means["metric"].isin(metrics)], reference, baselines, by,
                  lower_is_better=MEASURE_LOWER_IS_BETTER)

    def label(key: object) -> str:
        if isinstance(key, tuple):
            return ", ".join(_group_name(k, names) for k in key)
        return _group_name(key, names)

    own_name = "COMPASS-ABS" if reference == "compass-abs" else reference
    ours, told = [], []
    for metric in metrics:
        part = table[(table["metric"] == metric) & table["lead"].notna()]
        if part.empty:
            continue
        keys = [tuple(r) if len(by) > 1 else r[0] for r in part[list(by)].to_numpy()]
        slack = TIE_TOLERANCE * np.maximum(np.maximum(part["baseline_value"].abs(),
                                                      part["reference_value"].abs()), 1.0)
        first = int((part["lead"] >= -slack).sum())
        lead_text = ", ".join(
            f"{label(k)} {_signed(row.lead, metric)} (vs {row.strongest_baseline})"
            for k, row in zip(keys, part.itertuples()))
        line = (f"{NAMES.get(metric, metric)}: {own_name} first on {first} of {len(part)}; "
                f"its lead over the strongest baseline: {lead_text}")
        rows = means[means["metric"] == metric]
        own = rows.loc[rows["scheduler"] == reference, "value"].dropna()
        theirs = rows.loc[rows["scheduler"].isin(baselines), "value"].dropna()
        for mark in (m for m in paper if m.metric == metric and m.who != LEAD):
            values = own if mark.who == "compass-abs" else (
                theirs if mark.who == "baselines" else
                rows.loc[rows["scheduler"] == mark.who, "value"].dropna())
            if len(values):
                who = {"compass-abs": own_name, "baselines": "the baselines"}.get(
                    mark.who, mark.who)
                line += (f"; {who} {_span(values, metric)}, {_within(list(values), mark)} "
                         f"the paper's {mark.text(unit=UNITS.get(metric, ''))}")
        ours.append(line)
        told += _paper_lines(paper, metric, label)
    return Story(title or "What the figure shows", ours, told + ([note] if note else []))


def lead_story(table: pd.DataFrame, by: str, paper: Sequence[PaperValue] = (),
               title: str = "", names: Mapping[object, str] | None = None) -> Story:
    """The reading of the leads figure: per metric and group, the lead with its 95 %
    interval and n, read as ahead (interval above 0), behind (below 0) or not told apart,
    beside the paper's stated lead. ``table``: ``aggregate.lead_intervals``' frame."""
    names = dict(names or {})
    ours, told = [], []
    for metric in dict.fromkeys(table["metric"]):
        parts = []
        for row in table[table["metric"] == metric].itertuples():
            group = _group_name(getattr(row, by), names)
            if pd.isna(row.lead):
                parts.append(f"{group} no data")
                continue
            low, high = row.ci_low, row.ci_high
            reading = ("ahead" if low > 0 else "behind" if high < 0 else "not told apart") \
                if pd.notna(low) else "one sample, no interval"
            parts.append(f"{group} {_signed(row.lead, metric)} [{number(low, metric)}, "
                         f"{number(high, metric)}], n = {int(row.n)} vs "
                         f"{row.strongest_baseline}: {reading}")
        counts = {r: sum(p.endswith(r) for p in parts) for r in ("ahead", "behind")}
        ours.append(f"{NAMES.get(metric, metric)}: ahead on {counts['ahead']}, behind on "
                    f"{counts['behind']} of {len(parts)}: " + "; ".join(parts))
        told += _paper_lines([v for v in paper if v.who == LEAD], metric,
                             lambda k: _group_name(k, names))
    return Story(title or "The leads on this run", ours, told)


def _range(frame: pd.DataFrame, y: str) -> str:
    values = frame[y].dropna()
    return _span(values, y) if len(values) else "n/a"


def series_story(timelines: pd.DataFrame, y: str, reference: str,
                 baselines: Sequence[str], paper: Sequence[PaperValue] = (),
                 bound: float | None = None, title: str = "") -> Story:
    """The reading of a time series (Figs. 5-7): per window, the range over time of
    COMPASS-ABS's value and of the baselines', each scheduler the paper names apart, and
    the share of the window's time COMPASS-ABS stays within ``bound`` (time-weighted over
    the step function)."""
    ours = []
    named = {m.who for m in paper if m.metric == y and m.who not in (
        "compass-abs", "baselines", LEAD)}
    windows = list(dict.fromkeys(timelines["window"])) if "window" in timelines else [None]
    if timelines.empty:
        windows = []
    for window in windows:
        rows = timelines if window is None else timelines[timelines["window"] == window]
        mine = rows[rows["scheduler"] == reference].sort_values("hour")
        line = (f"{window} window: " if window is not None else "") + (
            f"COMPASS-ABS {_range(mine, y)}, the baselines "
            f"{_range(rows[rows['scheduler'].isin(baselines)], y)}")
        for name in sorted(named):
            line += f", {name.upper()} {_range(rows[rows['scheduler'] == name], y)}"
        if bound is not None and len(mine) > 1:
            span = np.diff(mine["hour"].to_numpy())
            held = float(span[mine[y].to_numpy()[:-1] <= bound].sum() / span.sum()) \
                if span.sum() > 0 else math.nan
            line += f"; COMPASS-ABS within {bound:g} for {held:.0%} of the time"
        ours.append(line)
    told = []
    for mark in (m for m in paper if m.metric == y):
        who = {"compass-abs": "COMPASS-ABS", "baselines": "the baselines"}.get(
            mark.who, mark.who.upper())
        scope = f" ({mark.group} window)" if mark.group is not None else ""
        told.append(f"{NAMES.get(y, y)}: {who} {mark.text()}{scope} (section {mark.where})")
    return Story(title or f"{NAMES.get(y, y)} over the window", ours, told)


def top1_story(table: pd.DataFrame, paper: Sequence[PaperValue] = (),
               title: str = "") -> Story:
    """The reading of Table 3: per trace, COMPASS-ABS's top-1 share over all its (day, eta)
    pairs per metric, and the bucket holding most pairs, beside the paper's shares."""
    ours = []
    for trace, part in table.groupby("trace", sort=False):
        total = part[part["bucket"] == "Total"]
        buckets = part[part["bucket"] != "Total"]
        if total.empty:
            continue
        row = total.iloc[0]
        shares = ", ".join(f"{m.upper()} {row[f'{m} top-1 share']:.0%}"
                           for m in ("afr", "ajct", "agu"))
        line = f"{trace}: top-1 over {int(row['pairs'])} pairs: {shares}"
        if len(buckets):
            most = buckets.loc[buckets["pairs"].idxmax()]
            line += f"; most pairs in the rho bucket {most['bucket']} ({int(most['pairs'])})"
        ours.append(line)
    told = []
    for group in dict.fromkeys(v.group for v in paper):
        mine = [v for v in paper if v.group == group]
        shares = ", ".join(f"{NAMES.get(v.metric, v.metric)} {v.text(scale=100, unit=' %')}"
                           for v in mine)
        told.append(f"{group}: COMPASS-ABS top-1 on {shares} (section {mine[0].where})")
    return Story(title or "Top-1 frequency", ours, told)
