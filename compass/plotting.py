"""The one figure style of the reproduction (paper section 6, Figs. 1-7).

Schedulers always appear in the same order and colour (COMPASS-ABS first, in vermillion,
drawn thicker and on top; the six baselines in the order of section 5.4; the SIFOpt oracle
grey and dashed; our extension COMPASS-ABS+, where a figure shows it, last, in purple,
dash-dotted with diamonds, and labelled as our extension). Axes carry units. Every
figure's title names its data (SYNTHETIC or real) so a figure cannot be mistaken for the
paper's. ``save`` writes PNG and PDF.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import matplotlib.ticker as ticker
import pandas as pd
import seaborn as sns

from compass.experiments.config import EXTENSION_SCHEDULERS
from compass.schedulers import cards

#: The reference scheduler, highlighted everywhere.
REFERENCE = "compass-abs"
#: Fixed order, colours (seaborn's colour-blind palette) and names, from the schedulers'
#: cards: COMPASS-ABS, the six baselines of section 5.4, the oracle, our extension, then
#: the variants. Names without a colour get one of the spare ones.
SCHEDULER_ORDER = tuple(card.name for card in cards())
COLORS = {card.name: card.color for card in cards() if card.color}
_SPARE_COLORS = ("#fbafe4", "#ece133", "#000000")
DISPLAY = {card.name: card.display for card in cards()}
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
TRACES = {"venus": "Venus", "gfs": "GFS", "physmix": "Phys-Mix"}


def apply_style() -> None:
    """Seaborn's paper context on a white grid; called by every plotting function."""
    sns.set_theme(context="paper", style="whitegrid", font_scale=1.05)


def order(names: Iterable[str]) -> list[str]:
    """Schedulers in the fixed order; unknown names follow, sorted."""
    names = set(names)
    return [s for s in SCHEDULER_ORDER if s in names] + sorted(names - set(SCHEDULER_ORDER))


def color(name: str) -> str:
    """The scheduler's fixed colour."""
    if name in COLORS:
        return COLORS[name]
    return _SPARE_COLORS[sum(map(ord, name)) % len(_SPARE_COLORS)]


def display(name: str) -> str:
    return DISPLAY.get(name, name)


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
    fig.suptitle(f"{title}\n" + textwrap.fill(data, 110), fontsize=10)


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


def dot_grid(means: pd.DataFrame, col: str, title: str, data: str,
             metrics: Sequence[str] = ("afr", "ajct", "agu"),
             col_label: dict[object, str] | None = None) -> plt.Figure:
    """Rows: metrics; columns: values of ``col``; in each panel one dot per scheduler.

    Dots instead of bars: schedulers often differ by a fraction of a percent, and a dot's
    axis need not start at zero.
    """
    names = order(means["scheduler"])
    fig, panels = _metric_panels(means, col, metrics, (3.2, 0.8, 2.3, 0.9))
    for ax, r, c, metric, group, part in panels:
        values = part.set_index("scheduler")["value"]
        for y, name in enumerate(names):
            if name in values and pd.notna(values[name]):
                big = name == REFERENCE
                ax.scatter(values[name], y, color=color(name), s=70 if big else 30,
                           marker=_marker(name), edgecolor="black" if big else "none",
                           zorder=5 if big else 3)
        ax.set_yticks(range(len(names)), [display(n) for n in names])
        ax.invert_yaxis()
        for tick in ax.get_yticklabels():
            tick.set_fontweight("bold" if tick.get_text() == display(REFERENCE) else "normal")
        ax.set_xlabel(LABELS.get(metric, metric))
        _compact_ticks(ax.xaxis)
        if c:
            ax.set_yticklabels([])
        if r == 0:
            ax.set_title((col_label or {}).get(group, TRACES.get(str(group), str(group))))
    _title(fig, title, data)
    fig.tight_layout()
    return fig


def lead_panels(leads: pd.DataFrame, col: str, title: str, data: str,
                metrics: Sequence[str] = ("afr", "ajct", "agu")) -> plt.Figure:
    """One panel per metric: COMPASS-ABS's lead over the strongest baseline relative to that
    baseline's mean (%), one row per value of ``col``, with its 95 % interval over the
    samples (``aggregate.lead_intervals``). Right of zero: COMPASS-ABS is better."""
    apply_style()
    groups = list(dict.fromkeys(leads[col]))
    fig, axes = plt.subplots(1, len(metrics), squeeze=False,
                             figsize=(3.4 * len(metrics) + 0.6, 0.55 * len(groups) + 1.6))
    for ax, metric in zip(axes[0], metrics):
        part = leads[leads["metric"] == metric].set_index(col)
        for y, group in enumerate(groups):
            if group not in part.index or pd.isna(part.loc[group, "lead"]):
                continue
            row = part.loc[group]
            scale = 100 / abs(row["baseline_mean"]) if row["baseline_mean"] else float("nan")
            mid = row["lead"] * scale
            if pd.notna(row["ci_low"]):
                ax.errorbar(mid, y, xerr=[[mid - row["ci_low"] * scale],
                                          [row["ci_high"] * scale - mid]],
                            fmt="o", color=color(REFERENCE), capsize=3)
            else:
                ax.scatter(mid, y, color=color(REFERENCE), marker="o", facecolors="none")
            ax.annotate(f"vs {display(row['strongest_baseline'])}, n = {int(row['n'])}",
                        (mid, y), textcoords="offset points", xytext=(0, 7), fontsize=7,
                        ha="center")
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(range(len(groups)), [TRACES.get(str(g), str(g)) for g in groups])
        ax.set_ylim(len(groups) - 0.5, -0.7)
        ax.set_xlabel(f"{metric.upper()} lead (% of the baseline)\nright: COMPASS-ABS better")
    for ax in axes[0][1:]:
        ax.set_yticklabels([])
    _title(fig, title, data)
    fig.tight_layout()
    return fig


