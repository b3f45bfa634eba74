"""Day windows, concurrent demand, sizing, composition and WCC coverage (sections 5.2, 6.3-6.4).

All functions take a canonical trace frame (``submit_time`` a_j, ``duration`` tau_j,
``num_instances`` w_j, ``gpus_per_instance`` g_j) and treat it as *unscheduled demand*:
job j is active on the half-open interval [a_j, a_j + tau_j), as if it started at
submission. Definitions, stated once here and in docs/traces.md:

* Window J[T1, T2]: the jobs with T1 <= a_j < T2 (half-open, so days do not overlap).
* Concurrent demand D(t) = sum_j G_j 1[a_j <= t < a_j + tau_j], G_j = w_j g_j (eq. 12).
* Support of D: the set {t : D(t) > 0}, measured by its length in seconds.
* p_eta (eq. 13): the smallest level l such that D(t) <= l on at least an eta fraction of
  the support's length, i.e. the time-weighted eta-quantile of D over its support. "Stays
  below" is read as "at or below", so p_eta is a level D actually takes. The support runs
  past T2 while the window's long jobs run; ``within`` offers the in-window variant.
* N(eta) = max(ceil(p_eta / G), N_maxjob), with N_maxjob = max_j ceil(w_j / floor(G / g_j)),
  the fewest G-GPU nodes that hold the largest single job (node locality, gang).
* WCC coverage rho: the fraction of the horizon's length during which the Workload
  Composition Condition n1 >= n3 + 3 n5 + 2 n6 + n7 (eq. 9) holds for the active instances;
  a moment with no active instance satisfies it (0 >= 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from compass.model import G_DEFAULT, PAPER_ETAS
from compass.oracle.fragmentation import WCC_GPUS_PER_NODE, wcc_deficit

#: Seconds in a day window.
DAY_SECONDS = 86_400.0

#: Per-instance classes of paper Table 1 (I_=8 has its own column there, so I_FF is {2, 4}).
TABLE1_CLASSES: dict[str, tuple[int, ...]] = {
    "I=1": (1,), "I_FF": (2, 4), "I_FUF": (3, 5, 6, 7), "I=8": (8,),
}
#: Instance-size buckets of paper Table 2.
TABLE2_BUCKETS: dict[str, tuple[int, ...]] = {
    "1 GPU": (1,), "2-7 GPU": (2, 3, 4, 5, 6, 7), "8 GPU": (8,),
}

Horizon = Literal["window", "support"]


@dataclass(frozen=True)
class Window:
    """Submission window [start, end) in seconds; ``day`` is its index for day windows."""

    start: float
    end: float
    day: int | None = None

    def __post_init__(self) -> None:
        if not self.end > self.start:
            raise ValueError(f"window end {self.end} must exceed its start {self.start}")


@dataclass(frozen=True)
class StepFunction:
    """Right-continuous step function: ``values[i]`` holds on [times[i], times[i+1]).

    It is 0 before ``times[0]``; ``values[-1]`` holds after the last time.
    """

    times: np.ndarray
    values: np.ndarray

    def at(self, t: float | np.ndarray) -> np.ndarray:
        """Values at the instants ``t``."""
        idx = np.searchsorted(self.times, np.asarray(t, dtype=float), side="right")
        before = np.zeros((1, *self.values.shape[1:]), dtype=self.values.dtype)
        return np.concatenate([before, self.values])[idx]


@dataclass(frozen=True)
class ClusterSize:
    """N(eta) of eq. 13 with its parts."""

    eta: float
    p_eta: int
    demand_nodes: int
    maxjob_nodes: int
    nodes: int


def day_window(day: int, day_seconds: float = DAY_SECONDS) -> Window:
    """Window of day ``day``: [day * day_seconds, (day + 1) * day_seconds)."""
    return Window(day * day_seconds, (day + 1) * day_seconds, day)


def day_windows(frame: pd.DataFrame, day_seconds: float = DAY_SECONDS) -> list[Window]:
    """Every day window from the first submission's day to the last's, empty days included."""
    if frame.empty:
        return []
    t = frame["submit_time"].to_numpy(dtype=float)
    first, last = (int(math.floor(x / day_seconds)) for x in (t.min(), t.max()))
    return [day_window(d, day_seconds) for d in range(first, last + 1)]


def jobs_in_window(frame: pd.DataFrame, window: Window) -> pd.DataFrame:
    """J[T1, T2] (section 5.2): the jobs submitted in [start, end)."""
    t = frame["submit_time"]
    return frame[(t >= window.start) & (t < window.end)]


#: A busy day has at least this many submissions (the openb replay's ``min_pods``).
BUSY_MIN_PODS = 50


def busy_window(frame: pd.DataFrame, min_pods: int = BUSY_MIN_PODS) -> Window:
    """The days from the first to the last with at least ``min_pods`` submissions (a trace
    whose span is mostly idle, like openb's 149 days with 98 % of pods on days 116-148)."""
    day = np.floor(frame["submit_time"].to_numpy() / DAY_SECONDS).astype(np.int64)
    days, counts = np.unique(day, return_counts=True)
    busy = days[counts >= min_pods]
    if busy.size == 0:
        raise ValueError(f"no day has {min_pods} or more submissions; lower min_pods")
    first, last = int(busy[0]), int(busy[-1])
    return Window(first * DAY_SECONDS, (last + 1) * DAY_SECONDS, first)


def _intervals(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    start = frame["submit_time"].to_numpy(dtype=float)
    return start, start + frame["duration"].to_numpy(dtype=float)


def concurrent_demand(frame: pd.DataFrame) -> StepFunction:
    """D(t) of eq. 12: GPUs requested by the jobs active at t (unscheduled demand)."""
    start, end = _intervals(frame)
    gpus = (frame["num_instances"] * frame["gpus_per_instance"]).to_numpy(dtype=np.int64)
    times = np.unique(np.concatenate([start, end]))
    delta = np.zeros(times.size, dtype=np.int64)
    np.add.at(delta, np.searchsorted(times, start), gpus)
    np.add.at(delta, np.searchsorted(times, end), -gpus)
    return StepFunction(times, np.cumsum(delta))


def percentile_demand(frame: pd.DataFrame, eta: float, within: Window | None = None) -> int:
    """p_eta of eq. 13: time-weighted eta-quantile of D over its support {t : D(t) > 0}.

    ``within``: measure only the part of the support inside that window (a variant, not the
    paper's definition: it keeps long jobs' tails after T2 from deciding the size).
    """
    if not 0.0 < eta <= 1.0:
        raise ValueError(f"eta must be in (0, 1], got {eta}")
    curve = concurrent_demand(frame)
    if curve.times.size < 2:
        return 0
    levels, lengths = curve.values[:-1], np.diff(curve.times)
    if within is not None:
        lengths = (np.clip(curve.times[1:], within.start, within.end)
                   - np.clip(curve.times[:-1], within.start, within.end))
    on = (levels > 0) & (lengths > 0)
    if not on.any():
        return 0
    levels, lengths = levels[on], lengths[on]
    order = np.argsort(levels, kind="stable")
    cum = np.cumsum(lengths[order])
    need = eta * cum[-1]
    idx = int(np.searchsorted(cum, need - 1e-9 * cum[-1], side="left"))
    return int(levels[order][min(idx, levels.size - 1)])


def max_job_nodes(frame: pd.DataFrame, gpus_per_node: int = G_DEFAULT) -> int:
    """N_maxjob (eq. 13): nodes that the largest job needs, max_j ceil(w_j / floor(G / g_j))."""
    if frame.empty:
        return 0
    per_node = gpus_per_node // frame["gpus_per_instance"].to_numpy(dtype=np.int64)
    if (per_node < 1).any():
        raise ValueError(f"an instance needs more than {gpus_per_node} GPUs")
    w = frame["num_instances"].to_numpy(dtype=np.int64)
    return int((-(-w // per_node)).max())


def cluster_size(frame: pd.DataFrame, eta: float, gpus_per_node: int = G_DEFAULT,
                 within: Window | None = None) -> ClusterSize:
    """N(eta) = max(ceil(p_eta / G), N_maxjob) of eq. 13 for the jobs of one window."""
    p = percentile_demand(frame, eta, within)
    demand = -(-p // gpus_per_node)
    maxjob = max_job_nodes(frame, gpus_per_node)
    return ClusterSize(eta, p, demand, maxjob, max(demand, maxjob))


def _instance_shares(frame: pd.DataFrame, groups: dict[str, tuple[int, ...]]) -> dict[str, float]:
    g = frame["gpus_per_instance"].to_numpy(dtype=np.int64)
    w = frame["num_instances"].to_numpy(dtype=np.int64)
    total = int(w.sum())
    counts = {name: int(w[np.isin(g, sizes)].sum()) for name, sizes in groups.items()}
    return {name: (n / total if total else math.nan) for name, n in counts.items()}


def class_shares(frame: pd.DataFrame) -> dict[str, float]:
    """Per-instance class shares of Table 1, pooled over every instance of ``frame``."""
    return _instance_shares(frame, TABLE1_CLASSES)


def composition(frame: pd.DataFrame) -> dict[str, float]:
    """Instance-size ratios of Table 2 (1 GPU, 2-7 GPU, 8 GPU) over the instances of ``frame``."""
    return _instance_shares(frame, TABLE2_BUCKETS)


def active_instances(frame: pd.DataFrame, gpus_per_node: int = G_DEFAULT) -> StepFunction:
    """Active instance counts n_g(t) per size g (columns 0..G; column 0 stays 0)."""
    start, end = _intervals(frame)
    g = frame["gpus_per_instance"].to_numpy(dtype=np.int64)
    w = frame["num_instances"].to_numpy(dtype=np.int64)
    times = np.unique(np.concatenate([start, end]))
    delta = np.zeros((times.size, gpus_per_node + 1), dtype=np.int64)
    np.add.at(delta, (np.searchsorted(times, start), g), w)
    np.add.at(delta, (np.searchsorted(times, end), g), -w)
    return StepFunction(times, np.cumsum(delta, axis=0))


def _wcc_coefficients() -> np.ndarray:
    """The WCC deficit is linear in the counts: read its coefficients off unit count vectors."""
    return np.array([0] + [wcc_deficit({g: 1}) for g in range(1, WCC_GPUS_PER_NODE + 1)])


def wcc_deficit_curve(frame: pd.DataFrame) -> StepFunction:
    """Filler shortfall n3 + 3 n5 + 2 n6 + n7 - n1 of the active instances over time (G = 8)."""
    counts = active_instances(frame, WCC_GPUS_PER_NODE)
    return StepFunction(counts.times, counts.values @ _wcc_coefficients())


def wcc_violation(frame: pd.DataFrame) -> StepFunction:
    """1 where the WCC (eq. 9) fails for the active instances, 0 where it holds (G = 8)."""
    deficit = wcc_deficit_curve(frame)
    return StepFunction(deficit.times, (deficit.values > 0).astype(np.int64))


def wcc_coverage(frame: pd.DataFrame, window: Window, horizon: Horizon = "window") -> float:
    """rho (section 6.4): time-weighted fraction of the horizon during which the WCC holds.

    ``frame`` holds the window's jobs. Horizon ``"window"`` is [T1, T2); ``"support"`` is
    [first submission, last completion) of those jobs (rho = 1 when there is none).
    """
    if horizon == "window":
        lo, hi = window.start, window.end
    elif horizon == "support":
        if frame.empty:
            return 1.0
        start, end = _intervals(frame)
        lo, hi = float(start.min()), float(end.max())
    else:
        raise ValueError(f"horizon must be 'window' or 'support', got {horizon!r}")
    fails = wcc_violation(frame)
    if fails.times.size < 2:
        return 1.0
    seg_lo = np.clip(fails.times[:-1], lo, hi)
    seg_hi = np.clip(fails.times[1:], lo, hi)
    violated = float(((seg_hi - seg_lo) * fails.values[:-1]).sum())
    return 1.0 - violated / (hi - lo)


def day_summary(
    frame: pd.DataFrame,
    etas: Sequence[float] = PAPER_ETAS,
    day_seconds: float = DAY_SECONDS,
    gpus_per_node: int = G_DEFAULT,
    days: Iterable[int] | None = None,
    demand_within_window: bool = False,
) -> pd.DataFrame:
    """One row per day window: jobs, instances, Table 2 composition, N(eta) per eta and rho.

    ``demand_within_window`` measures p_eta inside the day only (see ``percentile_demand``).
    """
    windows = (day_windows(frame, day_seconds) if days is None
               else [day_window(d, day_seconds) for d in days])
    rows = []
    for win in windows:
        jobs = jobs_in_window(frame, win)
        row: dict[str, float | int] = {
            "day": win.day, "jobs": len(jobs), "instances": int(jobs["num_instances"].sum()),
            "gpus": int((jobs["num_instances"] * jobs["gpus_per_instance"]).sum()),
        }
        row.update({f"share {k}": v for k, v in composition(jobs).items()})
        row["n_maxjob"] = max_job_nodes(jobs, gpus_per_node)
        for eta in etas:
            size = cluster_size(jobs, eta, gpus_per_node, win if demand_within_window else None)
            row[f"p_{eta:g}"] = size.p_eta
            row[f"N_{eta:g}"] = size.nodes
        row["rho"] = wcc_coverage(jobs, win)
        rows.append(row)
    return pd.DataFrame(rows)
