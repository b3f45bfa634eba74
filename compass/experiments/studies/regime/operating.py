"""The operating regime of the paper's baselines beside ours (sections 6.2, 6.3 and 6.6).

The paper states bands for its six baselines (AFR and AGU on the composition days; partial
nodes, empty nodes and GPU utilisation in the GFS case window) and one level of
COMPASS-ABS (its GFS AGU). ``paper/regime.yaml`` transcribes them with where each is
stated; ``regime_table`` measures each on a results folder and its case study, so a
reader sees whether the baselines run in the paper's world before reading a comparison.
COMPASS-ABS's own level is marked ``held-out``: it is shown, and no fit may use it.

Every measure is a pure function of tidy frames (the runs and the case summary), so it is
testable without a results folder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd
import yaml

from compass.experiments.case_study import CaseStudy
from compass.experiments.comparisons import eta_runs
from compass.experiments.composition import composition_runs
from compass.experiments.results import Results
from compass.experiments.stats import wilson
from compass.experiments.studies.regime.config import regime_slug
from compass.experiments.tables import write_table
from compass.schedulers import names_with_role

#: The six baselines of the paper (their cards' role) and the five it groups apart from FFT in
#: section 6.6.
BASELINES = names_with_role("baseline")
GROUPS: dict[str, tuple[str, ...]] = {
    "baselines": BASELINES,
    "five": tuple(s for s in BASELINES if s != "fft"),
    "fft": ("fft",),
    "compass-abs": ("compass-abs",),
}
#: A sample is stalled when its median baseline's mean queue time exceeds one day.
STALL_QUEUE_S = 86_400.0
#: The case window the paper describes (compass.experiments.case_study names it "paper").
CASE_WINDOW = "paper"
TABLE_COLUMNS = ["id", "trace", "quantity", "role", "paper", "ours", "interval", "samples",
                 "where"]

Measure = Literal["composition_band", "eta_floor", "case_band", "stalled_share"]


@dataclass(frozen=True)
class RegimeQuantity:
    """One quantity of paper/regime.yaml (its header describes the fields)."""

    id: str
    trace: str
    quantity: str
    schedulers: str
    measure: Measure
    metric: str
    paper: float | tuple[float, float] | None
    role: Literal["regime", "held-out"]
    where: str

    @property
    def members(self) -> tuple[str, ...]:
        """The schedulers of the quantity's group."""
        return GROUPS[self.schedulers]


def read_regime(path: str | Path) -> list[RegimeQuantity]:
    """The quantities of a regime YAML (paper/regime.yaml)."""
    raw = yaml.safe_load(Path(path).read_text())["quantities"]
    out = []
    for q in raw:
        paper = q["paper"]
        if isinstance(paper, list):
            paper = (float(paper[0]), float(paper[1]))
        elif paper is not None:
            paper = float(paper)
        if q["schedulers"] not in GROUPS:
            raise ValueError(f"{q['id']}: unknown scheduler group {q['schedulers']!r}")
        out.append(RegimeQuantity(q["id"], q["trace"], q["quantity"], q["schedulers"],
                                  q["measure"], q["metric"], paper, q["role"], q["where"]))
    return out


@dataclass(frozen=True)
class QuantityValue:
    """Our value of one quantity: a band (lo, hi) or a number, an interval, the samples."""

    value: float | tuple[float, float]
    interval: tuple[float, float]
    samples: int


def composition_band(runs: pd.DataFrame, members: Sequence[str], metric: str) -> QuantityValue:
    """[min, max] over (day, scheduler) of the seed-mean ``metric``; the interval is the
    [min, max] over single samples."""
    mine = runs[runs["scheduler"].isin(list(members))]
    means = mine.groupby(["trace", "day", "scheduler"])[metric].mean()
    values = mine[metric].to_numpy(dtype=float)
    return QuantityValue((float(means.min()), float(means.max())),
                    (float(values.min()), float(values.max())), len(values))


def eta_floor(runs: pd.DataFrame, members: Sequence[str], metric: str) -> QuantityValue:
    """The lowest over eta of the mean ``metric`` of the group's runs; the interval is a
    normal 95 % interval of that eta's mean (samples = its runs)."""
    mine = runs[runs["scheduler"].isin(list(members))]
    by_eta = mine.groupby("eta")[metric]
    eta = by_eta.mean().idxmin()
    values = mine.loc[mine["eta"] == eta, metric].to_numpy(dtype=float)
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(values.size) if values.size > 1 else 0.0
    return QuantityValue(mean, (mean - half, mean + half), int(values.size))


def case_band(summary: pd.DataFrame, members: Sequence[str], metric: str,
              window: str = CASE_WINDOW) -> QuantityValue:
    """The group's band in the case window: [lowest 10th, highest 90th] time-weighted
    percentile of ``metric`` over its schedulers; the interval is the [lowest, highest]
    per-scheduler median of the two percentiles."""
    rows = summary[(summary["window"] == window) & summary["scheduler"].isin(list(members))]
    if rows.empty:
        raise ValueError(f"no case-study rows for window {window!r} and {list(members)}")
    lo, hi = rows[f"{metric}_p10"].to_numpy(float), rows[f"{metric}_p90"].to_numpy(float)
    middle = (lo + hi) / 2
    return QuantityValue((float(lo.min()), float(hi.max())),
                    (float(middle.min()), float(middle.max())), len(rows))


