"""The one figure style of the reproduction (paper section 6, Figs. 1-7).

Schedulers always appear in the same order and colour (COMPASS-ABS first, in vermillion,
drawn thicker and on top; the six baselines in the order of section 5.4; the SIFOpt oracle
grey and dashed; our extension COMPASS-ABS+, where a figure shows it, last, in purple,
dash-dotted with diamonds, and labelled as our extension). Axes carry units. Every
figure's title names its data (SYNTHETIC or real) so a figure cannot be mistaken for the
paper's. ``save`` writes PNG and PDF.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import matplotlib.ticker as ticker
import pandas as pd
import seaborn as sns
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER
from compass.experiments.config import EXTENSION_SCHEDULERS, PAPER_SCHEDULERS
from compass.experiments.paper_values import LEAD, PaperValue
from compass.schedulers import SchedulerCard, available, cards

#: The reference scheduler, highlighted everywhere.
REFERENCE = "compass-abs"
#: Colours of the schedulers whose card has none.
_SPARE_COLORS = ("#fbafe4", "#ece133", "#17becf")
#: Axis labels with units.
LABELS = {
    "afr": "AFR (share of nodes; lower is better)", "ajct": "AJCT (s; lower is better)",
    "agu": "AGU (share of GPUs; higher is better)",
    "pause_per_job": "migration pause per job (s; lower is better)",
    "migrations_per_job": "migrations per job (count; lower is better)",
    "nsif": "N x SIF (avoidable partial nodes; lower is better)",
    "gpu_util": "GPU utilisation (share of GPUs; higher is better)",
    "empty_nodes": "empty nodes (count; higher is better)",
    "eta": "\u03b7 (sizing percentile, eq. 13)",
    "cost": "migration cost c (s)", "hour": "time of day (h)",
    "allocated_share": "GPUs allocated (share; higher is better)",
    "partial_nodes": "partial nodes (count; lower is better)",
    "sif": "SIF (share of nodes; lower is better)",
    "sif_gpu": "SIF at GPU level (share of nodes; lower is better)",
    "sif_panel": "SIF at panel level (share of domains; lower is better)",
    "multi_gpu_share": "multi-GPU pods' share of the GPUs",
}
#: The six practical baselines of section 5.4 (the paper's schedulers but ours and the oracle).
BASELINES = tuple(s for s in PAPER_SCHEDULERS if s not in ("compass-abs", "sifopt"))
#: The label of every mark that draws a value the paper's text states.
PAPER = "paper"
TRACES = {"venus": "Venus", "gfs": "GFS", "physmix": "Phys-Mix"}


def apply_style() -> None:
    """Seaborn's paper context on a white grid; called by every plotting function."""
    sns.set_theme(context="paper", style="whitegrid", font_scale=1.05)


def _cards() -> dict[str, SchedulerCard]:
    """The registered schedulers' cards by name, in the figures' order (COMPASS-ABS, the six
    baselines of section 5.4, the oracle, our extension, then the variants); read at each
    call, so that a plugin registered after this module was imported has its place, colour
    (seaborn's colour-blind palette for ours) and name. The installed plugins and those of
    ``COMPASS_PLUGINS`` are loaded first (``available``), so that a pipeline job's figures
    draw an outside scheduler's card, not a spare colour and its bare name."""
    available()
    return {card.name: card for card in cards()}


def order(names: Iterable[str]) -> list[str]:
    """Schedulers in the fixed order; unknown names follow, sorted."""
    names, known = set(names), list(_cards())
    return [s for s in known if s in names] + sorted(names - set(known))


def color(name: str) -> str:
    """The scheduler's fixed colour (its card's), or a spare one fixed by its name."""
    card = _cards().get(name)
    if card is not None and card.color:
        return card.color
    return _SPARE_COLORS[sum(map(ord, name)) % len(_SPARE_COLORS)]


def display(name: str) -> str:
    """The scheduler's name in figures (its card's), or ``name`` itself."""
    card = _cards().get(name)
    return card.display if card is not None else name


def _marker(name: str) -> str:
    """Our extension's schedulers are diamonds, the paper's dots."""
    return "D" if name in EXTENSION_SCHEDULERS else "o"


def _line_style(name: str) -> dict[str, object]:
    if name == REFERENCE:
        return {"color": color(name), "lw": 2.6, "zorder": 5, "marker": "o", "ms": 5}
    if name in EXTENSION_SCHEDULERS:
        return {"color": color(name), "lw": 1.8, "ls": "-.", "zorder": 4, "marker": "D",
                "ms": 4}
    dashed = "--" if name == "sifopt" else "-"
    return {"color": color(name), "lw": 1.3, "ls": dashed, "zorder": 3, "marker": ".", "ms": 4}


