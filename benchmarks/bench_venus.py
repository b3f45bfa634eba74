"""Scale: the whole real Venus trace as one continuous run under every scheduler.

Not a test: ``python benchmarks/bench_venus.py`` replays the per-job Venus table
(``data/mystous_gpu_scheduler/helios_trace.csv.gz``, about 125,000 jobs over 194 days, REAL
data) from an empty cluster to the last job's end, once per scheduler, each run in a forked
child process of its own, and prints per run: jobs, instances, nodes, CPU seconds (the
child's, with its solver children), wall seconds, peak resident memory of the child and
instance events (an arrival and a departure per instance) per CPU second. The peak is the
child's own maximum resident set: pages it shares with the parent count once it touches
them (the parent's own peak at the fork is ``baseline_mb``).

Sizing: the paper's, N(eta) of eq. 13 over the replayed jobs (``--eta``, 0.9), unless
``--nodes`` is given. Growth: ``--jobs K1 K2 ...`` replays the first K jobs (by arrival) for
each K, each on its own N(eta), and ``--node-factors`` replays the largest K again on
N(eta) times each factor; cost per job and per event staying flat across K says that
nothing grows quadratically in the jobs. ``--jobs`` also caps a quick check
(``--jobs 5000``). ``--timeout`` stops one run (recorded as ``timeout``, its CPU so far
unknown) so that a slow scheduler cannot hold the rest up. Writes
``benchmarks/results/venus.csv``.

The reader (``read_venus``) turns the table's rows (``job_id``, ``arrival_s``,
``service_sec``, ``gpu_count``) into canonical jobs: a job of g <= 8 GPUs is one instance of
g GPUs; a job of g GPUs, g a multiple of 8, is g / 8 instances of 8 GPUs; any other g (the
ten jobs of 12 and 14 GPUs) cannot be split into whole-node or sub-node instances and is
dropped and counted. Job ids are the row positions (the table's ids are text).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

from compass.experiments.runs import cpu_seconds
from compass.schedulers import available, create
from compass.sim.simulator import SimulationConfig, Simulator
from compass.traces import jobs_from_frame, validate_trace
from compass.traces.windows import cluster_size

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "data" / "mystous_gpu_scheduler" / "helios_trace.csv.gz"
OUT = Path(__file__).parent / "results"
#: GPUs per node of the paper's clusters (section 5.2).
G = 8
#: Every default scheduler of the pipeline, FFT and SIFOpt included, and the extension.
DEFAULT = ["gfs", "first-fit", "fgd", "cafgd", "mcg", "drr", "compass-abs", "fft", "sifopt",
           "compass-abs-plus", "gfs-backfill"]


def read_venus(path: Path = TRACE) -> tuple[pd.DataFrame, int]:
    """The canonical frame of the Venus table (in arrival order) and how many jobs were
    dropped because their GPU count is neither <= 8 nor a multiple of 8."""
    raw = pd.read_csv(path, usecols=["arrival_s", "service_sec", "gpu_count"])
    g = raw["gpu_count"].to_numpy(dtype=np.int64)
    keep = (g <= G) | (g % G == 0)
    raw, g = raw[keep], g[keep]
    wide = g > G
    frame = pd.DataFrame({
        "job_id": np.arange(len(raw), dtype=np.int64),
        "submit_time": raw["arrival_s"].to_numpy(dtype=float),
        "duration": raw["service_sec"].to_numpy(dtype=float),
        "num_instances": np.where(wide, g // G, 1).astype(np.int64),
        "gpus_per_instance": np.where(wide, G, g).astype(np.int64),
    })
    return frame, int((~keep).sum())


def _run(name: str, trace: pd.DataFrame, nodes: int, out: mp.Queue) -> None:
    """One run in this (forked) process; puts its figures on ``out``."""
    jobs = jobs_from_frame(validate_trace(trace))
    c0, w0 = cpu_seconds(), time.perf_counter()
    result = Simulator(jobs, create(name), SimulationConfig(nodes=nodes)).run()
    cpu, wall = cpu_seconds() - c0, time.perf_counter() - w0
    out.put({"cpu_s": cpu, "wall_s": wall, "instants": len(result.timeline),
             "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def run_isolated(name: str, trace: pd.DataFrame, nodes: int, timeout: float) -> dict:
    """``_run`` in a forked child: its figures, or ``status`` timeout / error."""
    ctx = mp.get_context("fork")
    out: mp.Queue = ctx.Queue()
    child = ctx.Process(target=_run, args=(name, trace, nodes, out))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.terminate()
        child.join()
        return {"status": "timeout"}
    if child.exitcode != 0 or out.empty():
        return {"status": f"error (exit {child.exitcode})"}
    return {"status": "ok", **out.get()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--schedulers", nargs="+", default=DEFAULT, choices=available())
    p.add_argument("--jobs", nargs="+", type=int, default=[0],
                   help="replay the first K jobs for each K (0: all of them)")
    p.add_argument("--node-factors", nargs="*", type=float, default=[],
                   help="replay the largest K again on N(eta) times each factor")
    p.add_argument("--eta", type=float, default=0.9)
    p.add_argument("--nodes", type=int, default=None, help="fixed size instead of N(eta)")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    p.add_argument("--trace", type=Path, default=TRACE)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()

    full, dropped = read_venus(args.trace)
    print(f"{args.trace.name}: {len(full):,} jobs kept, {dropped} dropped (12 or 14 GPUs)")
    caps = sorted(k if k > 0 else len(full) for k in args.jobs)
    cases = [(k, 1.0) for k in caps] + [(caps[-1], f) for f in args.node_factors]
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    for k, factor in cases:
        trace = full.iloc[:k].reset_index(drop=True)
        sized = args.nodes or cluster_size(trace, args.eta, G).nodes
        nodes = int(round(sized * factor))
        events = int(2 * trace["num_instances"].sum())
        days = (trace["submit_time"].iloc[-1] - trace["submit_time"].iloc[0]) / 86_400
        for name in args.schedulers:
            load = os.getloadavg()[0]
            fig = run_isolated(name, trace, nodes, args.timeout)
            row = {"scheduler": name, "jobs": k, "instances": events // 2, "days": days,
                   "nodes": nodes, "node_factor": factor, "load_1min": load,
                   "baseline_mb": baseline, **fig}
            if fig["status"] == "ok":
                row["events_per_cpu_s"] = events / fig["cpu_s"]
                row["cpu_us_per_job"] = 1e6 * fig["cpu_s"] / k
            rows.append(row)
            shown = (f"{fig['cpu_s']:8.1f} CPU-s {fig['wall_s']:8.1f} s "
                     f"{fig['peak_mb']:7.0f} MB {row['events_per_cpu_s']:10,.0f} ev/s"
                     if fig["status"] == "ok" else fig["status"])
            print(f"jobs={k:>7,} N={nodes:>5} {name:<18} {shown}  (load {load:.1f})",
                  flush=True)
            table = pd.DataFrame(rows).assign(python=platform.python_version())
            table.to_csv(args.out / "venus.csv", index=False)  # after every run
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.2f}"))


if __name__ == "__main__":
    main()
