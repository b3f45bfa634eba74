"""The fit of the paper-regime traces: knobs that put the baselines in the paper's regime.

A small grid over ``compass.traces.regime_knobs.RegimeKnobs`` per paper-regime kind. Each
point replays the days paper/regime.yaml's quantities use (composition days: Venus 92, GFS 58
and 26 at eta = 0.9; the case window, GFS day 113 21:00-22:30 at eta = 0.95) under the six
baselines only (COMPASS-ABS never runs here: its levels stay a held-out test), measures each
regime-role quantity with ``compass.experiments.studies.regime.operating.measure`` and scores

    objective = sum over quantities of (distance outside the paper's band) / (band width),

a quantity the paper states no value for (the stalled shares: section 6.2's AJCT leads
leave no room for queues of days) counting its value itself (target 0, width 1, a share's
scale). The best point on the fit seeds is written to data/calibration/paper_regime.yaml
with its objective on a held-out seed; ``--fft-variants`` adds FFT's variants' partial
nodes in the fitted case window (section 6.6: no workload brings FFT to its 25-50 band).

Run: ``python -m compass.experiments.studies.regime.fit`` (then ``--fft-variants``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compass.experiments.case_study import case_summary, paper_window
from compass.experiments.config import CaseStudyConfig, ResolvedTrace, RunSettings, TraceSpec
from compass.experiments.grid import RunKey
from compass.experiments.runs import case_runs, cpu_seconds, run_batch
from compass.experiments.studies.regime.operating import (
    BASELINES,
    CASE_WINDOW,
    QuantityValue,
    RegimeQuantity,
    measure,
    read_regime,
)
from compass.traces.paths import data_dir, repo_root
from compass.traces.regime_knobs import KNOBS_FILE, RegimeKnobs, read_knobs
from compass.traces.synthetic import REGIME_BASE, synthesize
from compass.traces.windows import day_window as _day_window
from compass.traces.windows import jobs_in_window

#: Seeds the grid is scored on, and the seed its best point is tested on.
FIT_SEEDS = (0, 1)
HELD_OUT_SEED = 2
#: The grid: every combination is replayed (36 points per kind).
GRID: dict[str, tuple[Any, ...]] = {
    "gang_cap": (None, 0.5, 0.25),
    "subnode_share": (0.0, 0.8, 0.9),
    "duration_scale": (1.0, 1.5, 2.0, 2.5),
}
#: eta of the composition days (the profiles' ``composition.eta``) and migration cost c.
COMPOSITION_ETA = 0.9
MIGRATION_COST = 8.0
#: The case window of section 6.6 (the profiles' ``case_study``).
CASE = CaseStudyConfig("gfs", 0.95, 113, 21.0, 22.5, 90.0, 15.0, None)
#: Composition days of each kind (paper Table 2); a GFS kind also replays the case window.
COMPOSITION_DAYS = {"gfs-paper-regime": (58, 26), "venus-paper-regime": (92,)}
#: paper/regime.yaml's ``trace`` of the quantities each kind is scored on.
TRACES_OF = {"gfs-paper-regime": ("composition days", "gfs"),
             "venus-paper-regime": ("composition days", "venus")}
#: FFT's variants measured in the fitted case window, with gfs for reference:
#: label -> (scheduler, parameters).
FFT_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "fft": ("fft", {}),
    "fft round_s 3600": ("fft", {"round_s": 3600.0}),
    "fft objective partial-nodes": ("fft", {"objective": "partial-nodes"}),
    "gfs": ("gfs", {}),
}


def distance(q: RegimeQuantity, got: QuantityValue) -> float:
    """How far ``got`` lies outside the paper's band of ``q``, in band widths (a number
    counts as the band [v, v]; a quantity without a paper value as [0, 0] of width 1)."""
    lo, hi = got.value if isinstance(got.value, tuple) else (got.value, got.value)
    if q.paper is None:
        band, width = (0.0, 0.0), 1.0
    else:
        band = q.paper if isinstance(q.paper, tuple) else (q.paper, q.paper)
        width = band[1] - band[0]
    if width <= 0:
        raise ValueError(f"{q.id}: the paper's band {band} has no width to scale by")
    return (max(band[0] - lo, 0.0) + max(hi - band[1], 0.0)) / width


def scored(quantities: Sequence[RegimeQuantity], kind: str) -> list[RegimeQuantity]:
    """The regime-role quantities a kind is scored on (never a held-out one)."""
    return [q for q in quantities if q.role == "regime" and q.trace in TRACES_OF[kind]]


def objective(quantities: Sequence[RegimeQuantity], runs: pd.DataFrame,
              case: pd.DataFrame | None) -> tuple[float, dict[str, QuantityValue]]:
    """The objective over ``quantities`` (regime role only) and each one's measured value;
    the composition runs are ``runs`` at COMPOSITION_ETA."""
    if any(q.role != "regime" for q in quantities):
        raise ValueError("the fit scores regime-role quantities only (held-out stays out)")
    composition = runs[np.isclose(runs["eta"], COMPOSITION_ETA)]
    got = {}
    for q in quantities:
        value = measure(q, runs, composition, case)
        if value is None:
            raise ValueError(f"{q.id}: nothing to measure it on")
        got[q.id] = value
    return sum(distance(q, got[q.id]) for q in quantities), got


def _trace(kind: str, days: Sequence[int]) -> ResolvedTrace:
    name = "gfs" if kind.startswith("gfs") else "venus"
    return ResolvedTrace(TraceSpec(name, kind, days=tuple(days)), "synthetic", tuple(days))


def _settings(seed: int, schedulers: Sequence[str] = BASELINES,
              params: Mapping[str, Mapping[str, Any]] | None = None) -> RunSettings:
    return RunSettings(tuple(schedulers), seed, dict(params or {}), "per-event", "record",
                       "window")


def _days(kind: str, days: Iterable[int], seed: int, knobs: RegimeKnobs
          ) -> dict[int, pd.DataFrame]:
    """Each day's jobs (``experiments.data.load_days`` for whole days, with given knobs)."""
    return {d: jobs_in_window(synthesize(kind, days=1, start_day=d, seed=seed, knobs=knobs),
                              _day_window(d)).reset_index(drop=True) for d in days}


