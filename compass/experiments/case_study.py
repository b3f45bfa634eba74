"""Section 6.6 (Figs. 5-7): a 90-minute window of one day at eta = 0.95, second by second.

The paper zooms into GFS day 113, 21:00-22:30. On the real GFS trace we take that window;
on other data (the SYNTHETIC stand-in, or a real trace whose day 113 is not replayed) the
window is chosen by code and named as such: the *busiest comparable window*, the window of
the same length (on a ``step_minutes`` grid inside the replayed hours of the candidate days)
with the highest mean unscheduled demand D(t) (eq. 12) relative to the cluster's GPUs
G N(eta). Each scheduler replays the whole day; the figures show the window: N x SIF, GPU
utilisation and empty nodes, and ``case_summary`` attributes the queue's blocking.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from compass.experiments.blocking import (
    blocking,
    fragmentation_blocked,
    interval_lengths,
    queue_heads,
    weighted_quantile,
)
from compass.experiments.config import CaseStudyConfig, ResolvedTrace
from compass.experiments.data import cluster_nodes, window
from compass.experiments.results import Results
from compass.model import G_DEFAULT
from compass.traces import windows as W

#: Timeline columns kept for the window (plus scheduler, hour, nsif, frag_blocked).
TIMELINE_COLUMNS = ["time", "partial_nodes", "phi_star", "used_gpus", "gpu_util",
                    "empty_nodes", "queue_len", "head_demand"]
#: Job columns kept for blocked-job attribution.
JOB_COLUMNS = ["job_id", "submit_time", "start_time", "end_time", "num_instances",
               "gpus_per_instance", "queue_time", "jct"]
#: The paper's blocked jobs: 8 GPUs per instance and more than 30 instances.
WIDE_JOB = {"gpus_per_instance": 8, "min_instances": 31}


def _clock(seconds: float) -> str:
    s = int(round(seconds % W.DAY_SECONDS))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}"


@dataclass(frozen=True)
class CaseWindow:
    """The case-study window: absolute seconds [start, end) of ``day``, and why it is it."""

    trace: str
    data: str
    day: int
    start: float
    end: float
    eta: float
    nodes: int
    chosen_by: Literal["paper", "code"]
    score: float

    @property
    def label(self) -> str:
        when = f"{self.data} day {self.day}, {_clock(self.start)}-{_clock(self.end)}"
        if self.chosen_by == "paper":
            return f"{when} (the paper's window), eta = {self.eta:g}, N = {self.nodes}"
        return (f"{when}, eta = {self.eta:g}, N = {self.nodes}: the busiest comparable window, "
                f"chosen by code (mean demand {self.score:.2f} x capacity); the paper's is "
                f"GFS day 113, 21:00-22:30")

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**asdict(self), "label": self.label}, indent=2) + "\n")

    @classmethod
    def read(cls, path: Path) -> CaseWindow:
        record = json.loads(Path(path).read_text())
        record.pop("label")
        return cls(**record)


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


def choose_window(trace: ResolvedTrace, days: dict[int, pd.DataFrame], case: CaseStudyConfig,
                  demand: str) -> CaseWindow:
    """The paper's window on the real trace when replayed, else the busiest comparable one."""
    spec, length = trace.spec, case.window_minutes * 60.0
    h0, h1 = spec.hours
    paper_fits = h0 <= case.paper_start_h and case.paper_end_h <= h1
    if trace.origin == "real" and case.paper_day in days and paper_fits:
        day = case.paper_day
        start = day * W.DAY_SECONDS + case.paper_start_h * 3600.0
        end = day * W.DAY_SECONDS + case.paper_end_h * 3600.0
        nodes = cluster_nodes(days[day], spec, day, case.eta, demand).nodes
        score = float(np.diff(demand_integral(days[day], np.array([start, end])))[0]
                      / (end - start) / (G_DEFAULT * nodes))
        return CaseWindow(spec.name, trace.label, day, start, end, case.eta, nodes, "paper",
                          score)
    candidates = case.candidate_days or trace.days
    best: CaseWindow | None = None
    for day in candidates:
        jobs = days[day]
        if jobs.empty:
            continue
        nodes = cluster_nodes(jobs, spec, day, case.eta, demand).nodes
        span = window(spec, day)
        starts = np.arange(span.start, span.end - length + 1e-9, case.step_minutes * 60.0)
        if starts.size == 0:
            raise ValueError(f"{spec.name}: a {case.window_minutes:g}-minute window does not "
                             f"fit the replayed hours {spec.hours}")
        load = (demand_integral(jobs, starts + length) - demand_integral(jobs, starts)) / (
            length * G_DEFAULT * nodes)
        k = int(np.argmax(load))
        if best is None or load[k] > best.score:
            best = CaseWindow(spec.name, trace.label, day, float(starts[k]),
                              float(starts[k] + length), case.eta, nodes, "code", float(load[k]))
    if best is None:
        raise ValueError(f"{spec.name}: no candidate day with jobs for the case study")
    return best


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
    part.insert(0, "scheduler", scheduler)
    part["hour"] = (part["time"] - win.day * W.DAY_SECONDS) / 3600.0
    part["nsif"] = part["partial_nodes"] - part["phi_star"]
    part["frag_blocked"] = fragmentation_blocked(part, win.nodes)
    return part


