"""MCG: FGD gradient with pending-demand priorities (Wu et al., TPDS 36(12) 2025; paper s. 5.4, 7).

Spec: docs/baselines.md and baselines.md s. 4. Source: only the citation and the paper's two
sentences (FGD's gradient principle plus an estimate of the pending jobs' demand
distribution used to reorder scheduling priorities; load balance folded into the measure).
No text or code of MCG-Sched is public, so everything except "FGD gradient" is [A]; with one
cluster its inter-cluster load-balancing step is vacuous.

Assumptions ([A]):
* distribution, recomputed at every admission pass: p = beta P_pend + (1 - beta) P_recent,
  beta = 0.5, P_pend the instance-weighted size mix of the queued jobs, P_recent the plain mix
  of the last 400 arrived instances; ``distribution=`` injects a fixed p instead;
* priority: each queued job J gets dF_J, the total gradient of its greedy placement on the
  current state (+inf if it does not fit), computed once per pass; jobs are offered in
  (dF_J, submit time, id) order;
* queue discipline (``backfill=False``, the default): the same FIFO gang queue with
  head-of-line blocking as every other scheduler (the paper's setting, section 6.6): while
  the FIFO head (the oldest queued job) does not fit, nothing is admitted; when it fits, the
  queue is offered in priority order and the pass stops at the first refusal;
* ``backfill=True`` (the variant our first spec assumed): a refused job is skipped, not
  blocking, with a starvation guard: while the oldest queued job has waited more than
  ``starvation_s`` (3600 s), the pass is strict FIFO with head-of-line blocking;
* node rule: argmin (dF_p(f_n, g) + lambda_lb u_n, u_n, n) with u_n the node's utilisation
  after the placement: equal gradients go to the less-utilised node, then the lowest index;
  lambda_lb = 0 by default. Exact dF (no quantised variant: MCG's scoring is unknown).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import Move, NodeKey, Placement, Scheduler, greedy_gang
from compass.schedulers.fragmentation_gradient import (
    FragmentationGradient,
    SizeDistribution,
    SlidingHistogram,
    blend,
    checked_distribution,
    gradient_gang,
    instance_histogram,
    normalized,
)
from compass.schedulers.registry import register


@register
class MCG(Scheduler):
    """Queue ordered by job gradient under a pending + recent mix; gradient then load-balance."""

    name = "mcg"

    def __init__(
        self,
        *,
        seed: int = 0,
        beta: float = 0.5,
        recent_window: int = 400,
        starvation_s: float = 3600.0,
        lb_weight: float = 0.0,
        distribution: SizeDistribution | None = None,
        backfill: bool = False,
    ) -> None:
        super().__init__(seed=seed)
        if not 0 <= beta <= 1 or starvation_s < 0:
            raise ValueError("need 0 <= beta <= 1 and starvation_s >= 0")
        self.beta = beta
        self.recent_window = recent_window
        self.starvation_s = starvation_s
        self.lb_weight = lb_weight
        self.backfill = backfill
        self.distribution = None if distribution is None else dict(distribution)
        self.recent = SlidingHistogram(recent_window)
        self.gradient: FragmentationGradient | None = None
        self._keys: dict[int, NodeKey] = {}

    def params(self) -> dict[str, Any]:
        return {
            **super().params(),
            "beta": self.beta,
            "recent_window": self.recent_window,
            "starvation_s": self.starvation_s,
            "lb_weight": self.lb_weight,
            "backfill": self.backfill,
            "distribution": self.distribution,
            "distribution_source": "injected" if self.distribution is not None else
            f"online: queued jobs (beta) + last {self.recent_window} arrived instances, per pass",
        }

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Forget the arrivals and the distribution of a previous run."""
        self.recent = SlidingHistogram(self.recent_window)
        self.gradient = None
        self._keys = {}

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        for _ in range(job.num_instances):
            self.recent.add(job.gpus_per_instance)
        return ()

    def pass_distribution(self, queue: Sequence[Job], gpus_per_node: int) -> dict[int, float]:
        """p = beta P_pend + (1 - beta) P_recent, or the injected p (spec s. 4)."""
        if self.distribution is not None:
            return checked_distribution(self.distribution, gpus_per_node)
        recent = self.recent.distribution()
        if not queue:
            return recent
        return blend(normalized(instance_histogram(queue)), recent, self.beta)

    def admission_order(
        self, queue: Sequence[Job], state: ClusterState, now: float
    ) -> tuple[Sequence[Job], bool]:
        """Jobs by (dF_J, submit, id). Without backfill a FIFO head that does not fit blocks
        the pass and the first refusal stops it; with backfill refusals are skipped, and the
        pass is FIFO with blocking while the oldest job starves."""
        self.gradient = FragmentationGradient.of(
            self.pass_distribution(queue, state.gpus_per_node), state.gpus_per_node)
        self._keys = {}
        if not queue:
            return queue, True
        if self.backfill and now - queue[0].submit_time > self.starvation_s:
            return queue, True
        keys = {j.job_id: self.job_gradient(j, state) for j in queue}
        if not self.backfill and keys[queue[0].job_id] == math.inf:
            return [queue[0]], True
        order = sorted(queue, key=lambda j: (keys[j.job_id], j.submit_time, j.job_id))
        return order, not self.backfill

    def job_gradient(self, job: Job, state: ClusterState) -> float:
        """dF_J of the job's greedy placement on ``state``, +inf if it does not fit."""
        gradient, key = self._rule(job.gpus_per_instance)
        placed = gradient_gang(state, job, gradient, key)
        return math.inf if placed is None else placed[1]

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        nodes = greedy_gang(state, job, self._rule(job.gpus_per_instance)[1])
        return None if nodes is None else Placement(job.job_id, nodes)

    def _rule(self, g: int) -> tuple[FragmentationGradient, NodeKey]:
        """The pass's gradient tables and node key for g-GPU instances."""
        if self.gradient is None:
            raise RuntimeError("mcg: the distribution is set by admission_order()")
        if g not in self._keys:
            self._keys[g] = node_key(self.gradient, g, self.lb_weight)
        return self.gradient, self._keys[g]


def node_key(gradient: FragmentationGradient, g: int, lb_weight: float) -> NodeKey:
    """(dF + lambda_lb u_after, used GPUs after, n): lower wins (spec s. 4 node rule)."""
    row = gradient.delta(g)
    G = gradient.gpus_per_node
    return lambda f, n: (row[f] + lb_weight * (G - f + g) / G, G - f + g, n)
