"""The columns of a run's record tables, shared by the simulator and the physical runtime.

Both modes write the same ``jobs`` and ``timeline`` tables (docs/simulator.md,
docs/runtime.md), so their schemas live here, below both: the runtime writes them without
importing the simulator, and ``compass.sim.metrics`` reads either mode's tables alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

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


def job_row(job: Job, start: float, end: float, migrations: int, instance_moves: int,
            pause: float) -> tuple:
    """One ``JOB_COLUMNS`` row: the trace's fields, then what the run did (trace seconds)."""
    return (job.job_id, job.submit_time, job.duration, job.num_instances,
            job.gpus_per_instance, start, end, end - job.submit_time, start - job.submit_time,
            migrations, instance_moves, pause)


#: The dtypes numpy infers as pandas does, for sequences of Python ints or floats.
_NUMERIC = (np.dtype(np.int64), np.dtype(np.float64))


def column(values: Sequence) -> np.ndarray | list:
    """``values`` as a frame column of the dtype pandas infers from them, built by numpy
    where that is the same and faster: int64 for Python ints, float64 for floats (or ints and
    floats mixed). Anything else (None, text, ints past int64) goes to pandas as a list.
    For numbers only: numpy would count a bool among ints as an int, pandas as an object."""
    array = np.array(values)
    return array if array.dtype in _NUMERIC else list(values)


def table(columns: Sequence[str], rows: Sequence[tuple]) -> pd.DataFrame:
    """``pd.DataFrame(rows, columns=columns)`` for rows of numbers (``column``), built column
    by column (by ``itemgetter``: ``zip(*rows)`` would make an iterator per row, enough of
    them to set off the garbage collector's full passes); no rows give the empty frame with
    those columns."""
    if not rows:
        return pd.DataFrame([], columns=list(columns))
    return pd.DataFrame({name: column(list(map(itemgetter(i), rows)))
                         for i, name in enumerate(columns)})
