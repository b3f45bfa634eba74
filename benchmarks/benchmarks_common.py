"""Shared workload for the benchmarks: a steady stream sized to load a cluster of N nodes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from compass.traces import demo_trace


def steady_stream(nodes: int, num_jobs: int, load: float = 0.9, seed: int = 0) -> pd.DataFrame:
    """A SYNTHETIC demo-mix trace whose offered GPU load is ``load`` x the cluster's GPUs."""
    probe = demo_trace(num_jobs=num_jobs, seed=seed, max_instances=min(8, nodes))
    gpu_seconds = float((probe["num_instances"] * probe["gpus_per_instance"]
                         * probe["duration"]).mean())
    interarrival = gpu_seconds / (load * nodes * 8)
    return demo_trace(num_jobs=num_jobs, seed=seed, mean_interarrival=interarrival,
                      max_instances=min(8, nodes))


def instance_events(trace: pd.DataFrame) -> int:
    """Instance arrivals plus instance departures of a trace."""
    return int(2 * trace["num_instances"].sum())


def percentiles(values: list[float]) -> dict[str, float]:
    a = np.asarray(values)
    return {"p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99)),
            "max": float(a.max())}