def _title(fig: plt.Figure, title: str, data: str) -> None:
    """The title and the data label, wrapped to the figure's width (about 12 characters
    of the 10-point title per inch), so that a wide figure's title stays short."""
    width = max(80, int(fig.get_figwidth() * 12))
    fig.suptitle(f"{title}\n" + textwrap.fill(data, width), fontsize=10)


def _cover(ax, values: Iterable[float]) -> None:
    """Widen ``ax``'s x limits to hold every one of ``values`` (interval ends) with a
    margin: no interval is cut at the panel's edge."""
    values = [v for v in values if pd.notna(v)]
    if not values:
        return
    low, high = ax.get_xlim()
    pad = 0.05 * (max(high, *values) - min(low, *values))
    if ax.get_xscale() == "symlog":  # a margin of a twentieth of each end's magnitude
        pad = 0.0
        low, high = min(low, min(values) * 1.05), max(high, max(values) * 1.05)
    ax.set_xlim(min(low, min(values) - pad), max(high, max(values) + pad))


def _metric_panels(
    means: pd.DataFrame, col: str, metrics: Sequence[str], size: tuple[float, float, float, float]
) -> tuple[plt.Figure, list[tuple]]:
    """A grid with one row per metric and one column per value of ``col``.

    Returns the figure and, per panel, ``(ax, row, column, metric, group, rows of means)``;
    ``size`` = (width per column, extra width, height per row, extra height) in inches.
    """
    apply_style()
    groups = list(dict.fromkeys(means[col]))
    w, w0, h, h0 = size
    fig, axes = plt.subplots(len(metrics), len(groups), squeeze=False,
                             figsize=(w * len(groups) + w0, h * len(metrics) + h0))
    panels = [(axes[r][c], r, c, metric, group,
               means[(means[col] == group) & (means["metric"] == metric)])
              for r, metric in enumerate(metrics) for c, group in enumerate(groups)]
    return fig, panels


def _compact_ticks(axis) -> None:
    """At most five ticks, large values as 204k or 1.44M: tick labels never run together."""
    axis.set_major_locator(ticker.MaxNLocator(nbins=4))
    low, high = axis.get_view_interval()
    if max(abs(low), abs(high)) >= 10_000:
        axis.set_major_formatter(ticker.EngFormatter(sep=""))


#: A panel's values spread over more than this factor get a log axis (``_spread``).
LOG_SPREAD = 20.0


def _spread(values: Sequence[float]) -> bool:
    """Whether positive ``values`` span more than ``LOG_SPREAD`` (max / min)."""
    return bool(values) and min(values) > 0 and max(values) / min(values) > LOG_SPREAD


def _short(value: float) -> str:
    """A value for a note on the figure: 197k, 0.0231, 4.28k."""
    return ticker.EngFormatter(sep="", places=1)(value) if abs(value) >= 10_000 \
        else f"{value:.3g}"


def _padded(values: Iterable[float]) -> tuple[float, float] | None:
    """The range of the finite values with a margin of 8 % (of the value where they are
    all equal); None when there is none."""
    finite = [float(v) for v in values if pd.notna(v) and math.isfinite(float(v))]
    if not finite:
        return None
    low, high = min(finite), max(finite)
    pad = 0.08 * (high - low) or 0.05 * abs(high) or 0.01
    return low - pad, high + pad


def _fit_paper(ax, values: Mapping[str, Iterable[float]], extra: Iterable[float],
               axis: str) -> tuple[float, float] | None:
    """Set the value axis to the range of the paper's schedulers (and of ``extra``: the
    paper's stated values), so that our extension's far values never squash them; the
    extension's values join the range when that at most doubles it. ``values``: per
    scheduler, its values in the panel. Returns the limits set."""
    paper = [v for name, vs in values.items() if name not in EXTENSION_SCHEDULERS
             for v in vs] + list(extra)
    limits = _padded(paper)
    ours = _padded(paper + [v for name, vs in values.items() if name in EXTENSION_SCHEDULERS
                            for v in vs])
    if limits is not None and ours is not None and (
            ours[1] - ours[0] <= 2 * (limits[1] - limits[0])):
        limits = ours
    if limits is not None:
        (ax.set_xlim if axis == "x" else ax.set_ylim)(*limits)
    return limits


def _off_scale(limits: tuple[float, float] | None, value: float) -> int:
    """-1 below the limits, +1 above, 0 inside (or no limits)."""
    if limits is None or pd.isna(value):
        return 0
    return -1 if value < limits[0] else (1 if value > limits[1] else 0)


