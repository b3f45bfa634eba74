"""Queue blocking on a run's timeline and how much of it fragmentation causes (section 6.6).

The timeline is a step function: row i holds on [t_i, t_{i+1}); the last row holds on.
The queue *blocks* while it is non-empty. Blocking is *fragmentation-induced* when the idle
GPUs, N G minus the allocated ones, would cover the head-of-line job's demand w g: the GPUs
are there but no placement fits them (the paper's words: "the aggregate idle GPU count
strictly exceeding the head-of-line demand"; we count equality too, since an exact match
is as much a placement failure). An episode is a maximal stretch of fragmentation-induced
blocking; the paper says COMPASS-ABS clears each one "within seconds". ``head_blocking``
weighs who is blocked by time: the blocked seconds of each head-of-line class (g, w).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd


def interval_lengths(times: np.ndarray, start: float = -math.inf,
                     end: float = math.inf) -> np.ndarray:
    """Length of each row's interval [t_i, t_{i+1}) inside [start, end); the last row holds
    until ``end`` (0 when ``end`` is infinite)."""
    t = np.asarray(times, dtype=float)
    if t.size == 0:
        return t
    upper = end if math.isfinite(end) else t[-1]
    nxt = np.append(t[1:], upper)
    return np.clip(np.minimum(nxt, end) - np.maximum(t, start), 0.0, None)


def fragmentation_blocked(timeline: pd.DataFrame, nodes: int, gpus_per_node: int = 8
                          ) -> np.ndarray:
    """Rows where the queue waits although idle GPUs >= the head-of-line demand."""
    idle = nodes * gpus_per_node - timeline["used_gpus"].to_numpy()
    head = timeline["head_demand"].to_numpy()
    return (timeline["queue_len"].to_numpy() > 0) & (head > 0) & (idle >= head)


@dataclass(frozen=True)
class Blocking:
    """Blocking inside a window of ``seconds`` length."""

    seconds: float
    blocked_s: float
    fragmentation_s: float
    episodes: int
    longest_episode_s: float

    @property
    def blocked_share(self) -> float:
        """Share of the window during which the queue waits."""
        return self.blocked_s / self.seconds if self.seconds > 0 else math.nan

    @property
    def fragmentation_share(self) -> float:
        """Share of the blocking that is fragmentation-induced (NaN without blocking)."""
        return self.fragmentation_s / self.blocked_s if self.blocked_s > 0 else math.nan


def blocking(timeline: pd.DataFrame, nodes: int, gpus_per_node: int = 8,
             start: float | None = None, end: float | None = None) -> Blocking:
    """Blocking of a run inside [start, end) (default: the whole timeline)."""
    times = timeline["time"].to_numpy(dtype=float)
    start, end = _bounds(times, start, end)
    dt = interval_lengths(times, start, end)
    waiting = timeline["queue_len"].to_numpy() > 0
    frag = fragmentation_blocked(timeline, nodes, gpus_per_node) & (dt > 0)
    runs = episode_lengths(frag, dt)
    return Blocking(
        seconds=float(max(end - start, 0.0)), blocked_s=float(dt[waiting].sum()),
        fragmentation_s=float(dt[frag].sum()), episodes=len(runs),
        longest_episode_s=float(runs.max()) if runs.size else 0.0,
    )


def _bounds(times: np.ndarray, start: float | None, end: float | None) -> tuple[float, float]:
    """[start, end), by default from the first row to the last."""
    first, last = (float(times[0]), float(times[-1])) if times.size else (0.0, 0.0)
    return (first if start is None else start), (last if end is None else end)


def episode_lengths(mask: np.ndarray, dt: np.ndarray) -> np.ndarray:
    """Total length of each maximal run of consecutive True rows."""
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return np.zeros(0)
    starts = mask & ~np.concatenate([[False], mask[:-1]])
    ids = np.cumsum(starts)[mask] - 1
    return np.bincount(ids, weights=np.asarray(dt, dtype=float)[mask])


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The time-weighted q-quantile of a step function's values (NaN without weight)."""
    values, weights = np.asarray(values, dtype=float), np.asarray(weights, dtype=float)
    keep = weights > 0
    if not keep.any():
        return math.nan
    order = np.argsort(values[keep], kind="stable")
    v, cum = values[keep][order], np.cumsum(weights[keep][order])
    return float(v[min(int(np.searchsorted(cum, q * cum[-1], side="left")), v.size - 1)])


