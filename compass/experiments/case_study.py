"""Section 6.6 (Figs. 5-7): 90-minute windows at eta = 0.95, second by second.

The paper zooms into GFS day 113, 21:00-22:30. We always replay three windows, named in every
table by the ``window`` column:

* ``paper``: the paper's clock window on the paper's day, of whatever data the trace is (the
  real GFS trace, or synthetic day 113 of the SYNTHETIC stand-in). It is *absent*, with the
  reason, when the profile does not replay that day or those hours.
* ``busiest``: the busiest comparable window, chosen by code: the window of the same length
  (on a ``step_minutes`` grid inside the replayed hours of the candidate days) with the
  highest mean unscheduled demand D(t) (eq. 12) relative to the cluster's GPUs G N(eta).
* ``fragmented``: the window of the same grid with the most fragmentation-induced blocking
  (the queue waits although enough GPUs are idle) summed over the baselines' replays of
  its day: the phenomenon the paper's case study shows (``runs.fragmented_window``).

A claim of section 6.6 is judged only on a window that shows the phenomenon: some
fragmentation-induced blocking under the baselines (``claims`` reading, ``measures``).

Each scheduler replays the whole day of a window; the figures show the window: N x SIF, GPU
utilisation and empty nodes. ``case_summary`` attributes the queue's blocking and
``case_head_blocking`` weighs it by the head-of-line class (g, w) it was spent behind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from compass.experiments.blocking import (
    HEAD_COLUMNS,
    blocking,
    fragmentation_blocked,
    head_blocking,
    head_rows,
    interval_lengths,
    weighted_quantile,
)
from compass.experiments.config import CaseStudyConfig, ResolvedTrace
from compass.experiments.data import cluster_nodes, window
from compass.experiments.results import Results
from compass.model import G_DEFAULT
from compass.sim.table_files import read_frame
from compass.traces import windows as W

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("AbsentWindow", "CaseStudy", "CaseWindow", "case_head_blocking", "case_summary")

#: Timeline columns kept for the window (plus window, scheduler, hour, nsif, frag_blocked).
TIMELINE_COLUMNS = ["time", "partial_nodes", "phi_star", "used_gpus", "gpu_util",
                    "empty_nodes", "queue_len", "head_demand"]
#: Job columns kept for blocked-job attribution.
JOB_COLUMNS = ["job_id", "submit_time", "start_time", "end_time", "num_instances",
               "gpus_per_instance", "queue_time", "jct"]
#: The paper's blocked jobs: 8 GPUs per instance and more than 30 instances.
WIDE_JOB = {"gpus_per_instance": 8, "min_instances": 31}

WindowName = Literal["paper", "busiest", "fragmented"]
#: The case-study windows, in the order tables and figures show them.
WINDOWS: tuple[WindowName, ...] = ("paper", "busiest", "fragmented")
#: The paper's window, as its text gives it.
PAPER_WINDOW = "GFS day 113, 21:00-22:30"


def _clock(seconds: float) -> str:
    s = int(round(seconds % W.DAY_SECONDS))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}"


@dataclass(frozen=True)
class CaseWindow:
    """A case-study window: absolute seconds [start, end) of ``day`` on a cluster of
    ``nodes`` nodes (N(eta) of that day), which of the two windows it is, and its mean
    unscheduled demand relative to the cluster's GPUs (``score``)."""

    trace: str
    data: str
    origin: str
    window: WindowName
    day: int
    start: float
    end: float
    eta: float
    nodes: int
    score: float

    @property
    def span(self) -> str:
        """Day and clock time, e.g. "day 113, 21:00-22:30"."""
        return f"day {self.day}, {_clock(self.start)}-{_clock(self.end)}"

    @property
    def label(self) -> str:
        when = f"{self.data} {self.span}"
        size = f"eta = {self.eta:g}, N = {self.nodes}"
        load = f"mean demand {self.score:.2f} x capacity"
        if self.window == "busiest":
            return (f"{when}, {size}: the busiest comparable window, chosen by code ({load}); "
                    f"the paper's is {PAPER_WINDOW}")
        if self.window == "fragmented":
            return (f"{when}, {size}: the window with the most fragmentation-induced "
                    f"blocking under the baselines, chosen by code ({load}); the paper's is "
                    f"{PAPER_WINDOW}")
        if self.origin == "real":
            return f"{when} (the paper's window), {size} ({load})"
        return f"{when}: the paper's clock window on {self.data} data, {size} ({load})"


