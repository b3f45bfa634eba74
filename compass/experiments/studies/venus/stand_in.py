"""How close was ``venus-synth``? The SYNTHETIC stand-in beside REAL Venus on the same days.

Until the real Venus jobs shipped, every Venus verdict rested on ``venus-synth``. This table
puts the stand-in's days (each profile seed a sample) beside the real days of the same
index, so a reader can tell how far a stand-in built the same way (``gfs-synth``) may be
trusted: jobs and GPU-seconds per day, per-instance g shares, per-job w shares, duration
quantiles, arrivals by hour of day, and, when the profile replays ``venus-synth`` as a
sensitivity regime, the schedulers' AFR and AGU at the overall eta on both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from compass.experiments.data import load_days
from compass.experiments.results import Results
from compass.experiments.tables import write_table

STAND_IN_TABLE = "venus_synth_vs_real"
#: The stand-in kind and the trace it stands for.
STAND_IN, TRACE = "venus-synth", "venus"
COLUMNS = ["group", "statistic", "real", "venus_synth", "ratio"]
#: Per-job instance-count buckets (w).
W_BUCKETS = ((1, 1), (2, 4), (5, 8), (9, 16), (17, 10_000))
QUANTILES = (0.1, 0.5, 0.9, 0.99)


def _pooled(days: Sequence[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(list(days), ignore_index=True) if days else pd.DataFrame()


def workload_stats(days: Sequence[pd.DataFrame]) -> dict[tuple[str, str], float]:
    """The workload statistics of a set of day frames (each one sample: a day, or a day
    under one seed): per-day means, then shares and quantiles pooled over the jobs."""
    jobs = _pooled(days)
    gpus = jobs["num_instances"] * jobs["gpus_per_instance"]
    out: dict[tuple[str, str], float] = {
        ("per day", "jobs"): float(np.mean([len(d) for d in days])),
        ("per day", "GPU-seconds"): float(np.mean(
            [(d["num_instances"] * d["gpus_per_instance"] * d["duration"]).sum() for d in days])),
    }
    instances = jobs.groupby("gpus_per_instance")["num_instances"].sum()
    for g in range(1, 9):
        out[("instance share by g", f"g = {g}")] = float(instances.get(g, 0) / instances.sum())
    for lo, hi in W_BUCKETS:
        name = f"w = {lo}" if lo == hi else (f"w >= {lo}" if hi >= 10_000 else f"w = {lo}-{hi}")
        share = ((jobs["num_instances"] >= lo) & (jobs["num_instances"] <= hi)).mean()
        out[("job share by w", name)] = float(share)
    out[("duration (s)", "mean")] = float(jobs["duration"].mean())
    for q in QUANTILES:
        out[("duration (s)", f"p{q * 100:g}")] = float(jobs["duration"].quantile(q))
    out[("GPU-seconds", "share of jobs over 8 GPUs")] = float(
        (gpus * jobs["duration"])[gpus > 8].sum() / (gpus * jobs["duration"]).sum())
    hours = ((jobs["submit_time"] % 86_400) // 3600).astype(int)
    share = hours.value_counts(normalize=True).reindex(range(24), fill_value=0.0)
    for h in range(24):
        out[("arrivals by hour (share of jobs)", f"{h:02d}h")] = float(share[h])
    return out


def outcome_stats(runs: pd.DataFrame, days: Sequence[int], eta: float, cost: float
                  ) -> dict[tuple[str, str], float]:
    """Each scheduler's mean AFR and AGU over the Venus runs of ``days`` at ``eta``, ``c``."""
    mine = runs[(runs["trace"] == TRACE) & runs["day"].isin(list(days)) & (runs["eta"] == eta)
                & (runs["cost"] == cost) & (runs["status"] == "ok")]
    means = mine.groupby("scheduler", sort=True)[["afr", "agu"]].mean()
    return {(f"{metric.upper()} at eta {eta:g}", str(scheduler)): float(value)
            for metric in ("afr", "agu") for scheduler, value in means[metric].items()}


def stand_in_table(real: Mapping[tuple[str, str], float],
                   synth: Mapping[tuple[str, str], float]) -> pd.DataFrame:
    """The two sets of statistics side by side (rows of either), with synth / real; and the
    arrivals' total-variation distance (half the summed |difference| of hourly shares)."""
    keys = list(dict.fromkeys([*real, *synth]))
    rows = [(g, s, real.get((g, s), np.nan), synth.get((g, s), np.nan)) for g, s in keys]
    frame = pd.DataFrame(rows, columns=COLUMNS[:4])
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["ratio"] = frame["venus_synth"] / frame["real"].replace(0, np.nan)
    hourly = frame["group"].str.startswith("arrivals by hour")
    if hourly.any():
        tv = 0.5 * float((frame.loc[hourly, "real"] - frame.loc[hourly, "venus_synth"]).abs().sum())
        frame.loc[len(frame)] = ["arrivals by hour (share of jobs)",
                                 "total-variation distance", 0.0, tv, np.nan]
    return frame


def stand_in_regime(regimes: Mapping[str, Mapping[str, str]]) -> str | None:
    """The profile's regime that replays Venus on ``venus-synth``, if any."""
    return next((name for name, kinds in regimes.items() if kinds.get(TRACE) == STAND_IN), None)


def write_stand_in(results: str | Path, regime_results: str | Path | None,
                   tables: str | Path) -> list[Path]:
    """Rule ``stand_in``: ``venus_synth_vs_real.csv`` (and .md) for a profile whose Venus is
    REAL: its replayed days from the canonical CSV beside ``venus-synth`` drawn on the same
    days with the profile's seeds (the regime's runs give the outcome rows)."""
    res = Results.load(results)
    trace = res.traces[TRACE]
    if trace.origin != "real":
        raise ValueError(f"{TRACE} is {trace.label}: the stand-in is compared with REAL days")
    days = trace.days
    canonical = res.layout.canonical(TRACE)
    real_days = list(load_days(trace, res.config.seed, days, canonical).values())
    synth_trace = replace(trace, spec=replace(trace.spec, real=None, synthetic=STAND_IN),
                          origin="synthetic", source_index=0)
    synth_days = [frame for seed in range(res.config.seed, res.config.seed + res.config.samples)
                  for frame in load_days(synth_trace, seed, days).values()]
    real, synth = workload_stats(real_days), workload_stats(synth_days)
    x = res.config.experiments
    if regime_results is not None:
        real.update(outcome_stats(res.runs, days, x.overall_eta, res.config.migration_cost))
        theirs = Results.load(regime_results)
        synth.update(outcome_stats(theirs.runs, days, x.overall_eta, res.config.migration_cost))
    table = stand_in_table(real, synth)
    return write_table(table, tables, STAND_IN_TABLE,
                       f"venus-synth (SYNTHETIC, {res.seeds_label}) beside {trace.label} on "
                       f"the same {len(days)} day(s) | profile {res.config.profile}")