def case_summary(timelines: pd.DataFrame, jobs: pd.DataFrame, win: CaseWindow) -> pd.DataFrame:
    """Per scheduler, inside the window: blocking and its fragmentation-induced share, the
    longest blockage, bands (time-weighted 10th-90th percentiles) of partial nodes, empty
    nodes and GPU utilisation, the largest N x SIF, and who was blocked."""
    rows = []
    for scheduler, tl in timelines.groupby("scheduler", sort=False):
        tl = tl.reset_index(drop=True)
        dt = interval_lengths(tl["time"].to_numpy(dtype=float), win.start, win.end)
        block = blocking(tl, win.nodes, start=win.start, end=win.end)
        heads = queue_heads(tl, jobs[jobs["scheduler"] == scheduler])
        waiting = (tl["queue_len"].to_numpy() > 0) & (dt > 0) & (heads >= 0)
        blocked_ids = np.unique(heads[waiting])
        mine = jobs[(jobs["scheduler"] == scheduler) & jobs["job_id"].isin(blocked_ids)]
        wide = ((mine["gpus_per_instance"] == WIDE_JOB["gpus_per_instance"])
                & (mine["num_instances"] >= WIDE_JOB["min_instances"]))
        row = {"scheduler": scheduler, "window_s": block.seconds,
               "blocked_share": block.blocked_share, "blocked_s": block.blocked_s,
               "frag_blocked_s": block.fragmentation_s,
               "frag_share": block.fragmentation_share, "frag_episodes": block.episodes,
               "longest_frag_episode_s": block.longest_episode_s,
               "max_nsif": float(tl["nsif"].max())}
        for column in ("partial_nodes", "empty_nodes", "gpu_util"):
            values = tl[column].to_numpy(dtype=float)
            row[f"{column}_p10"] = weighted_quantile(values, dt, 0.1)
            row[f"{column}_p90"] = weighted_quantile(values, dt, 0.9)
        row["blocked_jobs"] = len(mine)
        row["blocked_g8_w31_share"] = float(wide.mean()) if len(mine) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class CaseStudy:
    """What the case-study rule wrote: the window, its timelines, the jobs, run status."""

    window: CaseWindow
    timelines: pd.DataFrame
    jobs: pd.DataFrame
    status: pd.DataFrame

    @classmethod
    def load(cls, res: Results) -> CaseStudy:
        lay = res.layout
        return cls(CaseWindow.read(lay.case_window), pd.read_csv(lay.case_timelines),
                   pd.read_csv(lay.case_jobs), pd.read_csv(lay.case_runs).fillna(""))

    def summary(self) -> pd.DataFrame:
        """``case_summary`` of the stored window."""
        return case_summary(self.timelines, self.jobs, self.window)