def queue_heads(timeline: pd.DataFrame, jobs: pd.DataFrame) -> np.ndarray:
    """The FIFO head (oldest waiting job's id) after each instant; -1 where none waits.

    A job waits at t when submit_time <= t < start_time (it was not admitted at t).
    """
    order = jobs.sort_values(["submit_time", "job_id"], kind="stable")
    submit = order["submit_time"].to_numpy(dtype=float)
    start = order["start_time"].to_numpy(dtype=float)
    ids = order["job_id"].to_numpy()
    heads = np.full(len(timeline), -1, dtype=np.int64)
    for i, t in enumerate(timeline["time"].to_numpy(dtype=float)):
        waiting = np.flatnonzero((submit <= t) & (start > t))
        if waiting.size:
            heads[i] = ids[waiting[0]]
    return heads


#: Columns of ``head_blocking``: the head-of-line class and its blocked time.
HEAD_COLUMNS = ["g", "w", "heads", "blocked_s", "frag_blocked_s", "frag_share"]


def head_rows(timeline: pd.DataFrame, jobs: pd.DataFrame, nodes: int,
              gpus_per_node: int = 8, start: float | None = None,
              end: float | None = None) -> pd.DataFrame:
    """One row per waiting instant inside [start, end): the head job's class (g, w), its
    ``job_id``, the seconds the queue waited behind it and their fragmentation-induced part.
    Raises ``ValueError`` where the queue waits but no job of ``jobs`` does."""
    times = timeline["time"].to_numpy(dtype=float)
    dt = interval_lengths(times, *_bounds(times, start, end))
    waiting = (timeline["queue_len"].to_numpy() > 0) & (dt > 0)
    heads = queue_heads(timeline, jobs)
    if (heads[waiting] < 0).any():
        raise ValueError("the queue waits at a row where no job of the run waits: the "
                         "timeline and the jobs are not one replay")
    frag = fragmentation_blocked(timeline, nodes, gpus_per_node) & waiting
    cls = jobs.set_index("job_id").loc[heads[waiting], ["gpus_per_instance", "num_instances"]]
    return pd.DataFrame({"g": cls["gpus_per_instance"].to_numpy(dtype=int),
                         "w": cls["num_instances"].to_numpy(dtype=int),
                         "job_id": heads[waiting], "blocked_s": dt[waiting],
                         "frag_blocked_s": np.where(frag[waiting], dt[waiting], 0.0)})


def head_blocking(timeline: pd.DataFrame, jobs: pd.DataFrame, nodes: int,
                  gpus_per_node: int = 8, start: float | None = None,
                  end: float | None = None) -> pd.DataFrame:
    """Blocked time inside [start, end) (default: the whole timeline) by the class (g, w)
    of the job at the FIFO head.

    Section 6.6 says who is blocked; counting distinct jobs weighs a head that waits one
    second like one that waits an hour, so this weighs each head by the seconds it held the
    queue: per (g, w), the distinct jobs at the head (``heads``), the seconds the queue
    waited behind them (``blocked_s``), the fragmentation-induced part (``frag_blocked_s``,
    ``fragmentation_blocked``) and its share. Raises ``ValueError`` where the queue waits
    but no job of ``jobs`` does: the timeline is not the replay of these jobs.
    """
    rows = head_rows(timeline, jobs, nodes, gpus_per_node, start, end)
    out = rows.groupby(["g", "w"], as_index=False).agg(
        heads=("job_id", "nunique"), blocked_s=("blocked_s", "sum"),
        frag_blocked_s=("frag_blocked_s", "sum"))
    out["frag_share"] = out["frag_blocked_s"] / out["blocked_s"]
    return out[HEAD_COLUMNS]
