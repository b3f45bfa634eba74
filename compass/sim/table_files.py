"""A run's files: its tables as CSV or Parquet (one writer and one reader, chosen by
suffix) and its summary as JSON.

Every table a run writes (the CLI's, ``SimulationResult.write``, the pipeline's per-run
tables) goes through ``write_frame``, and every reader of them through ``read_frame``, so
that ``--table-format`` / the profile's ``outputs.table_format`` changes one thing. Parquet
keeps the column types and is smaller and faster to read for large runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import pandas as pd

TableFormat = Literal["csv", "parquet"]
#: The formats of a run's tables, the first the default.
FORMATS: tuple[str, ...] = ("csv", "parquet")
DEFAULT_FORMAT: TableFormat = "csv"


def table_format(path: str | Path) -> str:
    """The format of a table file, by its suffix (``.csv`` or ``.parquet``)."""
    kind = Path(path).suffix.removeprefix(".").lower()
    if kind not in FORMATS:
        raise ValueError(f"{path}: a run's table is .csv or .parquet, not {kind or 'no suffix'!r}")
    return kind


def table_path(folder: str | Path, stem: str, fmt: str = DEFAULT_FORMAT) -> Path:
    """The file of table ``stem`` in ``folder`` written as ``fmt``."""
    if fmt not in FORMATS:
        raise ValueError(f"table format must be one of {list(FORMATS)}, got {fmt!r}")
    return Path(folder) / f"{stem}.{fmt}"


def write_frame(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` (without its index) as the format of ``path``'s suffix."""
    path = Path(path)
    if table_format(path) == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def read_frame(path: str | Path, **csv_options: Any) -> pd.DataFrame:
    """Read a table ``write_frame`` wrote: ``csv_options`` (e.g. ``dtype``) go to
    ``pd.read_csv``; a Parquet file keeps the column types it was written with."""
    if table_format(path) == "parquet":
        return pd.read_parquet(path)
    return pd.read_csv(path, **csv_options)


def write_summary(summary: Mapping[str, Any], path: str | Path) -> Path:
    """A run's summary as JSON, NaN (an undefined metric) as null."""
    clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in summary.items()}
    Path(path).write_text(json.dumps(clean, indent=2, default=str) + "\n")
    return Path(path)
