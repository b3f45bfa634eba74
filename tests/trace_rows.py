"""Test helper: a canonical trace DataFrame from (job_id, submit, duration, w, g) rows."""

import pandas as pd

from compass.traces import CANONICAL_COLUMNS


def trace(*rows):
    """Rows of (job_id, submit_time, duration, num_instances, gpus_per_instance)."""
    return pd.DataFrame(list(rows), columns=list(CANONICAL_COLUMNS))
