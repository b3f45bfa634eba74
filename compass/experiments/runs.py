"""The simulator runs of the experiments: run batches, and the case-study day.

``run_batch`` replays a day window at one eta and one c under every scheduler; it is what
the Snakemake rule ``simulate`` calls. It sizes the cluster once
(N(eta), eq. 13, or the profile's fixed size), replays the window under each scheduler with
``compass.simulate`` and returns one tidy row per scheduler: the section 5.5 metrics (AFR,
AJCT, AGU), migrations, and timeline diagnostics (N x SIF, WCC, blocking) that the claims
report needs but the timeline itself is too large to keep for every run, the moves by
operator (``migrations.operator_moves``), and AFR and AGU over the batch's common window
(``common_window_metrics``). ``case_runs`` replays the section 6.6 days and keeps the
timelines of their windows.
"""

from __future__ import annotations

import math
import resource
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from compass.api import SimulationResult, simulate
from compass.experiments.blocking import blocking, fragmentation_blocked, interval_lengths
from compass.experiments.case_study import (
    JOB_COLUMNS,
    TIMELINE_COLUMNS,
    CaseWindow,
    window_grids,
    window_timeline,
)
from compass.experiments.config import CaseStudyConfig, ResolvedTrace, RunSettings
from compass.experiments.data import cluster_nodes
from compass.experiments.grid import RunKey
from compass.experiments.migrations import encode, operator_moves
from compass.sim.metrics import afr_agu_over, peak_window, union_window
from compass.sim.result_schema import METRIC_NAMES

#: Columns of a batch file, in order: the run, every metric of ``compass.sim.result_schema``
#: (the names of summary.json and of a sweep's table), then the pipeline's own diagnostics
#: (docs/pipeline.md describes each).
RUN_COLUMNS = [
    "trace", "day", "seed", "eta", "cost", "scheduler", "status", "error", "origin", "trace_source",
    "sizing", "nodes", "p_eta", "maxjob_nodes", *METRIC_NAMES,
    "max_nsif_wcc", "wcc_time_share", "blocked_s",
    "frag_blocked_s", "frag_episodes", "longest_frag_episode_s", "wall_s", "cpu_s",
    "operator_moves", "afr_common", "agu_common", "common_seconds",
]
#: Timeline columns a batch keeps of each run until every scheduler ran (common window).
WINDOW_COLUMNS = ["time", "queue_len", "sif", "gpu_util"]


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (CBC's solver processes)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def simulate_window(jobs: pd.DataFrame, scheduler: str, nodes: int, cost: float,
                    run: RunSettings, params: dict | None = None) -> SimulationResult:
    """Replay a window's jobs under ``scheduler`` on ``nodes`` nodes with migration cost c
    (``params``: the scheduler's parameters, by default the profile's)."""
    params = dict(run.scheduler_params.get(scheduler, {})) if params is None else params
    return simulate(jobs, scheduler=scheduler, nodes=nodes, migration_cost=cost, seed=run.seed,
                    scheduler_params=params, pause_rule=run.pause_rule,
                    progress=run.progress)  # type: ignore[arg-type]


def diagnostics(result: SimulationResult, nodes: int) -> dict[str, float]:
    """Timeline facts beyond the metrics: N x SIF (= partial nodes - Phi*) where the WCC
    holds, the WCC share of the replay, blocking and its fragmentation-induced part
    (``blocking``)."""
    tl = result.timeline
    nsif = (tl["partial_nodes"] - tl["phi_star"]).to_numpy()
    wcc = tl["wcc"].fillna(False).to_numpy(dtype=bool)
    dt = interval_lengths(tl["time"].to_numpy(dtype=float))
    block = blocking(tl, nodes, int(result.metadata["gpus_per_node"]))
    return {
        "max_nsif_wcc": float(nsif[wcc].max()) if wcc.any() else math.nan,
        "wcc_time_share": float(dt[wcc].sum() / dt.sum()) if dt.sum() > 0 else 1.0,
        "blocked_s": block.blocked_s,
        "frag_blocked_s": block.fragmentation_s,
        "frag_episodes": block.episodes,
        "longest_frag_episode_s": block.longest_episode_s,
    }


