"""DRR (Wu, Chen, Wang, SoCC'25): best-fit placement plus a periodic drain of low-utilisation nodes.

Source: the SoCC'25 abstract (a DRL agent trained by imitation of heuristics; a rescheduling
step that relocates running jobs), the paper's section 5.4 (imitation of best-fit; at each
reschedule cycle the jobs of the lowest-utilisation node move to high-utilisation nodes) and
the README of IntelligentDDS/Defrag (code not available), whose example run sets
``--use_rescheduling True --util_threshold 0.5 --re_time 3600 --re_num 5``. Rules:
docs/baselines.md, "DRR". Assumptions [A]:

* placement is best-fit (section 1) by default, the imitation target, standing in for the
  trained DRL policy whose weights are not public. ``policy="learned"`` instead places with
  a linear scorer trained by behaviour cloning of best-fit (``compass.schedulers.drr_policy``:
  features of the lowest-index node of each free-count bucket f >= g, i.e. the leftover
  f - g, its one-hot, empty node, bucket share, "holds every instance" and interactions
  with utilisation and g / G; softmax cross-entropy, seeded minibatch gradient descent).
  DRR takes the trained policy (``learned``); training replays a slice under best-fit DRR
  through the simulator, so it lives above it (``compass.sim.drr_training``, which also turns
  the profile's ``policy: learned, training_trace: ...`` into a trained policy for the
  evaluated cluster size). ``reset`` refuses a slice that shares a day with the evaluated
  window.
  Measured agreement with best-fit (SYNTHETIC traces, seed 0, the previous day as training
  slice, eta = 0.9): 0.988-1.0 on the held-out 20 % and 0.989-1.0 on the jobs of the
  evaluated day for gfs-synth days 26 and 58, venus-synth day 92 (also with days 85-91)
  and physmix day 1 (docs/baselines.md, "DRR");
* ``re_time`` is in seconds (a cycle every 3600 s, the engine's timer); ``re_num`` = 5 is a
  budget of migrated *jobs* per cycle;
* sources: nodes with 0 < u_n < ``util_threshold`` (strict), in ascending (u_n, n), taken at
  the cycle start; a source whose utilisation has meanwhile left that range (it received
  instances earlier in the cycle) is skipped; the cycle stops at the first source with more
  distinct jobs than the budget left ("while budget >= jobs on it");
* a source's instances move in (g descending, job id, instance id) order, each to the
  best-fit node (least free GPUs >= g, lowest index) that is not the source, not empty and
  not drained in this cycle; all or nothing per source (rolled back if one finds no node).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any, Literal

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import Move, Placement, Scheduler
from compass.schedulers.drr_policy import TrainedPolicy, check_disjoint_days
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.registry import register


@register
class DRR(Scheduler):
    """Best-fit (or learned) placement; every ``re_time`` s drain nodes below ``util_threshold``.

    ``learned``: a policy trained by imitation of best-fit (``compass.sim.drr_training``) to
    place with instead of best-fit; ``reset`` refuses a run on another G than it was trained
    for, or one that shares a day with its training slice.
    """

    name = "drr"
    role = "baseline"
    display = "DRR"
    color = "#000000"  # black: the orange it had was too near COMPASS-ABS's vermillion
    rank = 6
    #: the simulator layer trains ``learned`` from these for the cluster (its builder,
    #: ``compass.sim.builders``)
    build_parameters = {"policy": (Literal["best-fit", "learned"], "best-fit"),
                        "training_trace": (str | None, None),
                        "policy_config": (dict[str, Any] | None, None)}

    def __init__(
        self, *, re_time: float = 3600.0, util_threshold: float = 0.5, re_num: int = 5,
        seed: int = 0, learned: TrainedPolicy | None = None,
    ) -> None:
        super().__init__(seed=seed)
        if re_time <= 0 or not 0 < util_threshold <= 1 or re_num < 0:
            raise ValueError("need re_time > 0, 0 < util_threshold <= 1 and re_num >= 0")
        self.timer_period = re_time
        #: best-fit cycles read the state alone (the learned policy counts its calls)
        self.skip_idle_instants = learned is None
        self.util_threshold = util_threshold
        self.re_num = re_num
        self.learned = learned

    @property
    def re_time(self) -> float:
        """Seconds between drain cycles (the timer period)."""
        assert self.timer_period is not None
        return self.timer_period

    @property
    def policy(self) -> str:
        """"best-fit" or "learned": what places the jobs."""
        return "best-fit" if self.learned is None else "learned"

    def params(self) -> dict[str, Any]:
        out = super().params()
        del out["learned"]  # the policy object; what it is goes below
        if self.learned is not None:
            report = self.policy_report
            out.update(policy=self.policy, training_trace=self.learned.training,
                       policy_config=asdict(self.learned.config),
                       training_jobs=report.get("training_jobs"),
                       agreement=report.get("agreement"),
                       agreement_on=report.get("agreement_on"),
                       run_agreement=report.get("run_agreement"))
        return out

    @property
    def policy_report(self) -> dict[str, Any]:
        """Training report of the learned policy plus this run's counters ({} for best-fit).

        ``run_agreement``: share of the jobs placed in the run whose placement equals
        best-fit's on the same state; ``fallbacks``: jobs placed by best-fit instead.
        NaN measurements are given as None.
        """
        if self.learned is None:
            return {}
        placement = self.learned.placement
        out = {**asdict(self.learned.report), "run_jobs": placement.decisions,
               "fallbacks": placement.fallbacks,
               "run_agreement": (placement.agreed / placement.decisions
                                 if placement.decisions else None)}
        return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in out.items()}

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Check the learned policy fits this run (G, days disjoint from its training slice)."""
        if self.learned is None:
            return
        if state.gpus_per_node != self.learned.gpus_per_node:
            raise ValueError(f"the learned DRR policy was trained for {self.learned.gpus_per_node}"
                             f"-GPU nodes, the cluster has {state.gpus_per_node}")
        check_disjoint_days(self.learned.training_days, workload)
        self.learned.placement.reset_counters()

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Best-fit, the converged imitation target (section 6), or the learned policy."""
        if self.learned is None:
            nodes = best_fit_gang(state, job.gpus_per_instance, job.num_instances)
        else:
            nodes = self.learned.placement.place(state, job)
        return None if nodes is None else Placement(job.job_id, nodes)

    def on_timer(self, state: ClusterState, now: float) -> list[Move]:
        """One reschedule cycle: drain sources in order within the job budget. The drains
        run on a copy of the state, taken at the first one (most cycles drain nothing)."""
        view: ClusterState | None = None
        budget = self.re_num
        drained: set[int] = set()
        moves: list[Move] = []
        for src in self.sources(state):
            seen = state if view is None else view  # equal until the first drain
            if not self._is_source(seen, src):
                continue
            jobs = {key[0] for key in seen.instances_on(src)}
            if len(jobs) > budget:
                break
            if view is None:
                view = state.copy()
            drain = _drain(view, src, drained)
            if drain is not None:
                moves.extend(drain)
                drained.add(src)
                budget -= len(jobs)
        return moves

    def sources(self, state: ClusterState) -> Iterable[int]:
        """Nodes with 0 < u_n < threshold in ascending (u_n, n): free buckets G-1, G-2, ..."""
        G = state.gpus_per_node
        for f in range(G - 1, -1, -1):
            if (G - f) / G >= self.util_threshold:
                return
            yield from list(state.nodes_with_free(f))

    def _is_source(self, view: ClusterState, n: int) -> bool:
        G = view.gpus_per_node
        return 0 < (G - view.free(n)) / G < self.util_threshold


def _drain(view: ClusterState, src: int, drained: set[int]) -> list[Move] | None:
    """Move every instance off ``src`` on ``view``; roll back and return None if one cannot."""
    order = sorted(view.instances_on(src).items(), key=lambda item: (-item[1], item[0]))
    moves: list[Move] = []
    for key, g in order:
        dst = _best_fit_target(view, g, drained | {src})
        if dst is None:
            for move in reversed(moves):
                view.move(move.instance, src)
            return None
        view.move(key, dst)
        moves.append(Move(key, dst, "drain"))
    return moves


def _best_fit_target(view: ClusterState, g: int, excluded: set[int]) -> int | None:
    """argmin (f_n, n) over non-empty nodes with f_n >= g outside ``excluded``."""
    for f, n in view.iter_nodes_by_free(g):
        if f == view.gpus_per_node:
            return None
        if n not in excluded:
            return n
    return None