@dataclass(frozen=True)
class AbsentWindow:
    """A window the profile cannot show, and why (the paper's day or hours not replayed)."""

    trace: str
    data: str
    window: WindowName
    reason: str

    @property
    def label(self) -> str:
        return f"{self.data}: the paper's window ({PAPER_WINDOW}) is absent: {self.reason}"


AnyWindow = CaseWindow | AbsentWindow


def write_windows(windows: Sequence[AnyWindow], path: Path) -> None:
    """The windows as JSON, each with its label (absent ones with their reason)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{**asdict(w), "label": w.label} for w in windows],
                               indent=2) + "\n")


def read_windows(path: Path) -> list[AnyWindow]:
    """The windows ``write_windows`` wrote."""
    out: list[AnyWindow] = []
    for record in json.loads(Path(path).read_text()):
        record.pop("label")
        out.append(AbsentWindow(**record) if "reason" in record else CaseWindow(**record))
    return out


def demand_integral(jobs: pd.DataFrame, at: np.ndarray) -> np.ndarray:
    """GPU-seconds of unscheduled demand up to each instant of ``at``: int D(t) dt."""
    d = W.concurrent_demand(jobs)
    if d.times.size == 0:
        return np.zeros(len(at))
    cum = np.concatenate([[0.0], np.cumsum(d.values[:-1] * np.diff(d.times))])
    idx = np.searchsorted(d.times, at, side="right") - 1
    inside = idx >= 0
    out = np.zeros(len(at))
    out[inside] = cum[idx[inside]] + d.values[idx[inside]] * (at[inside] - d.times[idx[inside]])
    return out


def _load(jobs: pd.DataFrame, starts: np.ndarray, length: float, nodes: int) -> np.ndarray:
    """Mean unscheduled demand over [start, start + length) relative to G N GPUs."""
    return (demand_integral(jobs, starts + length) - demand_integral(jobs, starts)) / (
        length * G_DEFAULT * nodes)


def paper_window(trace: ResolvedTrace, days: dict[int, pd.DataFrame], case: CaseStudyConfig,
                 demand: str) -> AnyWindow:
    """The paper's clock window on its day of this trace's data; absent (with the reason)
    when the profile does not replay that day, those hours, or the day has no jobs."""
    spec, day = trace.spec, case.paper_day
    h0, h1 = spec.hours
    absent = None
    if day not in trace.days or day not in days:
        absent = f"day {day} is not among the replayed days {list(trace.days)}"
    elif not (h0 <= case.paper_start_h and case.paper_end_h <= h1):
        absent = (f"the replayed hours {h0:g}-{h1:g} do not cover "
                  f"{case.paper_start_h:g}-{case.paper_end_h:g}")
    elif days[day].empty:
        absent = f"day {day} has no jobs"
    if absent is not None:
        return AbsentWindow(spec.name, trace.label, "paper", absent)
    start = day * W.DAY_SECONDS + case.paper_start_h * 3600.0
    end = day * W.DAY_SECONDS + case.paper_end_h * 3600.0
    nodes = cluster_nodes(days[day], spec, day, case.eta, demand).nodes
    score = float(_load(days[day], np.array([start]), end - start, nodes)[0])
    return CaseWindow(spec.name, trace.label, trace.origin, "paper", day, start, end, case.eta,
                      nodes, score)


@dataclass(frozen=True)
class WindowGrid:
    """The comparable windows of one candidate day: its cluster size N(eta), the windows'
    starts (a ``step_minutes`` grid inside the replayed hours), their length and load."""

    day: int
    nodes: int
    starts: np.ndarray
    length: float
    load: np.ndarray


def window_grids(trace: ResolvedTrace, days: dict[int, pd.DataFrame], case: CaseStudyConfig,
                 demand: str) -> list[WindowGrid]:
    """The window grid of every candidate day with jobs (default: every replayed day)."""
    spec, length = trace.spec, case.window_minutes * 60.0
    grids = []
    for day in case.candidate_days or trace.days:
        jobs = days[day]
        if jobs.empty:
            continue
        nodes = cluster_nodes(jobs, spec, day, case.eta, demand).nodes
        span = window(spec, day)
        starts = np.arange(span.start, span.end - length + 1e-9, case.step_minutes * 60.0)
        if starts.size == 0:
            raise ValueError(f"{spec.name}: a {case.window_minutes:g}-minute window does not "
                             f"fit the replayed hours {spec.hours}")
        grids.append(WindowGrid(day, nodes, starts, length, _load(jobs, starts, length, nodes)))
    return grids


def busiest_window(trace: ResolvedTrace, days: dict[int, pd.DataFrame], case: CaseStudyConfig,
                   demand: str) -> CaseWindow:
    """The busiest comparable window of the candidate days (default: every replayed day)."""
    spec = trace.spec
    best: CaseWindow | None = None
    for grid in window_grids(trace, days, case, demand):
        day, nodes, starts, length, load = (grid.day, grid.nodes, grid.starts, grid.length,
                                            grid.load)
        k = int(np.argmax(load))
        if best is None or load[k] > best.score:
            best = CaseWindow(spec.name, trace.label, trace.origin, "busiest", day,
                              float(starts[k]), float(starts[k] + length), case.eta, nodes,
                              float(load[k]))
    if best is None:
        raise ValueError(f"{spec.name}: no candidate day with jobs for the case study")
    return best


def choose_windows(trace: ResolvedTrace, days: dict[int, pd.DataFrame], case: CaseStudyConfig,
                   demand: str) -> list[AnyWindow]:
    """The windows chosen without replaying: the paper's (maybe absent) and the busiest (the
    fragmented one needs the baselines' replays: ``runs.fragmented_window``)."""
    return [paper_window(trace, days, case, demand), busiest_window(trace, days, case, demand)]


