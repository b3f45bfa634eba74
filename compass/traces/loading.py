"""``load_trace``: one entry point from a trace file in any registered format to the
canonical frame.

Formats (``compass.traces.formats``): ``canonical`` (our own CSV), ``helios`` (Venus
``cluster_log.csv``), ``alibaba-spot`` (GFS ``job_info_df.csv``), ``alibaba-openb`` (FGD's
openb pod list), and any a plugin registers; ``auto`` picks the one format whose signature
columns the header holds. ``columns={"old": "new"}`` renames header columns first, so that
a file with other column names can be read by a format.
"""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, overload

import pandas as pd

from compass.model import G_DEFAULT
from compass.traces.demo import demo_trace
from compass.traces.formats import formats, trace_format
from compass.traces.formats.canonical import load_canonical
from compass.traces.ingest import LoadReport
from compass.traces.schema import (
    CANONICAL_COLUMNS,
    TraceError,
    header_text,
    read_csv_text,
    read_trace,
    validate_trace,
)
from compass.traces.windows import DAY_SECONDS, Window, busy_window

__all__ = ["detect_format", "load_canonical", "load_trace", "parse_columns", "read_run_trace",
           "schema_text"]

#: A format name, or "auto".
Format = str


def schema_text() -> str:
    """The canonical schema and every format's signature columns, for error messages."""
    lines = [f"the canonical schema: {', '.join(CANONICAL_COLUMNS)} (one row per job: "
             "job_id, submit_time s, duration s, num_instances w, gpus_per_instance g)"]
    lines += [f"{name}: {', '.join(sorted(f.signature))} ({f.description})"
              for name, f in formats().items() if name != "canonical"]
    return "; ".join(lines)


def detect_format(path: str | Path) -> str:
    """The single format whose signature columns the file's header contains."""
    source = str(path)
    header = set(read_csv_text(path, nrows=0).columns)
    matches = [name for name, f in formats().items() if f.signature <= header]
    if len(matches) != 1:
        why = "matches several formats " + str(matches) if matches else "matches no format"
        raise TraceError(source, f"header {header_text(sorted(header))} {why}; pass format= one "
                                 f"of {sorted(formats())}, or rename columns with columns= "
                                 f"(CLI: --columns old=new,...). Formats: {schema_text()}")
    return matches[0]


def parse_columns(text: str) -> dict[str, str]:
    """``{"old": "new"}`` from ``old=new,old2=new2`` (the CLI's ``--columns``)."""
    out: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        old, sep, new = (s.strip() for s in item.partition("="))
        if not sep or not old or not new:
            raise ValueError(f"expected old=new pairs separated by commas, got {item!r}")
        out[old] = new
    return out


@overload
def load_trace(path: str | Path, format: Format = ..., *, columns: Mapping[str, str] | None = ...,
               return_report: Literal[False] = ..., **options: Any) -> pd.DataFrame: ...
@overload
def load_trace(path: str | Path, format: Format = ..., *, columns: Mapping[str, str] | None = ...,
               return_report: Literal[True], **options: Any) -> tuple[pd.DataFrame, LoadReport]: ...
def load_trace(path, format="auto", *, columns=None, return_report=False, **options):
    """Load ``path`` into the canonical frame (plus ``source_id``, ``source``).

    ``columns`` renames header columns first (``{"old": "new"}``). ``options`` go to the
    format's loader (e.g. ``states=`` for helios, ``backlog=`` for alibaba-spot,
    ``gpus_per_node=`` for all). With ``return_report=True`` the ``LoadReport`` (rows kept
    and dropped by reason) comes back too.
    """
    if columns:
        with tempfile.TemporaryDirectory() as folder:
            renamed = _renamed_copy(Path(path), columns, Path(folder))
            frame, report = load_trace(renamed, format, return_report=True, **options)
        report = replace(report, path=str(path))
    else:
        fmt = trace_format(detect_format(path) if format == "auto" else format)
        frame, report = fmt.load(path, **options)
    return (frame, report) if return_report else frame


def _renamed_copy(path: Path, columns: Mapping[str, str], folder: Path) -> Path:
    """A copy of ``path`` under ``folder`` whose header has ``columns`` renamed (the rows
    are copied byte for byte)."""
    header = set(read_csv_text(path, nrows=0).columns)
    unknown = sorted(set(columns) - header)
    if unknown:
        raise TraceError(str(path), f"columns= renames {unknown}, not in the header "
                                    f"{header_text(sorted(header))}")
    with path.open(encoding="utf-8", newline="") as src:
        first = src.readline()
        names = next(csv.reader([first]))
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow([columns.get(n, n) for n in names])
        end = first[len(first.rstrip("\r\n")):]
        copy = folder / path.name
        with copy.open("w", encoding="utf-8", newline="") as dst:
            dst.write(out.getvalue() + end)
            for line in src:
                dst.write(line)
    return copy


