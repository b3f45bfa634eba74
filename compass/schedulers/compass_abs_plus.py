"""COMPASS-ABS+: our extension beyond the paper (docs/theory.md, "COMPASS-ABS+").

Built on the corrected ``compass-abs`` and its operators (Place, Remove, Compact and the
slotted repair of ``compass_abs``), it changes when the scheduler refuses and when it
migrates. Each mechanism is a constructor parameter, so an ablation can switch it off:

* ``mixed_nodes``: an extended space in which a node may hold slots and 1-GPU instances
  outside slots (strays, ``abs_space``). When the paper's Place refuses the head, it is
  placed there without any move: an anchor takes the fullest pool node with room (its
  occupants become strays where they are), a 1-GPU instance the slotted node with the
  least free residual.
* ``admit_by_compaction`` (needs ``mixed_nodes``): when even that fails but moving a few
  instances between partial nodes would make room, the cheapest such move set (fewest
  moved jobs, then instances; ``abs_moves.find_plan``) is applied before the placement
  (``Placement.pre_moves``, operator "admit").
* ``lazy_compaction``: no Compact after an event while N x SIF <= 2 + ``bound_slack`` (k = 0:
  the bound of Theorem 1, eq. 10; k > 0 trades the bound for fewer moves), so strays are
  not re-homed either. Above it, the cheapest move sets
  that fill or empty one partial node (``abs_moves``, operator "lazy-compact") until the
  bound holds; if none is found, compass-abs's passes and then its whole settle, each only
  while still needed. Off: Compact and re-homing after every event, as compass-abs.
* ``end_aligned`` (acts only with ``lazy_compaction``): of the one-move fills, lazy
  compaction applies the one whose filled node's first planned departure is latest
  (``abs_ends``), so the nodes kept full stay full longest and fewer departures break a
  full node. It reads the planned ends (start + runtime estimate, as ``backfill``); it
  changes which fill, not how many.
* ``backfill``: the FIFO queue without head-of-line blocking, EASY style. When a job is
  refused (the head of the pass), it gets a reservation: its *shadow time*, the first
  planned departure (start + runtime estimate; pauses not counted) after which it would fit by
  count with nothing moved (``backfill.shadow_time``, counting slot-wide room). Jobs
  behind it are then offered in FIFO order and only those that would end by then start;
  so the head is not delayed while the plans hold. ``runtime_estimate`` says where the
  runtimes come from (``estimates``: ``exact``, the trace's durations, clairvoyant as
  CAFGD's gradient; ``user``; ``history``). Off: strict FIFO with head-of-line blocking, as
  every paper scheduler. ``gfs-backfill`` is best-fit under the same gate.
* ``bound_slack`` k >= 0: lazy compaction keeps N x SIF <= 2 + k instead of 2 (the price of
  the bound: fewer moves for more partial nodes).

Moves of jobs started at the current instant cost nothing in every search (the engine
launches them where they end up). With every mechanism off it makes exactly compass-abs's
decisions (tested); placement mechanisms keep N x SIF <= nsif after every decision whatever
the queue order, so ``backfill`` leaves the guarantee as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass

from compass.cluster import ClusterState
from compass.model import Job, slot_width
from compass.oracle.fragmentation import state_phi_star
from compass.schedulers.abs_ends import aligned_fill
from compass.schedulers.abs_moves import (
    Plan,
    apply_plan,
    find_fill,
    find_plan,
    pool_in_place,
)
from compass.schedulers.abs_space import AbsSpace
from compass.schedulers.backfill import Backfill
from compass.schedulers.base import Move, Placement
from compass.schedulers.compass_abs import (
    DRAIN_CLASSES,
    CompassAbs,
    best_fit_drain,
    draw_fillers,
    merge_partial_slotted,
    place_instances,
    remove_instances,
    settle,
)
from compass.schedulers.estimates import RuntimeEstimate, make_estimator
from compass.schedulers.registry import register


def _settle(space: AbsSpace) -> None:
    settle(space, True)


def refill_vacancies(space: AbsSpace) -> None:
    """Draw pool instances into every open slot vacancy (Remove's refill, Algorithm 1 lines
    11-15). Lazy Remove keeps strays where they are, so a node pooled in place can hold
    1-GPU instances while slots elsewhere have vacancies; the move search counts only room
    outside slots, and compass-abs's passes never refill, so this step alone joins them."""
    space.operator = "lazy-compact"
    while (slot := space.open_vacancy()) is not None and space.sparsest_pool() is not None:
        draw_fillers(space, slot)


