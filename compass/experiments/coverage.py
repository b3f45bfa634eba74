"""Section 6.4 (Table 3): WCC coverage rho per day, its buckets, and top-1 frequency.

rho is the share of a day window during which the Workload Composition Condition (eq. 9)
holds for the active instances of the day's jobs (``compass.traces.windows.wcc_coverage``:
a property of the trace, the same for every scheduler and eta). Table 3 groups (day, eta)
pairs into rho buckets and counts, per bucket and metric, the pairs on which COMPASS-ABS
ranks top-1 among the seven schedulers (``aggregate.top1``; SIFOpt is not ranked).
"""

from __future__ import annotations

import pandas as pd

from compass.experiments.aggregate import METRICS, top1
from compass.experiments.results import Results

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("BUCKETS", "coverage_pairs", "rho_bucket", "top1_table", "wcc_days")

#: Table 3's buckets, highest first: (label, lower bound, upper bound exclusive).
BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("1.0", 1.0, float("inf")), ("[0.99, 1)", 0.99, 1.0), ("[0.9, 0.99)", 0.9, 0.99),
    ("[0.7, 0.9)", 0.7, 0.9), ("[0.1, 0.7)", 0.1, 0.7), ("[0, 0.1)", 0.0, 0.1),
)
#: rho this close to 1 counts as 1 (float sums over a day's intervals).
RHO_ONE = 1e-12


def rho_bucket(rho: float) -> str:
    """The Table 3 bucket of a coverage value."""
    rho = 1.0 if rho >= 1.0 - RHO_ONE else rho
    for label, lo, hi in BUCKETS:
        if lo <= rho < hi:
            return label
    raise ValueError(f"rho {rho} outside [0, 1]")


def wcc_days(res: Results) -> pd.DataFrame:
    """One row per replayed day of the coverage traces: jobs, rho and its bucket."""
    days = pd.concat([res.day_table(t)[["trace", "day", "jobs", "rho"]]
                      for t in res.config.experiments.wcc_traces], ignore_index=True)
    days["bucket"] = days["rho"].map(rho_bucket)
    return days


def coverage_pairs(res: Results) -> pd.DataFrame:
    """One row per (trace, day, eta) pair and metric: rho, bucket, defined, top1. rho is a
    property of a day as the day table draws it (the base seed), so the pairs are the base
    seed's replays."""
    x, cfg = res.config.experiments, res.config
    runs = res.select(x.wcc_traces, x.wcc_etas, [cfg.migration_cost])
    runs = runs[runs["seed"] == cfg.seed]
    flags = top1(runs, cfg.reference, cfg.ranked, ["trace", "day", "eta"])
    pairs = flags.merge(wcc_days(res)[["trace", "day", "rho", "bucket"]], on=["trace", "day"],
                        how="left")
    return pairs[["trace", "day", "eta", "rho", "bucket", "metric", "defined", "top1"]]


def top1_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Table 3: per trace and bucket, pairs and top-1 count (share of defined pairs)."""
    rows = []
    for trace, group in pairs.groupby("trace", sort=False):
        buckets = [(label, group[group["bucket"] == label]) for label, _, _ in BUCKETS]
        for label, part in [*buckets, ("Total", group)]:
            n_pairs = part[["day", "eta"]].drop_duplicates().shape[0]
            if n_pairs == 0 and label != "Total":
                continue
            total = group[["day", "eta"]].drop_duplicates().shape[0]
            row = {"trace": trace, "bucket": label, "pairs": n_pairs,
                   "share of pairs": n_pairs / total if total else float("nan")}
            for metric in METRICS:
                m = part[(part["metric"] == metric) & part["defined"]]
                row[f"{metric} top-1"] = int(m["top1"].sum())
                row[f"{metric} top-1 share"] = m["top1"].mean() if len(m) else float("nan")
            rows.append(row)
    return pd.DataFrame(rows)
