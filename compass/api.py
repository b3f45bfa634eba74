"""``compass.simulate``: one call from a trace and a scheduler name to metrics."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from compass.model import G_DEFAULT
from compass.schedulers import Scheduler
from compass.schedulers.params import check_params
from compass.sim import metrics
from compass.sim.result_schema import RUN_NAMES
from compass.sim.run_inputs import prepare_run
from compass.sim.simulator import DEFAULT_MIGRATION_COST, PauseRule, SimulationConfig, Simulator
from compass.sim.table_files import (
    DEFAULT_FORMAT,
    FORMATS,
    read_frame,
    table_path,
    write_frame,
    write_summary,
)
from compass.traces import jobs_from_frame
from compass.traces.ingest import LoadReport
from compass.traces.loading import Days, RunTrace, run_trace
from compass.traces.schema import external_ids, restore_ids
from compass.traces.windows import cluster_size


class UndefinedMetric(UserWarning):
    """A headline metric that a run leaves undefined (NaN), with the reason."""


#: AFR (eq. 15) and AGU (eq. 17) average over T_peak (eq. 14), the time with a queue.
NO_PEAK = ("AFR and AGU are undefined (NaN): the queue was never non-empty, so T_peak (eq. "
           "14), the time they average over, is empty; the cluster of {nodes} nodes is large "
           "enough for this trace. Compare AJCT, or size the cluster smaller (eta < 1 or "
           "fewer nodes) to measure fragmentation under load")


@dataclass
class SimulationResult:
    """Per-job table, timeline, migration log, headline summary and the run's metadata."""

    jobs: pd.DataFrame
    timeline: pd.DataFrame
    migrations: pd.DataFrame
    summary: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    #: What loading the trace read, kept and dropped, by reason (None when read back).
    load_report: LoadReport | None = None

    #: The tables a run writes, in ``write``'s order.
    TABLES = ("jobs", "timeline", "migrations")

    def write(self, out: str | Path, table_format: str = DEFAULT_FORMAT,
              timeline: bool = True) -> Path:
        """Write jobs, timeline and migrations as ``table_format`` (csv or parquet) and
        summary.json (NaN as null) into the folder ``out``; ``timeline=False`` leaves the
        timeline out (one row per event instant: large runs) and removes a stale one."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        for name in self.TABLES:
            if name == "timeline" and not timeline:
                for fmt in FORMATS:  # not a stale one from another run
                    table_path(out, name, fmt).unlink(missing_ok=True)
                continue
            write_frame(getattr(self, name), table_path(out, name, table_format))
        write_summary(self.summary, out / "summary.json")
        return out

    @classmethod
    def read(cls, folder: str | Path) -> SimulationResult:
        """A result ``write`` wrote into ``folder`` (either table format; a timeline left
        out is an empty table). The metrics' nulls come back as NaN; the metadata are the
        summary's keys that ``simulate`` records beside the metrics."""
        folder = Path(folder)
        summary = {k: (math.nan if v is None and k not in METADATA else v) for k, v in
                   json.loads((folder / "summary.json").read_text()).items()}
        tables = {}
        for name in cls.TABLES:
            found = [p for fmt in FORMATS if (p := table_path(folder, name, fmt)).exists()]
            tables[name] = read_frame(found[0]) if found else pd.DataFrame()
        metadata = {k: summary[k] for k in METADATA if k in summary}
        return cls(tables["jobs"], tables["timeline"], tables["migrations"], summary, metadata)


#: The keys of a run's metadata (``SimulationResult.metadata``), also in its summary: the
#: run columns of ``compass.sim.result_schema``.
METADATA = RUN_NAMES


def simulate(
    trace: RunTrace | pd.DataFrame | str | Path,
    scheduler: str | Scheduler = "gfs",
    *,
    nodes: int | None = None,
    eta: float | None = None,
    gpus_per_node: int = G_DEFAULT,
    migration_cost: float = DEFAULT_MIGRATION_COST,
    seed: int = 0,
    scheduler_params: Mapping[str, Any] | None = None,
    pause_rule: PauseRule = "per-event",
    days: Days | None = None,
    debug_checks: bool = False,
    progress: bool = False,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
    label: str | None = None,
) -> SimulationResult:
    """Replay ``trace`` under ``scheduler`` on ``nodes`` nodes.

    ``trace`` is a canonical DataFrame, ``"demo"`` (the built-in SYNTHETIC workload), a
    loaded ``RunTrace`` or the path of a trace file in any registered format
    (``compass.traces.formats``): detected from its header, or named by ``format``;
    ``columns`` (``{"old": "new"}``) renames header columns first. ``days`` (``(first,
    last)`` or ``"busy"``) is a window of days: N(eta) is measured over it and the jobs
    submitted after it are dropped (``compass.traces.loading.run_trace``). The cluster has
    ``nodes`` nodes, or N(``eta``) of eq. 13 (give one of them). ``scheduler_params`` are
    checked against the scheduler's declared parameters (``ParameterError``, as on the
    command line). ``label`` names the trace in the metadata. The summary holds the run
    columns and the metrics of ``compass.sim.result_schema`` (``dropped_jobs``: the rows
    loading left out; by reason in ``load_report``). Job ids come back as given. A metric
    the run leaves undefined (AFR and AGU without a queue) is NaN, with an
    ``UndefinedMetric`` warning that says why.
    """
    if (nodes is None) == (eta is None):
        raise ValueError("give the cluster's size as exactly one of nodes= or eta=")
    params = dict(scheduler_params or {})
    if isinstance(scheduler, str):
        params = check_params(scheduler, params)
    loaded = run_trace(trace, format, columns=columns, gpus_per_node=gpus_per_node, days=days,
                       label=label)
    if eta is not None:
        nodes = cluster_size(loaded.frame, eta, gpus_per_node, within=loaded.window).nodes
    assert nodes is not None
    run = prepare_run(loaded.frame, scheduler, nodes=nodes, gpus_per_node=gpus_per_node,
                      seed=seed, scheduler_params=params, label=loaded.label)
    policy = run.scheduler
    config = SimulationConfig(
        nodes=nodes, gpus_per_node=gpus_per_node, migration_cost=migration_cost,
        pause_rule=pause_rule, debug_checks=debug_checks, progress=progress,
    )
    records = Simulator(jobs_from_frame(run.frame), policy, config).run()
    ids = external_ids(run.frame)  # text ids: the simulator numbered the jobs by FIFO position
    jobs, migrations = restore_ids(records.jobs, ids), restore_ids(records.migrations, ids)
    metadata = {"trace": run.label, "trace_source": run.trace_source, "scheduler": policy.name,
                "scheduler_params": policy.params(), "seed": seed, "eta": eta, "nodes": nodes,
                "gpus_per_node": gpus_per_node, "cost": migration_cost,
                "pause_rule": pause_rule, "dropped_jobs": loaded.report.rows_dropped}
    summary = {**metadata, **metrics.summarize(jobs, records.timeline)}
    if len(jobs) and math.isnan(summary["afr"]):
        warnings.warn(UndefinedMetric(NO_PEAK.format(nodes=nodes)), stacklevel=2)
    return SimulationResult(jobs, records.timeline, migrations, summary, metadata,
                            loaded.report)
