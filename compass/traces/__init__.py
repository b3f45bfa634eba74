"""Traces: the canonical schema, its validation, and built-in synthetic workloads."""

from compass.traces.demo import demo_trace
from compass.traces.schema import (
    CANONICAL_COLUMNS,
    TraceError,
    jobs_from_frame,
    read_trace,
    validate_trace,
)

__all__ = [
    "CANONICAL_COLUMNS",
    "TraceError",
    "demo_trace",
    "jobs_from_frame",
    "read_trace",
    "validate_trace",
]
