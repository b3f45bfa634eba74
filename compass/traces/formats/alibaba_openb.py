"""Alibaba openb pod list (FGD, ATC'23, cluster-trace-gpu-v2023) into the canonical schema.

Upstream columns of ``openb_pod_list_default.csv``: name, cpu_milli, memory_mib, num_gpu,
gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time (seconds;
scheduled_time is empty for pods that never ran). A pod becomes one job of w = 1 instance
of g = num_gpu whole GPUs, submitted at creation_time. Its run time is
deletion_time - scheduled_time (``run_time="scheduled"``, the default, the canonical pure run
time) or deletion_time - creation_time (``run_time="creation"``).

Drop rules, in this order: ``no_gpu`` (num_gpu = 0), ``shared_gpu`` (num_gpu = 1 with
gpu_milli < 1000: a GPU share, not a whole GPU; with ``fractional="round-up"`` such pods
are kept as 1 whole GPU instead, and the report counts them under ``rounded_up``),
``gpu_exceeds_node`` (num_gpu > G), ``phase_filtered`` (pod_phase not in ``phases``, when
given), ``never_scheduled`` (no scheduled_time, run_time "scheduled" only),
``zero_duration``.
The openb_pod_list_multigpu*/gpuspec* files have no times: they are snapshot workloads,
refused here and read by ``load_alibaba_openb_snapshot`` (pods without times, for static
packing) instead. Malformed input (a missing column or value, a non-numeric, negative or
fractional number, a deletion before the start, a duplicate name) raises ``TraceError``.
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
    fail_at,
    identifiers,
    numeric,
    read_text_table,
    require_columns,
)
from compass.traces.schema import TraceError

FORMAT = "alibaba-openb"
SNAPSHOT_FORMAT = "alibaba-openb-snapshot"
REQUIRED = ("name", "num_gpu", "gpu_milli", "creation_time", "deletion_time")
RunTime = Literal["scheduled", "creation"]
#: GPU-sharing pods (num_gpu = 1, gpu_milli < 1000): dropped, or rounded up to 1 whole GPU.
Fractional = Literal["drop", "round-up"]
_WHOLE_GPU_MILLI = 1000


def _gpu_rules(rules: DropRules, gpus: np.ndarray, milli: np.ndarray, fractional: Fractional,
               gpus_per_node: int) -> int:
    """The GPU drop rules of both openb formats; returns how many pods were rounded up."""
    if fractional not in ("drop", "round-up"):
        raise ValueError(f"fractional must be 'drop' or 'round-up', got {fractional!r}")
    rules.drop("no_gpu", gpus == 0)
    shared = (gpus == 1) & (milli < _WHOLE_GPU_MILLI)
    rules.drop("shared_gpu", shared if fractional == "drop" else np.zeros_like(shared))
    rules.drop("gpu_exceeds_node", gpus > gpus_per_node)
    return int((shared & rules.keep).sum()) if fractional == "round-up" else 0


def load_alibaba_openb(
    path: str | Path,
    *,
    run_time: RunTime = "scheduled",
    phases: Iterable[str] | None = None,
    fractional: Fractional = "drop",
    gpus_per_node: int = G_DEFAULT,
) -> tuple[pd.DataFrame, LoadReport]:
    """Load an openb pod list with times (``openb_pod_list_default.csv``)."""
    if run_time not in ("scheduled", "creation"):
        raise ValueError(f"run_time must be 'scheduled' or 'creation', got {run_time!r}")
    source = str(path)
    frame = read_text_table(path, ("name", "num_gpu"), FORMAT)
    if "creation_time" not in frame.columns:
        raise TraceError(source, "this openb pod list has no creation/deletion times: it is a "
                                 "snapshot workload for static packing, not a trace to replay",
                         column="creation_time")
    required = list(REQUIRED)
    required += ["scheduled_time"] if run_time == "scheduled" else []
    required += ["pod_phase"] if phases is not None else []
    require_columns(frame, required, source, FORMAT)
    ids = identifiers(frame, "name", source)
    gpus = numeric(frame, "num_gpu", source, whole=True, minimum=0)
    milli = numeric(frame, "gpu_milli", source, minimum=0)
    created = numeric(frame, "creation_time", source, minimum=0)
    deleted = numeric(frame, "deletion_time", source, minimum=0)
    if run_time == "scheduled":
        started = numeric(frame, "scheduled_time", source, minimum=0, allow_missing=True)
        start_column = "scheduled_time"
    else:
        started, start_column = created, "creation_time"
    duration = deleted - started
    early = np.flatnonzero(duration < 0)
    if early.size:
        i = int(early[0])
        raise fail_at(source, i, "deletion_time",
                      f"deletion_time {deleted[i]:g} precedes {start_column} {started[i]:g}")

    rules = DropRules(len(frame))
    rounded = _gpu_rules(rules, gpus, milli, fractional, gpus_per_node)
    if phases is not None:
        rules.drop("phase_filtered", ~frame["pod_phase"].isin(set(phases)).to_numpy())
    if run_time == "scheduled":
        rules.drop("never_scheduled", np.isnan(started))
    rules.drop("zero_duration", duration == 0)

    keep = rules.keep
    out = canonical_frame(
        source=source, source_ids=ids[keep], submit=created[keep], duration=duration[keep],
        instances=np.ones(int(keep.sum())), gpus=gpus[keep], label="openb",
        gpus_per_node=gpus_per_node,
    )
    report = LoadReport(
        source, FORMAT, len(frame), int(keep.sum()), rules.dropped,
        {"run_time": run_time, "phases": None if phases is None else sorted(set(phases)),
         "fractional": fractional, "rounded_up": rounded},
    )
    return out, report


def load_alibaba_openb_snapshot(
    path: str | Path, *, fractional: Fractional = "drop", gpus_per_node: int = G_DEFAULT,
) -> tuple[pd.DataFrame, LoadReport]:
    """An openb pod list without times (``openb_pod_list_multigpu*.csv``): the pods of a
    snapshot workload, one row each (``source_id``, ``gpus_per_instance``), in file order.

    The drop rules are the GPU rules of ``load_alibaba_openb`` (``no_gpu``, ``shared_gpu``
    or ``rounded_up``, ``gpu_exceeds_node``).
    """
    source = str(path)
    frame = read_text_table(path, ("name", "num_gpu", "gpu_milli"), SNAPSHOT_FORMAT)
    ids = identifiers(frame, "name", source)
    gpus = numeric(frame, "num_gpu", source, whole=True, minimum=0)
    milli = numeric(frame, "gpu_milli", source, minimum=0)
    rules = DropRules(len(frame))
    rounded = _gpu_rules(rules, gpus, milli, fractional, gpus_per_node)
    keep = rules.keep
    pods = pd.DataFrame({"source_id": pd.array(ids[keep].astype(str), dtype="string"),
                         "gpus_per_instance": gpus[keep].astype(np.int64)})
    report = LoadReport(source, SNAPSHOT_FORMAT, len(frame), int(keep.sum()), rules.dropped,
                        {"fractional": fractional, "rounded_up": rounded})
    return pods, report


register_format(TraceFormat(
    FORMAT, frozenset({"name", "num_gpu", "gpu_milli"}), load_alibaba_openb,
    "Alibaba openb pod list (FGD, ATC'23; openb_pod_list_default.csv)"))
