"""The columns of a run's record tables, shared by the simulator and the physical runtime.

Both modes write the same ``jobs`` and ``timeline`` tables (docs/simulator.md,
docs/runtime.md), so their schemas live here, below both: the runtime writes them without
importing the simulator, and ``compass.sim.metrics`` reads either mode's tables alike.
"""

from __future__ import annotations

from compass.model import Job

#: One row per job: the trace's fields, then what the run did (trace seconds).
JOB_COLUMNS = (
    "job_id", "submit_time", "duration", "num_instances", "gpus_per_instance", "start_time",
    "end_time", "jct", "queue_time", "migrations", "instance_moves", "pause_time",
)
#: The simulator's migration log: one row per moved instance; ``charged``: it paused its job.
MIGRATION_COLUMNS = ("time", "job_id", "instance", "src", "dst", "charged", "operator")
#: One row per instant (``compass.sim.timeline.TimelineRecorder``).
TIMELINE_COLUMNS = (
    "time", "partial_nodes", "phi_star", "sif", "used_gpus", "gpu_util", "empty_nodes",
    "queue_len", "head_demand", "running_jobs", "wcc",
)
#: Extra timeline columns of multi-panel clusters (G = 8K, K > 1; eq. 26, docs/nvl72.md).
PANEL_COLUMNS = (
    "partial_panels", "phi_star_gpu", "sif_gpu", "panel_partial_domains", "phi_star_panel",
    "sif_panel",
)


def job_row(job: Job, start: float, end: float, migrations: int, instance_moves: int,
            pause: float) -> tuple:
    """One ``JOB_COLUMNS`` row: the trace's fields, then what the run did (trace seconds)."""
    return (job.job_id, job.submit_time, job.duration, job.num_instances,
            job.gpus_per_instance, start, end, end - job.submit_time, start - job.submit_time,
            migrations, instance_moves, pause)
