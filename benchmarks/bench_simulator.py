"""Simulator cost per instance event, per scheduler and cluster size, as a ratio to the floor.

Not a test: run ``python benchmarks/bench_simulator.py`` (or ``python3 tasks.py bench``).
Every figure is CPU time of this process and its solver children (``cpu_seconds``), best of
``--repeat`` runs, with the wall time beside it; on the filled stream the runs of all
schedulers (and the floor loop) are taken in turn, so that a drift of the machine's speed
touches them alike; trace generation and validation are not timed. Two workloads, both SYNTHETIC:

* the filled stream (``benchmarks_common.filled_stream``) at every N: a backlog fills the
  cluster at t = 0 and arrivals alternate between 1.12 and 0.85 of its capacity, so it runs
  busy with a queue part of the time. The steady-state cost is the marginal cost between
  the first half of the stream and all of it, (C(all) - C(half)) / (E(all) - E(half)), so
  the warm-up and the drain cancel; the table gives utilisation and queue share over that
  window, and the floor loop's marginal cost on the same stream (``floor.floor_run``);
* ``--day``: one gfs-synth day at N(eta) as the pipeline sizes it (eta = 0.9, demand inside
  the day window), cost per job against gfs's (FFT's and SIFOpt's targets), with FFT's
  rounds alone (``fft-rounds-only``: its timer instants, no ILP) as FFT's floor.

Writes benchmarks/results/simulator.csv (and day.csv) and cost_per_event.png.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from benchmarks_common import filled_stream, instance_events, load_profile
from floor import check, floor_run

import compass
from compass.experiments.runs import cpu_seconds
from compass.schedulers import create
from compass.schedulers.fft import FFT
from compass.sim.simulator import SimulationConfig, Simulator
from compass.traces import jobs_from_frame, validate_trace

OUT = Path(__file__).parent / "results"
#: Jobs of the smallest stream (small clusters get longer streams, not noisier figures).
MIN_JOBS = 20_000
DEFAULT = ["gfs", "first-fit", "fgd", "cafgd", "mcg", "drr", "compass-abs", "compass-abs-paper"]


def timed(run) -> tuple[float, float, object]:
    """(CPU seconds incl. children, wall seconds, result) of one call."""
    c0, w0 = cpu_seconds(), time.perf_counter()
    result = run()
    return cpu_seconds() - c0, time.perf_counter() - w0, result


def best(run, repeat: int) -> tuple[float, float, object]:
    runs = [timed(run) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[-1][2]


def best_interleaved(runs: dict[str, Callable[[], object]], repeat: int
                     ) -> dict[str, tuple[float, float, object]]:
    """``best`` of each run, the runs taken in turn ``repeat`` times, so that a drift of
    the machine's speed touches all of them alike (their ratios are the figures)."""
    times: dict[str, list[tuple[float, float, object]]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            times[name].append(timed(run))
    return {name: (min(r[0] for r in t), min(r[1] for r in t), t[-1][2])
            for name, t in times.items()}


def simulate(scheduler: str, jobs: list, nodes: int):
    return Simulator(jobs, create(scheduler), SimulationConfig(nodes=nodes)).run()


def bench_stream(schedulers: list[str], nodes: int, jobs_per_node: float,
                 repeat: int) -> list[dict]:
    """One row per scheduler on the filled stream of ``nodes`` nodes."""
    trace = validate_trace(filled_stream(nodes, max(int(jobs_per_node * nodes), MIN_JOBS)))
    half = trace.iloc[: len(trace) // 2]
    check(trace, nodes)  # the floor agrees with gfs on this stream
    events = instance_events(trace) - instance_events(half)
    jobs_all, jobs_half = jobs_from_frame(trace), jobs_from_frame(half)
    runs: dict[str, Callable[[], object]] = {
        "floor": lambda: floor_run(trace, nodes), "floor/2": lambda: floor_run(half, nodes)}
    for name in schedulers:
        runs[name] = lambda name=name: simulate(name, jobs_all, nodes)
        runs[f"{name}/2"] = lambda name=name: simulate(name, jobs_half, nodes)
    measured = best_interleaved(runs, repeat)
    floor_cpu = (measured["floor"][0] - measured["floor/2"][0]) / events
    submit = trace["submit_time"].to_numpy()
    rows = []
    for name in schedulers:
        full, part = measured[name], measured[f"{name}/2"]
        cpu = (full[0] - part[0]) / events
        wall = (full[1] - part[1]) / events
        profile = load_profile(full[2].timeline, submit[len(half)], submit[-1])
        rows.append({
            "scheduler": name, "nodes": nodes, "jobs": len(trace), "window_events": events,
            "us_per_event_cpu": 1e6 * cpu, "us_per_event_wall": 1e6 * wall,
            "events_per_s_cpu": 1 / cpu, "whole_run_events_per_s_cpu":
            instance_events(trace) / full[0], "floor_us_per_event_cpu": 1e6 * floor_cpu,
            "ratio_to_floor": cpu / floor_cpu, **profile,
            "python": platform.python_version(),
        })
        print(f"N={nodes:>6} {name:18s} {1 / cpu:>10,.0f} ev/s CPU  {cpu / floor_cpu:5.1f}x "
              f"floor  util {profile['util_mean']:.2f} queue {profile['queue_share']:.2f}",
              flush=True)
    gfs = next((r for r in rows if r["scheduler"] == "gfs"), None)
    for r in rows:
        r["speed_vs_gfs"] = gfs["us_per_event_cpu"] / r["us_per_event_cpu"] if gfs else None
    return rows


#: FFT's rounds without their ILP: what its 360-s timer instants alone cost the simulator
#: (each round that runs is a timeline row; idle ones are skipped), the floor under FFT's.
ROUNDS_ONLY = "fft-rounds-only"


class RoundsOnly(FFT):
    """FFT whose round start never repacks (benchmark only: ``--day``'s floor row)."""

    def on_timer(self, state, now):
        return ()


def bench_day(schedulers: list[str], day: int, eta: float, repeat: int) -> list[dict]:
    """Cost per job of each scheduler on one gfs-synth day at the pipeline's N(eta)."""
    from compass.traces import synthesize
    from compass.traces import windows as W

    frame = synthesize("gfs-synth", days=1, start_day=day, seed=0)
    nodes = W.cluster_size(frame, eta, within=W.day_window(day)).nodes
    compass.simulate(frame, schedulers[0], nodes=nodes)  # untimed: imports and caches warm
    rows = []
    for name in schedulers:
        make = (lambda: RoundsOnly()) if name == ROUNDS_ONLY else (lambda name=name: name)
        cpu, wall, _ = best(lambda make=make: compass.simulate(frame, make(), nodes=nodes),
                            repeat)
        rows.append({"scheduler": name, "day": day, "eta": eta, "nodes": nodes,
                     "jobs": len(frame), "ms_per_job_cpu": 1e3 * cpu / len(frame),
                     "ms_per_job_wall": 1e3 * wall / len(frame)})
    base = rows[0]["ms_per_job_cpu"]
    for r in rows:
        r["cost_vs_first"] = r["ms_per_job_cpu"] / base
        print(f"gfs-synth day {day} N={nodes} {r['scheduler']:10s} "
              f"{r['ms_per_job_cpu']:.3f} ms/job CPU = {r['cost_vs_first']:.1f}x "
              f"{rows[0]['scheduler']}", flush=True)
    return rows


def plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, group in table.groupby("scheduler"):
        group = group.sort_values("nodes")
        ax.plot(group["nodes"], group["us_per_event_cpu"], marker="o", label=name)
    floor = table.groupby("nodes")["floor_us_per_event_cpu"].min()
    ax.plot(floor.index, floor.values, "k--", label="floor loop")
    ax.set(xscale="log", yscale="log", xlabel="nodes N",
           ylabel="CPU us per instance event (steady state)",
           title="Simulator cost per event (SYNTHETIC filled stream)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--schedulers", nargs="+", default=DEFAULT)
    p.add_argument("--nodes", nargs="*", type=int, default=[100, 1000, 10000],
                   help="filled-stream cluster sizes (none: only --day)")
    p.add_argument("--jobs-per-node", type=float, default=10.0)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--day", type=int, default=None,
                   help="also time gfs, fft and sifopt on this gfs-synth day")
    p.add_argument("--eta", type=float, default=0.9)
    p.add_argument("--out", type=Path, default=OUT, help="folder for the CSVs and the plot")
    args = p.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.nodes:
        rows = [r for n in args.nodes
                for r in bench_stream(args.schedulers, n, args.jobs_per_node, args.repeat)]
        table = pd.DataFrame(rows)
        table.to_csv(out / "simulator.csv", index=False)
        plot(table, out / "cost_per_event.png")
        print(table[["scheduler", "nodes", "events_per_s_cpu", "us_per_event_cpu",
                     "ratio_to_floor", "speed_vs_gfs", "util_mean", "queue_share"]]
              .to_string(index=False, float_format=lambda v: f"{v:,.2f}"))
    if args.day is not None:
        day = pd.DataFrame(bench_day(["gfs", ROUNDS_ONLY, "fft", "sifopt"], args.day, args.eta,
                                     args.repeat))
        day.to_csv(out / "day.csv", index=False)


if __name__ == "__main__":
    main()
