"""Against which FFT? COMPASS-ABS's leads over FFT as FFT's round length grows (section 6;
docs/baselines.md, "FFT").

The paper gives FFT no round length; ours re-solves an optimal repacking of the running
jobs every 360 s (Gavel's round), an assumption that decides most of section 6's verdicts,
FFT being the strongest baseline in most groups. This experiment replays the overall
experiment's samples of a few days (profile key ``experiments.fft_breakeven``) at its eta
and the profile's c under FFT at each round length of the sweep, and gives per trace and
round length COMPASS-ABS's paired AJCT and AGU leads over FFT with their intervals
(``breakeven_table``), the round length at which each lead crosses zero (``crossings``), and
``fft-paper``: the round length whose FFT matches what the paper says of FFT beside the
other baselines, its partial nodes about half theirs (section 6.6), fitted to nothing of
COMPASS-ABS's (``paper_fit``). Rounds the batches already run (FFT's own, a variant that
changes its round only) are read from the runs table, not run again.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compass.experiments.comparisons import overall_runs
from compass.experiments.config import (
    BreakEvenConfig,
    PipelineConfig,
    ResolvedTrace,
    RunSettings,
)
from compass.experiments.data import cluster_nodes, load_days
from compass.experiments.grid import subset_days
from compass.experiments.results import Results
from compass.experiments.runs import cpu_seconds, simulate_window
from compass.experiments.stats import paired_lead
from compass.schedulers.fft import FFT
from compass.sim.metrics import LOWER_IS_BETTER

#: The scheduler whose round length is swept.
SCHEDULER = "fft"
#: The leads of the table: metric -> (unit, scale of the metric's value).
LEAD_METRICS: dict[str, tuple[str, float]] = {"ajct": ("s", 1.0), "agu": ("pp", 100.0)}
#: Stems of the products under the tables and figures folders.
BREAKEVEN_TABLE = "fft_breakeven"
FIT_TABLE = "fft_paper_fit"
BREAKEVEN_FIGURE = "fft_breakeven"
COLUMNS = ["trace", "metric", "round_s", "lead", "ci_low", "ci_high", "n", "unit", "source"]
#: Columns of a sweep run's row (rule ``fft_breakeven_runs``).
RUN_COLUMNS = ["trace", "day", "seed", "eta", "cost", "scheduler", "round_s", "status",
               "error", "nodes", "afr", "ajct", "agu", "mean_queue_time",
               "migrations_per_job", "max_partial_nodes", "cpu_s"]
#: The label of the fitted FFT.
PAPER_FFT = "fft-paper"
#: The claims whose paper bands the fit reads: FFT's partial nodes and the five others'
#: in the case window (section 6.6), never a number of COMPASS-ABS's.
FIT_CLAIMS = ("case-partial-fft", "case-partial-nonmigrating")


def breakeven_days(config: BreakEvenConfig, trace: ResolvedTrace) -> tuple[int, ...]:
    """The sweep's days of a trace: its selection among the replayed days, else all."""
    return subset_days(config.days.get(trace.name), trace)


def breakeven_samples(cfg: PipelineConfig, traces: Mapping[str, ResolvedTrace]
                      ) -> dict[str, list[tuple[int, int]]]:
    """Per trace of the sweep, its (day, seed) samples: the sweep's days, every sample seed
    of the trace (the overall experiment's samples of those days)."""
    sweep = cfg.experiments.fft_breakeven
    if sweep is None:
        return {}
    return {t: [(d, s) for d in breakeven_days(sweep, traces[t])
                for s in cfg.sample_seeds(traces[t])] for t in sweep.traces}


def default_round() -> float:
    """FFT's round length when a profile gives none."""
    return float(inspect.signature(FFT).parameters["round_s"].default)