def _mark_off_scale(ax, note: str, colour: str, side: int, limits: tuple[float, float],
                    at: float, axis: str, slot: int = 0, size: float = 7) -> None:
    """A value beyond the axis (our extension's, or a value the paper states that no
    measure can take): an arrow at the edge in ``colour`` with ``note`` (its value, "off
    scale") written beside it in ``size`` points, the axis not stretched for it; ``slot``
    stacks the notes of several lines that leave at the same edge."""
    edge = limits[0] if side < 0 else limits[1]
    box = {"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5}
    if axis == "x":
        ax.scatter(edge, at, marker="<" if side < 0 else ">", color=colour, s=45,
                   clip_on=False, zorder=6)
        ax.annotate(note, (edge, at), textcoords="offset points",
                    xytext=(8 if side < 0 else -8, 0), ha="left" if side < 0 else "right",
                    va="center", fontsize=size, color=colour, zorder=8, bbox=box)
    else:
        ax.scatter(at, edge, marker="v" if side < 0 else "^", color=colour, s=45,
                   clip_on=False, zorder=6)
        shift = 6 + 9 * slot
        ax.annotate(note, (at, edge), textcoords="offset points",
                    xytext=(-4, shift if side < 0 else -shift), ha="right",
                    va="bottom" if side < 0 else "top", fontsize=size, color=colour, zorder=8,
                    bbox=box)


def _paper_span(mark: PaperValue, metric: str, best_baseline: float) -> tuple[float, float]:
    """The stated value as (low, high) on the metric's axis (NaN: open side); a lead is
    placed where COMPASS-ABS would sit with it, counted from our strongest baseline."""
    if mark.who != LEAD:
        return mark.low, mark.high
    if MEASURE_LOWER_IS_BETTER.get(metric, True):
        return best_baseline - mark.high, best_baseline - mark.low
    return best_baseline + mark.low, best_baseline + mark.high


def _draw_paper(ax, span: tuple[float, float], rows: tuple[float, float], text: str,
                axis: str = "x", below: bool = False) -> None:
    """One stated value of the paper, in black: a star (a value), a hatched box (a range)
    or a bar at the bound with its side written ("paper >= 0.957"), over ``rows``; the
    words above the rows' start (``below``: under their end)."""
    low, high = span
    y0, y1 = rows
    mid = (y0 + y1) / 2
    swap = (lambda a, b: (a, b)) if axis == "x" else (lambda a, b: (b, a))
    if pd.notna(low) and pd.notna(high) and low == high:
        ax.scatter(*swap(low, mid), marker="*", s=90, facecolor="white", edgecolor="black",
                   zorder=7, label=PAPER)
        at = low
    elif pd.notna(low) and pd.notna(high):
        box = (ax.fill_betweenx if axis == "x" else ax.fill_between)
        box([y0, y1], low, high, facecolor="none", edgecolor="0.35", hatch="////", lw=0.6,
            zorder=2, label=PAPER)
        at = (low + high) / 2
    else:
        at = low if pd.notna(low) else high
        (ax.vlines if axis == "x" else ax.hlines)(at, y0, y1, color="black", lw=2.2,
                                                  zorder=7, label=PAPER)
    ax.annotate(f"paper {text}", swap(at, y1 if below else y0), textcoords="offset points",
                xytext=(0, -2 if below else 2) if axis == "x" else (3, 2), fontsize=6,
                ha="center" if axis == "x" else "left", va="top" if below else "bottom",
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5},
                zorder=8)


def _scheduler_handles(ax) -> tuple[list, list[str]]:
    """The axes' legend entries but the paper's marks (``_paper_handles`` names those)."""
    pairs = [(h, lab) for h, lab in zip(*ax.get_legend_handles_labels()) if lab != PAPER]
    return [h for h, _ in pairs], [lab for _, lab in pairs]


def _paper_handles(fig: plt.Figure) -> list:
    """One legend entry per kind of paper mark the figure draws (its values from the text)."""
    drawn = [a for ax in fig.axes for a in ax.collections if a.get_label() == PAPER]
    handles = []
    if any(isinstance(a, PathCollection) for a in drawn):
        handles.append(Line2D([], [], marker="*", ls="", mfc="white", mec="black", ms=10,
                              label="paper: stated value"))
    if any(isinstance(a, PolyCollection) for a in drawn):
        handles.append(Patch(facecolor="none", edgecolor="black", hatch="////",
                             label="paper: stated range"))
    if any(isinstance(a, LineCollection) for a in drawn):
        handles.append(Line2D([], [], color="black", lw=2.2, label="paper: stated bound"))
    return handles


def _paper_legend(fig: plt.Figure, anchor_y: float = 0.0) -> None:
    """The legend of the paper's marks, centred under the panels (none without marks)."""
    handles = _paper_handles(fig)
    if not handles:
        return
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, anchor_y),
               ncol=len(handles), frameon=False, fontsize=8)


