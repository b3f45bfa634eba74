"""The columns of a run's record tables, shared by the simulator and the physical runtime.

Both modes write the same ``jobs`` and ``timeline`` tables (docs/simulator.md,
docs/runtime.md), so their schemas live here, below both: the runtime writes them without
importing the simulator, and ``compass.sim.metrics`` reads either mode's tables alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

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


def job_columns(jobs: Sequence[Job], start: Sequence[float], end: Sequence[float],
                migrations: Sequence[int], instance_moves: Sequence[int],
                pause: Sequence[float]) -> dict[str, list]:
    """The ``JOB_COLUMNS`` of ``jobs`` as lists: the trace's fields, then what the run did to
    each job (``start`` to ``pause``, in the order of ``jobs``; trace seconds)."""
    submit = [job.submit_time for job in jobs]
    return {
        "job_id": [job.job_id for job in jobs], "submit_time": submit,
        "duration": [job.duration for job in jobs],
        "num_instances": [job.num_instances for job in jobs],
        "gpus_per_instance": [job.gpus_per_instance for job in jobs],
        "start_time": list(start), "end_time": list(end),
        "jct": [e - s for e, s in zip(end, submit)],
        "queue_time": [b - s for b, s in zip(start, submit)],
        "migrations": list(migrations), "instance_moves": list(instance_moves),
        "pause_time": list(pause),
    }


def job_row(job: Job, start: float, end: float, migrations: int, instance_moves: int,
            pause: float) -> tuple:
    """One ``JOB_COLUMNS`` row (``job_columns`` of one job)."""
    columns = job_columns([job], [start], [end], [migrations], [instance_moves], [pause])
    return tuple(values[0] for values in columns.values())


def column(values: Sequence) -> np.ndarray | list:
    """``values`` as a frame column of the dtype pandas infers from them, built by numpy
    where that is the same and faster: int64 for ints, float64 for floats (or ints and
    floats mixed). Anything else (None, text, ints past int64, which numpy would turn into
    floats) goes to pandas as a list. For numbers and not bools among them: numpy would
    count a bool among ints as an int, pandas as an object."""
    array = np.array(values)
    if array.dtype == np.int64:
        return array
    if array.dtype == np.float64 and any(isinstance(v, float) for v in values):
        return array  # a float comes first in a float column: one look
    return list(values)


def number_frame(columns: Mapping[str, Sequence]) -> pd.DataFrame:
    """The frame of ``columns`` of numbers (each as ``column`` builds it), as pandas would
    build it from the lists; no rows give the empty frame with those columns."""
    if not any(map(len, columns.values())):
        return pd.DataFrame([], columns=list(columns))
    return pd.DataFrame({name: column(values) for name, values in columns.items()})
