"""Test helper: a canonical trace DataFrame from (job_id, submit, duration, w, g) rows."""

import pandas as pd

from compass.traces import CANONICAL_COLUMNS


def trace(*rows):
    """Rows of (job_id, submit_time, duration, num_instances, gpus_per_instance)."""
    return pd.DataFrame(list(rows), columns=list(CANONICAL_COLUMNS))


def gap_trace(rows, nodes):
    """Rows of (inter-arrival gap, duration, w, g): a trace whose jobs arrive one gap after
    another, w capped to what ``nodes`` empty 8-GPU nodes hold."""
    t, out = 0, []
    for k, (gap, dur, w, g) in enumerate(rows):
        t += gap
        out.append((k, float(t), float(dur), min(w, nodes * (8 // g)), g))
    return trace(*out)
