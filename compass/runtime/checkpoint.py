"""Checkpoints of a training job: model, optimiser, step and RNG state, written atomically.

A migration (section 5.1: "checkpoint-and-restart") and a fault restart both resume a job
from its checkpoint on shared storage. The file is written to a temporary name and renamed,
so a reader sees either the previous checkpoint or the new one, never a torn file. Tensors
are saved as they are and loaded onto the CPU first, so a job may move between devices.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from torch import nn


def save_checkpoint(path: Path, model: nn.Module, optimizer: torch.optim.Optimizer,
                    step: int) -> None:
    """Write the job's state after ``step`` steps to ``path`` (atomic rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "rng": torch.get_rng_state()}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: Path, model: nn.Module,
                    optimizer: torch.optim.Optimizer) -> int | None:
    """Restore model, optimiser and RNG from ``path`` in place and return the step to continue
    from; None when the job has no checkpoint yet (it starts from step 0)."""
    if not path.exists():
        return None
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"])
    return int(state["step"])
