"""Phys-Mix from real runs (section 5.1): the physical runs' headline numbers beside c.

The ``physical`` rule runs the profile's Phys-Mix jobs as PyTorch training on Ray
(``compass.runtime``) under each scheduler and writes ``results/<profile>/physical/``.
Everything here is measured on the machine that ran it (emulated nodes train on CPU), so it
varies from run to run; the label says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from compass.api import simulate
from compass.experiments.results import Results
from compass.traces import CANONICAL_COLUMNS

#: Columns of ``physical``: the simulator's headline metrics plus what only a real run has.
PHYSICAL_COLUMNS = (
    "scheduler", "afr", "ajct", "agu", "migrations", "mean_migration_latency_s", "c",
    "restarts", "jobs", "wall_s",
)


def physical(res: Results) -> pd.DataFrame:
    """One row per scheduler run physically, in the profile's order; empty when the profile
    runs none. ``c`` is the simulator's migration cost, set beside the measured latency."""
    path = res.layout.physical_summary
    if res.config.experiments.physical is None or not path.exists():
        return pd.DataFrame(columns=list(PHYSICAL_COLUMNS))
    runs = pd.read_csv(path)
    runs["c"] = res.config.migration_cost
    return runs[list(PHYSICAL_COLUMNS)].reset_index(drop=True)


def physical_label(res: Results) -> str:
    """Caption: what ran, where, on which data (SYNTHETIC or real), and that it is measured."""
    spec = res.config.experiments.physical
    if spec is None:
        return "no physical runs in this profile (experiments.physical is null)"
    if not res.layout.physical_summary.exists():
        return ("no physical runs: rule physical has not run (it is skipped where the "
                "runtime extra, Ray and PyTorch, is missing)")
    runs = pd.read_csv(res.layout.physical_summary)
    modes = ", ".join(sorted({f"{m} nodes, {d} training" for m, d in
                              zip(runs["mode"], runs["device"])}))
    return (f"MEASURED on Ray ({modes}): the first {spec.max_jobs} jobs of day {spec.day} of "
            f"{res.traces[spec.trace].label}, {spec.nodes} x 8 GPUs, time scale "
            f"{spec.time_scale:g} | profile {res.config.profile}")


def migration_latencies(res: Results) -> pd.DataFrame:
    """Every measured checkpoint-restart (scheduler, job, latency_s and its parts)."""
    spec = res.config.experiments.physical
    frames = []
    for name in spec.schedulers if spec is not None else ():
        path = res.layout.physical / name / "migrations.csv"
        if path.exists() and path.stat().st_size:
            frames.append(pd.read_csv(path).assign(scheduler=name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: The headline metrics a physical run is compared on with its simulator twin.
TWIN_METRICS = ("afr", "ajct", "agu")


@dataclass(frozen=True)
class TwinTolerance:
    """How far a physical run may lie from the simulator's run of the same jobs.

    The twin charges each migration the run's mean measured latency (as ``c``) but knows
    nothing of what else the physical world adds to every job: its actors' start-up (a
    Python process importing torch, 5 to 25 s of wall time each on a loaded 2-core machine,
    i.e. 300 to 1,500 trace seconds at one trace minute per wall second), the spread of the
    latencies around their mean, and the controller's polling. Jobs of Phys-Mix-migrate run
    35 to 105 trace minutes, so each job's JCT may grow by up to about a quarter: AJCT within
    ``ajct`` (relative). The later departures shift the queue's busy period (T_peak, eq. 14)
    over which AFR and AGU average, by one or two of its instants: within ``afr`` and ``agu``
    (absolute; both are fractions in [0, 1]).
    """

    afr: float = 0.15
    ajct: float = 0.30
    agu: float = 0.15

    def allowed(self, metric: str, simulated: float) -> float:
        """The largest |physical - simulated| accepted for ``metric``."""
        bound = getattr(self, metric)
        return bound * abs(simulated) if metric == "ajct" else bound


def simulator_twin(jobs: pd.DataFrame, scheduler: str, nodes: int,
                   migration_cost: float) -> dict[str, Any]:
    """The simulator's summary for the jobs of a physical run (its ``jobs`` table), each
    migration charged ``migration_cost`` trace seconds (the run's mean measured latency)."""
    trace = jobs[list(CANONICAL_COLUMNS)].sort_values(["submit_time", "job_id"])
    return simulate(trace.reset_index(drop=True), scheduler, nodes=nodes,
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