def existing_rounds(run: RunSettings) -> dict[float, str]:
    """Round length -> label of a run every batch already makes with FFT at it: FFT's own
    and each variant that changes nothing but its round length."""
    out: dict[float, str] = {}
    for label, scheduler, params in run.runs():
        if scheduler == SCHEDULER and set(params) <= {"round_s"}:
            out.setdefault(float(params.get("round_s", default_round())), label)
    return out


def sweep_rounds(config: BreakEvenConfig, run: RunSettings) -> tuple[float, ...]:
    """The round lengths the sweep itself must run (those no batch runs already)."""
    have = existing_rounds(run)
    return tuple(r for r in config.rounds_s if r not in have)


def simulate_breakeven(trace: Mapping[str, Any], run: Mapping[str, Any],
                       samples: Sequence[Sequence[int]], rounds: Sequence[float], eta: float,
                       cost: float, canonical: Path | None) -> pd.DataFrame:
    """Rule ``fft_breakeven_runs``: each (day, seed) sample of one trace under FFT at each
    round length, on the cluster the batches size for it (N(eta), eq. 13), at c = ``cost``;
    one row per run (``RUN_COLUMNS``). A run that raises is recorded (profile key
    ``on_error: record``)."""
    resolved, settings = ResolvedTrace.from_record(trace), RunSettings.from_record(run)
    rows = []
    for day, seed in samples:
        jobs = load_days(resolved, seed, [day], canonical)[day]
        size = cluster_nodes(jobs, resolved.spec, day, eta, settings.demand)
        mine = replace(settings, seed=seed)
        for round_s in rounds:
            started = cpu_seconds()
            row: dict[str, Any] = {"trace": resolved.name, "day": day, "seed": seed, "eta": eta,
                                   "cost": cost, "scheduler": SCHEDULER, "round_s": round_s,
                                   "nodes": size.nodes, "error": ""}
            params = {**settings.scheduler_params.get(SCHEDULER, {}), "round_s": round_s}
            try:
                s = simulate_window(jobs, SCHEDULER, size.nodes, cost, mine, params).summary
                row.update(status="ok", **{k: s[k] for k in (
                    "afr", "ajct", "agu", "mean_queue_time", "migrations_per_job",
                    "max_partial_nodes")})
            except Exception as exc:  # recorded, reported
                if settings.on_error == "raise":
                    raise
                row.update(status="error", error=f"{type(exc).__name__}: {exc}")
            row["cpu_s"] = cpu_seconds() - started
            rows.append(row)
            print(f"{resolved.name} day {day} seed {seed} round {round_s:g} s: "
                  f"{row['status']} in {row['cpu_s']:.1f} CPU-s ({time.strftime('%X')})")
    return pd.DataFrame(rows).reindex(columns=RUN_COLUMNS)


def _fft_runs(res: Results, sweep: pd.DataFrame, config: BreakEvenConfig) -> pd.DataFrame:
    """FFT's runs at every round length of the sweep on the overall experiment's runs of the
    sweep's days: the sweep's own, and those the batches made (``existing_rounds``)."""
    every = pd.concat([overall_runs(res), overall_runs(replace(res, runs=res.variant_runs))],
                      ignore_index=True) if len(res.variant_runs) else overall_runs(res)
    every = every[every["trace"].isin(config.traces)]
    made = []
    for round_s, label in existing_rounds(res.config.run).items():
        if round_s in config.rounds_s:
            made.append(every[every["scheduler"] == label].assign(round_s=round_s,
                                                                  source="batches"))
    own = sweep[sweep["status"] == "ok"].assign(source="sweep")
    return pd.concat([*made, own], ignore_index=True)


def sample_runs(res: Results, config: BreakEvenConfig, trace: str) -> pd.DataFrame:
    """The overall experiment's runs of one trace on the sweep's days (its samples, every
    scheduler)."""
    runs = overall_runs(res)
    days = breakeven_days(config, res.traces[trace])
    return runs[(runs["trace"] == trace) & runs["day"].isin(days)]


