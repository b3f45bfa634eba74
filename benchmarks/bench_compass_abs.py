"""COMPASS-ABS decision time per event at N = 100, 1,000, 10,000 nodes; migrations per job.

Not a test: run ``python benchmarks/bench_compass_abs.py``. A SYNTHETIC stream of job
arrivals and departures keeps the cluster near ``--load`` of its GPUs with the GFS trace's
instance mix (Table 1: 64 % 1-GPU, 30 % 8-GPU, 6 % 2/4-GPU, 0.05 % FUF); it satisfies the
WCC after every event by construction (an FUF arrival or a 1-GPU departure that would
break it is skipped). There is no queue: a refused arrival is dropped. The clock runs
around ``place`` and ``on_departure`` only (Place/Remove + Compact); applying the decision
to the ``ClusterState`` is not timed. Writes benchmarks/results/compass_abs.csv.
Targets (issue 3): p99 < 1 ms at N = 10,000; growth from N = 100 to 10,000 under 2x.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from pathlib import Path

import pandas as pd
from benchmarks_common import percentiles

from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.fragmentation import wcc_holds
from compass.schedulers import create

OUT = Path(__file__).parent / "results"
#: Instance-size shares (GFS column of Table 1; FF and FUF split evenly).
SIZE_SHARES = {1: 64.16, 2: 3.035, 4: 3.035, 8: 29.73, 3: 0.0125, 5: 0.0125, 6: 0.0125,
               7: 0.0125}


class Stream:
    """Arrivals and departures around a target load, WCC after every event."""

    def __init__(self, nodes: int, load: float, seed: int) -> None:
        self.rng = random.Random(seed)
        self.target = load * nodes * 8
        self.max_w = {g: (8 if g == 1 else 4) for g in SIZE_SHARES}
        self.next_id = 0

    def job(self) -> Job:
        g = self.rng.choices(list(SIZE_SHARES), weights=list(SIZE_SHARES.values()))[0]
        w = min(1 + int(self.rng.expovariate(0.7)), self.max_w[g])
        self.next_id += 1
        return Job(self.next_id, 0.0, 1.0, w, g)

    def wants_arrival(self, used: int) -> bool:
        return used < self.target * 0.97 or (used < self.target and self.rng.random() < 0.5)


def wcc_after(state: ClusterState, job: Job, sign: int) -> bool:
    counts = list(state.counts)
    counts[job.gpus_per_instance] += sign * job.num_instances
    return wcc_holds(counts)


def timed(call, *args):
    """((wall, CPU) microseconds, result) of one call; CPU time ignores preemption by
    other processes on a shared machine."""
    c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
    result = call(*args)
    t1, c1 = time.perf_counter_ns(), time.thread_time_ns()
    return ((t1 - t0) / 1e3, (c1 - c0) / 1e3), result


def bench(name: str, nodes: int, events: int, load: float, seed: int) -> dict:
    """Time ``events`` decisions once the cluster first reaches the target load."""
    state = ClusterState(nodes)
    scheduler = create(name)
    scheduler.reset(state, [])
    stream = Stream(nodes, load, seed)
    running: list[Job] = []
    times: list[tuple[float, float]] = []
    admitted = refused = moves = 0
    warm = False
    while len(times) < events:
        if not running or stream.wants_arrival(state.used_gpus):
            job = stream.job()
            if not wcc_after(state, job, +1):
                continue
            elapsed, placement = timed(scheduler.place, job, state, 0.0)
            decisions = () if placement is None else placement.moves
            if placement is None:
                refused += warm
                warm = True
            else:
                state.place_job(job.job_id, job.gpus_per_instance, placement.nodes)
                running.append(job)
                admitted += warm
        else:
            k = stream.rng.randrange(len(running))
            job = running[k]
            if not wcc_after(state, job, -1):
                continue
            running[k] = running[-1]
            running.pop()
            state.release_job(job.job_id)
            elapsed, decisions = timed(scheduler.on_departure, job, state, 0.0)
        for m in decisions:
            state.move(m.instance, m.dst)
        warm = warm or state.used_gpus >= stream.target * 0.97
        if warm:
            times.append(elapsed)
            moves += len(decisions)
    wall = percentiles([t for t, _ in times])
    cpu = percentiles([c for _, c in times])
    return {"scheduler": name, "nodes": nodes, "events": events, "load": load,
            "p50_us": wall["p50"], "p99_us": wall["p99"], "max_us": wall["max"],
            "cpu_p50_us": cpu["p50"], "cpu_p99_us": cpu["p99"], "jobs_admitted": admitted,
            "arrivals_refused": refused, "instance_moves": moves,
            "moves_per_job": moves / max(admitted, 1),
            "gpu_util_end": state.used_gpus / state.total_gpus,
            "python": platform.python_version()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--schedulers", nargs="+", default=["compass-abs", "compass-abs-paper"])
    p.add_argument("--nodes", nargs="+", type=int, default=[100, 1000, 10000])
    p.add_argument("--events", type=int, default=20000)
    p.add_argument("--load", type=float, default=0.9)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rows = [bench(s, n, args.events, args.load, args.seed)
            for s in args.schedulers for n in args.nodes]
    table = pd.DataFrame(rows)
    for name, group in table.groupby("scheduler"):
        ends = group.sort_values("nodes")
        print(f"{name}: p99 growth N={ends.nodes.iloc[0]} -> {ends.nodes.iloc[-1]}: "
              f"{ends.p99_us.iloc[-1] / ends.p99_us.iloc[0]:.2f}x wall, "
              f"{ends.cpu_p99_us.iloc[-1] / ends.cpu_p99_us.iloc[0]:.2f}x CPU")
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "compass_abs.csv", index=False)
    print(table.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))


if __name__ == "__main__":
    main()