def _trivial(mark: PaperValue) -> bool:
    """A lead "at least 0" ("COMPASS-ABS is best"): the strongest baseline, or the zero line
    of a leads figure, already marks it."""
    return mark.who == LEAD and mark.low == 0 and pd.isna(mark.high)


def _possible(mark: PaperValue, span: tuple[float, float]) -> bool:
    """Whether a stated value is one its measure can take: a lead placed from our
    strongest baseline can put a share (AFR, AGU) outside [0, 1] or AJCT below 0 (Phys-Mix's
    AGU lead of 16 points over a baseline at 0.97); such a value is off any sensible axis."""
    if mark.who != LEAD:
        return True
    low, high = (0.0, 1.0) if mark.metric in ("afr", "agu") else (0.0, math.inf)
    return all(pd.isna(v) or low <= v <= high for v in span)


def _rows_of(who: str, names: Sequence[str]) -> tuple[float, float] | None:
    """The dot grid's rows a stated value concerns (row i spans i - 0.4 .. i + 0.4)."""
    if who in (LEAD, REFERENCE):
        who = REFERENCE
    if who == "baselines":
        rows = [i for i, n in enumerate(names) if n in BASELINES]
    else:
        rows = [i for i, n in enumerate(names) if n == who]
    return (min(rows) - 0.4, max(rows) + 0.4) if rows else None


def _hold(limits: tuple[float, float], dots: Iterable[tuple[float, float, float]]
          ) -> tuple[float, float]:
    """``limits`` widened until they hold the interval of every dot they hold (``dots``:
    value, low, high), with a margin of 5 % of the span: a drawn interval is never cut at
    the edge, and a dot beyond the limits stays beyond them (it becomes an arrow)."""
    dots = list(dots)
    low, high = limits
    while True:
        ends = [e for v, *span in dots if low <= v <= high for e in span
                if pd.notna(e) and not low <= e <= high]
        if not ends:
            return low, high
        pad = 0.05 * (max(high, *ends) - min(low, *ends))
        low, high = min(low, min(ends) - pad), max(high, max(ends) + pad)


#: The style of a proven bound's reference line (Theorems 1 and 2).
BOUND_STYLE = {"color": "black", "ls": ":", "lw": 1.2}


def _draw_bound(ax, value: float, text: str) -> None:
    """A bound on a dot grid's panel: a dotted vertical line across it, ``text`` at its top
    (on the side of the panel's centre, so that it stays inside the panel)."""
    ax.axvline(value, zorder=1.5, **BOUND_STYLE)
    low, high = ax.get_xlim()
    left = value > (low + high) / 2
    ax.annotate(text, (value, 1.0), xycoords=ax.get_xaxis_transform(),
                textcoords="offset points", xytext=(-3 if left else 3, -3),
                ha="right" if left else "left", va="top", fontsize=6, zorder=8,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5})


def _dots(levels: Sequence[pd.DataFrame], bases: Sequence[pd.Series], names: Sequence[str],
          relative: bool, percent: bool, intervals: bool
          ) -> tuple[dict[str, list[float]], dict[str, list[tuple[float, float]]]]:
    """A dot grid panel's values per scheduler (one per stage) and beside each its interval
    (NaN ends where there is none)."""
    points: dict[str, list[float]] = {}
    spans: dict[str, list[tuple[float, float]]] = {}
    for rows, base in zip(levels, bases):
        first = rows.groupby("scheduler", sort=False).first()
        values = first["value"]
        if relative and len(base):
            base = base.iloc[0]
            values = (values - base) / abs(base) * 100 if percent else values - base
        for name in names:
            if name in values and pd.notna(values[name]):
                points.setdefault(name, []).append(float(values[name]))
                spans.setdefault(name, []).append(
                    (float(first.loc[name, "ci_low"]), float(first.loc[name, "ci_high"]))
                    if intervals else (math.nan, math.nan))
    return points, spans


def _samples_text(rows: pd.DataFrame) -> str:
    """" (n = 5)" or " (n = 4-5)": the samples behind a column's means ("" without any)."""
    counts = rows.loc[rows["value"].notna(), "samples"]
    if counts.empty:
        return ""
    low, high = int(counts.min()), int(counts.max())
    return f" (n = {low})" if low == high else f" (n = {low}-{high})"


