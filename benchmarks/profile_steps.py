"""Where a pipeline run's CPU goes: by rule, by scheduler and by kind of step.

Not a test. A hook logs the CPU seconds of every Python process the run starts (Snakemake,
each job's script, papermill and the notebooks' kernels) when it exits; this script sums
them::

    python benchmarks/profile_steps.py hook /tmp/hook
    CPULOG=/tmp/cpu.jsonl PYTHONPATH=/tmp/hook snakemake --cores 2 --configfile config/quick.yaml
    python benchmarks/profile_steps.py table /tmp/cpu.jsonl results/quick --out steps.csv

The hook is a ``sitecustomize`` module (it runs in every Python process that finds it on
``PYTHONPATH``) that appends one JSON line per process at exit: its arguments and its own
CPU seconds (user + system, children not included, so nothing is counted twice). ``table``
gives the CPU by rule (a job's script, the notebooks, Snakemake itself), the simulation CPU
by scheduler (the ``cpu_s`` of every run the profile's ``part*.csv`` tables record) and by
kind of step: start-up of the simulate jobs (their logs' "start-up ... CPU-s", before the
first sample: Python, the script preamble, the imports), simulation (the runs), the rest of
the simulate jobs (loading days, metrics, writing), the other scripts, the notebooks and
Snakemake. A process killed before its exit handlers run is not in the log.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pandas as pd

HOOK = '''"""Profiling hook (benchmarks/profile_steps.py): log this process's CPU at exit."""
import atexit, json, os, resource, sys, time

_T0 = time.monotonic()


def _log():
    path = os.environ.get("CPULOG")
    if path:
        r = resource.getrusage(resource.RUSAGE_SELF)
        record = {"pid": os.getpid(), "argv": sys.argv[:4], "cpu": r.ru_utime + r.ru_stime,
                  "wall": time.monotonic() - _T0, "maxrss_mb": r.ru_maxrss / 1024}
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\\n")


atexit.register(_log)
'''
#: The simulate jobs' log line of their start-up (compass.experiments.pipeline.STARTUP).
STARTUP = re.compile(r"start-up (\d+\.\d+) CPU-s")
SCRIPT = re.compile(r"\.snakemake/scripts/tmp[^.]+\.(\w+)\.py$")


def rule_of(argv: list[str]) -> str:
    """The step a logged process belongs to, from its arguments."""
    text = " ".join(argv)
    if m := SCRIPT.search(argv[0] if argv else ""):
        return m.group(1)
    if "ipykernel" in text:
        return "notebooks"
    if "papermill" in text:
        return "notebooks"
    if "snakemake" in text:
        return "snakemake"
    return "other"


def table(log: Path, results: Path) -> dict[str, pd.DataFrame]:
    """The three tables of one run: by rule, by scheduler, by kind of step."""
    procs = pd.DataFrame([json.loads(line) for line in log.read_text().splitlines()])
    procs["rule"] = procs["argv"].map(rule_of)
    by_rule = (procs.groupby("rule")["cpu"].agg(["count", "sum"])
               .rename(columns={"count": "processes", "sum": "cpu_s"})
               .sort_values("cpu_s", ascending=False))
    parts = [pd.read_csv(p) for p in sorted(results.rglob("part*.csv"))]
    runs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["scheduler", "cpu_s"])
    by_scheduler = (runs.groupby("scheduler")["cpu_s"].agg(["count", "sum"])
                    .rename(columns={"count": "runs", "sum": "cpu_s"})
                    .sort_values("cpu_s", ascending=False))
    startup = sum(float(m.group(1)) for p in results.rglob("*.log")
                  if (m := STARTUP.search(p.read_text(errors="replace"))))
    simulation = float(runs["cpu_s"].sum())
    cpu = by_rule["cpu_s"]
    simulate = float(cpu.get("simulate", 0.0))
    kinds = {
        "simulate: start-up": startup,
        "simulate: simulation": simulation,
        "simulate: rest (days, metrics, writing)": simulate - startup - simulation,
        "other scripts": float(cpu.drop(["simulate", "notebooks", "snakemake"],
                                        errors="ignore").sum()),
        "notebooks (papermill and kernels)": float(cpu.get("notebooks", 0.0)),
        "snakemake": float(cpu.get("snakemake", 0.0)),
    }
    by_kind = pd.DataFrame({"cpu_s": kinds})
    by_kind.loc["total"] = float(cpu.sum())
    return {"rule": by_rule, "scheduler": by_scheduler, "kind": by_kind}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode", required=True)
    hook = sub.add_parser("hook", help="write the sitecustomize hook into a folder")
    hook.add_argument("folder", type=Path)
    tab = sub.add_parser("table", help="sum a run's log")
    tab.add_argument("log", type=Path)
    tab.add_argument("results", type=Path, help="the profile's results folder")
    tab.add_argument("--out", type=Path, default=None, help="CSV of the three tables")
    args = p.parse_args()
    if args.mode == "hook":
        args.folder.mkdir(parents=True, exist_ok=True)
        (args.folder / "sitecustomize.py").write_text(HOOK)
        return
    tables = table(args.log, args.results)
    for name, frame in tables.items():
        print(f"\nby {name}\n{frame.round(1).to_string()}")
    if args.out is not None:
        long = pd.concat([f[["cpu_s"]].assign(table=n).rename_axis("item").reset_index()
                          for n, f in tables.items()], ignore_index=True)
        long["cpu_s"] = long["cpu_s"].round(1)
        long[["table", "item", "cpu_s"]].to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
