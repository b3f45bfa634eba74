"""Helios ``cluster_log.csv`` (Venus, SenseTime, SC'21) into the canonical schema (section 5.3).

Upstream columns (HeliosData README): job_id, user, vc, gpu_num, cpu_num, node_num, state,
submit_time, start_time, end_time, duration, queue; times are "YYYY-MM-DD HH:MM:SS", and
``duration`` is end_time - start_time in seconds (pure run time). A job of ``gpu_num`` GPUs
on ``node_num`` nodes becomes w = node_num instances of g = gpu_num / node_num GPUs.

Drop rules, in this order: ``cpu_only`` (gpu_num = 0), ``no_nodes`` (node_num = 0),
``non_homogeneous`` (gpu_num not divisible by node_num, the paper's filter),
``instance_exceeds_node`` (g > G), ``state_filtered`` (state not in ``states``, when given),
``before_origin`` (submitted before ``origin``, when given), ``zero_duration``.
Malformed input (a missing column or value, a non-numeric, fractional or negative count or
duration, an unparsable time, a duplicate job_id) raises ``TraceError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from compass.model import G_DEFAULT
from compass.traces.formats import TraceFormat, register_format
from compass.traces.ingest import (
    DropRules,
    LoadReport,
    canonical_frame,
    fail_at,
    identifiers,
    numeric,
    read_text_table,
)

FORMAT = "helios"
REQUIRED = ("job_id", "gpu_num", "node_num", "state", "submit_time", "duration")


def _times(frame: pd.DataFrame, column: str, source: str) -> pd.Series:
    raw = frame[column]
    parsed = pd.to_datetime(raw, errors="coerce", format="ISO8601")
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        problem = "missing value" if pd.isna(raw.iloc[i]) else f"unparsable time {raw.iloc[i]!r}"
        raise fail_at(source, i, column, problem)
    return parsed


def load_helios(
    path: str | Path,
    *,
    states: Iterable[str] | None = None,
    origin: str | pd.Timestamp | None = None,
    cluster: str = "venus",
    gpus_per_node: int = G_DEFAULT,
) -> tuple[pd.DataFrame, LoadReport]:
    """Load a Helios ``cluster_log.csv``; ``submit_time`` becomes seconds since ``origin``.

    ``states``: keep only these final states (e.g. ``{"COMPLETED"}``); None keeps all, since
    the paper does not say it filtered by state. ``origin``: time zero; None means midnight
    of the earliest submission in the file, so day windows are calendar days.
    ``cluster`` names the ``source`` column (Venus, Earth, Saturn or Uranus).
    """
    source = str(path)
    frame = read_text_table(path, REQUIRED, FORMAT)
    ids = identifiers(frame, "job_id", source)
    gpu_num = numeric(frame, "gpu_num", source, whole=True, minimum=0)
    node_num = numeric(frame, "node_num", source, whole=True, minimum=0)
    duration = numeric(frame, "duration", source, minimum=0)
    submitted = _times(frame, "submit_time", source)
    zero = submitted.min().normalize() if origin is None else pd.Timestamp(origin)
    submit = (submitted - zero).dt.total_seconds().to_numpy(dtype=float)

    per_node = gpu_num / np.maximum(node_num, 1)
    rules = DropRules(len(frame))
    rules.drop("cpu_only", gpu_num == 0)
    rules.drop("no_nodes", node_num == 0)
    rules.drop("non_homogeneous", per_node != np.round(per_node))
    rules.drop("instance_exceeds_node", per_node > gpus_per_node)
    if states is not None:
        wanted = set(states)
        rules.drop("state_filtered", ~frame["state"].isin(wanted).to_numpy())
    if origin is not None:
        rules.drop("before_origin", submit < 0)
    rules.drop("zero_duration", duration == 0)

    keep = rules.keep
    out = canonical_frame(
        source=source, source_ids=ids[keep], submit=submit[keep], duration=duration[keep],
        instances=node_num[keep], gpus=per_node[keep], label=cluster.lower(),
        gpus_per_node=gpus_per_node,
    )
    report = LoadReport(
        source, FORMAT, len(frame), int(keep.sum()), rules.dropped,
        {"states": None if states is None else sorted(set(states)),
         "origin": str(zero), "cluster": cluster.lower()},
    )
    return out, report


register_format(TraceFormat(
    FORMAT, frozenset({"job_id", "gpu_num", "node_num", "submit_time", "duration"}),
    load_helios, "Helios/Venus cluster_log.csv (SenseTime, SC'21)"))