def breakeven_table(res: Results, sweep: pd.DataFrame, config: BreakEvenConfig
                    ) -> pd.DataFrame:
    """Per trace, metric (``LEAD_METRICS``) and round length: COMPASS-ABS's lead over FFT at
    that round, paired over the samples both completed, with its 95 % bootstrap interval
    (``stats.paired_lead``; AGU in percentage points); ``source`` says whether FFT's runs
    came from the sweep or from the batches."""
    fft = _fft_runs(res, sweep, config)
    ref_name = res.config.reference
    rows = []
    for trace in config.traces:
        runs = sample_runs(res, config, trace)
        ref = runs[runs["scheduler"] == ref_name].set_index(["day", "seed"])
        for round_s in config.rounds_s:
            theirs = fft[(fft["trace"] == trace) & np.isclose(fft["round_s"], round_s)]
            theirs = theirs[theirs["day"].isin(runs["day"].unique())].set_index(["day", "seed"])
            source = ", ".join(sorted(set(theirs["source"]))) if len(theirs) else "none"
            for metric, (unit, scale) in LEAD_METRICS.items():
                pair = pd.concat([ref[metric].rename("ref"), theirs[metric].rename("fft")],
                                 axis=1, join="inner").dropna()
                row = {"trace": trace, "metric": metric, "round_s": round_s, "lead": math.nan,
                       "ci_low": math.nan, "ci_high": math.nan, "n": len(pair), "unit": unit,
                       "source": source}
                if len(pair):
                    iv = paired_lead(pair["ref"].to_numpy(), pair["fft"].to_numpy(),
                                     LOWER_IS_BETTER[metric]).interval
                    row.update(lead=iv.value * scale, ci_low=iv.low * scale,
                               ci_high=iv.high * scale)
                rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def crossing(rounds: Sequence[float], values: Sequence[float]) -> float:
    """The round length at which ``values`` (one per round, in increasing round order) first
    reach zero from below, interpolated in log(round); the first round when they start at
    or above zero; NaN when they never reach it."""
    r = np.asarray(rounds, dtype=float)
    v = np.asarray(values, dtype=float)
    keep = ~np.isnan(v)
    r, v = r[keep], v[keep]
    if not v.size:
        return math.nan
    if v[0] >= 0:
        return float(r[0])
    for i in range(1, v.size):
        if v[i] >= 0 > v[i - 1]:
            t = -v[i - 1] / (v[i] - v[i - 1])
            return float(math.exp(math.log(r[i - 1]) + t * (math.log(r[i]) - math.log(r[i - 1]))))
    return math.nan


def crossings(table: pd.DataFrame) -> pd.DataFrame:
    """Per trace and metric: the round length at which the lead crosses zero (``round_s``),
    and the range in which its interval's bounds do (``earliest``: where the upper bound
    reaches zero; ``latest``: where the lower bound does), NaN where a curve stays below
    zero over the sweep."""
    rows = []
    for (trace, metric), part in table.groupby(["trace", "metric"], sort=False):
        part = part.sort_values("round_s")
        r = part["round_s"].to_numpy()
        rows.append({"trace": trace, "metric": metric,
                     "round_s": crossing(r, part["lead"].to_numpy()),
                     "earliest": crossing(r, part["ci_high"].to_numpy()),
                     "latest": crossing(r, part["ci_low"].to_numpy()),
                     "swept": f"{r.min():g}-{r.max():g} s", "unit": part["unit"].iloc[0]})
    return pd.DataFrame(rows)


def crossing_text(row: Any) -> str:
    """One crossing as the report says it (``crossings``' row)."""
    name = row.metric.upper()
    first = float(str(row.swept).split("-")[0])
    if math.isnan(row.round_s):
        return (f"{name} on {row.trace}: the lead stays below zero over the sweep "
                f"({row.swept})")

    def at(v: float) -> str:
        if math.isnan(v):
            return "beyond the sweep"
        return f"at or below {v:,.0f} s" if v <= first else f"at {v:,.0f} s"

    where = "is at or above zero from the first round" if row.round_s <= first else (
        f"crosses zero at about {row.round_s:,.0f} s")
    return (f"{name} on {row.trace}: {where} (its interval's upper bound reaches zero "
            f"{at(row.earliest)}, its lower bound {at(row.latest)}; swept {row.swept})")


