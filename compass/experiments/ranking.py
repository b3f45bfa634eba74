"""Do the baselines rank as in the paper? Our order of the six baselines per group beside
the paper's (paper/paper_rankings.yaml; only section 6.6 gives one).

A *group* is an experiment's trace, condition and metric: the overall experiment (section
6.1), each eta of the sweep (6.2), each composition day (6.3) and each case-study window
(6.6). Per group, on the samples every baseline completed with a defined value (a sample
replays the same jobs under every scheduler; a case window is one sample):

* our order: the baselines by their mean over the samples, best first, equal means tied;
* P(first): the share of paired bootstrap resamples of the samples (``stats``' seed and
  resample count) on which each baseline has the best mean, a tie splitting its share;
* Kendall's tau-b between the paper's order and ours over the baselines the paper orders
  (ties in either count as ties; NaN when either order is one level);
* the agreement reading. The comparisons the paper's order depends on are its strict pairs
  (a before b). For each, the advantage of a over b is paired over the samples with its
  95 % bootstrap interval (``stats.bootstrap_mean``, each pair on its own). The reading is
  *differs* when some pair's interval lies wholly on b's side, *agrees* when every pair's
  lies wholly on a's side, else *undecided*; *undecided* too with fewer than
  ``stats.MIN_SAMPLES`` samples. Pairs the paper ties constrain nothing.

Every function is pure on tidy frames (the runs, the case summary); no simulation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import yaml

from compass.experiments.aggregate import (
    MEASURE_LOWER_IS_BETTER,
    SAMPLE,
    TIE_TOLERANCE,
)
from compass.experiments.case_study import CaseStudy
from compass.experiments.comparisons import eta_runs, overall_runs
from compass.experiments.composition import composition_runs
from compass.experiments.results import Results
from compass.experiments.stats import BOOTSTRAP_SEED, MIN_SAMPLES, RESAMPLES, bootstrap_mean
from compass.experiments.tables import write_table
from compass.sim.metrics import METRICS

__all__ = ("ranking_table",)

Experiment = Literal["overall", "eta_sweep", "composition", "case"]
#: The experiments ranked, in the paper's order (the cost sweep replays the overall
#: experiment's days at each c and is left out).
EXPERIMENTS: tuple[Experiment, ...] = ("overall", "eta_sweep", "composition", "case")
#: The case summary's measures ranked: bands (their middle) and the blocking's share.
CASE_BANDS = ("partial_nodes", "empty_nodes", "gpu_util")
CASE_METRICS = (*CASE_BANDS, "frag_share")
#: The metrics of each experiment.
EXPERIMENT_METRICS: dict[Experiment, tuple[str, ...]] = {
    "overall": METRICS,
    "eta_sweep": METRICS,
    "composition": METRICS,
    "case": CASE_METRICS,
}
#: Whether an order puts the lowest first: the best first for every metric; for
#: frag_share, which is no merit, the lowest (the smallest fragmentation-induced part).
LOWER_FIRST: dict[str, bool] = {
    **{m: MEASURE_LOWER_IS_BETTER[m] for m in (*METRICS, *CASE_BANDS)},
    "frag_share": True,
}
#: The agreement readings.
READINGS = ("agrees", "differs", "undecided")
#: The table's stem under the profile's tables folder (baseline_ranking.csv and .md).
RANKING_TABLE = "baseline_ranking"

Order = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Group:
    """One ranked group: an experiment's trace, condition (e.g. "eta 0.95", "day 26",
    "window paper"; "" for the overall experiment) and metric."""

    experiment: Experiment
    trace: str
    condition: str
    metric: str


@dataclass(frozen=True)
class PaperRanking:
    """One order of paper/paper_rankings.yaml (its header describes the fields); ``condition``
    None: every condition of the experiment."""

    id: str
    experiment: Experiment
    trace: str
    metric: str
    condition: str | None
    order: Order
    kind: Literal["stated", "read from numbers"]
    where: str

    def covers(self, group: Group) -> bool:
        """Whether this order is about ``group``."""
        return (self.experiment, self.trace, self.metric) == (
            group.experiment,
            group.trace,
            group.metric,
        ) and self.condition in (None, group.condition)


def read_rankings(path: str | Path) -> list[PaperRanking]:
    """The orders of a rankings YAML (paper/paper_rankings.yaml), checked for shape: known
    experiment and metric, each baseline named at most once, at least two levels."""
    out = []
    for r in yaml.safe_load(Path(path).read_text())["rankings"]:
        order = tuple(tuple(str(s) for s in level) for level in r["order"])
        named = [s for level in order for s in level]
        if r["experiment"] not in EXPERIMENTS:
            raise ValueError(f"{r['id']}: unknown experiment {r['experiment']!r}")
        if r["metric"] not in EXPERIMENT_METRICS[r["experiment"]]:
            raise ValueError(f"{r['id']}: {r['experiment']} measures no {r['metric']!r}")
        if len(set(named)) != len(named) or len(order) < 2 or not all(order):
            raise ValueError(f"{r['id']}: an order names each baseline once, in >= 2 levels")
        if r["kind"] not in ("stated", "read from numbers"):
            raise ValueError(f"{r['id']}: unknown kind {r['kind']!r}")
        out.append(
            PaperRanking(
                r["id"],
                r["experiment"],
                r["trace"],
                r["metric"],
                r.get("condition"),
                order,
                r["kind"],
                r["where"],
            )
        )
    return out


# --------------------------------------------------------------------------- orders


def _sign(lower_first: bool) -> float:
    """Multiplier that makes the first of an order the largest."""
    return -1.0 if lower_first else 1.0


def _ties(values: np.ndarray) -> np.ndarray:
    """Which of ``values`` (last axis) equal their row's maximum, up to TIE_TOLERANCE."""
    best = values.max(axis=-1, keepdims=True)
    slack = TIE_TOLERANCE * np.maximum(np.abs(values).max(axis=-1, keepdims=True), 1.0)
    return values >= best - slack