def window_slice(timeline: pd.DataFrame, start: float, end: float) -> pd.DataFrame:
    """Rows in effect during [start, end): the row holding at ``start`` (its time set to
    ``start``) and every row that begins inside."""
    t = timeline["time"].to_numpy(dtype=float)
    first = max(int(np.searchsorted(t, start, side="right")) - 1, 0)
    part = timeline.iloc[first:int(np.searchsorted(t, end, side="left"))].copy()
    part.iloc[0, part.columns.get_loc("time")] = max(float(part["time"].iloc[0]), start)
    return part


def window_timeline(timeline: pd.DataFrame, win: CaseWindow, scheduler: str) -> pd.DataFrame:
    """A run's timeline inside the case window, with the columns the figures plot."""
    part = window_slice(timeline, win.start, win.end)[TIMELINE_COLUMNS]
    part.insert(0, "window", win.window)
    part.insert(1, "scheduler", scheduler)
    part["hour"] = (part["time"] - win.day * W.DAY_SECONDS) / 3600.0
    part["nsif"] = part["partial_nodes"] - part["phi_star"]
    part["frag_blocked"] = fragmentation_blocked(part, win.nodes)
    return part


def _runs(timelines: pd.DataFrame, jobs: pd.DataFrame, windows: Sequence[CaseWindow]
          ) -> Iterator[tuple[CaseWindow, str, pd.DataFrame, pd.DataFrame]]:
    """(window, scheduler, its timeline in the window, its jobs) of every stored run."""
    for win in windows:
        mine = timelines[timelines["window"] == win.window]
        for scheduler, tl in mine.groupby("scheduler", sort=False):
            run_jobs = jobs[(jobs["window"] == win.window) & (jobs["scheduler"] == scheduler)]
            yield win, str(scheduler), tl.reset_index(drop=True), run_jobs


def _is_wide(heads: pd.DataFrame) -> pd.Series:
    return ((heads["g"] == WIDE_JOB["gpus_per_instance"])
            & (heads["w"] >= WIDE_JOB["min_instances"]))


def _summary_row(win: CaseWindow, scheduler: str, tl: pd.DataFrame, jobs: pd.DataFrame
                 ) -> dict[str, object]:
    dt = interval_lengths(tl["time"].to_numpy(dtype=float), win.start, win.end)
    block = blocking(tl, win.nodes, start=win.start, end=win.end)
    heads = head_blocking(tl, jobs, win.nodes, start=win.start, end=win.end)
    wide, n = _is_wide(heads), int(heads["heads"].sum())
    row: dict[str, object] = {
        "window": win.window, "scheduler": scheduler, "window_s": block.seconds,
        "blocked_share": block.blocked_share, "blocked_s": block.blocked_s,
        "frag_blocked_s": block.fragmentation_s, "frag_share": block.fragmentation_share,
        "frag_episodes": block.episodes, "longest_frag_episode_s": block.longest_episode_s,
        "max_nsif": float(tl["nsif"].max())}
    for column in ("partial_nodes", "empty_nodes", "gpu_util"):
        values = tl[column].to_numpy(dtype=float)
        row[f"{column}_p10"] = weighted_quantile(values, dt, 0.1)
        row[f"{column}_p90"] = weighted_quantile(values, dt, 0.9)
    row["blocked_jobs"] = n
    row["blocked_g8_w31_share"] = heads["heads"][wide].sum() / n if n else float("nan")
    row["blocked_g8_w31_time_share"] = (heads["blocked_s"][wide].sum() / block.blocked_s
                                        if block.blocked_s > 0 else float("nan"))
    return row


