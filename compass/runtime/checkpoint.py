"""Checkpoints of a training job: model, optimiser, step and RNG state, written atomically.

A migration (section 5.1: "checkpoint-and-restart") and a fault restart both resume a job
from its checkpoint on shared storage. The file is written to a temporary name and renamed,
so a reader sees either the previous checkpoint or the new one, never a torn file. The
checkpoint it replaces is kept beside it (``<name>.prev``): a checkpoint that cannot be
read (damaged storage, a partial copy) is skipped for the previous one, or, when that fails
too, the job starts from scratch; each skipped file is reported (``Restored.faults``).
Tensors are saved as they are and loaded onto the CPU first, so a job may move between
devices.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckpointFault:
    """A checkpoint file that could not be restored, and why."""

    file: str
    error: str


@dataclass(frozen=True)
class Restored:
    """What ``load_checkpoint`` restored: the step to continue from (None: no usable
    checkpoint, start at step 0), from which file, and the unreadable files it skipped."""

    step: int | None
    file: Path | None
    faults: tuple[CheckpointFault, ...] = ()

    @property
    def resumed_from(self) -> str:
        """"latest", "previous" (the latest was unreadable) or "scratch"."""
        if self.file is None:
            return "scratch"
        return "previous" if self.file.name.endswith(PREVIOUS_SUFFIX) else "latest"


#: Suffix of the checkpoint kept from before the last save.
PREVIOUS_SUFFIX = ".prev"


def previous_path(path: Path) -> Path:
    """Where the checkpoint before the latest one is kept."""
    return path.with_name(path.name + PREVIOUS_SUFFIX)


def save_checkpoint(path: Path, model: nn.Module, optimizer: torch.optim.Optimizer,
                    step: int) -> None:
    """Write the job's state after ``step`` steps to ``path`` (atomic rename); the checkpoint
    it replaces becomes ``previous_path(path)``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "rng": torch.get_rng_state()}, tmp)
    if path.exists():
        os.replace(path, previous_path(path))
    os.replace(tmp, path)


def load_checkpoint(path: Path, model: nn.Module, optimizer: torch.optim.Optimizer) -> Restored:
    """Restore model, optimiser and RNG in place from ``path``, else from the previous
    checkpoint, and say from which and at what step (step None: start from step 0).

    An unreadable file is logged and listed in ``Restored.faults``; after a failed file the
    model and optimiser may hold part of its state, so a caller starting from scratch
    rebuilds them (``Trainer.restore``).
    """
    faults = []
    for candidate in (path, previous_path(path)):
        if not candidate.exists():
            continue
        try:
            state = torch.load(candidate, map_location="cpu", weights_only=True)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            torch.set_rng_state(state["rng"])
            step = int(state["step"])
        except Exception as err:  # torn, truncated, not a checkpoint: whatever torch raises
            log.warning("checkpoint %s is unreadable (%s: %s)", candidate, type(err).__name__,
                        err)
            faults.append(CheckpointFault(str(candidate), f"{type(err).__name__}: {err}"))
            continue
        return Restored(step, candidate, tuple(faults))
    return Restored(None, None, tuple(faults))