def mean_order(matrix: pd.DataFrame, lower_first: bool) -> Order:
    """The columns of ``matrix`` (samples x baselines) by their mean, first first; means
    equal up to TIE_TOLERANCE share a level."""
    means = matrix.mean(axis=0) * _sign(lower_first)
    rest, order = means, []
    while len(rest):
        level = _ties(rest.to_numpy(dtype=float))
        order.append(tuple(rest.index[level]))
        rest = rest[~level]
    return tuple(order)


def p_first(
    matrix: pd.DataFrame,
    lower_first: bool,
    *,
    resamples: int = RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, float]:
    """Per column of ``matrix`` (samples x baselines, complete): the share of paired
    bootstrap resamples of its rows on which it has the best mean (a tie splits a
    resample's share equally); with one sample, that sample's order."""
    x = matrix.to_numpy(dtype=float) * _sign(lower_first)
    n = x.shape[0]
    if n == 0:
        raise ValueError("p_first needs at least one sample")
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples if n > 1 else 1, n))
    first = _ties(x[idx].mean(axis=1)).astype(float)
    shares = (first / first.sum(axis=1, keepdims=True)).mean(axis=0)
    return dict(zip(matrix.columns, (float(s) for s in shares)))


def ranks(order: Order) -> dict[str, int]:
    """Each baseline's level in ``order`` (0: first)."""
    return {s: i for i, level in enumerate(order) for s in level}


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of two rankings of the same items (ties allowed): (concordant -
    discordant) / sqrt((pairs - x-tied) (pairs - y-tied)); NaN when either is all tied."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("kendall_tau_b needs two rankings of the same items")
    i, j = np.triu_indices(a.size, k=1)
    dx, dy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    untied_x, untied_y = np.count_nonzero(dx), np.count_nonzero(dy)
    if untied_x == 0 or untied_y == 0:
        return math.nan
    return float((dx * dy).sum() / math.sqrt(untied_x * untied_y))