#: Lazy compaction's fallback, after evacuations: the vacancy refill, COMPASS-ABS's passes,
#: cheapest first, then its whole settle; it stops as soon as the bound holds.
FALLBACK_STEPS: tuple[Callable[[AbsSpace], None], ...] = (
    refill_vacancies,
    *(lambda space, cls=cls: best_fit_drain(space, cls) for cls in DRAIN_CLASSES),
    merge_partial_slotted,
    _settle,
)


def partial_bound(counts: Sequence[int], used_gpus: int, nodes: int, gpus_per_node: int,
                  nsif: int = 2) -> int:
    """Most partial nodes with N x SIF <= ``nsif``: Phi* + nsif (eq. 2; Phi* by eq. 21
    while the WCC holds, else the memoised exact oracle, as the timeline computes it)."""
    return state_phi_star(tuple(counts), used_gpus, nodes, gpus_per_node)[0] + nsif


@dataclass
class PlusStats:
    """What the mechanisms did in a run (for reports): heads admitted in the extended space
    without moves, jobs started ahead of a refused head (backfill), admission searches,
    heads admitted by compaction (and those moves), lazy compactions run, those that fell
    back to compass-abs's passes, and decisions after which N x SIF still exceeded the
    bound."""

    mixed_admissions: int = 0
    backfilled: int = 0
    searches: int = 0
    compaction_admissions: int = 0
    admission_moves: int = 0
    lazy_compactions: int = 0
    fallbacks: int = 0
    over_bound: int = 0

    def record(self) -> dict[str, int]:
        return asdict(self)


