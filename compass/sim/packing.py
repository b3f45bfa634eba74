"""Static packing: pods arrive one after another and never leave (FGD's evaluation, ATC'23).

A snapshot workload (pods without times) is offered to a scheduler in a given order on an
empty cluster, one arrival per instant, through the same ``Dispatcher`` as the simulator, so
every decision is validated and each scheduler places by its own rule (COMPASS-ABS by its
Place with Compact, the FGD family by their gradients). A scheduler with a repacking round
(its ``on_timer`` hook: FFT's ILP, DRR's drain) gets one round whenever a pod is refused,
and the pod is offered again. A pod refused after that is *rejected*: it leaves the queue
(no head-of-line blocking) and the next pod is offered. Reported: the cluster at the first
rejection (before it leaves) and at saturation (after every pod was offered once).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from compass.cluster import ClusterState
from compass.model import G_DEFAULT, Job
from compass.oracle.fragmentation import state_phi_star
from compass.schedulers.base import Scheduler
from compass.sim.dispatch import Dispatcher


@dataclass(frozen=True)
class PackingState:
    """The cluster after ``offered`` pods: GPUs allocated, partial nodes, Phi*, SIF."""

    offered: int
    placed: int
    used_gpus: int
    allocated_share: float
    partial_nodes: int
    phi_star: int
    sif: float
    wcc: bool | None


@dataclass(frozen=True)
class PackingRun:
    """One packing: the first rejection (None if every pod fit), saturation, counts."""

    first_rejection: PackingState | None
    saturation: PackingState
    rejected: int
    repacks: int
    moves: int


def _snapshot(state: ClusterState, offered: int, placed: int) -> PackingState:
    used = state.used_gpus
    phi, wcc = state_phi_star(state.counts, used, state.nodes, state.gpus_per_node)
    partial = state.partial_nodes
    return PackingState(offered, placed, used, used / (state.nodes * state.gpus_per_node),
                        partial, int(phi), (partial - phi) / state.nodes, wcc)


def pack(gpus: Sequence[int], scheduler: Scheduler, nodes: int,
         gpus_per_node: int = G_DEFAULT) -> PackingRun:
    """Offer pods of ``gpus[k]`` GPUs (one instance each) in this order; never release any.

    Pod k arrives at time k; its job id is k. Pods that do not fit even an empty node raise
    ``ValueError`` (a caller's sizing error, not a rejection).
    """
    if any(not 1 <= g <= gpus_per_node for g in gpus):
        raise ValueError(f"every pod needs 1..{gpus_per_node} GPUs")
    jobs = [Job(k, float(k), math.inf, 1, int(g)) for k, g in enumerate(gpus)]
    state = ClusterState(nodes, gpus_per_node)
    dispatcher = Dispatcher(scheduler, state)
    dispatcher.reset(jobs)
    first: PackingState | None = None
    placed = rejected = repacks = moves = 0
    for job in jobs:
        now = float(job.job_id)
        instant = dispatcher.step(now, arrivals=[job])
        moves += len(instant.moves)
        if not instant.started and scheduler.timer_period:
            repacks += 1
            instant = dispatcher.step(now, timer=True)
            moves += len(instant.moves)
        if instant.started:
            placed += 1
            continue
        if first is None:
            first = _snapshot(state, job.job_id + 1, placed)
        rejected += 1
        dispatcher.queue.clear()
    return PackingRun(first, _snapshot(state, len(jobs), placed), rejected, repacks, moves)