def strict_pairs(order: Order) -> list[tuple[str, str]]:
    """The pairs (a, b) an order puts strictly before one another, a first."""
    return [
        (a, b)
        for i, level in enumerate(order)
        for later in order[i + 1 :]
        for a in level
        for b in later
    ]


def agreement(matrix: pd.DataFrame, paper: Order, lower_first: bool) -> str:
    """The agreement reading of the module's docstring for the paper's ``paper`` order
    (restricted to the columns of ``matrix``); "" when it leaves no strict pair there."""
    present = tuple(t for t in (tuple(s for s in level if s in matrix) for level in paper) if t)
    pairs = strict_pairs(present)
    if not pairs:
        return ""
    if len(matrix) < MIN_SAMPLES:
        return "undecided"
    sign = _sign(lower_first)
    intervals = [
        bootstrap_mean(sign * (matrix[a] - matrix[b]).to_numpy(dtype=float)) for a, b in pairs
    ]
    if any(iv.high < 0 for iv in intervals):
        return "differs"
    return "agrees" if all(iv.low > 0 for iv in intervals) else "undecided"


# --------------------------------------------------------------------------- groups


def sample_matrix(runs: pd.DataFrame, baselines: Sequence[str], metric: str) -> pd.DataFrame:
    """Samples x baselines of ``metric`` from runs of one group, the samples (``SAMPLE``)
    every present baseline completed with a defined value, sorted by sample."""
    mine = runs[runs["scheduler"].isin(list(baselines))]
    table = mine.pivot_table(
        index=list(SAMPLE), columns="scheduler", values=metric, aggfunc="first", dropna=False
    )
    present = [b for b in baselines if b in table.columns]
    return table[present].dropna().sort_index()


def case_matrix(
    summary: pd.DataFrame, baselines: Sequence[str], window: str, metric: str
) -> pd.DataFrame:
    """One case window as one sample x baselines: a band's middle (its 10th and 90th
    time-weighted percentiles averaged) or the blocking's fragmentation-induced share."""
    rows = summary[(summary["window"] == window) & summary["scheduler"].isin(list(baselines))]
    rows = rows.set_index("scheduler")
    values = (
        (rows[f"{metric}_p10"] + rows[f"{metric}_p90"]) / 2
        if metric in CASE_BANDS
        else rows[metric]
    )
    present = [b for b in baselines if b in values.index]
    return values[present].to_frame(window).T.dropna(axis=1)


def run_groups(res: Results) -> Iterator[tuple[Group, pd.DataFrame]]:
    """Each group of the simulated experiments with its runs (overall, eta sweep,
    composition days)."""
    for trace, part in overall_runs(res).groupby("trace", sort=False):
        for metric in METRICS:
            yield Group("overall", str(trace), "", metric), part
    for (trace, eta), part in eta_runs(res).groupby(["trace", "eta"], sort=True):
        for metric in METRICS:
            yield Group("eta_sweep", str(trace), f"eta {eta:g}", metric), part
    for (trace, day), part in composition_runs(res).groupby(["trace", "day"], sort=True):
        for metric in METRICS:
            yield Group("composition", str(trace), f"day {day}", metric), part


def group_matrices(res: Results, case: pd.DataFrame | None) -> Iterator[tuple[Group, pd.DataFrame]]:
    """Every group of a results folder with its samples x baselines matrix; ``case``: the
    case study's summary (None: no case groups)."""
    baselines = res.config.baselines
    for group, runs in run_groups(res):
        yield group, sample_matrix(runs, baselines, group.metric)
    if case is not None and len(case):
        trace = res.config.experiments.case.trace
        for window in dict.fromkeys(case["window"]):
            for metric in CASE_METRICS:
                yield (
                    Group("case", trace, f"window {window}", metric),
                    case_matrix(case, baselines, str(window), metric),
                )


# --------------------------------------------------------------------------- the table


def order_text(order: Order) -> str:
    """An order as "fft > drr = gfs" (first first; "=": tied)."""
    return " > ".join(" = ".join(level) for level in order)