def paper_band(claims: Sequence[Any], claim_id: str) -> tuple[float, float]:
    """The paper's ``within`` band of one claim of paper/claims.yaml."""
    claim = next(c for c in claims if c.id == claim_id)
    lo, hi = claim.check["within"]
    return float(lo), float(hi)


def paper_fit(res: Results, sweep: pd.DataFrame, config: BreakEvenConfig,
              claims: Sequence[Any]) -> pd.DataFrame:
    """``fft-paper``: per round length, FFT's peak partial nodes over the day beside the
    five other baselines' (means over the sweep's samples), their ratio, and the paper's
    ratio in the case window (FFT's band over the five's, ``FIT_CLAIMS``: the middles, and
    the widest and narrowest readings); ``chosen`` marks the round whose ratio is nearest
    the paper's middle, ``reached`` whether it falls inside the paper's range. Whole days'
    peaks stand in for the case window's bands: no window of ours is replayed per round."""
    fft_lo, fft_hi = paper_band(claims, FIT_CLAIMS[0])
    five_lo, five_hi = paper_band(claims, FIT_CLAIMS[1])
    target = ((fft_lo + fft_hi) / 2) / ((five_lo + five_hi) / 2)
    low, high = fft_lo / five_hi, fft_hi / five_lo
    fft = _fft_runs(res, sweep, config)
    others = [b for b in res.config.baselines if b != SCHEDULER]
    rows = []
    for round_s in config.rounds_s:
        mine, five = [], []
        for trace in config.traces:
            runs = sample_runs(res, config, trace)
            theirs = fft[(fft["trace"] == trace) & np.isclose(fft["round_s"], round_s)
                         & fft["day"].isin(runs["day"].unique())]
            mine.append(theirs["max_partial_nodes"])
            five.append(runs[runs["scheduler"].isin(others)]["max_partial_nodes"])
        m, f = pd.concat(mine).mean(), pd.concat(five).mean()
        rows.append({"round_s": round_s, "fft_peak_partial": m, "others_peak_partial": f,
                     "ratio": m / f if f else math.nan, "paper_ratio": target,
                     "paper_low": low, "paper_high": high})
    table = pd.DataFrame(rows)
    best = (table["ratio"] - target).abs().idxmin() if table["ratio"].notna().any() else None
    table["chosen"] = table.index == best
    table["reached"] = table["ratio"].between(low, high)
    return table


def breakeven_figure(table: pd.DataFrame, caption: str) -> Any:
    """COMPASS-ABS's AJCT and AGU leads over FFT against FFT's round length (log scale),
    one line per trace with its 95 % intervals; zero marked (a matplotlib figure;
    matplotlib is imported here, not with the module the Snakefile reads)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = list(LEAD_METRICS)
    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 3.6))
    for ax, metric in zip(np.atleast_1d(axes), metrics):
        part = table[table["metric"] == metric]
        for trace, rows in part.groupby("trace", sort=False):
            rows = rows.sort_values("round_s")
            err = np.vstack([rows["lead"] - rows["ci_low"], rows["ci_high"] - rows["lead"]])
            ax.errorbar(rows["round_s"], rows["lead"], yerr=err, marker="o", capsize=3,
                        label=str(trace))
        ax.axhline(0.0, color="0.3", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("FFT round length (s)")
        ax.set_ylabel(f"COMPASS-ABS lead over FFT, {metric.upper()} "
                      f"({LEAD_METRICS[metric][0]})")
        ax.legend(fontsize=8)
    fig.suptitle(caption, fontsize=8)
    fig.tight_layout()
    return fig
