"""A regime's batches that the main run has already run, taken from its parts, not re-run.

A sensitivity regime (``config.regime_profile``) replays the comparison experiments with some
traces on other SYNTHETIC kinds; a trace it keeps on the main run's own SYNTHETIC kind (e.g.
``unclamped: {gfs: gfs-synth}``) draws the same days with the same seeds, so its batches are
a subset of the main run's: the same samples at fewer (eta, c) pairs, under the paper's
schedulers without the variants and the extension. Their rows are then identical to the main
run's but for the timing columns (``wall_s``, ``cpu_s``), so the regime's ``collect_runs``
reads them from the main run's parts (``BorrowedRuns``) instead of simulating them again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compass.experiments.config import ResolvedTrace
from compass.experiments.grid import SimJob
from compass.experiments.pipeline import Plan


@dataclass(frozen=True)
class BorrowedRuns:
    """What a regime takes from the main run: the main run's parts that hold its batches of
    ``traces``, and which rows of them are its own (``keep``: the run labels, and per trace
    its [day, seed, eta, c] batches), as ``pipeline.collect_runs`` filters them."""

    traces: tuple[str, ...]
    parts: tuple[Path, ...]
    keep: Mapping[str, Any]

    def own_jobs(self, regime: Plan) -> list[SimJob]:
        """The regime's ``simulate`` jobs on the traces it does not borrow."""
        return [job for job in regime.jobs if job.trace not in self.traces]


def _as_drawn(trace: ResolvedTrace) -> ResolvedTrace:
    """A SYNTHETIC trace as its days are drawn and labelled: without its real sources (never
    read for a synthetic trace) and the note on why it fell back to SYNTHETIC."""
    spec = replace(trace.spec, real=None, use_real="never")
    return replace(trace, spec=spec, note=None, unverified=False, source_index=0)


def _same_draws(main: ResolvedTrace, regime: ResolvedTrace) -> bool:
    """Whether the regime's days of a trace are drawn exactly as the main run's: both
    SYNTHETIC, the same kind, window and sizing, the regime's days among the main's."""
    if main.origin != "synthetic" or regime.origin != "synthetic":
        return False
    mine, theirs = _as_drawn(main), _as_drawn(regime)
    return (replace(mine, days=()) == replace(theirs, days=())
            and set(regime.days) <= set(main.days))


def _same_runs(main: Plan, regime: Plan) -> bool:
    """Whether every run of a regime's batch is a run of the main run's batch: the same
    scheduler and parameters under each label, and the same settings besides the runs."""
    mine = {label: (scheduler, params) for label, scheduler, params in main.config.run.runs()}
    if any(mine.get(label) != (scheduler, params)
           for label, scheduler, params in regime.config.run.runs()):
        return False
    keys = ("seed", "pause_rule", "on_error", "demand")
    return all(getattr(main.config.run, k) == getattr(regime.config.run, k) for k in keys)


def borrowed_runs(main: Plan, regime: Plan) -> BorrowedRuns:
    """The traces whose batches ``regime`` takes from ``main`` (each of its samples' batches
    among the main run's, drawn the same way, under runs the main batch has), the main
    parts that hold them and the rows to keep; none where anything differs."""
    if not _same_runs(main, regime):
        return BorrowedRuns((), (), {})
    main_batches = {(g.trace, g.day, g.seed): {(k.eta, k.cost) for k in keys}
                    for g, keys in main.groups.items()}
    traces = []
    for name, trace in regime.traces.items():
        if name not in main.traces or not _same_draws(main.traces[name], trace):
            continue
        mine = [g for g in regime.groups if g.trace == name]
        if all({(k.eta, k.cost) for k in regime.groups[g]}
               <= main_batches.get((g.trace, g.day, g.seed), set()) for g in mine):
            traces.append(name)
    if not traces:
        return BorrowedRuns((), (), {})
    wanted = {(g.trace, g.day, g.seed) for g in regime.groups if g.trace in traces}
    parts = tuple(job.path(main.layout) for job, groups in main.jobs.items()
                  if any((g.trace, g.day, g.seed) in wanted for g in groups))
    keep = {"labels": [label for label, _, _ in regime.config.run.runs()],
            "batches": {t: [[g.day, g.seed, k.eta, k.cost] for g, keys in regime.groups.items()
                            if g.trace == t for k in keys] for t in traces}}
    return BorrowedRuns(tuple(traces), parts, keep)
