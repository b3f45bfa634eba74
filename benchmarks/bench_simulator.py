"""Simulator throughput: instance events per second per scheduler at N = 100, 1,000, 10,000.

Not a test: run ``python benchmarks/bench_simulator.py`` (or ``python3 tasks.py bench``).
Measures ``Simulator.run`` only (trace generation and validation excluded), single
process, on a steady SYNTHETIC stream at 90 % offered load; writes
benchmarks/results/simulator.csv. Targets (issue 2): >= 100,000 instance-events/s for
gfs at N = 1,000; per-event cost at N = 10,000 within 2x of N = 100.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import pandas as pd
from benchmarks_common import filled_stream, instance_events

from compass.schedulers import create
from compass.simulator import SimulationConfig, Simulator
from compass.traces import jobs_from_frame, validate_trace

OUT = Path(__file__).parent / "results"


def bench(scheduler: str, nodes: int, num_jobs: int, repeat: int) -> dict:
    trace = validate_trace(filled_stream(nodes, num_jobs))
    jobs = jobs_from_frame(trace)
    best = float("inf")
    for _ in range(repeat):
        sim = Simulator(jobs, create(scheduler), SimulationConfig(nodes=nodes))
        t0 = time.perf_counter()
        sim.run()
        best = min(best, time.perf_counter() - t0)
    events = instance_events(trace)
    return {"scheduler": scheduler, "nodes": nodes, "jobs": num_jobs, "instance_events": events,
            "seconds": best, "events_per_s": events / best, "us_per_event": 1e6 * best / events,
            "python": platform.python_version()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--schedulers", nargs="+", default=["gfs"])
    p.add_argument("--nodes", nargs="+", type=int, default=[100, 1000, 10000])
    p.add_argument("--jobs", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    rows = [bench(s, n, args.jobs, args.repeat) for s in args.schedulers for n in args.nodes]
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "simulator.csv", index=False)
    print(table.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))


if __name__ == "__main__":
    main()
