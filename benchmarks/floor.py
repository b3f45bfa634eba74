"""The floor: a minimal pure-Python loop with the simulator's gfs semantics, as the yardstick.

Not a test: ``python benchmarks/floor.py`` runs it on the filled SYNTHETIC stream at each N,
checks that its start times and AJCT equal ``compass.simulate(..., "gfs")``'s exactly, and
prints both costs. The benchmarks report every scheduler's cost per instance event as a
ratio to this loop's (``floor_run``), measured in the same process on the same stream.

Semantics (docs/simulator.md): events of one instant in the order departures, arrivals
(FIFO), one admission pass; the pass admits queue heads until one does not fit
(head-of-line blocking); a job fits if its w instances of g GPUs fit, and best-fit fills
nodes in (free GPUs, index) order, floor(f / g) instances each. No timeline, no
validation, no scheduler protocol: what is left is the work any such loop must do.
"""

from __future__ import annotations

import argparse
import heapq
import time
from bisect import bisect_left, insort

import pandas as pd
from benchmarks_common import filled_stream, instance_events

import compass


def floor_run(trace: pd.DataFrame, nodes: int, G: int = 8) -> tuple[list[float], float]:
    """Start time of every job (in trace order) and the AJCT, by the minimal loop."""
    submit = trace["submit_time"].tolist()
    duration = trace["duration"].tolist()
    width = trace["num_instances"].tolist()
    size = trace["gpus_per_instance"].tolist()
    n_jobs = len(submit)
    free = [G] * nodes
    buckets: list[list[int]] = [[] for _ in range(G)] + [list(range(nodes))]
    placed: list[list[int]] = [[] for _ in range(n_jobs)]
    start = [0.0] * n_jobs
    heap: list[tuple[float, int]] = []
    queue: list[int] = []
    head = nxt = 0
    inf = float("inf")
    while nxt < n_jobs or heap:
        t = min(heap[0][0] if heap else inf, submit[nxt] if nxt < n_jobs else inf)
        while heap and heap[0][0] == t:  # departures
            j = heapq.heappop(heap)[1]
            g = size[j]
            for n in placed[j]:
                f = free[n]
                b = buckets[f]
                del b[bisect_left(b, n)]
                free[n] = f + g
                insort(buckets[f + g], n)
        while nxt < n_jobs and submit[nxt] == t:  # arrivals
            queue.append(nxt)
            nxt += 1
        while head < len(queue):  # admission pass, head-of-line blocking
            j = queue[head]
            g, w = size[j], width[j]
            room = 0
            for f in range(g, G + 1):
                room += len(buckets[f]) * (f // g)
            if room < w:
                break
            chosen: list[int] = []
            for f in range(g, G + 1):
                b = buckets[f]
                while b and len(chosen) < w:
                    n = b.pop(0)
                    k = min(f // g, w - len(chosen))
                    chosen.extend([n] * k)
                    free[n] = f - k * g
                    insort(buckets[f - k * g], n)
                if len(chosen) == w:
                    break
            placed[j] = chosen
            start[j] = t
            heapq.heappush(heap, (t + duration[j], j))
            head += 1
    # the mean as the metrics take it (pandas), so that equal JCTs give an equal AJCT
    ajct = float(pd.Series([start[j] + duration[j] - submit[j] for j in range(n_jobs)]).mean())
    return start, ajct


def check(trace: pd.DataFrame, nodes: int) -> None:
    """Raise unless the floor's start times and AJCT equal the simulator's gfs run."""
    start, ajct = floor_run(trace, nodes)
    result = compass.simulate(trace, "gfs", nodes=nodes)
    sim = result.jobs["start_time"].tolist()
    bad = [j for j, (a, b) in enumerate(zip(start, sim)) if a != b]
    if bad:
        j = bad[0]
        raise AssertionError(f"N={nodes}: {len(bad)} start times differ, first job {j}: "
                             f"floor {start[j]} != simulator {sim[j]}")
    if ajct != result.summary["ajct"]:
        raise AssertionError(f"N={nodes}: AJCT {ajct} != {result.summary['ajct']}")


def best_cpu(trace: pd.DataFrame, nodes: int, repeat: int) -> float:
    """Best CPU seconds of ``floor_run`` over ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        floor_run(trace, nodes)
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", nargs="+", type=int, default=[100, 1000, 10000])
    p.add_argument("--jobs-per-node", type=float, default=20.0)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    for nodes in args.nodes:
        trace = filled_stream(nodes, int(args.jobs_per_node * nodes))
        check(trace, nodes)
        cpu = best_cpu(trace, nodes, args.repeat)
        events = instance_events(trace)
        print(f"N={nodes}: outputs agree with gfs; floor {events / cpu:,.0f} instance-events/s "
              f"({1e6 * cpu / events:.2f} us per event, CPU)")


if __name__ == "__main__":
    main()