def case_window_summary(kind: str, seed: int, knobs: RegimeKnobs,
                        runs: Mapping[str, tuple[str, dict[str, Any]]] | None = None
                        ) -> pd.DataFrame:
    """The case study's summary of the paper window on ``kind`` under the baselines (or the
    labelled ``runs``: label -> (scheduler, parameters)), one row per run."""
    days = _days(kind, [CASE.paper_day], seed, knobs)
    win = paper_window(_trace(kind, [CASE.paper_day]), days, CASE, "window")
    rows = []
    for label, (scheduler, params) in (runs or {s: (s, {}) for s in BASELINES}).items():
        timelines, jobs, _ = case_runs(days, [win], _settings(seed, [scheduler],
                                                              {scheduler: params}),
                                       MIGRATION_COST)
        if len(timelines):
            rows.append(case_summary(timelines, jobs, [win]).assign(scheduler=label))
    return pd.concat(rows, ignore_index=True).assign(seed=seed)


def replay(kind: str, knobs: RegimeKnobs, seeds: Sequence[int]
           ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The baselines' runs (composition days at COMPOSITION_ETA, and the case day at the
    case's eta on a GFS kind) and the case window's summary (None on a Venus kind)."""
    runs, cases = [], []
    for seed in seeds:
        batches = [(d, COMPOSITION_ETA) for d in COMPOSITION_DAYS[kind]]
        if kind.startswith("gfs"):
            batches.append((CASE.paper_day, CASE.eta))
            cases.append(case_window_summary(kind, seed, knobs))
        days = _days(kind, {d for d, _ in batches}, seed, knobs)
        trace = _trace(kind, sorted(days))
        runs += [run_batch(days[d], RunKey(trace.spec.name, d, eta, MIGRATION_COST, seed), trace,
                           _settings(seed), log=lambda _line: None) for d, eta in batches]
    ok = pd.concat(runs, ignore_index=True)
    ok = ok[ok["status"] == "ok"]
    return ok, (pd.concat(cases, ignore_index=True) if cases else None)


def grid_points(grid: Mapping[str, Sequence[Any]] = GRID) -> list[RegimeKnobs]:
    """Every combination of the grid's values."""
    names = list(grid)
    return [RegimeKnobs(**dict(zip(names, values, strict=True)))
            for values in itertools.product(*(grid[n] for n in names))]


@dataclass(frozen=True)
class FitResult:
    """One kind's fit: best knobs, their objective on the fit seeds and the held-out seed,
    the before (identity knobs) and the achieved values, every grid point's objective."""

    kind: str
    knobs: RegimeKnobs
    objective_fit: float
    objective_held_out: float
    objective_before: float
    table: pd.DataFrame
    points: pd.DataFrame


def _values(got: Mapping[str, QuantityValue]) -> dict[str, Any]:
    return {k: (list(v.value) if isinstance(v.value, tuple) else v.value)
            for k, v in got.items()}


def fit_kind(kind: str, quantities: Sequence[RegimeQuantity],
             points: Sequence[RegimeKnobs], log: Callable[[str], None] = print) -> FitResult:
    """Score every point on FIT_SEEDS, keep the lowest (ties: the earlier point), and
    score it and the identity on HELD_OUT_SEED / FIT_SEEDS."""
    mine = scored(quantities, kind)
    rows, best = [], None
    for knobs in points:
        value, got = objective(mine, *replay(kind, knobs, FIT_SEEDS))
        rows.append({**knobs.record(), "objective": value})
        log(f"{kind} {knobs.record()}: objective {value:.3f}")
        if best is None or value < best[0]:
            best = (value, knobs, got)
    assert best is not None
    before_value, before = objective(mine, *replay(kind, RegimeKnobs(), FIT_SEEDS))
    held_value, held = objective(mine, *replay(kind, best[1], [HELD_OUT_SEED]))
    table = pd.DataFrame([{"id": q.id, "paper": list(q.paper) if isinstance(q.paper, tuple)
                           else q.paper, "before": _values(before)[q.id],
                           "fit": _values(best[2])[q.id], "held_out": _values(held)[q.id]}
                          for q in mine])
    return FitResult(kind, best[1], best[0], held_value, before_value, table,
                     pd.DataFrame(rows))


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 4)
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def fit_record(result: FitResult) -> dict[str, Any]:
    """YAML-ready entry of one kind (``read_knobs`` reads its ``knobs``)."""
    return {
        "base": REGIME_BASE[result.kind], "knobs": result.knobs.record(),
        "objective": {"before": _rounded(result.objective_before),
                      "fit": _rounded(result.objective_fit),
                      "held_out": _rounded(result.objective_held_out)},
        "achieved": {str(r["id"]): {k: _rounded(r[k]) for k in ("paper", "before", "fit",
                                                                 "held_out")}
                     for r in result.table.to_dict("records")},
        "grid": [{k: _rounded(v) for k, v in row.items()}
                 for row in result.points.to_dict("records")],
    }