def case_summary(timelines: pd.DataFrame, jobs: pd.DataFrame,
                 windows: Sequence[CaseWindow]) -> pd.DataFrame:
    """Per window and scheduler: blocking and its fragmentation-induced share, the longest
    blockage, bands (time-weighted 10th-90th percentiles) of partial nodes, empty nodes and
    GPU utilisation, the largest N x SIF, and who was blocked, counted as distinct jobs at
    the head (``blocked_jobs``) and weighed by blocked time: the share of the paper's wide
    jobs (g = 8, w > 30) by count and by time."""
    return pd.DataFrame([_summary_row(*run) for run in _runs(timelines, jobs, windows)])


def case_head_blocking(timelines: pd.DataFrame, jobs: pd.DataFrame,
                       windows: Sequence[CaseWindow]) -> pd.DataFrame:
    """Per window and scheduler, the blocked seconds behind each head-of-line class (g, w)
    and their fragmentation-induced part (``head_blocking``), tidy."""
    frames = [head_blocking(tl, run_jobs, win.nodes, start=win.start, end=win.end)
              .assign(window=win.window, scheduler=scheduler)
              for win, scheduler, tl, run_jobs in _runs(timelines, jobs, windows)]
    columns = ["window", "scheduler", *HEAD_COLUMNS]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(
        columns=columns)


def case_blocked_jobs(timelines: pd.DataFrame, jobs: pd.DataFrame,
                      windows: Sequence[CaseWindow]) -> pd.DataFrame:
    """Per window and scheduler, each distinct job that headed a waiting queue: its class
    (g, w), whether it is one of the paper's wide jobs and the seconds it held the queue,
    so that jobs blocked under several schedulers can be counted once."""
    columns = ["window", "scheduler", "job_id", "g", "w", "wide", "blocked_s"]
    frames = []
    for win, scheduler, tl, run_jobs in _runs(timelines, jobs, windows):
        rows = head_rows(tl, run_jobs, win.nodes, start=win.start, end=win.end)
        per_job = rows.groupby(["job_id", "g", "w"], as_index=False)["blocked_s"].sum()
        frames.append(per_job.assign(window=win.window, scheduler=scheduler,
                                     wide=_is_wide(per_job)))
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(
        columns=columns)


@dataclass(frozen=True)
class CaseStudy:
    """What the case-study rule wrote: both windows (the paper's maybe absent), their
    timelines and jobs (``window`` column), and run status per window and scheduler."""

    windows: tuple[AnyWindow, ...]
    timelines: pd.DataFrame
    jobs: pd.DataFrame
    status: pd.DataFrame

    @classmethod
    def load(cls, res: Results) -> CaseStudy:
        lay = res.layout
        return cls(tuple(read_windows(lay.case_windows)), read_frame(lay.case_timelines),
                   read_frame(lay.case_jobs),
                   read_frame(lay.case_runs, dtype={"error": str}).fillna(""))

    @property
    def trace(self) -> str:
        return self.windows[0].trace

    @property
    def present(self) -> list[CaseWindow]:
        """The windows replayed, in ``WINDOWS`` order."""
        return [w for w in self.windows if isinstance(w, CaseWindow)]

    def window(self, name: WindowName) -> AnyWindow:
        return next(w for w in self.windows if w.window == name)

    @property
    def label(self) -> str:
        """Every window's label (figures and tables name their data by it)."""
        return ". ".join(f"{w.window.capitalize()} window: {w.label}" for w in self.windows)

    def summary(self) -> pd.DataFrame:
        """``case_summary`` of the stored windows."""
        return case_summary(self.timelines, self.jobs, self.present)

    def blocked_jobs(self) -> pd.DataFrame:
        """``case_blocked_jobs`` of the stored windows."""
        return case_blocked_jobs(self.timelines, self.jobs, self.present)

    def head_blocking(self) -> pd.DataFrame:
        """``case_head_blocking`` of the stored windows."""
        return case_head_blocking(self.timelines, self.jobs, self.present)