def common_window_metrics(timelines: Mapping[str, pd.DataFrame],
                          members: Iterable[str]) -> dict[str, dict[str, float]]:
    """AFR and AGU of each run of one batch over the batch's *common window*, the union of
    the T_peak (eq. 14) of the runs named in ``members`` (the profile's schedulers; a
    sensitivity variant is measured over the window but does not widen it), beside the
    paper's per-run T_peak: every scheduler is then averaged over the same period of the
    same jobs. A run that has finished inside the window counts as an idle, unfragmented
    cluster there (``metrics.window_weights``)."""
    window = union_window(peak_window(timelines[m]) for m in members if m in timelines)
    seconds = float((window[:, 1] - window[:, 0]).sum())
    out = {}
    for name, timeline in timelines.items():
        afr_common, agu_common = afr_agu_over(timeline, window)
        out[name] = {"afr_common": afr_common, "agu_common": agu_common,
                     "common_seconds": seconds}
    return out


def run_batch(jobs: pd.DataFrame, key: RunKey, trace: ResolvedTrace, run: RunSettings,
              log: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Replay one (trace, day, seed, eta, c) window under every configured scheduler and
    every sensitivity variant (its row's ``scheduler`` is the variant's label).

    A scheduler that raises is recorded with ``status="error"`` and its message (profile key
    ``on_error: record``; ``raise`` stops the batch instead), so one broken policy does not
    cost the other runs; the report lists every failed run.
    """
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    base = {"trace": key.trace, "day": key.day, "seed": key.seed, "eta": key.eta,
            "cost": key.cost,
            "origin": trace.origin, "jobs": len(jobs)}
    if jobs.empty:
        return _frame([{**base, "scheduler": label, "status": "empty"}
                       for label, _, _ in run.runs()])
    size = cluster_nodes(jobs, trace.spec, key.day, key.eta, run.demand)
    base.update(sizing="fixed" if trace.spec.nodes else run.demand, nodes=size.nodes,
                p_eta=size.p_eta, maxjob_nodes=size.maxjob_nodes)
    rows, timelines = [], {}
    for label, scheduler, params in run.runs():
        started, cpu_started = time.perf_counter(), cpu_seconds()
        row: dict[str, object] = {**base, "scheduler": label}
        try:
            result = simulate_window(jobs, scheduler, size.nodes, key.cost, run, params)
            s = result.summary
            row.update(status="ok", trace_source=s["trace_source"],
                       **{k: s[k] for k in METRIC_NAMES},
                       **diagnostics(result, size.nodes),
                       operator_moves=encode(operator_moves(result.migrations, key.cost,
                                                            run.pause_rule)))
            timelines[label] = result.timeline[WINDOW_COLUMNS]
        except Exception as exc:  # recorded, reported; see the docstring
            if run.on_error == "raise":
                raise
            row.update(status="error", error=f"{type(exc).__name__}: {exc}")
            log(traceback.format_exc())
        row["wall_s"] = time.perf_counter() - started
        row["cpu_s"] = cpu_seconds() - cpu_started
        rows.append(row)
        log(_progress_line(key, size.nodes, row))
    common = common_window_metrics(timelines, run.schedulers)
    for row in rows:
        row.update(common.get(str(row["scheduler"]), {}))
    return _frame(rows)


def _progress_line(key: RunKey, nodes: int, row: dict[str, object]) -> str:
    head = (f"{key.trace} day {key.day} seed {key.seed} eta {key.eta:g} c {key.cost:g} "
            f"N {nodes}: "
            f"{row['scheduler']:<12} {row['wall_s']:7.1f} s")
    if row["status"] != "ok":
        return f"{head}  {str(row['status']).upper()} {row.get('error', '')}"
    return (f"{head}  AFR {row['afr']:.4f}  AJCT {row['ajct']:.0f} s  AGU {row['agu']:.4f}  "
            f"migrations {row['migrations']}")


def _frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for column in RUN_COLUMNS:
        if column not in frame:
            frame[column] = np.nan if column != "error" else ""
    return frame[RUN_COLUMNS]


def case_runs(days: dict[int, pd.DataFrame], windows: Sequence[CaseWindow], run: RunSettings,
              cost: float) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Replay each case-study window's day under every scheduler with migration cost
    ``cost``, once per day however many windows it holds: (timelines inside each window,
    jobs, status), each row naming its ``window``. Errors are recorded as in ``run_batch``."""
    timelines, job_tables, status = [], [], []
    for day in dict.fromkeys(w.day for w in windows):
        mine = [w for w in windows if w.day == day]
        for scheduler in run.schedulers:
            try:  # one cluster per day: N(eta) of that day
                result = simulate_window(days[day], scheduler, mine[0].nodes, cost, run)
            except Exception as exc:  # recorded, reported; see run_batch
                if run.on_error == "raise":
                    raise
                status += [{"window": w.window, "scheduler": scheduler, "status": "error",
                            "error": f"{type(exc).__name__}: {exc}"} for w in mine]
                continue
            for win in mine:
                status.append({"window": win.window, "scheduler": scheduler, "status": "ok",
                               "error": ""})
                timelines.append(window_timeline(result.timeline, win, scheduler))
                table = result.jobs[JOB_COLUMNS].copy()
                table.insert(0, "window", win.window)
                table.insert(1, "scheduler", scheduler)
                job_tables.append(table)
    return (_stack(timelines, ["window", "scheduler", *TIMELINE_COLUMNS, "hour", "nsif",
                               "frag_blocked"]),
            _stack(job_tables, ["window", "scheduler", *JOB_COLUMNS]), pd.DataFrame(status))


def fragmented_window(trace: ResolvedTrace, days: dict[int, pd.DataFrame],
                      case: CaseStudyConfig, run: RunSettings, cost: float,
                      baselines: Sequence[str]) -> CaseWindow:
    """Section 6.6's phenomenon, found by replaying: of the busiest window's grid on every
    candidate day, the window with the most fragmentation-induced blocking (the queue waits
    although enough GPUs are idle, ``blocking.fragmentation_blocked``) summed over the
    ``baselines``' replays of its day (a baseline that raises adds nothing, unless
    ``on_error`` is ``raise``). Ties: the busier window, then the earlier."""
    best: tuple[float, float, CaseWindow] | None = None
    for grid in window_grids(trace, days, case, run.demand):
        seconds = np.zeros(grid.starts.size)
        for scheduler in baselines:
            try:
                timeline = simulate_window(days[grid.day], scheduler, grid.nodes, cost,
                                           run).timeline
            except Exception:  # recorded by case_runs when it replays the chosen window
                if run.on_error == "raise":
                    raise
                continue
            t = timeline["time"].to_numpy(dtype=float)
            flags = fragmentation_blocked(timeline, grid.nodes)
            seconds += [float((interval_lengths(t, s, s + grid.length) * flags).sum())
                        for s in grid.starts]
        k = int(np.lexsort((-grid.load, -seconds))[0])
        if best is None or (seconds[k], grid.load[k]) > best[:2]:
            start = float(grid.starts[k])
            best = (float(seconds[k]), float(grid.load[k]), CaseWindow(
                trace.spec.name, trace.label, trace.origin, "fragmented", grid.day, start,
                start + grid.length, case.eta, grid.nodes, float(grid.load[k])))
    if best is None:
        raise ValueError(f"{trace.spec.name}: no candidate day with jobs for the case study")
    return best[2]


def _stack(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
