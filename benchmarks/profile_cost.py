"""Extrapolate a pipeline profile's simulation cost from a measured run of another profile.

Not a test: ``python benchmarks/profile_cost.py results/quick config/medium.yaml`` reads the
measured runs of a results folder (``runs.csv``: each run's ``cpu_s``, its CPU seconds with
solver children, or ``wall_s`` in a folder from before ``cpu_s`` was recorded), turns them
into a cost per replayed job for each (trace, scheduler or variant), draws the target
profile's batches (its grid: every (trace, day, seed, eta, c)) to count their jobs, and sums
cost x jobs over every run of every batch. To that it adds the start-up of each of the
target's simulate jobs (several samples each, rule ``simulate``): the median of the
start-ups the folder's simulate logs measured (CPU before the first sample: Python, imports;
Snakemake's own bookkeeping of a job is not in it). It prints the estimate
in core-seconds and as wall time on a given number of cores, labelled as an extrapolation:
simulation and start-up only (no notebooks or case study), at the measured machine's speed.
Synthetic days are drawn, so this needs no real trace.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml

from compass.experiments.data import load_days
from compass.experiments.layout import Layout
from compass.experiments.pipeline import STARTUP, Plan, make_plan
from compass.experiments.results import Results


def cost_per_job(results: Path) -> pd.Series:
    """Measured seconds per replayed job, by (trace, scheduler), over a folder's ok runs:
    CPU seconds where recorded (wall seconds count waiting for a core on a shared machine)."""
    res = Results.load(results)
    runs = pd.concat([res.runs, res.variant_runs, res.extension_runs], ignore_index=True)
    ok = runs[runs["status"] == "ok"]
    seconds = "cpu_s" if "cpu_s" in ok and ok["cpu_s"].notna().all() else "wall_s"
    sums = ok.groupby(["trace", "scheduler"])[[seconds, "jobs"]].sum()
    return sums[seconds] / sums["jobs"]


def startup_per_job(results: Path) -> float | None:
    """Median start-up of a simulate job (CPU-seconds) over a folder's simulate logs; None
    where the logs hold none."""
    logs = (Layout(results).logs / "simulate").rglob("*.log")
    found = [float(m.group(1)) for log in logs
             if (m := STARTUP.search(log.read_text()))]
    return float(pd.Series(found).median()) if found else None


def batch_jobs(plan: Plan) -> pd.DataFrame:
    """One row per batch of a plan: trace, day, seed and its number of jobs."""
    rows, counts = [], {}
    for key in plan.grid:
        day = (key.trace, key.day, key.seed)
        if day not in counts:
            jobs = load_days(plan.traces[key.trace], key.seed, [key.day])[key.day]
            counts[day] = len(jobs)
        rows.append({"trace": key.trace, "day": key.day, "seed": key.seed, "eta": key.eta,
                     "cost": key.cost, "jobs": counts[day]})
    return pd.DataFrame(rows)


def estimate(results: Path, plan: Plan) -> pd.DataFrame:
    """Core-seconds per (trace, scheduler) of the target profile's batches."""
    rate = cost_per_job(results)
    batches = batch_jobs(plan)
    names = [label for label, _, _ in plan.config.run.runs()]
    rows = []
    for trace, part in batches.groupby("trace"):
        for name in names:
            per_job = rate.get((trace, name))
            rows.append({"trace": trace, "scheduler": name, "batches": len(part),
                         "jobs": int(part["jobs"].sum()),
                         "core_s": float(per_job * part["jobs"].sum())
                         if per_job is not None else float("nan")})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a measured results folder (runs.csv)")
    parser.add_argument("profile", type=Path, help="the profile to estimate (config/*.yaml)")
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--startup-from", type=Path, default=None,
                        help="a results folder whose simulate logs give the start-up per job "
                             "(default: the measured folder)")
    args = parser.parse_args()
    plan = make_plan(yaml.safe_load(args.profile.read_text()))
    table = estimate(args.results, plan)
    missing = table[table["core_s"].isna()]
    simulation = float(table["core_s"].sum())
    startup_from = args.startup_from or args.results
    per_job = startup_per_job(startup_from)
    startup = len(plan.jobs) * (per_job or 0.0)
    total = simulation + startup
    print(table.groupby("trace")[["batches", "jobs"]].first().to_string())
    print(table.groupby("scheduler")["core_s"].sum().sort_values(ascending=False).round(0)
          .to_string())
    print(f"start-up: {len(plan.jobs):,} simulate jobs x " + (
        f"{per_job:.2f} CPU-s = {startup:,.0f} core-seconds" if per_job is not None
        else f"unknown (no start-up in the logs of {startup_from}), not included"))
    print(f"EXTRAPOLATED cost of {args.profile}: {simulation:,.0f} core-seconds of simulation "
          f"+ {startup:,.0f} of start-up = {total:,.0f}, {total / args.cores / 60:,.1f} min on "
          f"{args.cores} cores (rates measured in {args.results}, start-up in {startup_from}; "
          f"notebooks, Snakemake's own work and the case study not included)")
    if len(missing):
        print("no measured rate for: " + ", ".join(
            f"{t}/{s}" for t, s in missing[["trace", "scheduler"]].itertuples(index=False)))


if __name__ == "__main__":
    main()
