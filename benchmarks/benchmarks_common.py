"""Shared workload and measurement helpers for the benchmarks (SYNTHETIC streams)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from compass.traces.demo import DEMO_SIZE_SHARES

#: Log-normal run times of the filled stream (the demo mix's: median 30 min, sigma 1).
MEDIAN_DURATION = 1800.0
SIGMA = 1.0


def filled_stream(nodes: int, num_jobs: int, load: float = 0.97, swing: float = 0.12,
                  period: float = 4 * 3600.0, seed: int = 0) -> pd.DataFrame:
    """A SYNTHETIC demo-mix stream that keeps N nodes busy: a backlog submitted at t = 0
    offers ``load`` x the cluster's GPUs, then arrivals offer ``load`` x (1 +/- ``swing``),
    alternating every ``period / 2`` seconds, so the queue fills in the high phases and
    drains in the low ones. Canonical columns, job ids in submission order."""
    rng = np.random.default_rng(seed)
    sizes = np.array(list(DEMO_SIZE_SHARES))
    probs = np.array(list(DEMO_SIZE_SHARES.values()))
    g = rng.choice(sizes, size=num_jobs, p=probs / probs.sum())
    w = np.minimum(rng.geometric(0.55, size=num_jobs), min(8, nodes))
    w = np.where(g == 1, np.minimum(w, 4), w)
    duration = np.maximum(np.round(rng.lognormal(np.log(MEDIAN_DURATION), SIGMA, num_jobs)), 1)
    gpus = g * w
    capacity = nodes * 8
    backlog = int(np.searchsorted(np.cumsum(gpus), load * capacity)) + 1
    mean_rate = load * capacity / float(np.mean(gpus * duration))  # jobs per second
    submit = np.zeros(num_jobs)
    t = 0.0
    gaps = rng.exponential(1.0, size=num_jobs)
    for k in range(backlog, num_jobs):
        high = (t % period) < period / 2
        t += gaps[k] / (mean_rate * (1 + swing if high else 1 - swing))
        submit[k] = t
    return pd.DataFrame({
        "job_id": np.arange(num_jobs, dtype=np.int64),
        "submit_time": np.round(submit, 3),
        "duration": duration.astype(float),
        "num_instances": w.astype(np.int64),
        "gpus_per_instance": g.astype(np.int64),
    })


def instance_events(trace: pd.DataFrame) -> int:
    """Instance arrivals plus instance departures of a trace."""
    return int(2 * trace["num_instances"].sum())


def load_profile(timeline: pd.DataFrame, start: float, end: float) -> dict[str, float]:
    """Time-weighted GPU utilisation (mean and median) and the share of time with a queue,
    over the timeline rows that hold inside [start, end)."""
    t = timeline["time"].to_numpy(dtype=float)
    dt = np.clip(np.append(t[1:], t[-1]), start, end) - np.clip(t, start, end)
    util = timeline["gpu_util"].to_numpy(dtype=float)
    queued = timeline["queue_len"].to_numpy() > 0
    total = dt.sum()
    order = np.argsort(util, kind="stable")
    cum = np.cumsum(dt[order])
    median = float(util[order][np.searchsorted(cum, total / 2)]) if total > 0 else float("nan")
    return {"util_mean": float(np.dot(util, dt) / total) if total > 0 else float("nan"),
            "util_median": median,
            "queue_share": float(dt[queued].sum() / total) if total > 0 else float("nan")}


def percentiles(values: list[float]) -> dict[str, float]:
    a = np.asarray(values)
    return {"p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99)),
            "max": float(a.max())}
