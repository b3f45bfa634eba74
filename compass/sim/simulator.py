"""The event-driven cluster simulator (its semantics: docs/simulator.md).

Events are job arrivals (at ``submit_time``), job departures (run time plus migration
pauses after the start) and scheduler timers. All events of one instant are handled by the
``Dispatcher`` in a fixed order (departures by job id, the timer, arrivals FIFO, one
admission pass); then migration pauses are charged and one timeline row is recorded.
Every decision is validated through ``ClusterState``; a bad one raises ``SchedulerError``
naming the scheduler. Nothing here is random: the same inputs give the same records.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd
from tqdm.auto import tqdm

from compass.cluster import ClusterState
from compass.model import G_DEFAULT, Job
from compass.schedulers.base import Scheduler
from compass.sim.dispatch import Dispatcher, Instant, SchedulerError, UnfitJob, check_jobs_fit
from compass.sim.records import MIGRATION_COLUMNS, job_columns, number_frame
from compass.sim.timeline import OracleError, PanelLayoutError, TimelineRecorder

__all__ = [
    "PauseRule", "SchedulerError", "SimulationConfig", "SimulationError", "SimulationRecords",
    "Simulator", "DEFAULT_MIGRATION_COST",
]

PauseRule = Literal["per-event", "per-migration"]
#: c, the seconds a migrated job pauses, unless given: the paper's measured mean
#: checkpoint-restart latency (section 6.5). The default of ``compass.simulate`` and the CLI
#: (a profile states its own ``migration_cost``).
DEFAULT_MIGRATION_COST = 8.0

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
    migration_cost: float = DEFAULT_MIGRATION_COST
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


class _Ledger:
    """What the run did to each job: one dict per field, keyed by job id.

    Numbers only, so the cyclic garbage collector does not track them: an object per job
    would be 20,000 tracked objects on 20,000 jobs, enough to set off its full passes over
    everything the process holds. ``version`` counts a job's migration pauses: its
    departure events of older versions are superseded.
    """

    __slots__ = ("job", "start", "end", "migrations", "instance_moves", "pause", "version")

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.job: dict[int, Job] = {j.job_id: j for j in jobs}
        ids = self.job.keys()
        self.start: dict[int, float] = dict.fromkeys(ids, math.nan)
        self.end: dict[int, float] = dict.fromkeys(ids, math.nan)
        self.migrations: dict[int, int] = dict.fromkeys(ids, 0)
        self.instance_moves: dict[int, int] = dict.fromkeys(ids, 0)
        self.pause: dict[int, float] = dict.fromkeys(ids, 0.0)
        self.version: dict[int, int] = dict.fromkeys(ids, 0)

    def columns(self, ids: Sequence[int]) -> dict[str, list]:
        """The ``JOB_COLUMNS`` of the jobs ``ids``, in that order (``job_columns``)."""
        def pick(field: dict) -> list:
            return list(map(field.__getitem__, ids))
        return job_columns(pick(self.job), pick(self.start), pick(self.end),
                           pick(self.migrations), pick(self.instance_moves), pick(self.pause))


class Simulator:
    """Drives one ``Scheduler`` over one ``ClusterState`` through a job list."""

    def __init__(self, jobs: Sequence[Job], scheduler: Scheduler, config: SimulationConfig):
        self.jobs = list(jobs)
        self.scheduler = scheduler
        self.config = config
        self.state = ClusterState(config.nodes, config.gpus_per_node)
        try:
            check_jobs_fit(self.jobs, config.nodes, config.gpus_per_node)
        except UnfitJob as err:
            raise SimulationError(str(err)) from None
        self._dispatcher = Dispatcher(scheduler, self.state)
        self._timeline = TimelineRecorder(self.state)
        self._ledger = _Ledger(self.jobs)
        #: (end time, job id, version): a migration pause supersedes a job's older entries
        self._departures: list[tuple[float, int, int]] = []
        self._migration_log: list[tuple] = []

    # ----------------------------------------------------------------- public
    def run(self) -> SimulationRecords:
        """Process every event; return the records."""
        dispatcher = self._dispatcher
        dispatcher.reset(self.jobs)
        arrivals = self.jobs
        n_arrivals = len(arrivals)
        inf = math.inf
        submits = [job.submit_time for job in arrivals] + [inf]  # a sentinel ends the scan
        next_arrival = 0
        next_timer = dispatcher.first_timer(arrivals)
        #: an idle timer instant was seen: no timer until the next event; superseded
        #: departures after an idle instant make no instant (``skip_idle_instants``)
        skip_idle, dormant = self.scheduler.skip_idle_instants, False
        heap = self._departures
        heappop, heappush = heapq.heappop, heapq.heappush
        ledger = self._ledger
        by_id, start, end, versions = ledger.job, ledger.start, ledger.end, ledger.version
        step, record = dispatcher.step, self._timeline.record_queue
        waiting = dispatcher.queue.by_id
        debug, progress = self.config.debug_checks, self.config.progress
        with tqdm(total=n_arrivals, desc=self.scheduler.name, unit="job",
                  disable=not progress) as bar:
            try:
                while True:
                    t = submits[next_arrival]
                    if heap and heap[0][0] < t:
                        t = heap[0][0]
                    if dormant and t != inf:
                        next_timer, dormant = dispatcher.timer_at_or_after(t), False
                    if next_timer < t:
                        t = next_timer
                    if t == inf:
                        break
                    departing = []
                    while heap and heap[0][0] == t:
                        _, job_id, version = heappop(heap)
                        if version == versions[job_id]:  # else superseded by a pause
                            departing.append(by_id[job_id])
                    first = next_arrival
                    while submits[next_arrival] == t:
                        next_arrival += 1
                    timer = next_timer == t
                    if timer:
                        next_timer = dispatcher.next_timer(t)
                    instant = step(t, departing, timer, arrivals[first:next_arrival])
                    # book the instant: starts (departure events), moves and pauses (a
                    # departed job's end is its departure event's time, t, already)
                    for job_id in instant.started:
                        start[job_id] = t
                        end[job_id] = done = t + by_id[job_id].duration
                        heappush(heap, (done, job_id, versions[job_id]))
                    if instant.moves:
                        self._charge_pauses(instant)
                    elif skip_idle and not instant.started:  # the last pass changed nothing
                        if timer:
                            next_timer, dormant = inf, True
                        while heap and heap[0][2] != versions[heap[0][1]]:
                            heappop(heap)  # superseded by a pause: an instant of no event
                    if waiting:
                        head = next(iter(waiting.values()))
                        record(t, len(waiting), head.num_instances * head.gpus_per_instance)
                    else:
                        record(t, 0, 0)
                    if debug:
                        self.state.check()
                        self.scheduler.check(self.state)
                    if progress and departing:
                        bar.update(len(departing))
                    if next_arrival == n_arrivals and not heap:
                        if (reason := dispatcher.stuck()) is not None:
                            raise SimulationError(reason)
                        next_timer = inf
            except PanelLayoutError as err:
                raise SchedulerError(f"{self.scheduler.name}: {err}") from None
        try:
            timeline = self._timeline.frame()
        except OracleError as err:
            raise SimulationError(str(err)) from None
        return SimulationRecords(self._jobs_frame(), timeline, self._migrations_frame())

    # ---------------------------------------------------------------- events
    def _charge_pauses(self, instant: Instant) -> None:
        """Log the moves; pause every migrated job ``c`` seconds (GPUs held): its departure
        moves later. Moves of jobs admitted or departed at this instant are free."""
        migrated = instant.migrated_jobs(self.state)
        t = instant.time
        log = self._migration_log
        for m in instant.moves:
            job_id, k = m.instance
            log.append((t, job_id, k, m.src, m.dst, job_id in migrated, m.operator))
        c = self.config.migration_cost
        per_event = self.config.pause_rule == "per-event"
        ledger, heap = self._ledger, self._departures
        for job_id, rows in migrated.items():
            ledger.migrations[job_id] += 1
            ledger.instance_moves[job_id] += len(rows)
            pause = c if per_event else c * len(rows)
            if pause > 0:
                ledger.pause[job_id] += pause
                ledger.end[job_id] += pause
                ledger.version[job_id] += 1
                heapq.heappush(heap, (ledger.end[job_id], job_id, ledger.version[job_id]))

    # --------------------------------------------------------------- helpers
    def _jobs_frame(self) -> pd.DataFrame:
        return number_frame(self._ledger.columns([job.job_id for job in self.jobs]))

    def _migrations_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self._migration_log, columns=list(MIGRATION_COLUMNS))
