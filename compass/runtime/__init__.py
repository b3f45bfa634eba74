"""Physical mode: run a trace's jobs as real PyTorch training on Ray under any scheduler.

``run_physical`` is section 5.1's deployment: a controller process that asks the scheduler
for decisions (through the same ``compass.sim.dispatch.Dispatcher`` as the simulator), launches
every job as a gang of Ray actors pinned to the decided nodes, and migrates jobs by
checkpoint-and-restart. Without ``address`` it emulates the cluster on this machine (nodes
as Ray custom resources, CPU training); with one it attaches to a real Ray cluster
(docs/runtime.md). It writes the simulator's ``jobs`` and ``timeline`` tables, plus the
measured migration latencies, so Phys-Mix (section 5.3) can be reported from real runs.

Times in the tables are trace seconds; physical timings (start-up, migration latency, run
time) are measured, not modelled, and vary from run to run. The scheduler's decisions are
deterministic given the order in which the events reach it.

Ray and PyTorch come with the optional extra: ``pip install 'compass[runtime]'``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from compass.model import G_DEFAULT

if TYPE_CHECKING:  # the actors import this package: keep it light (no pandas at import)
    import pandas as pd

log = logging.getLogger(__name__)

#: ``trace`` value of ``run_physical`` for the synthetic Phys-Mix workload (section 5.3)
PHYSMIX = "physmix"
#: ``trace`` value of ``run_physical`` for Phys-Mix-migrate, the scenario that makes
#: COMPASS-ABS migrate (``compass.traces.physmix_migrate``; run it at ``time_scale=60``)
PHYSMIX_MIGRATE = "physmix-migrate"
#: Phys-Mix jobs of the embedded default run (the first ones of day 0, FIFO order)
PHYSMIX_QUICK_JOBS = 12
#: where instances train: "auto" is CUDA when the Ray cluster has GPUs, else CPU
Device = Literal["auto", "cpu", "cuda"]
_INSTALL_HINT = "physical mode needs Ray and PyTorch: pip install 'compass[runtime]'"


@dataclass
class PhysicalResult:
    """The records of a physical run (all times in trace seconds unless named ``_s``).

    ``jobs``: the simulator's JOB_COLUMNS of ``compass.sim.records`` (``pause_time`` = measured
    migration latency) plus family, step_budget, steps and restarts; ``timeline``:
    TIMELINE_COLUMNS;
    ``migrations``: one row per checkpoint-restart with the measured ``latency_s`` (wall);
    ``placements``: every gang launched, decided vs executed node per instance;
    ``restarts``: fault and controller restarts; ``checkpoint_faults``: unreadable
    checkpoints a restore skipped (for the previous checkpoint or a start from scratch).
    """

    jobs: pd.DataFrame
    timeline: pd.DataFrame
    migrations: pd.DataFrame
    placements: pd.DataFrame
    restarts: pd.DataFrame
    summary: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    checkpoint_faults: pd.DataFrame | None = None

    def write(self, out: Path | str, table_format: str = "csv") -> Path:
        """Write the tables as ``table_format`` (csv or parquet) and summary.json into
        ``out`` (simulator run layout)."""
        from compass.sim.table_files import table_path, write_frame, write_summary  # pandas

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        for name in ("jobs", "timeline", "migrations", "placements", "restarts",
                     "checkpoint_faults"):
            if getattr(self, name) is not None:
                write_frame(getattr(self, name), table_path(out, name, table_format))
        write_summary(self.summary, out / "summary.json")
        return out


def physmix_trace(jobs: int = PHYSMIX_QUICK_JOBS, seed: int = 0) -> pd.DataFrame:
    """The first ``jobs`` jobs (FIFO order) of the SYNTHETIC Phys-Mix day ``seed``."""
    from compass.traces.synthetic import synthesize

    return synthesize(PHYSMIX, days=1, seed=seed).head(jobs).reset_index(drop=True)


def run_physical(
    trace: pd.DataFrame | str | Path = PHYSMIX,
    scheduler: str = "compass-abs",
    *,
    nodes: int = 4,
    gpus_per_node: int = G_DEFAULT,
    time_scale: float = 120.0,
    steps_per_trace_second: float = 0.05,
    checkpoint_interval_s: float = 2.0,
    max_jobs: int | None = None,
    address: str | None = None,
    device: Device = "auto",
    workdir: Path | str | None = None,
    resume: bool = False,
    force_new: bool = False,
    seed: int = 0,
    scheduler_params: dict[str, Any] | None = None,
    progress: bool = False,
    on_instant: Callable[[Any], None] | None = None,
) -> PhysicalResult:
    """Run ``trace`` under ``scheduler`` as real training jobs on Ray; return the records.

    ``trace``: a canonical frame, a canonical CSV path, "physmix" (SYNTHETIC Phys-Mix,
    first ``max_jobs`` or PHYSMIX_QUICK_JOBS jobs) or "physmix-migrate" (SYNTHETIC, the
    10 jobs of ``compass.traces.physmix_migrate``, which make COMPASS-ABS migrate).
    ``time_scale``: trace seconds per wall second; a job trains
    ``ceil(duration x steps_per_trace_second)`` steps paced over ``duration / time_scale``
    wall seconds. ``address``: attach to this Ray cluster instead
    of emulating ``nodes`` x ``gpus_per_node`` locally. ``workdir`` holds the journal and
    the checkpoints (shared storage on a real cluster; default: a new folder under
    ``results/physical/work/``); ``resume=True`` continues the run journaled there after a
    controller crash. A new run refuses a workdir holding another run's journal or
    checkpoints; ``force_new=True`` moves them into ``<workdir>/previous-<time>/`` first.
    ``on_instant`` is called after each instant.
    """
    if workdir is None:
        if resume:
            raise ValueError("resume=True needs the workdir of the run to continue")
        workdir = Path("results/physical/work") / time.strftime("%Y%m%d-%H%M%S")
    from compass.sim import metrics
    from compass.sim.run_inputs import prepare_run
    from compass.traces.schema import external_ids, restore_ids

    try:
        from compass.runtime.controller import Controller, ControllerConfig
        from compass.runtime.engine import connect
        from compass.runtime.workdir import open_run
    except ModuleNotFoundError as err:
        if err.name not in {"ray", "torch"}:
            raise
        raise ImportError(f"{_INSTALL_HINT} ({err})") from err

    named = trace if isinstance(trace, str) and trace in (PHYSMIX, PHYSMIX_MIGRATE) else None
    if named == PHYSMIX:
        trace = physmix_trace(max_jobs or PHYSMIX_QUICK_JOBS, seed)
    elif named == PHYSMIX_MIGRATE:
        from compass.traces.physmix_migrate import physmix_migrate

        trace = physmix_migrate()
    run = prepare_run(trace, scheduler, nodes=nodes, gpus_per_node=gpus_per_node, seed=seed,
                      scheduler_params=scheduler_params, max_jobs=max_jobs, label=named)
    frame, policy = run.frame, run.scheduler
    config = ControllerConfig(time_scale=time_scale, steps_per_trace_second=steps_per_trace_second,
                              checkpoint_interval_s=checkpoint_interval_s, seed=seed,
                              progress=progress)
    run_key = {
        "scheduler": policy.name, "scheduler_params": policy.params(), "seed": seed,
        "nodes": nodes, "gpus_per_node": gpus_per_node, "time_scale": time_scale,
        "steps_per_trace_second": steps_per_trace_second, "trace_digest": _digest(frame),
    }
    ids = external_ids(frame)  # text ids: the controller and its journal use FIFO positions
    if ids is not None:
        frame = frame.assign(job_id=range(len(frame)))
    workdir = Path(workdir).resolve()  # actors may run elsewhere, in another directory
    log.info("physical run: journal and checkpoints in %s", workdir)
    started = time.monotonic()
    journal, aside = open_run(workdir, run_key, resume=resume, force_new=force_new)
    try:
        with connect(nodes, gpus_per_node, address, device) as cluster:
            controller = Controller(frame, policy, cluster, config, journal, workdir,
                                    on_instant=on_instant)
            records = controller.run()
            metadata = {
                **run_key, "trace": run.label, "run_id": controller.run_id,
                "trace_source": run.trace_source,
                "mode": "emulated" if cluster.emulated else "ray-cluster",
                "ray_address": address, "device": cluster.device, "workdir": str(workdir),
                "moved_aside": None if aside is None else str(aside),
                "timings": "measured (wall clock, scaled by time_scale)",
            }
    finally:
        journal.close()
    latency = records.migrations["latency_s"]
    summary = {
        **metrics.summarize(records.jobs, records.timeline),
        "mean_migration_latency_s": float(latency.mean()) if latency.notna().any() else math.nan,
        "restarts": int(records.jobs["restarts"].sum()),
        "corrupt_checkpoints": len(records.checkpoint_faults),
        "wall_s": time.monotonic() - started,
        **metadata,
    }
    jobs, migrations, placements, restarts, faults = (
        restore_ids(t, ids) for t in (records.jobs, records.migrations, records.placements,
                                      records.restarts, records.checkpoint_faults))
    return PhysicalResult(jobs, records.timeline, migrations, placements, restarts, summary,
                          metadata, faults)


def _digest(frame: pd.DataFrame) -> str:
    from compass.traces import CANONICAL_COLUMNS

    data = frame[list(CANONICAL_COLUMNS)].to_csv(index=False).encode()
    return hashlib.sha256(data).hexdigest()[:16]


__all__ = ["PHYSMIX", "PHYSMIX_MIGRATE", "PHYSMIX_QUICK_JOBS", "Device", "PhysicalResult",
           "physmix_trace", "run_physical"]
