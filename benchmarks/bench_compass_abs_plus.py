"""COMPASS-ABS+ decision time at N = 100, 1,000, 10,000 nodes, admission by compaction included.

Not a test: run ``python benchmarks/bench_compass_abs_plus.py``. The SYNTHETIC stream of
``bench_compass_abs`` (GFS instance mix, WCC after every event), but aimed at a full
cluster (``--load 1.03``: arrivals keep coming while fewer than 97 % of 103 % of the GPUs
are used, and half the time beyond), so that heads are refused and COMPASS-ABS+ searches
for an admission by compaction. A refused arrival is dropped (no queue) and followed by a
departure, as a blocked head waits for one. The clock (CPU
time of the thread, ``time.thread_time_ns``, immune to preemption on a shared machine; wall
time beside it) runs around ``place`` and ``on_departure`` only. Each decision is classed
by what it ran: a placement that searched for an admission plan (found or not), a decision
that ran lazy compaction, or neither. Writes benchmarks/results/compass_abs_plus.csv.
Target (issue 14): p99 under 1 ms at N = 10,000, admission by compaction included.
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path

import pandas as pd
from bench_compass_abs import Stream, timed, wcc_after
from benchmarks_common import percentiles

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers import create

OUT = Path(__file__).parent / "results"
KINDS = ("all", "admission search", "lazy compaction", "plain")


def bench(name: str, nodes: int, events: int, load: float, seed: int) -> list[dict]:
    """Time ``events`` decisions once the cluster first reaches 97 % of the target load."""
    state = ClusterState(nodes)
    scheduler = create(name)
    scheduler.reset(state, [])
    stats = scheduler.stats
    stream = Stream(nodes, load, seed)
    running: list[Job] = []
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in KINDS}
    admitted = refused = moves = 0
    warm = False
    now = 0.0  # each decision its own instant: no move is free for having just started
    refused_last = False  # a refused arrival is followed by a departure (a blocked head)
    while len(times["all"]) < events:
        before = (stats.searches, stats.lazy_compactions)
        now += 1.0
        if not running or (stream.wants_arrival(state.used_gpus) and not refused_last):
            job = stream.job()
            if not wcc_after(state, job, +1):
                continue
            elapsed, placement = timed(scheduler.place, job, state, now)
            refused_last = placement is None
            if placement is None:
                decisions = ()
                refused += warm
            else:
                decisions = placement.moves
                state.place_job_after_moves(job.job_id, job.gpus_per_instance, placement.nodes,
                                            [(m.instance, m.dst) for m in placement.pre_moves])
                running.append(job)
                admitted += warm
                moves += len(placement.pre_moves) * warm
        else:
            k = stream.rng.randrange(len(running))
            job = running[k]
            if not wcc_after(state, job, -1):
                continue
            running[k] = running[-1]
            running.pop()
            refused_last = False
            state.release_job(job.job_id)
            elapsed, decisions = timed(scheduler.on_departure, job, state, now)
        for m in decisions:
            state.move(m.instance, m.dst)
        warm = warm or state.used_gpus >= stream.target * 0.97
        if warm:
            kind = ("admission search" if stats.searches > before[0] else
                    "lazy compaction" if stats.lazy_compactions > before[1] else "plain")
            times["all"].append(elapsed)
            times[kind].append(elapsed)
            moves += len(decisions)
    rows = []
    for kind, values in times.items():
        if not values:
            continue
        wall, cpu = percentiles([t for t, _ in values]), percentiles([c for _, c in values])
        rows.append({"scheduler": name, "nodes": nodes, "load": load, "decisions": kind,
                     "count": len(values), "cpu_p50_us": cpu["p50"], "cpu_p99_us": cpu["p99"],
                     "cpu_max_us": cpu["max"], "p50_us": wall["p50"], "p99_us": wall["p99"],
                     "jobs_admitted": admitted, "arrivals_refused": refused,
                     "moves_per_job": moves / max(admitted, 1),
                     "compaction_admissions": stats.compaction_admissions,
                     "gpu_util_end": state.used_gpus / state.total_gpus,
                     "python": platform.python_version()})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--schedulers", nargs="+", default=["compass-abs-plus"])
    p.add_argument("--nodes", nargs="+", type=int, default=[100, 1000, 10000])
    p.add_argument("--events", type=int, default=20000)
    p.add_argument("--load", type=float, default=1.03)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    table = pd.DataFrame([row for s in args.schedulers for n in args.nodes
                          for row in bench(s, n, args.events, args.load, args.seed)])
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "compass_abs_plus.csv", index=False)
    print(table.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))


if __name__ == "__main__":
    main()