@register
class CompassAbsPlus(CompassAbs):
    """COMPASS-ABS+ (ours): compass-abs with mixed nodes, admission by compaction, lazy
    compaction with end-aligned fills, and backfill (module docstring)."""

    name = "compass-abs-plus"
    role = "extension"
    display = "COMPASS-ABS+ (our extension)"
    color = "#6a3d9a"
    rank = 0
    #: backfill's gate and the free moves of jobs started at ``now`` read the time
    skip_idle_instants = False

    def __init__(self, *, seed: int = 0, mixed_nodes: bool = True,
                 admit_by_compaction: bool = True, lazy_compaction: bool = True,
                 backfill: bool = True, end_aligned: bool = True, bound_slack: int = 0,
                 max_nodes: int = 6, max_jobs: int = 2, max_evals: int = 400,
                 runtime_estimate: RuntimeEstimate = "exact") -> None:
        super().__init__(seed=seed)
        if admit_by_compaction and not mixed_nodes:
            raise ValueError("admit_by_compaction moves instances into the extended space: "
                             "it needs mixed_nodes=True")
        if min(max_nodes, max_jobs, max_evals) < 1 or bound_slack < 0:
            raise ValueError("need max_nodes, max_jobs, max_evals >= 1 and bound_slack >= 0")
        self.mixed_nodes = mixed_nodes
        self.admit_by_compaction = admit_by_compaction
        self.lazy_compaction = lazy_compaction
        self.backfill = backfill
        self.end_aligned = end_aligned
        self.bound_slack = bound_slack
        #: the bound lazy compaction keeps: N x SIF <= 2 + k
        self.nsif = 2 + bound_slack
        self.max_nodes = max_nodes
        self.max_jobs = max_jobs
        self.max_evals = max_evals
        self.runtime_estimate = runtime_estimate
        self.stats = PlusStats()
        self._started_at = -math.inf
        self._started: set[int] = set()
        self.gate = Backfill(make_estimator(runtime_estimate, seed))

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        super().reset(state, workload)
        self.stats = PlusStats()
        self._started_at, self._started = -math.inf, set()
        # planned ends (also end alignment's) and backfill's gate
        self.gate = Backfill(make_estimator(self.runtime_estimate, self.seed))

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        """With ``backfill``: the job joins the gate's candidate index."""
        if self.backfill:
            self.gate.arrived(job)
        return ()

    def admission_order(self, queue: Sequence[Job], state: ClusterState,
                        now: float) -> tuple[Iterable[Job], bool]:
        """With ``backfill``: the queue in FIFO order, a refusal not blocking (``place``
        gates the jobs behind the first refused one), after the first refusal only the jobs
        the gate may admit (``Backfill.offers``); else the FIFO head-of-line blocking."""
        if not self.backfill:
            return super().admission_order(queue, state, now)
        return self.gate.offers(queue, state, now), False

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Backfill's gate (a job behind a refused head starts only if it ends by the head's
        shadow time), then the placement (``_place``); the first refusal of a pass sets the
        reservation. A shape refused since the last start is refused again without a
        search (same state, same answer: the decisions are those of a search)."""
        gate = self.gate
        if not gate.admits(job, now):
            return None
        enough = state.used_gpus + job.total_gpus <= state.total_gpus  # else no trial fits
        placement = self._place(job, state, now) if enough else None
        if placement is None:  # the head's anchors take slot-wide room (w*(g) GPUs each)
            g = job.gpus_per_instance
            gate.refused(job, state, now, slot_width(g) if g > 1 else 1)
            return None
        gate.started(job, now)
        self.stats.backfilled += gate.shadow is not None
        return placement

    def _place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """The paper's Place; else the extended space's; else admission by compaction; then
        the (lazy) Compact. None leaves no trace."""
        space = self.space
        space.begin()
        nodes = place_instances(space, job)
        pre = 0
        touched: set[int] = set()  # nodes that may have lost their last slot
        g = job.gpus_per_instance
        fits = self.mixed_nodes and space.capacity(slot_width(g) if g > 1 else 1) >= (
            job.num_instances)
        if nodes is None and fits:  # the extended space's Place succeeds exactly then
            space.rollback()
            nodes = place_instances(space, job, mixed=True)
            self.stats.mixed_admissions += 1
        if nodes is None and self.admit_by_compaction and not fits:
            space.rollback()
            empty = state.nodes_with_free(state.gpus_per_node)[:job.num_instances]
            plan = self._plan(job.gpus_per_instance, job.num_instances, empty, now)
            self.stats.searches += 1
            if plan is not None:
                touched.update(u.node for u, _ in plan.moves)
                space.operator = "admit"
                apply_plan(space, plan)
                pre = space.recorded_moves()
                nodes = place_instances(space, job, mixed=True)
                if nodes is None:
                    raise RuntimeError(f"{self.name}: the admission plan for job "
                                       f"{job.job_id} made no room (a bug)")
                self.stats.compaction_admissions += 1
                self.stats.admission_moves += pre
        if nodes is None:
            space.rollback()
            return None
        if now != self._started_at:
            self._started_at, self._started = now, set()
        self._started.add(job.job_id)
        counts = list(state.counts)
        counts[job.gpus_per_instance] += job.num_instances
        self._finish(space, state, counts, state.used_gpus + job.total_gpus, now, touched)
        moves = space.commit()
        return Placement(job.job_id, tuple(nodes), moves[pre:], moves[:pre])

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        """Remove (strays kept where they are when lazy), then the (lazy) Compact."""
        self._forget(job)
        space = self.space
        space.begin()
        touched = ({space.slot(k).node for k in job.instances()}
                   if job.gpus_per_instance > 1 else set())
        remove_instances(space, job, rehome=not self.lazy_compaction)
        self._finish(space, state, state.counts, state.used_gpus, now, touched)
        return space.commit()

    def _forget(self, job: Job) -> None:
        """Drop a departed job's planned end (absent if it was placed around ``place``);
        the runtime estimator learns its duration."""
        self.gate.departed(job)

    def check(self, state: ClusterState) -> None:
        self.space.check(state, strays_anywhere=self.mixed_nodes or self.lazy_compaction)

    def _free_jobs(self, now: float) -> frozenset[int]:
        """Jobs started at ``now``: moving them is free (they are launched where they end up)."""
        return frozenset(self._started) if now == self._started_at else frozenset()

    def _plan(self, g: int, count: int, empty: Sequence[int], now: float) -> Plan | None:
        """``find_plan`` with this scheduler's bounds; moves of jobs started at ``now`` are
        free (they are launched where they end up)."""
        return find_plan(self.space, g, count, empty, free_jobs=self._free_jobs(now),
                         max_nodes=self.max_nodes, max_jobs=self.max_jobs,
                         max_evals=self.max_evals)

    def _finish(self, space: AbsSpace, state: ClusterState, counts: Sequence[int],
                used_gpus: int, now: float, touched: set[int]) -> None:
        """End of a decision: Compact, after every event or (lazy) only while
        N x SIF > nsif; then nodes left with only strays pool them in place (no moves).
        ``touched``: the nodes this decision may have stripped of their last slot, which
        grows with the lazy plans' sources; after compass-abs's passes, every stray node."""
        if not self.lazy_compaction or self._compact_lazily(space, state, counts, used_gpus,
                                                            now, touched):
            if not self.lazy_compaction:
                settle(space, self.repair)
            touched = set(space.stray_nodes())
        for n in sorted(touched):
            if space.holds_only_strays(n):
                pool_in_place(space, n)

    def _aligned_fill(self, space: AbsSpace) -> Plan | None:
        """``abs_ends.aligned_fill`` by the planned ends; a job placed around ``place`` has
        none and counts as never ending."""
        return aligned_fill(space, self.gate.planned_end)

    def _compact_lazily(self, space: AbsSpace, state: ClusterState, counts: Sequence[int],
                        used_gpus: int, now: float, touched: set[int]) -> bool:
        """While N x SIF > nsif: the cheapest fill of a partial node (``find_fill``; with
        ``end_aligned`` and no job started now, of the one-move fills the one
        ``abs_ends.aligned_fill`` picks), or the cheapest evacuation of one (``find_plan``
        for a virtual G-GPU instance) if that is cheaper still; when neither exists,
        compass-abs's passes and settle (``FALLBACK_STEPS``), each only while still needed.
        True if those passes ran."""
        bound = partial_bound(counts, used_gpus, state.nodes, state.gpus_per_node, self.nsif)
        if space.partial_count() <= bound:
            return False
        self.stats.lazy_compactions += 1
        space.operator = "lazy-compact"
        free = self._free_jobs(now)
        while space.partial_count() > bound:
            plan = self._aligned_fill(space) if self.end_aligned and not free else None
            plan = plan or find_fill(space, free_jobs=free, max_nodes=self.max_nodes,
                                     max_jobs=self.max_jobs, max_evals=self.max_evals)
            if plan is None or plan.cost > (0 if free else 1, 1):  # else nothing is cheaper
                plan = find_plan(space, space.gpus_per_node, 1, (), free_jobs=free,
                                 max_nodes=self.max_nodes, max_jobs=self.max_jobs,
                                 max_evals=self.max_evals, beat=plan and plan.cost) or plan
            if plan is None:
                break
            touched.update(u.node for u, _ in plan.moves)
            apply_plan(space, plan)
        if space.partial_count() <= bound:
            return False
        self.stats.fallbacks += 1
        for step in FALLBACK_STEPS:
            step(space)
            if space.partial_count() <= bound:
                return True
        self.stats.over_bound += 1
        return True
