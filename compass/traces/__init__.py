"""Traces: the canonical schema, loaders of the real traces, synthetic traces, day windows.

``load_trace`` reads any supported format into the canonical frame; ``synthesize`` makes the
calibrated synthetic stand-ins; ``fetch_trace`` downloads the real tables; day windows,
N(eta), composition and WCC coverage live in ``compass.traces.windows``. The last three
names are imported on first use, so that reading a trace does not load scipy.
"""

from importlib import import_module
from typing import Any

from compass.traces.demo import demo_trace
from compass.traces.ingest import LoadReport
from compass.traces.loading import detect_format, load_trace
from compass.traces.schema import (
    CANONICAL_COLUMNS,
    TraceError,
    jobs_from_frame,
    read_trace,
    validate_trace,
)

_LAZY = {
    "synthesize": "compass.traces.synthetic",
    "fetch_trace": "compass.traces.fetch",
    "calibration_checks": "compass.traces.fidelity",
}

__all__ = [
    "CANONICAL_COLUMNS",
    "LoadReport",
    "TraceError",
    "calibration_checks",
    "demo_trace",
    "detect_format",
    "fetch_trace",
    "jobs_from_frame",
    "load_trace",
    "read_trace",
    "synthesize",
    "validate_trace",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'compass.traces' has no attribute {name!r}")
