"""Shared machinery of the upstream-trace loaders: reading, checked parsing, drop accounting.

Every loader reads its file as text, parses each column it needs with a check that names
the file, the data row (1-based), the file line and the column of the first bad value, then
applies its drop rules in a fixed order (a row is counted under the first rule it meets)
and hands the kept rows to ``canonical_frame``, which assigns FIFO job ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compass.model import G_DEFAULT
from compass.traces.schema import (
    CANONICAL_COLUMNS,
    TraceError,
    header_text,
    int64_overflow,
    nonfinite_problem,
    read_csv_text,
    validate_trace,
)

#: Columns every loaded frame carries besides the canonical ones.
PROVENANCE_COLUMNS = ("source_id", "source")


@dataclass(frozen=True)
class LoadReport:
    """What a loader read, kept and dropped (by reason, in rule order): nothing goes unreported."""

    path: str
    format: str
    rows_read: int
    rows_kept: int
    dropped: Mapping[str, int] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    #: kept jobs counted by the rule that shaped them (e.g. a split rule), and other counts
    rules: Mapping[str, int] = field(default_factory=dict)
    #: how the trace's days map to calendar days, when the loader knows it
    calendar: str | None = None

    def __post_init__(self) -> None:
        if self.rows_read != self.rows_kept + sum(self.dropped.values()):
            raise ValueError(f"{self.path}: rows read {self.rows_read} != kept {self.rows_kept}"
                             f" + dropped {dict(self.dropped)}")

    @property
    def rows_dropped(self) -> int:
        """Rows not kept, all reasons together."""
        return self.rows_read - self.rows_kept

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome: 'kept' first, then each drop reason."""
        rows = [("kept", self.rows_kept), *self.dropped.items()]
        return pd.DataFrame(rows, columns=["outcome", "rows"])

    def __str__(self) -> str:
        lines = [f"{self.path} ({self.format}): read {self.rows_read}, kept {self.rows_kept}"]
        lines += [f"  dropped {n} ({reason})" for reason, n in self.dropped.items()]
        lines += [f"  counted {n} ({rule})" for rule, n in self.rules.items()]
        if self.calendar:
            lines.append(f"  calendar: {self.calendar}")
        if self.options:
            lines.append("  options: " + ", ".join(f"{k}={v!r}" for k, v in self.options.items()))
        return "\n".join(lines)


def read_text_table(path: str | Path, required: Sequence[str], what: str) -> pd.DataFrame:
    """Read a CSV as text; raise ``TraceError`` if it is missing, empty or lacks a column."""
    frame = read_csv_text(path, dtype=str, keep_default_na=True)
    require_columns(frame, required, str(path), what)
    return frame


def require_columns(frame: pd.DataFrame, required: Sequence[str], source: str, what: str) -> None:
    """Raise ``TraceError`` naming the first of ``required`` that ``frame`` lacks."""
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise TraceError(source, f"missing column(s) {missing} of the {what} format; found "
                                 f"{header_text(frame.columns)}", column=missing[0])


def fail_at(source: str, i: int, column: str, problem: str) -> TraceError:
    """``TraceError`` for 0-based data row ``i`` of a file with one header line."""
    return TraceError(source, problem, row=i + 1, column=column, line=i + 2)


def numeric(
    frame: pd.DataFrame, column: str, source: str, *,
    whole: bool = False, minimum: float | None = None, allow_missing: bool = False,
) -> np.ndarray:
    """Column as float64, checked: present (unless ``allow_missing``), finite, whole, >= minimum."""
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    missing = raw.isna().to_numpy()
    bad = np.flatnonzero(~np.isfinite(values) & ~(missing & allow_missing))
    if bad.size:
        i = int(bad[0])
        raise fail_at(source, i, column, nonfinite_problem(raw.iloc[i], values[i]))
    present = ~missing
    if whole:
        frac = np.flatnonzero(present & (values != np.round(values)))
        if frac.size:
            i = int(frac[0])
            raise fail_at(source, i, column, f"expected a whole number, got {raw.iloc[i]!r}")
        if (overflow := int64_overflow(raw, values)) is not None:
            raise fail_at(source, overflow[0], column, overflow[1])
    if minimum is not None:
        low = np.flatnonzero(present & (values < minimum))
        if low.size:
            i = int(low[0])
            raise fail_at(source, i, column, f"must be >= {minimum:g}, got {raw.iloc[i]!r}")
    return values


def identifiers(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    """Source job ids as strings; raise on a missing or duplicate id."""
    raw = frame[column]
    missing = np.flatnonzero(raw.isna().to_numpy())
    if missing.size:
        raise fail_at(source, int(missing[0]), column, "missing value")
    ids = raw.str.strip().to_numpy(dtype=object)
    dup = np.flatnonzero(pd.Series(ids).duplicated().to_numpy())
    if dup.size:
        i = int(dup[0])
        raise fail_at(source, i, column, f"duplicate id {ids[i]!r}")
    return ids


class DropRules:
    """Applies named drop rules in order; each row is counted under the first rule it meets."""

    def __init__(self, rows: int) -> None:
        self.keep = np.ones(rows, dtype=bool)
        self.dropped: dict[str, int] = {}

    def drop(self, reason: str, mask: np.ndarray) -> None:
        """Drop the still-kept rows where ``mask`` is true, under ``reason``."""
        hit = self.keep & mask
        self.dropped[reason] = int(hit.sum())
        self.keep &= ~mask


def canonical_frame(
    *, source: str, source_ids: np.ndarray, submit: np.ndarray, duration: np.ndarray,
    instances: np.ndarray, gpus: np.ndarray, label: str, gpus_per_node: int = G_DEFAULT,
) -> pd.DataFrame:
    """Kept rows as a validated canonical frame in FIFO order.

    FIFO order is submission time, ties broken by the row order of the file; ``job_id`` is
    the position in that order (0, 1, ...), and the upstream id stays in ``source_id``.
    """
    order = np.argsort(submit, kind="stable")
    frame = pd.DataFrame({
        "job_id": np.arange(order.size, dtype=np.int64),
        "submit_time": submit[order].astype(float),
        "duration": duration[order].astype(float),
        "num_instances": instances[order].astype(np.int64),
        "gpus_per_instance": gpus[order].astype(np.int64),
        "source_id": pd.array(source_ids[order].astype(str), dtype="string"),
        "source": label,
    })
    checked = validate_trace(frame, source=source, gpus_per_node=gpus_per_node)
    return checked[[*CANONICAL_COLUMNS, *PROVENANCE_COLUMNS]]