def rank_group(
    group: Group, matrix: pd.DataFrame, paper: PaperRanking | None, baselines: Sequence[str]
) -> dict[str, object]:
    """One row of the ranking table: our order, P(first) per baseline, and beside the
    paper's order (if any) tau-b and the agreement reading."""
    lower = LOWER_FIRST[group.metric]
    row: dict[str, object] = {
        **vars(group),
        "first": "lowest" if lower else "highest",
        "n": len(matrix),
    }
    measured = len(matrix) > 0 and matrix.shape[1] > 1
    ours = mean_order(matrix, lower) if measured else ()
    shares = p_first(matrix, lower) if measured else {}
    row.update(
        ours=order_text(ours),
        strongest=" = ".join(ours[0]) if ours else "",
        **{f"p_first_{b}": shares.get(b, math.nan) for b in baselines},
    )
    tau, reading = math.nan, ""
    if paper is not None and measured:
        named = [s for level in paper.order for s in level if s in matrix]
        theirs, mine = ranks(paper.order), ranks(ours)
        if len(named) > 1:
            tau = kendall_tau_b([theirs[s] for s in named], [mine[s] for s in named])
        reading = agreement(matrix, paper.order, lower)
    elif paper is not None:
        reading = "not measured"
    row.update(
        paper=order_text(paper.order) if paper else "",
        kind=paper.kind if paper else "",
        tau_b=tau,
        agreement=reading,
        where=paper.where if paper else "",
    )
    return row


def ranking_rows(
    groups: Sequence[tuple[Group, pd.DataFrame]],
    rankings: Sequence[PaperRanking],
    baselines: Sequence[str],
) -> pd.DataFrame:
    """The ranking table: one row per group (``rank_group``), then one "not measured" row per
    paper order that no group covers."""
    rows, used = [], set()
    for group, matrix in groups:
        paper = next((r for r in rankings if r.covers(group)), None)
        if paper is not None:
            used.add(paper.id)
        rows.append(rank_group(group, matrix, paper, baselines))
    for r in rankings:
        if r.id not in used:
            group = Group(r.experiment, r.trace, r.condition or "", r.metric)
            rows.append(rank_group(group, pd.DataFrame(), r, baselines))
    return pd.DataFrame(rows)


def ranking_table(
    res: Results, rankings: Sequence[PaperRanking], case: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The ranking table of a results folder (its completed runs and, when given, the case
    study's summary)."""
    return ranking_rows(list(group_matrices(res, case)), rankings, res.config.baselines)


def ranking_summary(table: pd.DataFrame) -> str:
    """One line computed from the table: who is strongest (alone) in how many ranked groups,
    in how many a tie is first, and the readings of the groups the paper orders."""
    measured = table[table["strongest"] != ""]
    strongest = Counter(s for s in measured["strongest"] if s and " = " not in s)
    counts = [f"{name} in {k}" for name, k in strongest.most_common()]
    if counts:
        counts[0] += f" of {len(measured)} groups"
    tied = int(measured["strongest"].str.contains(" = ", regex=False).sum())
    if tied:
        counts.append(f"a tie for first in {tied}")
    ordered = table[table["paper"] != ""]
    readings = Counter(ordered["agreement"])
    return (
        "strongest baseline per group (by mean): "
        + (", ".join(counts) or "none measured")
        + f"; of {len(ordered)} groups the paper orders: "
        + ", ".join(f"{readings.get(r, 0)} {r}" for r in READINGS)
        + (f", {readings['not measured']} not measured" if readings.get("not measured") else "")
    )


def write_ranking(results: str | Path, rankings_path: str | Path, tables: str | Path) -> list[Path]:
    """Rule ``baseline_ranking``: the ranking table of a results folder as CSV and
    Markdown, captioned with its data."""
    res = Results.load(results)
    study = CaseStudy.load(res)
    table = ranking_table(res, read_rankings(rankings_path), study.summary())
    return write_table(
        table,
        tables,
        RANKING_TABLE,
        "The baselines' order per group beside the paper's. " + res.label(),
    )
