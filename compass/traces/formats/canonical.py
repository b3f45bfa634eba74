"""Our own canonical CSV (``compass.traces.schema.CANONICAL_COLUMNS``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from compass.model import G_DEFAULT
from compass.traces.formats import TraceFormat, register_format
from compass.traces.ingest import PROVENANCE_COLUMNS, LoadReport
from compass.traces.schema import CANONICAL_COLUMNS, read_trace


def load_canonical(
    path: str | Path, *, gpus_per_node: int = G_DEFAULT
) -> tuple[pd.DataFrame, LoadReport]:
    """A canonical CSV: validated as is; ``source_id``/``source`` are added when absent."""
    frame = read_trace(path, gpus_per_node=gpus_per_node)
    if "source_id" not in frame:
        frame["source_id"] = pd.array(frame["job_id"].astype(str), dtype="string")
    if "source" not in frame:
        frame["source"] = "canonical"
    ordered = [*CANONICAL_COLUMNS, *PROVENANCE_COLUMNS]
    frame = frame[ordered + [c for c in frame.columns if c not in ordered]]
    return frame, LoadReport(str(path), "canonical", len(frame), len(frame), {}, {})


register_format(TraceFormat("canonical", frozenset(CANONICAL_COLUMNS), load_canonical,
                            "our canonical CSV: " + ", ".join(CANONICAL_COLUMNS)))
