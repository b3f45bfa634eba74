"""The scheduler protocol shared by COMPASS-ABS, the baselines and SIFOpt.

A scheduler reads the ``ClusterState`` and returns decisions; only the simulator mutates
the state, validating every decision first (docs/simulator.md). The hooks:

* ``reset(state, workload)`` once before a run;
* ``on_departure(job, state, now)`` after the job's instances were released: migrations;
* ``on_arrival(job, state, now)`` when a job joins the queue: migrations (usually none);
* ``on_timer(state, now)`` every ``timer_period`` seconds if the scheduler declares one;
* ``check(state)`` after every instant when the simulator runs with ``debug_checks``;
* the admission pass after the events of an instant: ``admission_order`` gives the order in
  which queued jobs are offered and whether the first refusal blocks the rest (head-of-line
  blocking, the default), and ``place(job, state, now)`` answers each offer with a full
  ``Placement`` (one node per instance, plus any migrations) or ``None``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from compass.cluster import ClusterState, FreeOverlay
from compass.model import InstanceKey, Job


@dataclass(frozen=True, slots=True)
class Move:
    """Migrate one running instance to node ``dst`` (checkpoint-restart)."""

    instance: InstanceKey
    dst: int


@dataclass(frozen=True, slots=True)
class Placement:
    """Admit ``job_id``: instance k goes to ``nodes[k]``; then apply ``moves`` in order."""

    job_id: int
    nodes: tuple[int, ...]
    moves: tuple[Move, ...] = ()


class Scheduler(ABC):
    """Base class: FIFO admission with head-of-line blocking, no migrations, no timer."""

    #: Registry name (``compass.schedulers.available()``).
    name: ClassVar[str] = ""
    #: Seconds between ``on_timer`` calls, or None for no timer.
    timer_period: float | None = None

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    def params(self) -> dict[str, Any]:
        """Parameters that define this instance (recorded in a run's metadata)."""
        return {"seed": self.seed}

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Prepare for a run on an empty ``state``; ``workload`` is the whole trace window."""

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        return ()

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        return ()

    def on_timer(self, state: ClusterState, now: float) -> Sequence[Move]:
        return ()

    def admission_order(
        self, queue: Sequence[Job], state: ClusterState, now: float
    ) -> tuple[Sequence[Job], bool]:
        """Jobs to offer, in order, and whether a refusal stops the pass (HOL blocking)."""
        return queue, True

    def check(self, state: ClusterState) -> None:
        """Raise if the scheduler's own bookkeeping disagrees with ``state`` (debug mode)."""

    @abstractmethod
    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """A full placement for ``job`` on the current state, or None if it does not fit."""


#: A node rule scores a candidate (free GPUs f, lowest node with that f); lower wins.
NodeKey = Callable[[int, int], Any]


def greedy_gang(state: ClusterState, job: Job, key: NodeKey) -> tuple[int, ...] | None:
    """Place the job's instances one at a time by ``key`` on a tentative view.

    Every node rule of the baselines depends on a node only through its free count and its
    index, so the best node for one instance is among the lowest-index node of each
    free-count bucket f >= g: O(G log N) per instance. Returns None (and leaves no trace)
    if an instance finds no node.
    """
    g = job.gpus_per_instance
    if state.instance_capacity(g) < job.num_instances:
        return None
    G = state.gpus_per_node
    overlay = FreeOverlay(state)
    nodes: list[int] = []
    for _ in range(job.num_instances):
        best = None
        best_key = None
        for f in range(g, G + 1):
            n = overlay.lowest_node_with_free(f)
            if n is None:
                continue
            k = key(f, n)
            if best_key is None or k < best_key:
                best, best_key = n, k
        if best is None:  # unreachable after the capacity check, kept as a guard
            return None
        overlay.take(best, g)
        nodes.append(best)
    return tuple(nodes)
