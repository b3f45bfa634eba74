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
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import (
    Move,
    NodeKey,
    Placement,
    Scheduler,
    ScoreKey,
    greedy_gang,
    panel_fit,
)
from compass.schedulers.fragmentation_gradient import (
    FragmentationGradient,
    SizeDistribution,
    SlidingHistogram,
    checked_distribution,
    gradient_gang,
    untied,
    whole_node_gang,
)
from compass.schedulers.registry import register

Shape = tuple[int, int]


def _fifo_key(job: Job) -> tuple[float, int]:
    return job.submit_time, job.job_id


@dataclass
class PendingJobs:
    """MCG's mirror of the FIFO queue (fed by ``on_arrival`` and its own placements): the
    jobs in arrival order, grouped by shape (g, w), and their instances per size, so that a
    pass costs O(shapes) greedy placements instead of O(queue). ``in_order``: arrivals came
    in (submit, id) order, so every group is sorted by it."""

    jobs: dict[int, Job] = field(default_factory=dict)
    groups: dict[Shape, dict[int, Job]] = field(default_factory=dict)
    sizes: Counter[int] = field(default_factory=Counter)
    in_order: bool = True
    #: (submit, id) of the latest arrival
    _last: tuple[float, int] = (-math.inf, -1)

    @classmethod
    def of(cls, queue: Iterable[Job]) -> PendingJobs:
        pending = cls()
        for job in queue:
            pending.add(job)
        return pending

    def add(self, job: Job) -> None:
        key = _fifo_key(job)
        if key < self._last:
            self.in_order = False
        self._last = key
        g = job.gpus_per_instance
        self.jobs[job.job_id] = job
        self.groups.setdefault((g, job.num_instances), {})[job.job_id] = job
        self.sizes[g] += job.num_instances

    def remove(self, job: Job) -> None:
        if self.jobs.pop(job.job_id, None) is None:
            return
        shape = (job.gpus_per_instance, job.num_instances)
        group = self.groups[shape]
        del group[job.job_id]
        if not group:
            del self.groups[shape]
        self.sizes[job.gpus_per_instance] -= job.num_instances

    def mirrors(self, queue: Sequence[Job]) -> bool:
        """Whether this holds ``queue``'s jobs (checked by length, head and tail: O(1))."""
        if len(queue) != len(self.jobs):
            return False
        return not queue or (queue[0].job_id == next(iter(self.jobs))
                             and queue[-1].job_id == next(reversed(self.jobs)))


