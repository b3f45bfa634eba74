"""What notebook 00 shows of any trace: its span of days, its busiest day, and the jobs'
durations and GPU-time by shape (w instances x g GPUs).

GPU-time is w g d summed over the jobs of a shape (GPU-seconds): the share of the
cluster's work a shape brings, which the share of jobs hides when durations differ by
shape (docs/traces.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from compass.traces.windows import DAY_SECONDS


def day_index(frame: pd.DataFrame, day_seconds: float = DAY_SECONDS) -> pd.Series:
    """Each job's submission day (day k is [k * day_seconds, (k + 1) * day_seconds))."""
    return (frame["submit_time"] // day_seconds).astype(np.int64)


def trace_span(frame: pd.DataFrame, day_seconds: float = DAY_SECONDS) -> tuple[int, int]:
    """The first and last day on which the trace submits a job."""
    if frame.empty:
        raise ValueError("the trace has no jobs")
    days = day_index(frame, day_seconds)
    return int(days.min()), int(days.max())


def busiest_day(frame: pd.DataFrame, day_seconds: float = DAY_SECONDS) -> int:
    """The day whose submitted jobs ask for the most GPU-time (the earliest on ties)."""
    work = (frame["num_instances"] * frame["gpus_per_instance"] * frame["duration"])
    per_day = work.groupby(day_index(frame, day_seconds)).sum()
    return int(per_day.idxmax())


def choose_day(frame: pd.DataFrame, day: int | None,
               day_seconds: float = DAY_SECONDS) -> int:
    """``day`` if the trace submits jobs on it; None: the busiest day. Any other day is
    refused with the trace's span and its busiest day."""
    if day is None:
        return busiest_day(frame, day_seconds)
    first, last = trace_span(frame, day_seconds)
    if not (day_index(frame, day_seconds) == day).any():
        where = "outside" if not first <= day <= last else "a day without jobs in"
        raise ValueError(f"day {day} is {where} the trace's span: days {first}..{last} "
                         f"({len(frame)} jobs); choose one of them, or day = None for the "
                         f"busiest day ({busiest_day(frame, day_seconds)})")
    return day


def shape_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per shape (w, g): jobs and their share, GPU-time (GPU-seconds) and its share, and
    the durations' median, 90th percentile and mean (s); largest GPU-time first."""
    data = frame.assign(gpu_time=frame["num_instances"] * frame["gpus_per_instance"]
                        * frame["duration"])
    grouped = data.groupby(["num_instances", "gpus_per_instance"])
    table = pd.DataFrame({
        "jobs": grouped.size(),
        "gpu_time": grouped["gpu_time"].sum(),
        "duration_median": grouped["duration"].median(),
        "duration_p90": grouped["duration"].quantile(0.9),
        "duration_mean": grouped["duration"].mean(),
    })
    table.insert(1, "job_share", table["jobs"] / table["jobs"].sum())
    total = table["gpu_time"].sum()
    table.insert(3, "gpu_time_share", table["gpu_time"] / total if total else 0.0)
    table = table.sort_values(["gpu_time", "jobs"], ascending=False).reset_index()
    table.insert(0, "shape", [f"{w}x{g}" for w, g in zip(table["num_instances"],
                                                         table["gpus_per_instance"])])
    return table
