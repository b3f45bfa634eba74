"""What a run starts from: the trace, loaded and validated, and the scheduler, built.

One helper for ``compass.simulate`` and ``compass.runtime.run_physical``, so both read a
trace, label it and build a scheduler by name in the same way: through its builder when
one is registered (``builders``: a learned policy trained for the cluster).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from compass.schedulers import Scheduler, create, scheduler_class
from compass.schedulers.params import ParameterError
from compass.sim.builders import builder_of
from compass.traces.loading import run_trace


@dataclass(frozen=True)
class RunInputs:
    """A validated canonical trace, what the run's metadata calls it, and the scheduler."""

    frame: pd.DataFrame
    label: str
    scheduler: Scheduler

    @property
    def trace_source(self) -> str:
        """The trace's ``source`` values joined ("unspecified" without that column)."""
        if "source" not in self.frame:
            return "unspecified"
        return ",".join(sorted(self.frame["source"].astype(str).unique())) or "unspecified"


def prepare_run(
    trace: pd.DataFrame | str | Path,
    scheduler: str | Scheduler,
    *,
    nodes: int,
    gpus_per_node: int,
    seed: int,
    scheduler_params: Mapping[str, Any] | None = None,
    max_jobs: int | None = None,
    label: str | None = None,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
) -> RunInputs:
    """Load ``trace`` (a canonical frame, "demo", or the path of a trace file in any
    registered format: detected, or ``format``, with ``columns`` renamed first; the first
    ``max_jobs`` jobs if given) and build ``scheduler`` (a registered name with
    ``scheduler_params``, or an instance used as it is) for a cluster of ``nodes`` x
    ``gpus_per_node``.

    ``label`` names the trace in the metadata (default: the path, or "<DataFrame>").
    """
    loaded = run_trace(trace, format, columns=columns, gpus_per_node=gpus_per_node, label=label)
    frame = loaded.frame
    if max_jobs is not None:
        frame = frame.head(max_jobs).reset_index(drop=True)
    return RunInputs(frame, loaded.label, build_scheduler(
        scheduler, nodes=nodes, gpus_per_node=gpus_per_node, seed=seed,
        params=scheduler_params))


def build_scheduler(scheduler: str | Scheduler, *, nodes: int, gpus_per_node: int, seed: int,
                    params: Mapping[str, Any] | None = None) -> Scheduler:
    """A fresh scheduler by registry name, or ``scheduler`` itself (then without params); a
    value its constructor refuses is a ``ParameterError`` naming the scheduler."""
    if not isinstance(scheduler, str):
        if params:
            raise ValueError("scheduler_params apply only when scheduler is given by name")
        return scheduler
    args = dict(params or {})
    scheduler_class(scheduler)  # an unknown name is refused before any builder runs
    builder = builder_of(scheduler)
    if builder is not None:  # e.g. a learned policy, trained for this cluster
        args = builder(args, nodes=nodes, gpus_per_node=gpus_per_node, seed=seed)
    try:
        return create(scheduler, seed=seed, **args)
    except (TypeError, ValueError) as err:  # the constructor refused a value
        raise ParameterError(f"scheduler {scheduler}: {err}") from None
