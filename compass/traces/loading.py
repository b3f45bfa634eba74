"""``load_trace``: one entry point from a trace file in any supported format to the canonical frame.

Formats: ``canonical`` (our own CSV), ``helios`` (Venus ``cluster_log.csv``),
``alibaba-spot`` (GFS ``job_info_df.csv``), ``alibaba-openb`` (FGD's openb pod list), and
``auto``, which picks the one format whose signature columns the header holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, overload

import pandas as pd

from compass.model import G_DEFAULT
from compass.traces.alibaba_openb import load_alibaba_openb
from compass.traces.alibaba_spot import load_alibaba_spot
from compass.traces.helios import load_helios
from compass.traces.ingest import PROVENANCE_COLUMNS, LoadReport
from compass.traces.schema import (
    CANONICAL_COLUMNS,
    TraceError,
    header_text,
    read_csv_text,
    read_trace,
)

Loader = Callable[..., tuple[pd.DataFrame, LoadReport]]

#: Columns whose presence identifies each format in ``auto`` detection.
SIGNATURES: dict[str, frozenset[str]] = {
    "canonical": frozenset(CANONICAL_COLUMNS),
    "helios": frozenset({"job_id", "gpu_num", "node_num", "submit_time", "duration"}),
    "alibaba-spot": frozenset({"job_name", "gpu_request", "worker_num", "submit_time",
                               "duration"}),
    "alibaba-openb": frozenset({"name", "num_gpu", "gpu_milli"}),
}


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


LOADERS: dict[str, Loader] = {
    "canonical": load_canonical,
    "helios": load_helios,
    "alibaba-spot": load_alibaba_spot,
    "alibaba-openb": load_alibaba_openb,
}
Format = Literal["auto", "canonical", "helios", "alibaba-spot", "alibaba-openb"]


def detect_format(path: str | Path) -> str:
    """The single format whose signature columns the file's header contains."""
    source = str(path)
    header = set(read_csv_text(path, nrows=0).columns)
    matches = [name for name, cols in SIGNATURES.items() if cols <= header]
    if len(matches) != 1:
        why = "matches several formats " + str(matches) if matches else "matches no format"
        raise TraceError(source, f"header {header_text(sorted(header))} {why}; pass format= one of "
                                 f"{sorted(LOADERS)}")
    return matches[0]


@overload
def load_trace(path: str | Path, format: Format = ..., *,
               return_report: Literal[False] = ..., **options: Any) -> pd.DataFrame: ...
@overload
def load_trace(path: str | Path, format: Format = ..., *,
               return_report: Literal[True], **options: Any) -> tuple[pd.DataFrame, LoadReport]: ...
def load_trace(path, format="auto", *, return_report=False, **options):
    """Load ``path`` into the canonical frame (plus ``source_id``, ``source``).

    ``options`` go to the format's loader (e.g. ``states=`` for helios, ``backlog=`` for
    alibaba-spot). With ``return_report=True`` the ``LoadReport`` (rows kept and dropped by
    reason) comes back too.
    """
    name = detect_format(path) if format == "auto" else format
    if name not in LOADERS:
        raise ValueError(f"unknown trace format {format!r}; choose 'auto' or one of "
                         f"{sorted(LOADERS)}")
    frame, report = LOADERS[name](path, **options)
    return (frame, report) if return_report else frame
