"""The per-job Venus table derived from Helios (``helios-jobs``; data/mystous_gpu_scheduler/).

Every Venus GPU job of HeliosData's ``cluster_log.csv``, one row a job, as
mystous/gpu_scheduler converted it: ``job_id``, ``arrival_s`` (seconds after the first GPU
job's submission), ``service_sec`` (the logged duration, **clamped at 48 h**) and
``gpu_count`` (the job's total GPUs; the node split is not kept). Section 5.3 replays jobs
of identical integer instances, so the split rule, in this order (docs/traces.md):

* ``single_node``: g <= 8 GPUs: one instance of g;
* ``whole_nodes``: g > 8 and a multiple of 8: g / 8 instances of 8;
* dropped ``split_unknown``: g > 8 and not a multiple of 8 (ten jobs of 12 or 14 GPUs: on
  two nodes, as 2 x 6 or 2 x 7 or unevenly; the table does not say, the full log does).

Further drops: ``cpu_only`` (g = 0), ``zero_duration``, ``before_origin``. Malformed input
(a missing column or value, a non-numeric, fractional or negative count, a negative time,
a duplicate id) raises ``TraceError`` naming file, row and column.

The calendar: ``arrival_s = 0`` is 2020-03-18 04:01:39 on the trace's clock (every
10-minute bin of Lucid's throughput table matches then; data/README.md). Day d is
[``origin`` + d days): by default day 1 is the first job's calendar day, 2020-03-18, so
that the paper's day numbers name the days it names (paper day 92 = 2020-06-17: its Table 2
row is that day's; docs/traces.md, "The real Venus").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from compass.model import G_DEFAULT
from compass.traces.formats import TraceFormat, register_format
from compass.traces.ingest import (
    DropRules,
    LoadReport,
    canonical_frame,
    identifiers,
    numeric,
    read_text_table,
)

FORMAT = "helios-jobs"
#: The table data/ ships, under data/ (data/README.md).
SHIPPED = "mystous_gpu_scheduler/helios_trace.csv.gz"
REQUIRED = ("job_id", "arrival_s", "service_sec", "gpu_count")
#: The converter's clamp: durations above 48 h were cut to it.
CLAMP_S = 172_800.0
#: ``arrival_s = 0`` on the trace's clock (recovered from Lucid's throughput bins).
FIRST_SUBMIT = pd.Timestamp("2020-03-18 04:01:39")
#: Time zero of the day index by default: the paper's day numbering (day 1 = 2020-03-18).
PAPER_ORIGIN = pd.Timestamp("2020-03-17 00:00:00")
#: What the table is, said in every label of a replay of it.
DERIVED = "derived: durations clamped at 48 h"
#: The split rules that keep a job, by name: what each does (counted in the load report).
SPLIT_RULES = {"single_node": "g <= 8 GPUs: one instance of g",
               "whole_nodes": "g > 8, a multiple of 8: g/8 instances of 8"}


def split_jobs(gpus: np.ndarray, gpus_per_node: int = G_DEFAULT
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(w, g, rule) per job of ``gpus`` total GPUs by the split rule; rule is
    ``single_node``, ``whole_nodes`` or ``split_unknown`` (w = g = 0 there)."""
    total = np.asarray(gpus, dtype=np.int64)
    single = total <= gpus_per_node
    whole = ~single & (total % gpus_per_node == 0)
    w = np.where(single, 1, np.where(whole, total // gpus_per_node, 0))
    g = np.where(single, total, np.where(whole, gpus_per_node, 0))
    rule = np.where(single, "single_node", np.where(whole, "whole_nodes", "split_unknown"))
    return w, g, rule


def calendar_text(origin: pd.Timestamp) -> str:
    """The recovered calendar of a load, as ``trace stats`` prints it."""
    first = int((FIRST_SUBMIT.normalize() - origin.normalize()).days)
    return (f"day d = {origin:%Y-%m-%d %H:%M} + d days on the trace's clock (arrival_s 0 = "
            f"{FIRST_SUBMIT}, recovered from Lucid's throughput bins); the first job's day "
            f"is day {first} ({FIRST_SUBMIT:%Y-%m-%d})")


def load_helios_jobs(
    path: str | Path,
    *,
    origin: str | pd.Timestamp = PAPER_ORIGIN,
    gpus_per_node: int = G_DEFAULT,
) -> tuple[pd.DataFrame, LoadReport]:
    """Load the derived Venus table; ``submit_time`` = seconds since ``origin`` (a time on the
    trace's clock; default ``PAPER_ORIGIN``, the paper's day numbering)."""
    source = str(path)
    frame = read_text_table(path, REQUIRED, FORMAT)
    ids = identifiers(frame, "job_id", source)
    arrival = numeric(frame, "arrival_s", source, minimum=0)
    duration = numeric(frame, "service_sec", source, minimum=0)
    gpus = numeric(frame, "gpu_count", source, whole=True, minimum=0)
    zero = pd.Timestamp(origin)
    submit = arrival + (FIRST_SUBMIT - zero).total_seconds()
    w, g, rule = split_jobs(gpus, gpus_per_node)

    rules = DropRules(len(frame))
    rules.drop("cpu_only", gpus == 0)
    rules.drop("split_unknown", rule == "split_unknown")
    rules.drop("before_origin", submit < 0)
    rules.drop("zero_duration", duration == 0)
    keep = rules.keep
    out = canonical_frame(
        source=source, source_ids=ids[keep], submit=submit[keep], duration=duration[keep],
        instances=w[keep], gpus=g[keep], label="venus", gpus_per_node=gpus_per_node,
    )
    kept_by = {name: int((keep & (rule == name)).sum()) for name in SPLIT_RULES}
    report = LoadReport(
        source, FORMAT, len(frame), int(keep.sum()), rules.dropped,
        {"origin": str(zero)},
        rules={**kept_by, "clamped_at_48h": int((keep & (duration >= CLAMP_S)).sum())},
        calendar=calendar_text(zero),
    )
    return out, report


register_format(TraceFormat(
    FORMAT, frozenset(REQUIRED), load_helios_jobs,
    "per-job Venus table derived from Helios (mystous/gpu_scheduler helios_trace.csv)",
    derived=DERIVED))
