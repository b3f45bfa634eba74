"""Run metrics (section 5.5): AFR, AJCT and AGU, by exact integration of step functions.

The timeline holds one row per event instant; row i's values hold on [t_i, t_{i+1}).
T_peak (eq. 14) is the union of those intervals on which the queue is non-empty. AFR
(eq. 15) and AGU (eq. 17) are time averages over T_peak; AJCT (eq. 16) averages
completion time (queueing + running + migration pauses) over all jobs of the run.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def interval_lengths(timeline: pd.DataFrame) -> np.ndarray:
    """Length of the interval each timeline row holds for (0 for the last row)."""
    t = timeline["time"].to_numpy(dtype=float)
    return np.append(np.diff(t), 0.0) if t.size else t


def peak_mask(timeline: pd.DataFrame) -> np.ndarray:
    """Rows whose interval belongs to T_peak: a non-empty queue (eq. 14)."""
    return timeline["queue_len"].to_numpy() > 0


def time_weighted_mean(
    timeline: pd.DataFrame, column: str, mask: np.ndarray | None = None
) -> float:
    """Exact time average of a step-function column over the masked intervals (NaN if empty)."""
    dt = interval_lengths(timeline)
    if mask is not None:
        dt = np.where(mask, dt, 0.0)
    total = dt.sum()
    if total <= 0:
        return math.nan
    return float(np.dot(timeline[column].to_numpy(dtype=float), dt) / total)


def time_weighted_mean_within(timeline: pd.DataFrame, column: str, start: float, end: float,
                              mask: np.ndarray | None = None) -> float:
    """Exact time average of a step-function column over [start, end) (and the masked
    intervals); each row's interval is clipped to the window. NaN if nothing is covered."""
    t = timeline["time"].to_numpy(dtype=float)
    if t.size == 0:
        return math.nan
    ends = np.append(t[1:], t[-1])
    dt = np.clip(np.minimum(ends, end) - np.maximum(t, start), 0.0, None)
    if mask is not None:
        dt = np.where(mask, dt, 0.0)
    total = dt.sum()
    if total <= 0:
        return math.nan
    return float(np.dot(timeline[column].to_numpy(dtype=float), dt) / total)


def afr(timeline: pd.DataFrame) -> float:
    """Average fragmentation rate: mean SIF over T_peak (eq. 15); NaN if the queue never waits."""
    return time_weighted_mean(timeline, "sif", peak_mask(timeline))


def agu(timeline: pd.DataFrame) -> float:
    """Average GPU utilisation over T_peak (eq. 17); NaN if the queue never waits."""
    return time_weighted_mean(timeline, "gpu_util", peak_mask(timeline))


def ajct(jobs: pd.DataFrame) -> float:
    """Average job completion time, submit to end (eq. 16)."""
    return float(jobs["jct"].mean()) if len(jobs) else math.nan


def peak_seconds(timeline: pd.DataFrame) -> float:
    """|T_peak| in seconds."""
    return float(np.where(peak_mask(timeline), interval_lengths(timeline), 0.0).sum())


def summarize(jobs: pd.DataFrame, timeline: pd.DataFrame) -> dict[str, float | int]:
    """The run's headline numbers: AFR, AJCT, AGU, migrations and context for them."""
    return {
        "afr": afr(timeline),
        "ajct": ajct(jobs),
        "agu": agu(timeline),
        "migrations": int(jobs["migrations"].sum()),
        "instance_moves": int(jobs["instance_moves"].sum()),
        "migrations_per_job": float(jobs["migrations"].mean()) if len(jobs) else math.nan,
        "jobs": len(jobs),
        "peak_seconds": peak_seconds(timeline),
        "horizon_seconds": float(timeline["time"].iloc[-1] - timeline["time"].iloc[0])
        if len(timeline) else 0.0,
        "mean_queue_time": float(jobs["queue_time"].mean()) if len(jobs) else math.nan,
        "max_sif": float(timeline["sif"].max()) if len(timeline) else 0.0,
        "max_partial_nodes": int(timeline["partial_nodes"].max()) if len(timeline) else 0,
        "mean_gpu_util": time_weighted_mean(timeline, "gpu_util"),
    }
