"""The training loop of one instance, free of Ray so that it can be tested on its own.

An instance trains its job's model for the job's step budget. With ``world_size > 1`` the
job's instances form one data-parallel group (``torch.distributed``, gloo on CPU, nccl on
GPU): gradients are averaged by all-reduce every step, so every rank holds the same
parameters and rank 0 alone writes checkpoints. Before each step the ranks all-reduce a
stop flag, so a checkpoint-and-stop request reaching the ranks at different moments still
stops them all after the same step. Steps are paced to ``step_period_s`` of wall time, so a
job takes about its trace duration divided by the time scale (``compass.runtime``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist

from compass.runtime.checkpoint import Restored, load_checkpoint, save_checkpoint
from compass.runtime.workloads import batch_generator, build_model


@dataclass(frozen=True)
class InstanceSpec:
    """Everything an instance needs to train: its job, rank and where the checkpoint lives."""

    job_id: int
    family: str
    seed: int
    steps: int
    rank: int
    world_size: int
    checkpoint: Path
    #: save a checkpoint every this many steps (rank 0), so a fault loses little work
    checkpoint_every: int
    #: wall seconds per step (0: as fast as possible)
    step_period_s: float = 0.0
    #: rendezvous of the data-parallel group (an absolute path on shared storage), if w > 1
    rendezvous: Path | None = None
    device: str = "cpu"


#: how long a rank waits for its peers (rendezvous, collectives) before it fails
GROUP_TIMEOUT = timedelta(seconds=120)


def join_group(spec: InstanceSpec) -> None:
    """Join the job's data-parallel group through its rendezvous file (no-op when w = 1)."""
    if spec.world_size == 1:
        return
    if spec.rendezvous is None:
        raise ValueError(f"job {spec.job_id}: a group of {spec.world_size} needs a rendezvous")
    backend = "nccl" if spec.device.startswith("cuda") else "gloo"
    dist.init_process_group(backend, init_method=spec.rendezvous.as_uri(), rank=spec.rank,
                            world_size=spec.world_size, timeout=GROUP_TIMEOUT)


class Trainer:
    """Model, optimiser and step counter of one instance."""

    def __init__(self, spec: InstanceSpec) -> None:
        self.spec = spec
        self.device = torch.device(spec.device)
        self._build()
        self.step = 0
        self.loss = float("nan")

    def _build(self) -> None:
        """A fresh model and optimiser (the job's seed fixes the initial parameters)."""
        self.model = build_model(self.spec.family, self.spec.seed).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def restore(self) -> Restored:
        """Continue from the job's checkpoint (or the previous one, if it is unreadable), else
        from step 0; return what was restored, with the unreadable files it skipped."""
        restored = load_checkpoint(self.spec.checkpoint, self.model, self.optimizer)
        if restored.step is None and restored.faults:  # undo what a failed file loaded
            self._build()
        self.step = restored.step or 0
        return restored

    def save(self) -> None:
        save_checkpoint(self.spec.checkpoint, self.model, self.optimizer, self.step)

    @property
    def done(self) -> bool:
        return self.step >= self.spec.steps

    def train_step(self) -> None:
        """One optimiser step on the batch of (seed, rank, step)."""
        spec = self.spec
        gen = batch_generator(spec.seed, spec.rank, self.step)
        batch = tuple(t.to(self.device) for t in self.model.batch(gen))
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.model(*batch)
        loss.backward()
        if spec.world_size > 1:
            for p in self.model.parameters():
                if p.grad is not None:
                    dist.all_reduce(p.grad)
                    p.grad /= spec.world_size
        self.optimizer.step()
        self.step += 1
        self.loss = float(loss.detach())

    def run(self, stop: threading.Event) -> None:
        """Train until the budget is spent or ``stop`` is set (checked by every rank)."""
        spec = self.spec
        origin, first = time.monotonic(), self.step
        while not self.done and not self._stopping(stop):
            self.train_step()
            if spec.rank == 0 and self.step % spec.checkpoint_every == 0 and not self.done:
                self.save()
            if spec.step_period_s > 0:
                delay = origin + (self.step - first) * spec.step_period_s - time.monotonic()
                if delay > 0:
                    stop.wait(delay)

    def _stopping(self, stop: threading.Event) -> bool:
        if self.spec.world_size == 1:
            return stop.is_set()
        flag = torch.tensor([1.0 if stop.is_set() else 0.0], device=self.device)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return bool(flag.item())