@register
class MCG(Scheduler):
    """Queue ordered by job gradient under a pending + recent mix; gradient then load-balance."""

    name = "mcg"
    role = "baseline"
    display = "MCG"
    color = "#ca9161"
    rank = 4

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
        self._pending = PendingJobs()
        #: greedy placements of this pass's shapes, valid until the first admission
        self._planned: dict[Shape, tuple[int, ...]] = {}
        self._planned_on: tuple[int, int] = (-1, -1)
        #: P_recent per size 0..G, until the next arrival
        self._recent_shares: list[float] | None = None

    def params(self) -> dict[str, Any]:
        return {
            **super().params(),
            "distribution_source": "injected" if self.distribution is not None else
            f"online: queued jobs (beta) + last {self.recent_window} arrived instances, per pass",
        }

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Forget the arrivals and the distribution of a previous run."""
        self.recent = SlidingHistogram(self.recent_window)
        self.gradient = None
        self._keys = {}
        self._pending = PendingJobs()
        self._planned = {}
        self._recent_shares = None

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        self.recent.add(job.gpus_per_instance, job.num_instances)
        self._recent_shares = None
        self._pending.add(job)
        return ()

    def check(self, state: ClusterState) -> None:
        queued = [j for j in self._pending.jobs.values() if state.is_running(j.job_id)]
        assert not queued, f"mcg: jobs {[j.job_id for j in queued]} are queued and running"

    def _mirror(self, queue: Sequence[Job]) -> PendingJobs:
        """The pending jobs of ``queue`` (rebuilt if the mirror does not hold them)."""
        if not self._pending.mirrors(queue):
            self._pending = PendingJobs.of(queue)
        return self._pending

    def pass_gradient(self, queue: Sequence[Job], gpus_per_node: int) -> FragmentationGradient:
        """The gradient tables of p = beta P_pend + (1 - beta) P_recent, or of the injected p
        (spec s. 4); the blend is built per size 1..G without dictionaries (once per pass)."""
        G = gpus_per_node
        if self.distribution is not None:
            return FragmentationGradient.of(checked_distribution(self.distribution, G), G)
        if not queue:
            return FragmentationGradient.of(self.recent.distribution(), G)
        recent = self._recent_shares
        if recent is None or len(recent) != G + 1:
            recent = self._recent_shares = shares(self.recent.counts, G)
        return FragmentationGradient.blended(shares(self._mirror(queue).sizes, G), recent,
                                             self.beta)

    def pass_distribution(self, queue: Sequence[Job], gpus_per_node: int) -> dict[int, float]:
        """p = beta P_pend + (1 - beta) P_recent, or the injected p (spec s. 4)."""
        return self.pass_gradient(queue, gpus_per_node).distribution

    def admission_order(
        self, queue: Sequence[Job], state: ClusterState, now: float
    ) -> tuple[Iterable[Job], bool]:
        """Jobs by (dF_J, submit, id). Without backfill a FIFO head that does not fit blocks
        the pass and the first refusal stops it, so the order ends at the first job that
        the capacity refuses (O(queue) sorting saved on a long queue); with backfill
        refusals are skipped, and the pass is FIFO with blocking while the oldest job
        starves. The order may be an iterator that the pass consumes once, in order
        (``_by_gradient``)."""
        self._keys = {}
        self._planned = {}
        self.gradient = None
        head = queue[0] if queue else None
        if (head is not None and not self.backfill and panel_fit(state, 1) is None
                and state.instance_capacity(head.gpus_per_instance) < head.num_instances):
            # a blocked FIFO head (dF_J = inf) would be refused and block the pass: nothing
            # is offered, and no gradient is needed
            return (), True
        if not queue:
            return queue, True
        pending = self._mirror(queue)
        G = state.gpus_per_node
        groups = pending.groups
        if len(groups) > 1 or next(iter(groups))[0] != G:  # g = G is placed without it
            self.gradient = self.pass_gradient(queue, G)
        if self.backfill and now - queue[0].submit_time > self.starvation_s:
            return queue, True
        if len(groups) == 1:
            # one shape: one dF_J for all, so the order is FIFO (the queue's own, which the
            # mirror holds in arrival order); a head that does not fit is refused first
            if pending.in_order:
                return queue, not self.backfill
            return sorted(queue, key=_fifo_key), not self.backfill
        head_shape = (head.gpus_per_instance, head.num_instances)
        keys, planned = self._plan(state, pending)
        if not self.backfill and keys[head_shape] == math.inf:
            return (), True  # the head does not fit: nothing is offered
        # the first job offered is placed on the state these placements were planned on
        self._planned = planned
        self._planned_on = (state.used_gpus, state.running_job_count)
        if not pending.in_order:
            order = sorted(queue, key=lambda j: (keys[j.gpus_per_instance, j.num_instances],
                                                 j.submit_time, j.job_id))
            return order, not self.backfill
        # sorted by (dF_J, submit, id): shapes grouped by dF_J, each shape in FIFO order
        tied: dict[float, list[dict[int, Job]]] = {}
        for shape, jobs in pending.groups.items():
            tied.setdefault(keys[shape], []).append(jobs)
        return self._by_gradient(tied, state), not self.backfill

    def _by_gradient(self, tied: dict[float, list[dict[int, Job]]], state: ClusterState
                     ) -> Iterator[Job]:
        """The pass's order, produced as the pass takes it: it usually stops after a job or
        two, so the rest is never listed or sorted. A tie is listed when reached (before
        any of its jobs is placed, so ``place`` removing them from ``PendingJobs`` does not
        touch it). A job of dF_J = inf does not fit at the pass's start and so not later
        either (capacity only falls during a pass), whatever state the test reads."""
        for key in sorted(tied):
            groups = tied[key]
            if key == math.inf and not self.backfill:
                first = min((next(iter(jobs.values())) for jobs in groups), key=_fifo_key)
                if state.instance_capacity(first.gpus_per_instance) < first.num_instances:
                    # refused whatever the pass admits before it, so the pass ends there:
                    # the jobs after it are never offered
                    yield first
                    return
            if len(groups) == 1:
                yield from list(groups[0].values())
            else:
                yield from sorted(chain.from_iterable(jobs.values() for jobs in groups),
                                  key=_fifo_key)

    def _plan(self, state: ClusterState, pending: PendingJobs
              ) -> tuple[dict[Shape, float], dict[Shape, tuple[int, ...]]]:
        """dF_J and the greedy placement of every pending shape (inf and none where it does
        not fit).

        dF_J depends on a job only through its shape (g, w), and the greedy placement of w
        g-GPU instances is the first w of that of more: one greedy placement per size, of
        the widest shape that fits, gives every shape of that size.
        """
        widths: dict[int, list[int]] = {}
        for g, w in pending.groups:
            widths.setdefault(g, []).append(w)
        keys: dict[Shape, float] = {}
        planned: dict[Shape, tuple[int, ...]] = {}
        G = state.gpus_per_node
        for g, ws in widths.items():
            ws.sort(reverse=True)
            capacity = state.instance_capacity(g)  # a bound also on K > 1 domains
            for i, w in enumerate(ws):
                nodes = None if w > capacity else self._gang(
                    state, next(iter(pending.groups[g, w].values())))
                if nodes is not None:
                    sums = ([0.0] * w if g == G else
                            self._rule(g)[0].placement_gradients(state, g, nodes))
                    for v in ws[i:]:
                        keys[g, v] = sums[v - 1]
                        planned[g, v] = nodes[:v]
                    break
                keys[g, w] = math.inf
        return keys, planned

    def job_gradient(self, job: Job, state: ClusterState) -> float:
        """dF_J of the job's greedy placement on ``state``, +inf if it does not fit."""
        gradient, key = self._rule(job.gpus_per_instance)
        placed = gradient_gang(state, job, gradient, key)
        return math.inf if placed is None else placed[1]

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        g, w = job.gpus_per_instance, job.num_instances
        nodes = None
        if self._planned and self._planned_on == (state.used_gpus, state.running_job_count):
            nodes = self._planned.get((g, w))  # planned on this very state (no admission yet)
        if nodes is None:
            if state.instance_capacity(g) < w:
                return None  # greedy_gang's own first test, before any gradient is needed
            nodes = self._gang(state, job)
            if nodes is None:
                return None
        self._planned = {}
        self._pending.remove(job)
        return Placement(job.job_id, nodes)

    def _gang(self, state: ClusterState, job: Job) -> tuple[int, ...] | None:
        """The job's greedy placement by the pass's node rule (no mix for g = G)."""
        if job.gpus_per_instance == state.gpus_per_node:
            return whole_node_gang(state, job)
        return greedy_gang(state, job, self._rule(job.gpus_per_instance)[1])

    def _rule(self, g: int) -> tuple[FragmentationGradient, NodeKey]:
        """The pass's gradient tables and node key for g-GPU instances."""
        if self.gradient is None:
            raise RuntimeError("mcg: the distribution is set by admission_order()")
        if g not in self._keys:
            self._keys[g] = node_key(self.gradient, g, self.lb_weight)
        return self.gradient, self._keys[g]


def shares(counts: Mapping[int, int], gpus_per_node: int) -> list[float]:
    """Each size's share of ``counts`` per size 0..G (sizes above G dropped)."""
    total = sum(counts.values())
    out = [0.0] * (gpus_per_node + 1)
    for s, c in counts.items():
        if c and s <= gpus_per_node:
            out[s] = c / total
    return out


def node_key(gradient: FragmentationGradient, g: int, lb_weight: float) -> NodeKey:
    """(dF + lambda_lb u_after, used GPUs after, n): lower wins (spec s. 4 node rule).

    Without load balance, when no two gradients of the row tie (``untied``), u never breaks
    a tie: FGD's key (the unrounded row) orders the nodes the same way.
    """
    exact = gradient.exact_delta(g)
    if not lb_weight and untied(exact[g:]):
        return ScoreKey(exact)
    row = gradient.delta(g)
    G = gradient.gpus_per_node
    return ScoreKey([(row[f] + lb_weight * (G - f + g) / G, G - f + g) for f in range(G + 1)])
