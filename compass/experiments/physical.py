"""Phys-Mix from real runs (section 5.1): the physical runs' headline numbers beside c.

The ``physical`` rule runs the profile's Phys-Mix jobs as PyTorch training on Ray
(``compass.runtime``) under each scheduler and writes ``results/<profile>/physical/``.
Everything here is measured on the machine that ran it (emulated nodes train on CPU), so it
varies from run to run; the label says so. Each run is set beside its simulator twin
(``simulator_twin``: the same jobs, as long as the run held them, each migration charged
the measured mean latency), which it must match within ``TwinTolerance``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from compass.api import simulate
from compass.experiments.results import Results
from compass.sim.table_files import read_frame
from compass.traces import CANONICAL_COLUMNS

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("migration_latencies", "physical", "physical_label")

#: The headline metrics a physical run is compared on with its simulator twin.
TWIN_METRICS = ("afr", "ajct", "agu")

#: Columns of ``physical``: the simulator twin's metrics of the same run (``simulator_twin``).
TWIN_COLUMNS = ("sim_afr", "sim_ajct", "sim_agu", "sim_migrations")
#: Columns of ``physical``: the simulator's headline metrics plus what only a real run has.
PHYSICAL_COLUMNS = (
    "scheduler", "afr", "ajct", "agu", "migrations", "mean_migration_latency_s", "c",
    "restarts", "jobs", "wall_s", *TWIN_COLUMNS,
)


def physical(res: Results) -> pd.DataFrame:
    """One row per scheduler run physically, in the profile's order; empty when the profile
    runs none. ``c`` is the simulator's migration cost, set beside the measured latency;
    ``sim_*`` are the run's simulator twin (NaN where its jobs table is missing)."""
    path = res.layout.physical_summary
    spec = res.config.experiments.physical
    if spec is None or not path.exists():
        return pd.DataFrame(columns=list(PHYSICAL_COLUMNS))
    runs = read_frame(path)
    runs["c"] = res.config.migration_cost
    twins = []
    for name, latency in zip(runs["scheduler"], runs["mean_migration_latency_s"]):
        jobs = res.layout.physical_table(name, "jobs")
        if not jobs.exists():
            twins.append([math.nan] * len(TWIN_COLUMNS))
            continue
        cost = latency * spec.time_scale if pd.notna(latency) else res.config.migration_cost
        twin = simulator_twin(read_frame(jobs), name, spec.nodes, cost)
        twins.append([twin[m] for m in (*TWIN_METRICS, "migrations")])
    runs[list(TWIN_COLUMNS)] = pd.DataFrame(twins, index=runs.index, dtype=float)
    return runs[list(PHYSICAL_COLUMNS)].reset_index(drop=True)


def physical_label(res: Results) -> str:
    """Caption: what ran, where, on which data (SYNTHETIC or real), and that it is measured."""
    spec = res.config.experiments.physical
    if spec is None:
        return "no physical runs in this profile (experiments.physical is null)"
    if not res.layout.physical_summary.exists():
        return ("no physical runs: rule physical has not run (it is skipped where the "
                "runtime extra, Ray and PyTorch, is missing)")
    runs = read_frame(res.layout.physical_summary)
    modes = ", ".join(sorted({f"{m} nodes, {d} training" for m, d in
                              zip(runs["mode"], runs["device"])}))
    jobs = (f"the {spec.trace} scenario's first {spec.max_jobs} jobs (SYNTHETIC)"
            if spec.scenario else
            f"the first {spec.max_jobs} jobs of day {spec.day} of {res.traces[spec.trace].label}")
    return (f"MEASURED on Ray ({modes}): {jobs}, {spec.nodes} x 8 GPUs, time scale "
            f"{spec.time_scale:g} | profile {res.config.profile}")