def read_run_trace(path: str | Path, format: Format = "auto", *,
                   columns: Mapping[str, str] | None = None,
                   gpus_per_node: int = G_DEFAULT, return_report: bool = False) -> Any:
    """The trace a run replays, from a file in any format (``compass simulate``,
    ``compass.simulate``, the physical runs).

    A canonical CSV is read as it is (``read_trace``: no provenance columns added, its own
    errors naming the missing canonical columns, then the other formats' signatures); any
    other format, or a file whose columns are renamed, goes through ``load_trace``. With
    ``return_report=True`` the ``LoadReport`` (rows kept and dropped) comes back too.
    """
    if columns or format not in ("auto", "canonical"):
        return load_trace(path, format, columns=columns, gpus_per_node=gpus_per_node,
                          return_report=return_report)
    if format == "auto":
        header = set(read_csv_text(path, nrows=0).columns)
        others = [n for n, f in formats().items() if n != "canonical" and f.signature <= header]
        if others and not set(CANONICAL_COLUMNS) <= header:
            return load_trace(path, format, gpus_per_node=gpus_per_node,
                              return_report=return_report)
    try:
        frame = read_trace(path, gpus_per_node=gpus_per_node)
        if return_report:
            return frame, LoadReport(str(path), "canonical", len(frame), len(frame))
        return frame
    except TraceError as err:
        if format == "auto" and err.row is None:  # a header that matches nothing
            err.problem += (f"; or pass format= one of {sorted(formats())} or rename columns "
                            f"with columns= (CLI: --columns old=new,...). {schema_text()}")
        raise


#: The name of the built-in SYNTHETIC demo workload (``demo_trace()``) wherever a run takes
#: a trace: ``compass.simulate("demo")``, ``compass.sweep``, ``--trace demo``.
DEMO = "demo"
#: A day window: (first, last) day indices, both included, or "busy" (``busy_window``).
Days = tuple[int, int] | Literal["busy"]
#: The drop reason of the jobs submitted after a day window.
AFTER_DAYS = "after_days"


@dataclass(frozen=True)
class RunTrace:
    """The trace a run replays, what its metadata calls it, what loading it dropped
    (``report.rows_dropped``: every row the loader or the day window left out), and the day
    window it was cut to (N(eta) is measured over it, as the pipeline sizes the openb
    replay)."""

    frame: pd.DataFrame
    label: str
    report: LoadReport
    window: Window | None = None


def run_trace(trace: RunTrace | pd.DataFrame | str | Path, format: Format = "auto", *,
              columns: Mapping[str, str] | None = None, gpus_per_node: int = G_DEFAULT,
              days: Days | None = None, label: str | None = None) -> RunTrace:
    """The trace a run replays: a canonical frame (validated), ``DEMO``, or a file in any
    format (``read_run_trace``). ``days`` is a window of days: N(eta) is measured over it
    (``RunTrace.window``), and the jobs submitted after it are dropped (counted, reason
    ``after_days``); the jobs submitted before it stay, as the load running into the window
    (the pipeline's openb replay sizes and replays so). ``label`` names the trace (default:
    the path, "demo" or "<DataFrame>"). A ``RunTrace`` (loaded once for several runs, as
    a sweep does) comes back as it is."""
    if isinstance(trace, RunTrace):
        return trace
    if isinstance(trace, str) and trace == DEMO:
        frame, name = demo_trace(), DEMO
        report = LoadReport(DEMO, "demo", len(frame), len(frame))
    elif isinstance(trace, (str, Path)):
        frame, report = read_run_trace(trace, format, columns=columns,
                                       gpus_per_node=gpus_per_node, return_report=True)
        name = str(trace)
        if report is None:  # a plugin format's loader that reports nothing
            report = LoadReport(name, format, len(frame), len(frame))
    else:
        frame, name = validate_trace(trace, gpus_per_node=gpus_per_node), "<DataFrame>"
        report = LoadReport(name, "frame", len(frame), len(frame))
    window = None
    if days is not None:
        window = day_range(frame, days)
        kept = frame[frame["submit_time"] < window.end].reset_index(drop=True)
        report = replace(report, rows_kept=len(kept), dropped={
            **report.dropped, AFTER_DAYS: len(frame) - len(kept)})
        frame = kept
    return RunTrace(frame, label or name, report, window)


def day_range(frame: pd.DataFrame, days: Days) -> Window:
    """The submission window of ``days``: (first, last) day indices, or "busy"."""
    if days == "busy":
        return busy_window(frame)
    first, last = days
    if not 0 <= first <= last:
        raise ValueError(f"days: expected 0 <= first <= last, got {first}-{last}")
    return Window(first * DAY_SECONDS, (last + 1) * DAY_SECONDS, first)