def stalled_share(runs: pd.DataFrame, members: Sequence[str], trace: str,
                  metric: str = "mean_queue_time") -> QuantityValue:
    """Share of (day, eta, seed) samples of ``trace`` whose median ``members`` mean queue
    time exceeds STALL_QUEUE_S, with a Wilson 95 % interval."""
    mine = runs[(runs["trace"] == trace) & runs["scheduler"].isin(list(members))]
    median = mine.groupby(["day", "eta", "seed"])[metric].median()
    n, k = int(median.size), int((median > STALL_QUEUE_S).sum())
    return QuantityValue(k / n if n else math.nan, wilson(k, n), n)


def _text(value: float | tuple[float, float] | None) -> str:
    if value is None:
        return "not stated"
    if isinstance(value, tuple):
        return f"[{value[0]:.4g}, {value[1]:.4g}]"
    return f"{value:.4g}"


def measure(q: RegimeQuantity, runs: pd.DataFrame, composition: pd.DataFrame,
            case: pd.DataFrame | None, sweep: pd.DataFrame | None = None
            ) -> QuantityValue | None:
    """Our value of ``q`` from the runs, the composition runs, the case summary and the eta
    sweep's runs (``sweep``: an eta floor is measured on the runs the claims measure it on,
    so that one quantity has one number; None: every run); None where the results hold
    nothing to measure it on."""
    if q.measure == "composition_band":
        return composition_band(composition, q.members, q.metric) if len(composition) else None
    if q.measure == "eta_floor":
        mine = (runs if sweep is None else sweep)
        mine = mine[mine["trace"] == q.trace]
        return eta_floor(mine, q.members, q.metric) if len(mine) else None
    if q.measure == "case_band":
        if case is None or not (case["window"] == CASE_WINDOW).any():
            return None
        return case_band(case, q.members, q.metric)
    if q.measure == "stalled_share":
        return stalled_share(runs, q.members, q.trace, q.metric)
    raise ValueError(f"{q.id}: unknown measure {q.measure!r}")


def regime_rows(quantities: Sequence[RegimeQuantity], runs: pd.DataFrame,
                composition: pd.DataFrame, case: pd.DataFrame | None,
                sweep: pd.DataFrame | None = None) -> pd.DataFrame:
    """The regime table: per quantity the paper's value and ours (TABLE_COLUMNS)."""
    rows = []
    for q in quantities:
        got = measure(q, runs, composition, case, sweep)
        rows.append({
            "id": q.id, "trace": q.trace, "quantity": q.quantity, "role": q.role,
            "paper": _text(q.paper),
            "ours": "not measured" if got is None else _text(got.value),
            "interval": "" if got is None else _text(got.interval),
            "samples": 0 if got is None else got.samples, "where": q.where,
        })
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def regime_table(res: Results, quantities: Sequence[RegimeQuantity],
                 case: CaseStudy | None = None) -> pd.DataFrame:
    """The regime table of a results folder (its completed runs, the composition runs of
    Fig. 3, and the case study's summary when one was run)."""
    return regime_rows(quantities, res.ok, composition_runs(res),
                       case.summary() if case is not None else None, eta_runs(res))


def before_after(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Two regime tables side by side (ours_before, ours_after, with their intervals)."""
    keep = ["id", "ours", "interval", "samples"]
    merged = before.merge(after[keep], on="id", suffixes=("_before", "_after"))
    return merged[["id", "trace", "quantity", "role", "paper", "ours_before",
                   "interval_before", "ours_after", "interval_after", "where"]]


#: The table's stem under the profile's tables folder (paper/tables/regime.csv and .md).
REGIME_TABLE = "regime"


def beside_regimes(table: pd.DataFrame, regimes: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """``table`` with each sensitivity regime's regime table beside ours (profile key
    ``regimes``): columns ours_<regime>, interval_<regime> and samples_<regime>
    (``config.regime_slug``), matched by quantity id, before ``where``."""
    out = table.drop(columns="where")
    for name, theirs in regimes.items():
        mine = theirs.set_index("id").reindex(out["id"])
        for column in ("ours", "interval", "samples"):
            out[f"{column}_{regime_slug(name)}"] = mine[column].to_numpy()
    return out.assign(where=table["where"].to_numpy())


def write_regime(results: str | Path, regime_path: str | Path, tables: str | Path,
                 regimes: Mapping[str, str | Path] | None = None) -> list[Path]:
    """Rule ``regime``: the regime table of a results folder, as CSV and Markdown, with the
    table of each sensitivity regime's results folder (name -> folder; they run no case
    study) beside ours."""
    res, quantities = Results.load(results), read_regime(regime_path)
    table = regime_table(res, quantities, CaseStudy.load(res))
    table = beside_regimes(table, {name: regime_table(Results.load(folder), quantities)
                                   for name, folder in (regimes or {}).items()})
    return write_table(table, tables, REGIME_TABLE,
                       f"The paper's operating regime beside ours. {res.label()}")


def write_regime_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Write the table (paper/tables/regime.csv) and return its path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False)
    return out
