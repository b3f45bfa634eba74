"""``compass.simulate``: one call from a trace and a scheduler name to metrics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from compass import metrics
from compass.model import G_DEFAULT
from compass.run_inputs import prepare_run
from compass.schedulers import Scheduler
from compass.simulator import DEFAULT_MIGRATION_COST, PauseRule, SimulationConfig, Simulator
from compass.traces import jobs_from_frame
from compass.traces.schema import external_ids, restore_ids


@dataclass
class SimulationResult:
    """Per-job table, timeline, migration log, headline summary and the run's metadata."""

    jobs: pd.DataFrame
    timeline: pd.DataFrame
    migrations: pd.DataFrame
    summary: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


def simulate(
    trace: pd.DataFrame | str | Path,
    scheduler: str | Scheduler = "gfs",
    *,
    nodes: int,
    gpus_per_node: int = G_DEFAULT,
    migration_cost: float = DEFAULT_MIGRATION_COST,
    seed: int = 0,
    scheduler_params: dict[str, Any] | None = None,
    pause_rule: PauseRule = "per-event",
    debug_checks: bool = False,
    progress: bool = False,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
) -> SimulationResult:
    """Replay ``trace`` under ``scheduler`` on ``nodes`` nodes.

    ``trace`` is a canonical DataFrame or the path of a trace file in any registered format
    (``compass.traces.formats``): detected from its header, or named by ``format``;
    ``columns`` (``{"old": "new"}``) renames header columns first. Job ids come back as
    given, whole numbers or text, in the jobs table and migration log.
    """
    run = prepare_run(trace, scheduler, nodes=nodes, gpus_per_node=gpus_per_node, seed=seed,
                      scheduler_params=scheduler_params, format=format, columns=columns)
    policy = run.scheduler
    config = SimulationConfig(
        nodes=nodes, gpus_per_node=gpus_per_node, migration_cost=migration_cost,
        pause_rule=pause_rule, debug_checks=debug_checks, progress=progress,
    )
    records = Simulator(jobs_from_frame(run.frame), policy, config).run()
    ids = external_ids(run.frame)  # text ids: the simulator numbered the jobs by FIFO position
    jobs, migrations = restore_ids(records.jobs, ids), restore_ids(records.migrations, ids)
    metadata = {
        "scheduler": policy.name,
        "scheduler_params": policy.params(),
        "nodes": nodes,
        "gpus_per_node": gpus_per_node,
        "migration_cost": migration_cost,
        "pause_rule": pause_rule,
        "seed": seed,
        "trace": run.label,
        "trace_source": run.trace_source,
    }
    summary = {**metrics.summarize(jobs, records.timeline), **metadata}
    return SimulationResult(jobs, records.timeline, migrations, summary, metadata)
