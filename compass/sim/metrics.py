"""Run metrics (section 5.5): AFR, AJCT and AGU, by exact integration of step functions.

The timeline holds one row per event instant; row i's values hold on [t_i, t_{i+1}).
T_peak (eq. 14) is the union of those intervals on which the queue is non-empty. AFR
(eq. 15) and AGU (eq. 17) are time averages over T_peak; AJCT (eq. 16) averages
completion time (queueing + running + migration pauses) over all jobs of the run.

AFR and AGU are time averages over a *window*, a set of disjoint [start, end) intervals
(``afr_agu_over``): the paper's window is each run's own T_peak (``peak_window``); the
pipeline also reports them over a window common to the runs of one batch, the union of
their T_peak (``union_window``), so that every scheduler is averaged over the same period.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

#: The three metrics of section 5.5, in the paper's order: the one list of their names.
METRICS = ("afr", "ajct", "agu")
#: Direction of each metric (AFR, AJCT: lower is better; AGU: higher), the one place it is
#: written: rankings, leads and the report's "ahead"/"behind" all read it.
LOWER_IS_BETTER = {"afr": True, "ajct": True, "agu": False}


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
    return weighted_mean(timeline, column, dt)


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


def union_window(windows: Iterable[np.ndarray]) -> np.ndarray:
    """The union of windows (each an (k, 2) array of [start, end) intervals) as sorted,
    disjoint intervals; empty intervals are dropped and touching ones merged."""
    parts = [np.asarray(w, dtype=float).reshape(-1, 2) for w in windows]
    spans = np.concatenate(parts) if parts else np.empty((0, 2))
    spans = spans[spans[:, 1] > spans[:, 0]]
    if not len(spans):
        return np.empty((0, 2))
    spans = spans[np.argsort(spans[:, 0], kind="stable")]
    reach = np.maximum.accumulate(spans[:, 1])
    first = np.append(True, spans[1:, 0] > reach[:-1])  # a gap before: a new interval starts
    last = np.append(first[1:], True)
    return np.column_stack([spans[first, 0], reach[last]])


def peak_window(timeline: pd.DataFrame) -> np.ndarray:
    """T_peak (eq. 14) as sorted, disjoint [start, end) intervals: the rows with a queue."""
    t = timeline["time"].to_numpy(dtype=float)
    ends = np.append(t[1:], t[-1:])  # the next row's time itself, so that rows meet exactly
    return union_window([np.column_stack([t, ends])[peak_mask(timeline)]])


def window_weights(timeline: pd.DataFrame, window: np.ndarray) -> np.ndarray:
    """Seconds of each row's interval inside ``window``. The last row holds on after the last
    event (at a run's end: the empty cluster), so a window reaching past a run's end counts
    that run as idle there. A row inside one interval of its own T_peak weighs exactly its
    length, so ``afr``/``agu`` equal the plain masked averages."""
    t = timeline["time"].to_numpy(dtype=float)
    ends = np.append(t[1:], np.inf) if t.size else t
    window = np.asarray(window, dtype=float).reshape(-1, 2)
    lo = np.searchsorted(ends, window[:, 0], side="right")  # first row ending after start
    hi = np.searchsorted(t, window[:, 1], side="left")  # rows starting before end
    counts = np.clip(hi - lo, 0, None)
    which = np.repeat(np.arange(len(window)), counts)  # (row, interval) pairs that overlap
    rows = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    overlap = (np.minimum(ends[rows], window[which, 1])
               - np.maximum(t[rows], window[which, 0]))
    return np.bincount(rows, weights=overlap, minlength=t.size)


def weighted_mean(timeline: pd.DataFrame, column: str, weights: np.ndarray) -> float:
    """Average of a step-function column with per-row weights (seconds); NaN if none."""
    total = weights.sum()
    if total <= 0:
        return math.nan
    return float(np.dot(timeline[column].to_numpy(dtype=float), weights) / total)


def afr_agu_over(timeline: pd.DataFrame, window: np.ndarray) -> tuple[float, float]:
    """AFR (mean SIF, eq. 15) and AGU (mean GPU utilisation, eq. 17) over ``window``
    instead of the run's own T_peak; NaN if the window is empty."""
    weights = window_weights(timeline, window)
    return weighted_mean(timeline, "sif", weights), weighted_mean(timeline, "gpu_util", weights)


def afr(timeline: pd.DataFrame) -> float:
    """Average fragmentation rate: mean SIF over T_peak (eq. 15); NaN if the queue never waits."""
    return afr_agu_over(timeline, peak_window(timeline))[0]


def agu(timeline: pd.DataFrame) -> float:
    """Average GPU utilisation over T_peak (eq. 17); NaN if the queue never waits."""
    return afr_agu_over(timeline, peak_window(timeline))[1]


def ajct(jobs: pd.DataFrame) -> float:
    """Average job completion time, submit to end (eq. 16)."""
    return float(jobs["jct"].mean()) if len(jobs) else math.nan


def peak_seconds(timeline: pd.DataFrame) -> float:
    """|T_peak| in seconds."""
    return float(np.where(peak_mask(timeline), interval_lengths(timeline), 0.0).sum())


#: Bounded slowdown's floor on a job's duration (s): a job shorter than this counts as this
#: long, so that a short job's wait does not dominate the mean (the usual 10 s).
SLOWDOWN_BOUND_S = 10.0


def bounded_slowdown(jobs: pd.DataFrame) -> np.ndarray:
    """Each job's bounded slowdown: max(1, JCT / max(duration, ``SLOWDOWN_BOUND_S``))."""
    floor = np.maximum(jobs["duration"].to_numpy(dtype=float), SLOWDOWN_BOUND_S)
    return np.maximum(1.0, jobs["jct"].to_numpy(dtype=float) / floor)


def _percentiles(values: pd.Series, prefix: str) -> dict[str, float]:
    """p50, p95 and p99 of ``values`` (linear interpolation; NaN without values)."""
    qs = (50, 95, 99)
    found = (np.percentile(values.to_numpy(dtype=float), qs) if len(values)
             else [math.nan] * len(qs))
    return {f"{prefix}_p{q}": float(v) for q, v in zip(qs, found)}


def summarize(jobs: pd.DataFrame, timeline: pd.DataFrame) -> dict[str, float | int]:
    """The run's headline numbers: AFR, AJCT, AGU, the JCT and queueing percentiles, the
    bounded slowdown, migrations and context for them; the keys and their order are
    ``compass.sim.result_schema.METRICS``'s (tested)."""
    mean = (lambda column: float(jobs[column].mean())) if len(jobs) else (lambda _: math.nan)
    nsif = (timeline["partial_nodes"] - timeline["phi_star"]).to_numpy() if len(timeline) else []
    return {
        "afr": afr(timeline),
        "ajct": ajct(jobs),
        "agu": agu(timeline),
        **_percentiles(jobs["jct"], "jct"),
        "mean_queue_time": mean("queue_time"),
        **_percentiles(jobs["queue_time"], "queue"),
        "mean_bounded_slowdown": float(bounded_slowdown(jobs).mean()) if len(jobs) else math.nan,
        "migrations": int(jobs["migrations"].sum()),
        "instance_moves": int(jobs["instance_moves"].sum()),
        "migrations_per_job": mean("migrations"),
        "pause_per_job": float(jobs["pause_time"].mean()) if len(jobs) else 0.0,
        "jobs": len(jobs),
        "peak_seconds": peak_seconds(timeline),
        "horizon_seconds": float(timeline["time"].iloc[-1] - timeline["time"].iloc[0])
        if len(timeline) else 0.0,
        "max_sif": float(timeline["sif"].max()) if len(timeline) else 0.0,
        "max_nsif": float(np.max(nsif)) if len(nsif) else 0.0,
        "max_partial_nodes": int(timeline["partial_nodes"].max()) if len(timeline) else 0,
        "mean_gpu_util": time_weighted_mean(timeline, "gpu_util"),
    }