def dot_grid(means: pd.DataFrame, col: str, title: str, data: str,
             metrics: Sequence[str] = ("afr", "ajct", "agu"),
             col_label: dict[object, str] | None = None,
             paper: Sequence[PaperValue] = (), relative: bool = False,
             stage: str | None = None,
             bounds: Mapping[tuple[object, str], tuple[float, str]] | None = None,
             note: str = "") -> plt.Figure:
    """Rows: metrics; columns: values of ``col``; in each panel one dot per scheduler.

    Dots instead of bars: schedulers often differ by a fraction of a percent, and a dot's
    axis need not start at zero. Each scheduler has its own row, so none hides another.
    Where ``means`` has ci_low and ci_high (``aggregate.metric_means(intervals=True)``),
    each dot carries its 95 % interval over the samples as a bar in its colour and the
    column's title the number of samples (not on a ``relative`` grid: a difference of two
    means has no interval from theirs). The axis spans the paper's schedulers with their
    intervals and the paper's stated values (``paper``, drawn in black and labelled
    "paper"); our extension's values beyond it, and a stated value no measure can take (a
    lead that puts a share above 1), are arrows at the edge with their value written beside.
    ``relative``: each value as its difference from COMPASS-ABS's, in % of COMPASS-ABS's
    value (absolute where that is 0), for measures whose absolute range would exaggerate
    a 0.1 % gap. ``stage``: a column of two values drawn filled and hollow in each row.
    ``bounds``: per (value of ``col``, metric), a proven bound as (value, words): a dotted
    black line across the panel, on its axis. ``note``: a line under the panels.
    """
    names = order(means["scheduler"])
    stages = list(dict.fromkeys(means[stage])) if stage else [None]
    intervals = not relative and {"ci_low", "ci_high"} <= set(means.columns)
    fig, panels = _metric_panels(means, col, metrics, (3.2, 1.8, 2.3, 1.1))
    for ax, r, c, metric, group, part in panels:
        label = LABELS.get(metric, metric)
        levels = [part if level is None else part[part[stage] == level] for level in stages]
        bases = [rows.loc[rows["scheduler"] == REFERENCE, "value"] for rows in levels]
        percent = all(len(b) and b.iloc[0] != 0 for b in bases)  # else absolute differences
        if relative:
            label = (f"{label.split(' (')[0]} minus {display(REFERENCE)}'s\n"
                     + ("(% of its value)" if percent else "(absolute difference)"))
        points, spans = _dots(levels, bases, names, relative, percent, intervals)
        baseline_values = [v for n in BASELINES for v in points.get(n, [])]
        best = (min if MEASURE_LOWER_IS_BETTER.get(metric, True) else max)(baseline_values) \
            if baseline_values else math.nan
        marks = [(m, _paper_span(m, metric, best), _rows_of(m.who, names)) for m in paper
                 if m.metric == metric and m.applies_to(group) and not _trivial(m)]
        marks = [(m, s, rows) for m, s, rows in marks if rows is not None]
        bound = (bounds or {}).get((group, metric))
        reach = {n: [*vs, *(e for span in spans[n] for e in span)] for n, vs in points.items()}
        limits = _fit_paper(ax, reach, [v for m, s, _ in marks if _possible(m, s) for v in s]
                            + ([bound[0]] if bound else []), "x")
        if limits is not None:
            limits = _hold(limits, [(v, *span) for n in points
                                    for v, span in zip(points[n], spans[n])])
            ax.set_xlim(*limits)
        if not points:  # e.g. SIF at panel level on one-panel domains: not an empty plot
            ax.text(0.5, 0.5, "no value: not defined here", transform=ax.transAxes,
                    ha="center", va="center", fontsize=8, color="0.3")
        for y, name in enumerate(names):
            for k, (value, (low, high)) in enumerate(zip(points.get(name, []),
                                                         spans.get(name, []))):
                at = y + (0.18 * (2 * k - 1) if len(stages) > 1 else 0)
                side = _off_scale(limits, value)
                if side and name in EXTENSION_SCHEDULERS:
                    _mark_off_scale(ax, f"{_short(value)} (off scale)", color(name), side,
                                    limits, at, "x")
                    continue
                big = name == REFERENCE
                if pd.notna(low) and pd.notna(high):
                    ax.errorbar(value, at, xerr=[[value - low], [high - value]], fmt="none",
                                ecolor=color(name), elinewidth=1.6 if big else 1.0,
                                capsize=2.5, zorder=4 if big else 2)
                ax.scatter(value, at, s=70 if big else 30, marker=_marker(name),
                           facecolor=color(name) if k == 0 else "white",
                           edgecolor="black" if big else color(name), zorder=5 if big else 3)
        for mark, span, rows in marks:
            text = _lead_text(mark, metric) if mark.who == LEAD else mark.text(
                unit=" s" if metric == "ajct" else "")
            ends = [v for v in span if pd.notna(v)]
            nearest = min(ends, key=lambda v: abs(v - sum(limits) / 2)) if limits else math.nan
            side = _off_scale(limits, nearest) if not _possible(mark, span) else 0
            if side:  # "paper lead >= 16 pts: AGU >= 1.135 (off scale)"
                where = replace(mark, low=span[0], high=span[1]).text()
                _mark_off_scale(ax, f"paper {text}: {metric.upper()} {where} (off scale)",
                                "black", side, limits, rows[0] - 0.2, "x", size=6)
            else:
                _draw_paper(ax, span, rows, text, "x")
        if bound:
            _draw_bound(ax, *bound)
        ax.set_yticks(range(len(names)), [display(n) for n in names])
        ax.set_ylim(len(names) - 0.4, -0.8)
        for tick in ax.get_yticklabels():
            tick.set_fontweight("bold" if tick.get_text() == display(REFERENCE) else "normal")
        drawn = [v for n in names if n not in EXTENSION_SCHEDULERS for v in points.get(n, [])]
        if metric == "ajct" and not relative and _spread(drawn):
            # one stalled baseline (openb: MCG at 2 M s) would squash the others into a dot
            held = [v for n in names if n not in EXTENSION_SCHEDULERS
                    for v in reach.get(n, []) if pd.notna(v)]  # the dots and their bars
            ax.set_xscale("log")
            ax.set_xlim(min(held) / 1.4, max(held) * 1.4)
            label = label.replace("(s;", "(s, log axis;")
        ax.set_xlabel(textwrap.fill(label, 30) if "\n" not in label else label)
        if not points:  # an axis without a value carries no scale either
            ax.set_xticks([])
        elif ax.get_xscale() != "log":
            _compact_ticks(ax.xaxis)
        if c:
            ax.set_yticklabels([])
        if r == 0:
            heading = (col_label or {}).get(group, TRACES.get(str(group), str(group)))
            if intervals and "samples" in means.columns:
                heading += _samples_text(means[(means[col] == group)
                                               & means["metric"].isin(metrics)])
            ax.set_title(heading)
    _title(fig, title, data)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    _paper_legend(fig, 0.03)
    notes = [f"filled: {stages[0]}; hollow: {stages[1]}" if len(stages) > 1
             else str(stages[0])] if stage else []
    if intervals:
        notes.append("bars: 95 % percentile-bootstrap interval of each mean over its samples "
                     "(n in the column's title); unpaired, so bars that overlap are no tie: "
                     "the claims judge the paired differences over the same samples")
    notes += [note] if note else []
    if notes:
        fig.text(0.5, 0.0, textwrap.fill("; ".join(notes), max(80, int(fig.get_figwidth() * 14))),
                 ha="center", va="top", fontsize=8)
    return fig