def fft_variants(knobs: RegimeKnobs, seeds: Sequence[int] = (*FIT_SEEDS, HELD_OUT_SEED)
                 ) -> dict[str, dict[str, list[float]]]:
    """Partial nodes (time-weighted p10, p90) in the case window of gfs-paper-regime per
    FFT variant (and gfs) and seed."""
    out: dict[str, dict[str, list[float]]] = {label: {} for label in FFT_VARIANTS}
    for seed in seeds:
        summary = case_window_summary("gfs-paper-regime", seed, knobs, FFT_VARIANTS)
        for row in summary[summary["window"] == CASE_WINDOW].to_dict("records"):
            out[row["scheduler"]][f"seed {seed}"] = [float(row["partial_nodes_p10"]),
                                                     float(row["partial_nodes_p90"])]
    return out


def _header(command: str, objective_text: str) -> str:
    today = dt.datetime.now(dt.UTC).date().isoformat()
    return (
        "# The paper-regime traces' knobs (compass.traces.regime_knobs), fitted by\n"
        f"#   {command}\n"
        f"# on {today}: a grid over the knobs, the six baselines only (never COMPASS-ABS), "
        f"seeds {list(FIT_SEEDS)}\n"
        f"# fitted, seed {HELD_OUT_SEED} held out. Objective: {objective_text}\n"
        "# fft_variants: python -m compass.experiments.studies.regime.fit --fft-variants\n"
        "# SYNTHETIC sensitivity traces; docs/traces.md, \"The paper-regime variants\".\n")


OBJECTIVE_TEXT = ("sum over paper/regime.yaml's regime-role\n#   quantities of the distance "
                  "outside the paper's band / band width (stalled shares: value / 1).")


def write_yaml(record: Mapping[str, Any], path: Path, command: str) -> Path:
    """Write the fit's YAML with its provenance comment."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = yaml.safe_dump(dict(record), sort_keys=False, default_flow_style=None, width=100)
    path.write_text(_header(command, OBJECTIVE_TEXT) + body)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Fit both kinds (or, with ``--fft-variants``, add FFT's variants to the fitted YAML)."""
    parser = argparse.ArgumentParser(prog="python -m compass.experiments.studies.regime.fit",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=data_dir() / KNOBS_FILE,
                        help="the fit's YAML (default: data/calibration/paper_regime.yaml)")
    parser.add_argument("--regime", type=Path, default=repo_root() / "paper" / "regime.yaml",
                        help="the paper's regime quantities")
    parser.add_argument("--kinds", nargs="+", default=list(REGIME_BASE),
                        choices=list(REGIME_BASE), help="the kinds to fit (default: both)")
    parser.add_argument("--fft-variants", action="store_true",
                        help="measure FFT's variants in the fitted case window")
    args = parser.parse_args(argv)
    command = " ".join(["python -m compass.experiments.studies.regime.fit",
                        *(sys.argv[1:] if argv is None else argv)])
    started = cpu_seconds()
    if args.fft_variants:
        record = yaml.safe_load(args.out.read_text())
        knobs = read_knobs(args.out)["gfs-paper-regime"]
        record["fft_variants"] = {
            "what": "partial nodes [p10, p90] in the case window (GFS day 113, 21:00-22:30, "
                    "eta 0.95) of gfs-paper-regime, per seed",
            "paper_fft": [25, 50], **fft_variants(knobs)}
        record["fft_variants"]["cpu_s"] = round(cpu_seconds() - started, 1)
        write_yaml(record, args.out, record["command"])
        print(yaml.safe_dump(record["fft_variants"], sort_keys=False))
        return 0
    quantities = read_regime(args.regime)
    kinds = {}
    for kind in args.kinds:
        result = fit_kind(kind, quantities, grid_points(),
                          log=lambda line: print(line, file=sys.stderr, flush=True))
        kinds[kind] = fit_record(result)
    record = {"command": command, "fit_seeds": list(FIT_SEEDS), "held_out_seed": HELD_OUT_SEED,
              "cpu_s": round(cpu_seconds() - started, 1), "kinds": kinds}
    write_yaml(record, args.out, command)
    print(f"wrote {args.out} ({record['cpu_s']} CPU-s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