def migration_latencies(res: Results) -> pd.DataFrame:
    """Every measured checkpoint-restart (scheduler, job, latency_s and its parts)."""
    spec = res.config.experiments.physical
    frames = []
    for name in spec.schedulers if spec is not None else ():
        path = res.layout.physical_table(name, "migrations")
        if path.exists() and path.stat().st_size:
            frames.append(read_frame(path).assign(scheduler=name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()




@dataclass(frozen=True)
class TwinTolerance:
    """How far a physical run may lie from its simulator twin (``simulator_twin``).

    The twin replays the same jobs, each as long as it held its GPUs in the physical run
    (``twin_trace``), and charges every migration the run's mean measured latency (as
    ``c``). What it cannot reproduce is the spread of single latencies around that mean (6
    to 66 s of wall time in one run on a loaded 2-core machine, i.e. up to about 2,000
    trace seconds on a job whose JCT is about 12,000) and the order of events that this
    spread changes: AJCT within ``ajct`` (relative). A changed order moves the queue's busy
    period (T_peak, eq. 14), over which AFR and AGU average, by an instant or two: within
    ``afr`` and ``agu`` (absolute; both are fractions in [0, 1]).
    """

    afr: float = 0.10
    ajct: float = 0.15
    agu: float = 0.10

    def allowed(self, metric: str, simulated: float) -> float:
        """The largest |physical - simulated| accepted for ``metric``."""
        bound = getattr(self, metric)
        return bound * abs(simulated) if metric == "ajct" else bound


def start_overheads(jobs: pd.DataFrame) -> pd.Series:
    """Trace seconds each job of a physical run held its GPUs beyond its duration and its
    measured migration latencies (``pause_time``): its actors' start-up (a Python process
    importing torch) and the controller's polling. The simulator has no such cost."""
    held = jobs["end_time"] - jobs["start_time"] - jobs["duration"] - jobs["pause_time"]
    return held.clip(lower=0.0)


def twin_trace(jobs: pd.DataFrame) -> pd.DataFrame:
    """The jobs of a physical run (its ``jobs`` table) as a canonical trace, each as long as
    the run kept it busy apart from migrations (duration + ``start_overheads``)."""
    trace = jobs[list(CANONICAL_COLUMNS)].assign(duration=jobs["duration"]
                                                 + start_overheads(jobs))
    return trace.sort_values(["submit_time", "job_id"]).reset_index(drop=True)


def simulator_twin(jobs: pd.DataFrame, scheduler: str, nodes: int,
                   migration_cost: float) -> dict[str, Any]:
    """The simulator's summary of ``twin_trace(jobs)`` under ``scheduler`` on ``nodes``
    nodes, each migration charged ``migration_cost`` trace seconds (the physical run's
    mean measured latency, wall seconds x time scale)."""
    return simulate(twin_trace(jobs), scheduler, nodes=nodes,
                    migration_cost=migration_cost).summary


def twin_comparison(physical_summary: Mapping[str, Any], twin_summary: Mapping[str, Any],
                    tolerance: TwinTolerance = TwinTolerance()) -> pd.DataFrame:
    """One row per metric of ``TWIN_METRICS`` plus ``migrations``: the physical and the
    simulated value, their difference, the tolerance and whether it holds (``within``; a
    metric undefined in both runs holds; migrations are shown, not judged)."""
    rows = []
    for metric in (*TWIN_METRICS, "migrations"):
        phys = _number(physical_summary.get(metric))
        sim = _number(twin_summary.get(metric))
        allowed = tolerance.allowed(metric, sim) if metric in TWIN_METRICS else math.nan
        if metric not in TWIN_METRICS:
            within = None
        elif math.isnan(phys) or math.isnan(sim):
            within = math.isnan(phys) and math.isnan(sim)
        else:
            within = abs(phys - sim) <= allowed
        rows.append({"metric": metric, "physical": phys, "simulator": sim,
                     "difference": phys - sim, "tolerance": allowed, "within": within})
    return pd.DataFrame(rows)


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)