#: How the lead panel shows each metric's lead: factor, unit, linear range of a symlog axis.
LEAD_UNITS = {"afr": (100.0, "points of the node share", None),
              "agu": (100.0, "points of the GPU share", None),
              "ajct": (1.0, "s", 100.0)}


def _lead_text(mark: PaperValue, metric: str) -> str:
    """A stated lead as the figures write it: AJCT in seconds, AFR and AGU in points of
    their share (as the paper states them: "0.7 pts", never "0.007")."""
    scale = LEAD_UNITS.get(metric, (1.0, "", None))[0]
    return "lead " + mark.text(scale, " s" if metric == "ajct" else " pts")


def lead_panels(leads: pd.DataFrame, col: str, title: str, data: str,
                metrics: Sequence[str] = ("afr", "ajct", "agu"),
                paper: Sequence[PaperValue] = ()) -> plt.Figure:
    """One panel per metric: COMPASS-ABS's lead over the strongest baseline as an absolute
    difference (AFR and AGU in points of their share, AJCT in seconds on an axis linear
    within +-100 s and logarithmic beyond), one row per value of ``col``, with its 95 %
    interval over the samples (``aggregate.lead_intervals``) and the paper's stated lead
    (``paper``, a black star or bar). Absolute, because a lead over a baseline of 0 (AFR)
    has no relative size, and the paper states its leads so. Right of zero: COMPASS-ABS is
    better."""
    apply_style()
    groups = list(dict.fromkeys(leads[col]))
    fig, axes = plt.subplots(1, len(metrics), squeeze=False,
                             figsize=(3.6 * len(metrics) + 0.6, 0.7 * len(groups) + 1.8))
    for ax, metric in zip(axes[0], metrics):
        scale, unit, linear = LEAD_UNITS.get(metric, (1.0, "", None))
        part = leads[leads["metric"] == metric].set_index(col)
        ends = [v * scale for v in (*part["ci_low"], *part["ci_high"], *part["lead"])]
        for y, group in enumerate(groups):
            if group not in part.index or pd.isna(part.loc[group, "lead"]):
                continue
            row = part.loc[group]
            mid = row["lead"] * scale
            if pd.notna(row["ci_low"]):
                ax.errorbar(mid, y, xerr=[[mid - row["ci_low"] * scale],
                                          [row["ci_high"] * scale - mid]],
                            fmt="o", color=color(REFERENCE), capsize=3, zorder=5)
            else:
                ax.scatter(mid, y, color=color(REFERENCE), marker="o", facecolors="none")
            relative = (f", {row['lead'] / abs(row['baseline_mean']) * 100:+.2g} %"
                        if row["baseline_mean"] else "")
            ax.text(0.5, y - 0.32, f"vs {display(row['strongest_baseline'])}, "
                    f"n = {int(row['n'])}{relative}", transform=ax.get_yaxis_transform(),
                    ha="center", va="bottom", fontsize=7, zorder=9,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6})
        for mark in paper:
            if mark.metric != metric or mark.who != LEAD or _trivial(mark):
                continue
            for y, group in enumerate(groups):
                if mark.applies_to(group):
                    _draw_paper(ax, (mark.low * scale, mark.high * scale),
                                (y - 0.2, y + 0.2), _lead_text(mark, metric), "x", below=True)
        ax.axvline(0, color="black", lw=0.8, zorder=1)
        if linear:
            ax.set_xscale("symlog", linthresh=linear)
            unit = f"{unit}; linear within \u00b1{linear:g}, logarithmic beyond"
        _cover(ax, ends)
        ax.set_yticks(range(len(groups)), [TRACES.get(str(g), str(g)) for g in groups])
        ax.set_ylim(len(groups) - 0.5, -0.7)
        ax.set_xlabel(f"{metric.upper()} lead ({unit})\nright: COMPASS-ABS better")
    for ax in axes[0][1:]:
        ax.set_yticklabels([])
    _title(fig, title, data)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    _paper_legend(fig, 0.06)
    return fig


