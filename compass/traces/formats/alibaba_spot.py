"""Alibaba spot-GPU ``job_info_df.csv`` (GFS, ASPLOS'26) into the canonical schema (section 5.3).

Upstream columns (cluster-trace-v2026-spot-gpu README): job_name, organization, gpu_model,
cpu_request, gpu_request, worker_num, submit_time (s after the first submission), duration
(s), job_type (HP or Spot); numbers may be written as floats ("8.0"). A job becomes
w = worker_num instances of g = gpu_request GPUs.

Drop rules, in this order: ``no_gpu`` (gpu_request = 0), ``fractional_gpu`` (gpu_request
not a whole number: GPU sharing, outside the paper's filter), ``gpu_exceeds_node``
(gpu_request > G), ``job_type_filtered`` (job_type not in ``job_types``, when given),
``backlog_at_time_0`` (rule ``backlog="drop"``, below), ``zero_duration``.

Backlog rule. Jobs already running when the trace starts are stamped submit_time = 0 (the
first trace hour holds 3,740 jobs against about 102 in that hour on later days, and some run
for the whole 184 days). Their real submission and start are unknown, so by default
(``backlog="drop"``) every job stamped exactly 0 is dropped and counted; ``backlog="keep"``
keeps them as arrivals at t = 0 with their recorded duration.
Malformed input (a missing column or value, a non-numeric or negative number, a fractional
or zero worker_num, a duplicate job_name) raises ``TraceError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

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

FORMAT = "alibaba-spot"
REQUIRED = ("job_name", "gpu_request", "worker_num", "submit_time", "duration")
Backlog = Literal["drop", "keep"]


def load_alibaba_spot(
    path: str | Path,
    *,
    backlog: Backlog = "drop",
    job_types: Iterable[str] | None = None,
    gpus_per_node: int = G_DEFAULT,
) -> tuple[pd.DataFrame, LoadReport]:
    """Load a GFS ``job_info_df.csv`` (or rows of it with the same columns)."""
    if backlog not in ("drop", "keep"):
        raise ValueError(f"backlog must be 'drop' or 'keep', got {backlog!r}")
    source = str(path)
    required = (*REQUIRED, "job_type") if job_types is not None else REQUIRED
    frame = read_text_table(path, required, FORMAT)
    ids = identifiers(frame, "job_name", source)
    gpu = numeric(frame, "gpu_request", source, minimum=0)
    workers = numeric(frame, "worker_num", source, whole=True, minimum=1)
    submit = numeric(frame, "submit_time", source, minimum=0)
    duration = numeric(frame, "duration", source, minimum=0)

    rules = DropRules(len(frame))
    rules.drop("no_gpu", gpu == 0)
    rules.drop("fractional_gpu", gpu != np.round(gpu))
    rules.drop("gpu_exceeds_node", gpu > gpus_per_node)
    if job_types is not None:
        rules.drop("job_type_filtered", ~frame["job_type"].isin(set(job_types)).to_numpy())
    if backlog == "drop":
        rules.drop("backlog_at_time_0", submit == 0)
    rules.drop("zero_duration", duration == 0)

    keep = rules.keep
    out = canonical_frame(
        source=source, source_ids=ids[keep], submit=submit[keep], duration=duration[keep],
        instances=workers[keep], gpus=gpu[keep], label="gfs", gpus_per_node=gpus_per_node,
    )
    report = LoadReport(
        source, FORMAT, len(frame), int(keep.sum()), rules.dropped,
        {"backlog": backlog, "job_types": None if job_types is None else sorted(set(job_types))},
    )
    return out, report


register_format(TraceFormat(
    FORMAT, frozenset({"job_name", "gpu_request", "worker_num", "submit_time", "duration"}),
    load_alibaba_spot, "Alibaba GFS spot trace job_info_df.csv"))
