"""The event-driven cluster simulator (ARCHITECTURE.md "Simulator semantics"; docs/simulator.md).

Events are job arrivals (at ``submit_time``), job departures (run time plus migration
pauses after the start) and scheduler timers. All events of one instant are handled in a
fixed order: departures (by job id), then the timer, then arrivals (FIFO order); then one
admission pass; then migration pauses are charged; then one timeline row is recorded.
Every decision is validated through ``ClusterState``; a bad one raises ``SchedulerError``
naming the scheduler. Nothing here is random: the same inputs give the same records.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd
from tqdm.auto import tqdm

from compass.cluster import ClusterState, PlacementError
from compass.fragmentation import (
    MAX_GPUS_PER_NODE,
    InfeasiblePacking,
    domain_panels,
    hierarchical_fragmentation,
    inherent_partial_nodes,
    instance_panels,
    wcc_holds,
)
from compass.model import G_DEFAULT, Job
from compass.schedulers.base import Move, Placement, Scheduler

PauseRule = Literal["per-event", "per-migration"]

TIMELINE_COLUMNS = (
    "time", "partial_nodes", "phi_star", "sif", "used_gpus", "gpu_util", "empty_nodes",
    "queue_len", "head_demand", "running_jobs", "wcc",
)
#: Extra timeline columns of multi-panel clusters (G = 8K, K > 1; eq. 26, docs/nvl72.md).
PANEL_COLUMNS = (
    "partial_panels", "phi_star_gpu", "sif_gpu", "panel_partial_domains", "phi_star_panel",
    "sif_panel",
)
JOB_COLUMNS = (
    "job_id", "submit_time", "duration", "num_instances", "gpus_per_instance", "start_time",
    "end_time", "jct", "queue_time", "migrations", "instance_moves", "pause_time",
)
MIGRATION_COLUMNS = ("time", "job_id", "instance", "src", "dst", "charged")


class SchedulerError(RuntimeError):
    """A scheduler returned a decision the cluster refuses (a policy bug)."""


class SimulationError(RuntimeError):
    """The run cannot go on (e.g. a queued job that fits no empty cluster)."""


@dataclass(frozen=True)
class SimulationConfig:
    """How to run: cluster size, migration cost ``c`` and how pauses are charged.

    ``pause_rule``: "per-event" adds ``c`` once per job per instant in which any of its
    instances moved (the paper's convention); "per-migration" adds ``c`` per moved instance.
    """

    nodes: int
    gpus_per_node: int = G_DEFAULT
    migration_cost: float = 8.0
    pause_rule: PauseRule = "per-event"
    debug_checks: bool = False
    progress: bool = False

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise ValueError(f"nodes must be >= 1, got {self.nodes}")
        if self.migration_cost < 0:
            raise ValueError(f"migration_cost must be >= 0, got {self.migration_cost}")
        if self.pause_rule not in ("per-event", "per-migration"):
            raise ValueError(f"unknown pause_rule {self.pause_rule!r}")


@dataclass
class SimulationRecords:
    """Raw output of one run: per-job table, timeline after every instant, migration log."""

    jobs: pd.DataFrame
    timeline: pd.DataFrame
    migrations: pd.DataFrame


@dataclass
class _JobRecord:
    job: Job
    start: float = math.nan
    end: float = math.nan
    migrations: int = 0
    instance_moves: int = 0
    pause: float = 0.0
    version: int = 0


@dataclass
class _Instant:
    """Bookkeeping of the instant being processed."""

    time: float
    started: set[int] = field(default_factory=set)
    #: job id -> indices in the migration log of its moves at this instant
    moves_by_job: dict[int, list[int]] = field(default_factory=dict)


class Simulator:
    """Drives one ``Scheduler`` over one ``ClusterState`` through a job list."""

    def __init__(self, jobs: Sequence[Job], scheduler: Scheduler, config: SimulationConfig):
        self.jobs = list(jobs)
        self.scheduler = scheduler
        self.config = config
        self.state = ClusterState(config.nodes, config.gpus_per_node)
        panels = domain_panels(config.gpus_per_node)
        #: K > 1: nodes are NVLink domains of K panels (appendix D); else None
        self._panels = panels if panels is not None and panels > 1 else None
        self._check_jobs_fit()
        self._records = {j.job_id: _JobRecord(j) for j in self.jobs}
        self._queue: deque[Job] = deque()
        self._departures: list[tuple[float, int, int]] = []
        self._timeline: list[tuple] = []
        self._migration_log: list[tuple] = []
        self._done = 0
        self._phi_cache: dict[tuple[int, ...], tuple[float, bool | None]] = {}

    # ----------------------------------------------------------------- public
    def run(self) -> SimulationRecords:
        """Process every event; return the records."""
        self.scheduler.reset(self.state, self.jobs)
        period = self.scheduler.timer_period
        arrivals = self.jobs
        next_arrival = 0
        next_timer = self._first_timer(period)
        with tqdm(total=len(arrivals), desc=self.scheduler.name, unit="job",
                  disable=not self.config.progress) as bar:
            while True:
                t = min(
                    self._departures[0][0] if self._departures else math.inf,
                    next_timer,
                    arrivals[next_arrival].submit_time
                    if next_arrival < len(arrivals) else math.inf,
                )
                if t == math.inf:
                    break
                instant = _Instant(t)
                done_before = self._done
                self._process_departures(instant)
                if next_timer == t:
                    self._apply_moves(self.scheduler.on_timer(self.state, t), instant)
                    next_timer = self._next_timer(period, t)
                while next_arrival < len(arrivals) and arrivals[next_arrival].submit_time == t:
                    job = arrivals[next_arrival]
                    next_arrival += 1
                    self._queue.append(job)
                    self._apply_moves(self.scheduler.on_arrival(job, self.state, t), instant)
                self._admission_pass(instant)
                self._charge_pauses(instant)
                self._record(t)
                if self.config.debug_checks:
                    self.state.check()
                    self.scheduler.check(self.state)
                bar.update(self._done - done_before)
                if next_arrival == len(arrivals) and not self._departures and self._queue:
                    head = self._queue[0]
                    raise SimulationError(
                        f"scheduler {self.scheduler.name!r} cannot place job {head.job_id} "
                        f"(w={head.num_instances}, g={head.gpus_per_instance}) on an idle "
                        f"cluster of {self.config.nodes} nodes"
                    )
                if next_arrival == len(arrivals) and not self._departures:
                    next_timer = math.inf
        return SimulationRecords(
            self._jobs_frame(), self._timeline_frame(), self._migrations_frame()
        )

    # ---------------------------------------------------------------- events
    def _process_departures(self, instant: _Instant) -> None:
        heap = self._departures
        while heap and heap[0][0] == instant.time:
            _, job_id, version = heapq.heappop(heap)
            rec = self._records[job_id]
            if version != rec.version:
                continue  # superseded by a migration pause
            self.state.release_job(job_id)
            rec.end = instant.time
            self._done += 1
            self._apply_moves(self.scheduler.on_departure(rec.job, self.state, instant.time),
                              instant)

    def _admission_pass(self, instant: _Instant) -> None:
        if not self._queue:
            return
        order, blocking = self.scheduler.admission_order(self._queue, self.state, instant.time)
        admitted: list[int] = []
        for job in order:
            placement = self.scheduler.place(job, self.state, instant.time)
            if placement is None:
                if blocking:
                    break
                continue
            self._start(job, placement, instant)
            admitted.append(job.job_id)
        if not admitted:
            return
        if all(self._queue[k].job_id == jid for k, jid in enumerate(admitted)):
            for _ in admitted:
                self._queue.popleft()
        else:
            gone = set(admitted)
            self._queue = deque(j for j in self._queue if j.job_id not in gone)

    def _start(self, job: Job, placement: Placement, instant: _Instant) -> None:
        name = self.scheduler.name
        if not isinstance(placement, Placement) or placement.job_id != job.job_id:
            raise SchedulerError(f"{name}: place({job.job_id}) returned {placement!r}")
        if len(placement.nodes) != job.num_instances:
            raise SchedulerError(
                f"{name}: job {job.job_id} has {job.num_instances} instances, placement gives "
                f"{len(placement.nodes)} nodes"
            )
        try:
            self.state.place_job(job.job_id, job.gpus_per_instance, placement.nodes)
        except PlacementError as e:
            raise SchedulerError(f"{name}: invalid placement at t={instant.time}: {e}") from e
        rec = self._records[job.job_id]
        rec.start = instant.time
        rec.end = instant.time + job.duration
        instant.started.add(job.job_id)
        heapq.heappush(self._departures, (rec.end, job.job_id, rec.version))
        self._apply_moves(placement.moves, instant)

    def _apply_moves(self, moves: Iterable[Move], instant: _Instant) -> None:
        name = self.scheduler.name
        for move in moves:
            if not isinstance(move, Move):
                raise SchedulerError(f"{name}: expected a Move, got {move!r}")
            try:
                src = self.state.move(move.instance, move.dst)
            except PlacementError as e:
                raise SchedulerError(f"{name}: invalid move at t={instant.time}: {e}") from e
            job_id = move.instance[0]
            charged = job_id not in instant.started
            if charged:
                instant.moves_by_job.setdefault(job_id, []).append(len(self._migration_log))
            self._migration_log.append(
                (instant.time, job_id, move.instance[1], src, move.dst, charged)
            )

    def _charge_pauses(self, instant: _Instant) -> None:
        """Pause every moved job for ``c`` seconds (GPUs held): its departure moves later."""
        c = self.config.migration_cost
        for job_id, log_rows in sorted(instant.moves_by_job.items()):
            if not self.state.is_running(job_id):
                # moved by an earlier departure's hook, then departed at the same instant
                for i in log_rows:
                    self._migration_log[i] = self._migration_log[i][:-1] + (False,)
                continue
            moves = len(log_rows)
            rec = self._records[job_id]
            rec.migrations += 1
            rec.instance_moves += moves
            pause = c if self.config.pause_rule == "per-event" else c * moves
            if pause > 0:
                rec.pause += pause
                rec.end += pause
                rec.version += 1
                heapq.heappush(self._departures, (rec.end, job_id, rec.version))

    # --------------------------------------------------------------- helpers
    def _check_jobs_fit(self) -> None:
        G, N = self.config.gpus_per_node, self.config.nodes
        for job in self.jobs:
            g = job.gpus_per_instance
            if not 1 <= g <= G or job.num_instances > N * (G // g):
                raise SimulationError(
                    f"job {job.job_id} (w={job.num_instances}, g={g}) cannot fit an empty "
                    f"cluster of {N} nodes x {G} GPUs"
                )
            if self._panels is not None:
                try:
                    instance_panels(g)
                except ValueError as err:
                    raise SimulationError(
                        f"job {job.job_id}: {err} (domains of {G} GPUs)"
                    ) from None

    def _first_timer(self, period: float | None) -> float:
        if not period or not self.jobs:
            return math.inf
        if period <= 0:
            raise ValueError(f"{self.scheduler.name}: timer_period must be > 0")
        return math.ceil(self.jobs[0].submit_time / period) * period

    @staticmethod
    def _next_timer(period: float | None, now: float) -> float:
        return (round(now / period) + 1) * period if period else math.inf

    def _record(self, t: float) -> None:
        s = self.state
        counts = s.counts
        cached = self._phi_cache.get(counts)
        if cached is None:
            G = s.gpus_per_node
            cached = (inherent_partial_nodes(counts, nodes=s.nodes, gpus_per_node=G)
                      if G <= MAX_GPUS_PER_NODE else math.nan,
                      wcc_holds(counts) if G == G_DEFAULT else None)
            self._phi_cache[counts] = cached
        phi, wcc = cached
        partial = s.partial_nodes
        if partial < phi:
            raise SimulationError(
                f"SIF < 0 at t={t}: {partial} partial nodes < Phi* = {phi} (oracle bug)"
            )
        head = self._queue[0].total_gpus if self._queue else 0
        self._timeline.append((
            t, partial, phi, (partial - phi) / s.nodes, s.used_gpus, s.used_gpus / s.total_gpus,
            s.empty_nodes, len(self._queue), head, s.running_job_count, wcc,
        ) + self._panel_record(t))

    def _panel_record(self, t: float) -> tuple:
        """The PANEL_COLUMNS values (empty unless K > 1); a domain with no panel layout
        (a sub-panel instance split across panels) is a policy error."""
        if self._panels is None:
            return ()
        domains = [tuple(sorted(self.state.instances_on(n).values()))
                   for n in range(self.state.nodes)]
        try:
            h = hierarchical_fragmentation(domains, self._panels)
        except InfeasiblePacking as err:
            raise SchedulerError(
                f"{self.scheduler.name}: at t={t} a domain has no panel layout ({err})"
            ) from None
        return (h.partial_panels, h.phi_star_gpu, h.sif_gpu, h.panel_partial_domains,
                h.phi_star_panel, h.sif_panel)

    def _timeline_frame(self) -> pd.DataFrame:
        extra = PANEL_COLUMNS if self._panels is not None else ()
        return pd.DataFrame(self._timeline, columns=list(TIMELINE_COLUMNS + extra))

    def _jobs_frame(self) -> pd.DataFrame:
        rows = []
        for job in self.jobs:
            r = self._records[job.job_id]
            rows.append((
                job.job_id, job.submit_time, job.duration, job.num_instances,
                job.gpus_per_instance, r.start, r.end, r.end - job.submit_time,
                r.start - job.submit_time, r.migrations, r.instance_moves, r.pause,
            ))
        return pd.DataFrame(rows, columns=list(JOB_COLUMNS))

    def _migrations_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self._migration_log, columns=list(MIGRATION_COLUMNS))