def line_grid(means: pd.DataFrame, x: str, col: str, title: str, data: str,
              metrics: Sequence[str] = ("afr", "ajct", "agu"),
              paper: Sequence[PaperValue] = ()) -> plt.Figure:
    """Rows: metrics; columns: values of ``col``; one line per scheduler over ``x``. The
    value axis spans the paper's schedulers and the paper's stated values and ranges
    (``paper``, drawn across the panel in black, labelled "paper"): our extension's line
    beyond it ends in an arrow at the edge with its last value written beside it."""
    names = order(means["scheduler"])
    fig, panels = _metric_panels(means, col, metrics, (4.2, 0.6, 2.4, 1.2))
    for ax, r, c, metric, group, part in panels:
        lines = {name: part[part["scheduler"] == name].sort_values(x) for name in names}
        for name, line in lines.items():
            ax.plot(line[x], line["value"], label=display(name), **_line_style(name))
        marks = [m for m in paper if m.metric == metric and m.who != LEAD
                 and m.applies_to(group)]
        limits = _fit_paper(ax, {n: line["value"] for n, line in lines.items()},
                            [v for m in marks for v in (m.low, m.high)], "y")
        span = (part[x].min(), part[x].max())
        for mark in marks:
            who = {"baselines": "baselines", REFERENCE: display(REFERENCE)}.get(
                mark.who, display(mark.who))
            _draw_paper(ax, (mark.low, mark.high), span, f"{who} {mark.text()}", "y")
        slots = {-1: 0, 1: 0}
        for name in EXTENSION_SCHEDULERS:
            line = lines.get(name)
            if line is None or line.empty:
                continue
            side = _off_scale(limits, line["value"].iloc[-1])
            if side:
                note = f"{display(name)}: {_short(line['value'].iloc[-1])} (off scale)"
                _mark_off_scale(ax, note, color(name), side, limits, line[x].iloc[-1], "y",
                                slots[side])
                slots[side] += 1
        ax.set_xlabel(LABELS.get(x, x))
        if not c:  # the row's metric, once: a label beside an inner panel would run into it
            ax.set_ylabel(textwrap.fill(LABELS.get(metric, metric), 26))
        if r == 0:
            ax.set_title(TRACES.get(str(group), str(group)))
    handles, labels = _scheduler_handles(panels[0][0])
    paper_handles = _paper_handles(fig)
    handles, labels = handles + paper_handles, labels + [h.get_label() for h in paper_handles]
    count = len(handles)
    columns = count if count <= 8 else -(-count // 2)  # two even rows
    fig.legend(handles, labels, loc="lower center", ncol=columns, frameon=False)
    _title(fig, title, data)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def time_series(timelines: pd.DataFrame, y: str, title: str, data: str,
                bound: float | None = None, panels: Mapping[str, str] | None = None,
                paper: Sequence[PaperValue] = ()) -> plt.Figure:
    """One line (a step function) per scheduler over the time of day; ``bound``: a dotted
    horizontal reference line (e.g. N x SIF <= 2, Theorem 1); ``panels``: one panel per
    value of the timelines' ``window`` column, titled by the mapping (section 6.6's paper
    and busiest windows), else one panel of every row; ``paper``: the paper's stated
    ranges, drawn over the panels they concern (``group``: a window) and labelled "paper"."""
    apply_style()
    titles = dict(panels or {})
    keys: list[str | None] = [*titles] or [None]
    fig, axes = plt.subplots(1, len(keys), squeeze=False, sharey=True,
                             figsize=(7.0 + 4.5 * (len(keys) - 1), 4.4))
    for ax, key in zip(axes[0], keys):
        rows = timelines if key is None else timelines[timelines["window"] == key]
        drawn: dict[tuple, str] = {}
        for name in order(rows["scheduler"]):
            part = rows[rows["scheduler"] == name]
            style = {k: v for k, v in _line_style(name).items() if k not in ("marker", "ms")}
            line = (tuple(part["hour"]), tuple(part[y]))
            same = drawn.setdefault(line, name)  # a line identical to one drawn hides it
            label = display(name) + (f" (= {display(same)}, hidden under it)"
                                     if same != name else "")
            ax.step(part["hour"], part[y], where="post", label=label, **style)
        if bound is not None:
            ax.axhline(bound, label=f"bound {bound:g}", **BOUND_STYLE)
        for mark in paper:
            if mark.metric == y and mark.who != LEAD and mark.applies_to(key) and not (
                    bound is not None and mark.high == bound and pd.isna(mark.low)):  # drawn
                x0, x1 = rows["hour"].min(), rows["hour"].max()
                who = {"baselines": "baselines", REFERENCE: display(REFERENCE)}.get(
                    mark.who, display(mark.who))
                _draw_paper(ax, (mark.low, mark.high), (x0, x1),
                            f"{who} {mark.text()}", "y")
        ax.set_xlabel(LABELS["hour"])
        if key is not None:
            ax.set_title(titles[key], fontsize=9)
    axes[0][0].set_ylabel(textwrap.fill(LABELS.get(y, y), 30))
    axes[0][-1].legend(*_scheduler_handles(axes[0][-1]), loc="center left",
                       bbox_to_anchor=(1.01, 0.5), frameon=False)
    _title(fig, title, data)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    _paper_legend(fig, 0.06)
    return fig


def bucket_bars(table: pd.DataFrame, title: str, data: str,
                paper: Sequence[PaperValue] = ()) -> plt.Figure:
    """Table 3 as bars: per trace, the reference's top-1 share per rho bucket and metric;
    ``paper``: the paper's top-1 shares over all pairs, a star on the "Total" bucket's bar
    of each metric, labelled "paper"."""
    apply_style()
    traces = list(dict.fromkeys(table["trace"]))
    fig, axes = plt.subplots(1, len(traces), squeeze=False, figsize=(5.2 * len(traces), 3.8))
    for ax, trace in zip(axes[0], traces):
        part = table[table["trace"] == trace]
        long = part.melt(id_vars=["bucket", "pairs"], var_name="metric", value_name="share",
                         value_vars=[c for c in part if c.endswith("top-1 share")])
        long["metric"] = long["metric"].str.replace(" top-1 share", "")
        buckets = list(dict.fromkeys(long["bucket"]))
        long["bucket"] = long["bucket"] + "\n(n=" + long["pairs"].astype(str) + ")"
        metrics = list(dict.fromkeys(long["metric"]))
        long["metric"] = long["metric"].str.upper()
        sns.barplot(long, x="bucket", y="share", hue="metric", ax=ax, palette="Greys")
        for bars, metric in zip(ax.containers, metrics):
            for mark in paper:
                if mark.metric == metric and mark.applies_to(trace) and "Total" in buckets:
                    bar = bars[buckets.index("Total")]
                    ax.scatter(bar.get_x() + bar.get_width() / 2, mark.low, marker="*",
                               s=120, facecolor="white", edgecolor="black", zorder=6,
                               label=PAPER)
        ax.set(xlabel="WCC coverage rho bucket (n = (day, eta) pairs)",
               ylabel=f"{display(REFERENCE)} top-1 (share of pairs)", ylim=(0, 1.05),
               title=TRACES.get(trace, trace))
        ax.tick_params(axis="x", labelsize=7)
        ax.legend(*_scheduler_handles(ax), fontsize=7, loc="lower left")
    _title(fig, title, data)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    _paper_legend(fig, 0.06)
    return fig


def save(fig: plt.Figure, folder: str | Path, stem: str) -> list[Path]:
    """Write ``<stem>.png`` (150 dpi) and ``<stem>.pdf`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{stem}.png", folder / f"{stem}.pdf"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight", metadata={"CreationDate": None})
    return paths