def line_grid(means: pd.DataFrame, x: str, col: str, title: str, data: str,
              metrics: Sequence[str] = ("afr", "ajct", "agu")) -> plt.Figure:
    """Rows: metrics; columns: values of ``col``; one line per scheduler over ``x``."""
    names = order(means["scheduler"])
    fig, panels = _metric_panels(means, col, metrics, (4.2, 0.6, 2.4, 1.2))
    for ax, r, _, metric, group, part in panels:
        for name in names:
            line = part[part["scheduler"] == name].sort_values(x)
            ax.plot(line[x], line["value"], label=display(name), **_line_style(name))
        ax.set_xlabel(LABELS.get(x, x))
        ax.set_ylabel(LABELS.get(metric, metric))
        if r == 0:
            ax.set_title(TRACES.get(str(group), str(group)))
    handles, labels = panels[0][0].get_legend_handles_labels()
    columns = len(names) if len(names) <= 8 else -(-len(names) // 2)  # two even rows
    fig.legend(handles, labels, loc="lower center", ncol=columns, frameon=False)
    _title(fig, title, data)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def time_series(timelines: pd.DataFrame, y: str, title: str, data: str,
                bound: float | None = None, panels: Mapping[str, str] | None = None
                ) -> plt.Figure:
    """One line (a step function) per scheduler over the time of day; ``bound``: a dotted
    horizontal reference line (e.g. N x SIF <= 2, Theorem 1); ``panels``: one panel per
    value of the timelines' ``window`` column, titled by the mapping (section 6.6's paper
    and busiest windows), else one panel of every row."""
    apply_style()
    titles = dict(panels or {})
    keys: list[str | None] = [*titles] or [None]
    fig, axes = plt.subplots(1, len(keys), squeeze=False, sharey=True,
                             figsize=(8.5 + 5.0 * (len(keys) - 1), 3.8))
    for ax, key in zip(axes[0], keys):
        rows = timelines if key is None else timelines[timelines["window"] == key]
        for name in order(rows["scheduler"]):
            part = rows[rows["scheduler"] == name]
            style = {k: v for k, v in _line_style(name).items() if k not in ("marker", "ms")}
            ax.step(part["hour"], part[y], where="post", label=display(name), **style)
        if bound is not None:
            ax.axhline(bound, color="black", ls=":", lw=1, label=f"bound {bound:g}")
        ax.set_xlabel(LABELS["hour"])
        if key is not None:
            ax.set_title(titles[key], fontsize=9)
    axes[0][0].set_ylabel(LABELS.get(y, y))
    axes[0][-1].legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    _title(fig, title, data)
    fig.tight_layout()
    return fig


def bucket_bars(table: pd.DataFrame, title: str, data: str) -> plt.Figure:
    """Table 3 as bars: per trace, the reference's top-1 share per rho bucket and metric."""
    apply_style()
    traces = list(dict.fromkeys(table["trace"]))
    fig, axes = plt.subplots(1, len(traces), squeeze=False, figsize=(5.2 * len(traces), 3.6))
    for ax, trace in zip(axes[0], traces):
        part = table[table["trace"] == trace]
        long = part.melt(id_vars=["bucket", "pairs"], var_name="metric", value_name="share",
                         value_vars=[c for c in part if c.endswith("top-1 share")])
        long["metric"] = long["metric"].str.replace(" top-1 share", "").str.upper()
        long["bucket"] = long["bucket"] + "\n(n=" + long["pairs"].astype(str) + ")"
        sns.barplot(long, x="bucket", y="share", hue="metric", ax=ax, palette="Greys")
        ax.set(xlabel="WCC coverage rho bucket (n = (day, eta) pairs)",
               ylabel=f"{display(REFERENCE)} top-1 (share of pairs)", ylim=(0, 1.05),
               title=TRACES.get(trace, trace))
        ax.tick_params(axis="x", labelsize=7)
    _title(fig, title, data)
    fig.tight_layout()
    return fig


def save(fig: plt.Figure, folder: str | Path, stem: str) -> list[Path]:
    """Write ``<stem>.png`` (150 dpi) and ``<stem>.pdf`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{stem}.png", folder / f"{stem}.pdf"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight", metadata={"CreationDate": None})
    return paths
