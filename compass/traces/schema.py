"""The canonical trace schema (docs/traces.md) and its validation.

One row per job: ``job_id``, ``submit_time`` (s, >= 0), ``duration`` (s of pure run time, > 0),
``num_instances`` (w >= 1), ``gpus_per_instance`` (g in 1..G). A ``job_id`` column is either
whole numbers or text ids (any column holding a non-numeric value is text, kept exactly as
given). Rows are sorted by (submit_time, job_id) for whole-number ids and by submit_time for
text ids (ties keep the row order); that order is the FIFO order. Bad input raises
``TraceError`` naming the source, the row and the column; nothing is dropped silently.

Text ids stay at the boundaries: ``jobs_from_frame`` numbers such jobs by FIFO position for
the simulator (its ids are dict keys and tie-breakers), and ``external_ids`` gives the map
back that ``compass.simulate`` applies to every table it returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compass.model import G_DEFAULT, Job

CANONICAL_COLUMNS = ("job_id", "submit_time", "duration", "num_instances", "gpus_per_instance")
_INTEGER_COLUMNS = ("job_id", "num_instances", "gpus_per_instance")
#: Whole numbers are stored as int64; a magnitude this large would wrap around.
_INT64_BOUND = 2.0**63


def text_ids(frame: pd.DataFrame) -> bool:
    """Whether ``frame``'s job_id column holds text ids (some value is not a number)."""
    raw = frame["job_id"]
    if raw.dtype.kind in "iuf":
        return False
    num = pd.to_numeric(raw, errors="coerce")
    return bool((num.isna() & raw.notna()).any())


@dataclass
class TraceError(ValueError):
    """Invalid trace input, located by source, data row (1-based) and column."""

    source: str
    problem: str
    row: int | None = None
    column: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = [self.source]
        if self.row is not None:
            where.append(f"row {self.row}" + (f" (line {self.line})" if self.line else ""))
        if self.column is not None:
            where.append(f"column '{self.column}'")
        return ", ".join(where) + f": {self.problem}"


def validate_trace(
    frame: pd.DataFrame,
    source: str = "<DataFrame>",
    gpus_per_node: int = G_DEFAULT,
    header_lines: int | None = None,
) -> pd.DataFrame:
    """Check ``frame`` against the canonical schema; return a typed copy.

    ``header_lines`` (for files) lets errors also name the file's line number.
    """
    missing = [c for c in CANONICAL_COLUMNS if c not in frame.columns]
    if missing:
        raise TraceError(source, f"missing column(s) {missing}; found {header_text(frame.columns)}",
                         column=missing[0])
    out = frame.reset_index(drop=True).copy()

    def fail(i: int, column: str, problem: str) -> TraceError:
        line = i + 1 + header_lines if header_lines is not None else None
        return TraceError(source, problem, row=i + 1, column=column, line=line)

    texts = text_ids(out)
    if texts:
        raw = out["job_id"]
        blank = np.flatnonzero(raw.isna().to_numpy() | (raw.astype(str).str.strip() == ""))
        if blank.size:
            raise fail(int(blank[0]), "job_id", "missing value")
        out["job_id"] = raw.astype(str).astype(object)
    for col in CANONICAL_COLUMNS[1:] if texts else CANONICAL_COLUMNS:
        raw = out[col]
        num = pd.to_numeric(raw, errors="coerce")
        values = num.to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            raise fail(i, col, nonfinite_problem(raw.iloc[i], values[i]))
        if col in _INTEGER_COLUMNS:
            frac = np.flatnonzero(values != np.round(values))
            if frac.size:
                i = int(frac[0])
                raise fail(i, col, f"expected a whole number, got {plain(raw.iloc[i])}")
            if (overflow := int64_overflow(raw, values)) is not None:
                raise fail(overflow[0], col, overflow[1])
            out[col] = values.astype(np.int64)
        else:
            out[col] = values

    _check_range(out, "submit_time", out["submit_time"] < 0, "must be >= 0", fail)
    _check_range(out, "duration", out["duration"] <= 0, "must be > 0", fail)
    _check_range(out, "num_instances", out["num_instances"] < 1, "must be >= 1", fail)
    _check_range(
        out, "gpus_per_instance",
        (out["gpus_per_instance"] < 1) | (out["gpus_per_instance"] > gpus_per_node),
        f"must be in 1..{gpus_per_node} (GPUs per node)", fail,
    )
    dup = np.flatnonzero(out["job_id"].duplicated().to_numpy())
    if dup.size:
        i = int(dup[0])
        raise fail(i, "job_id", f"duplicate job_id {out['job_id'].iloc[i]}")
    t = out["submit_time"].to_numpy()
    ids = out["job_id"].to_numpy()
    later = (t[1:] >= t[:-1]) if texts else (t[1:] > t[:-1]) | ((t[1:] == t[:-1])
                                                                  & (ids[1:] > ids[:-1]))
    unsorted = np.flatnonzero(~later)
    if unsorted.size:
        i = int(unsorted[0]) + 1
        col = "submit_time" if t[i] < t[i - 1] else "job_id"
        raise fail(i, col, "rows must be sorted by (submit_time, job_id)")
    return out


def _check_range(out: pd.DataFrame, column: str, mask: pd.Series, problem: str, fail) -> None:
    bad = np.flatnonzero(mask.to_numpy())
    if bad.size:
        i = int(bad[0])
        raise fail(i, column, f"{problem}, got {plain(out[column].iloc[i])}")


def header_text(columns: Iterable[object], limit: int = 12, width: int = 40) -> str:
    """A file's column names for a message: at most ``limit``, each cut to ``width`` chars
    (a binary file read as text has one huge "column")."""
    names = [str(c) if len(str(c)) <= width else str(c)[:width] + "..." for c in columns]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"{names[:limit]}{more}"


def plain(value: object) -> str:
    """``value`` as a message shows it: numbers plainly (``-10.0``, not ``np.float64(-10.0)``),
    text quoted so that blanks and control characters stay visible."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value) if isinstance(value, str) else str(value)


def nonfinite_problem(raw: object, value: float) -> str:
    """Why a cell did not parse to a finite number: missing, not a number, or overflow."""
    if pd.isna(raw):
        return "missing value"
    if np.isnan(value):
        return f"non-numeric value {plain(raw)}"
    if isinstance(raw, str) and not any(w in raw.lower() for w in ("inf", "nan")):
        return f"numeric overflow: {raw.strip()} is beyond the range of a 64-bit float"
    return f"non-finite value {plain(raw)}"


def int64_overflow(raw: pd.Series, values: np.ndarray) -> tuple[int, str] | None:
    """The first row whose whole number does not fit an int64 (it would wrap), and why."""
    huge = np.flatnonzero(np.abs(values) >= _INT64_BOUND)
    if not huge.size:
        return None
    i = int(huge[0])
    text = raw.iloc[i].strip() if isinstance(raw.iloc[i], str) else plain(raw.iloc[i])
    return i, f"numeric overflow: {text} does not fit a 64-bit integer"


def read_csv_text(path: str | Path, **options) -> pd.DataFrame:
    """``pd.read_csv(path, **options)`` with every failure to read a table as ``TraceError``."""
    source = str(path)
    try:
        return pd.read_csv(path, **options)
    except FileNotFoundError:
        raise TraceError(source, "file not found") from None
    except IsADirectoryError:
        raise TraceError(source, "is a folder, not a file") from None
    except pd.errors.EmptyDataError:
        raise TraceError(source, "file is empty") from None
    except UnicodeDecodeError:
        raise TraceError(source, _undecodable(Path(path))) from None
    except pd.errors.ParserError as err:
        reason = str(err).strip().splitlines()[-1] if str(err).strip() else "parse error"
        raise TraceError(source, f"not a readable CSV table ({reason})") from None


def _undecodable(path: Path) -> str:
    """Where the first byte that is not UTF-8 lies (the file is read only on this error)."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        return (f"not UTF-8 text: byte 0x{data[err.start]:02x} at line {line} cannot be decoded "
                "(a trace is a UTF-8 CSV file)")
    return "not UTF-8 text"


def read_trace(path: str | Path, gpus_per_node: int = G_DEFAULT) -> pd.DataFrame:
    """Read and validate a canonical-schema CSV file."""
    frame = read_csv_text(path, dtype=str, keep_default_na=True)
    return validate_trace(frame, source=str(path), gpus_per_node=gpus_per_node, header_lines=1)


def jobs_from_frame(frame: pd.DataFrame) -> list[Job]:
    """``Job`` records of a validated canonical frame, in FIFO order.

    Whole-number ids are kept; text ids become the job's FIFO position (``external_ids``
    maps them back).
    """
    cols = [frame[c].tolist() for c in CANONICAL_COLUMNS[1:]]
    ids = range(len(frame)) if text_ids(frame) else frame["job_id"].tolist()
    return [Job(int(j), float(s), float(d), int(w), int(g)) for j, s, d, w, g in zip(ids, *cols)]


def external_ids(frame: pd.DataFrame) -> np.ndarray | None:
    """The given text ids indexed by the job ids ``jobs_from_frame`` assigned (FIFO
    positions), or None when the frame's ids are whole numbers (kept as they are)."""
    return frame["job_id"].to_numpy(dtype=object) if text_ids(frame) else None


def restore_ids(table: pd.DataFrame, ids: np.ndarray | None,
                column: str = "job_id") -> pd.DataFrame:
    """``table`` with its internal job ids in ``column`` replaced by the given text ids."""
    if ids is None:
        return table
    return table.assign(**{column: ids[table[column].to_numpy(dtype=np.int64)]})
