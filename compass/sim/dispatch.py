"""One instant of scheduling: the decision core shared by the simulator and the physical runtime.

The ``Dispatcher`` owns the ``ClusterState``, the FIFO queue and one ``Scheduler``. Each call
to ``step`` handles the events of one instant in the fixed order of docs/simulator.md:
departures (in the order given), then the timer, then arrivals (FIFO), then one admission
pass. It validates every decision through the state and reports what happened as an
``Instant``. It knows nothing of time beyond the ``now`` it is given: the simulator turns an
``Instant`` into pauses and departure events, the runtime (``compass.runtime``) into actor
starts and checkpoint-restart migrations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

from compass.cluster import ClusterState, PlacementError
from compass.model import InstanceKey, Job
from compass.oracle.panels import PANEL_GPUS, instance_panels, multi_panels
from compass.schedulers.base import Move, Placement, Scheduler


class SchedulerError(RuntimeError):
    """A scheduler returned a decision the cluster refuses (a policy bug)."""


class UnfitJob(ValueError):
    """A job that no placement on the empty cluster can hold."""


def check_jobs_fit(jobs: Sequence[Job], nodes: int, gpus_per_node: int) -> None:
    """Raise ``UnfitJob`` for the first job an empty cluster cannot hold, counting panels on
    K > 1 domains (a domain holds K floor(8/g) sub-panel or floor(K/p) 8p-GPU instances)."""
    panels = multi_panels(gpus_per_node)
    for job in jobs:
        g = job.gpus_per_instance
        per_node = gpus_per_node // g if 1 <= g <= gpus_per_node else 0
        if panels is not None and per_node:
            try:
                p = instance_panels(g)
            except ValueError as err:
                raise UnfitJob(f"job {job.job_id}: {err} (domains of {gpus_per_node} GPUs)"
                               ) from None
            per_node = panels // p if p else panels * (PANEL_GPUS // g)
        if job.num_instances > nodes * per_node:
            raise UnfitJob(
                f"job {job.job_id} (w={job.num_instances}, g={g}) cannot fit an empty "
                f"cluster of {nodes} nodes x {gpus_per_node} GPUs"
            )


@dataclass(frozen=True, slots=True)
class AppliedMove:
    """One migration as applied: ``instance`` went from node ``src`` to node ``dst``, issued
    by ``operator`` (``Move.operator``)."""

    instance: InstanceKey
    src: int
    dst: int
    operator: str = field(default="", compare=False)

    @property
    def job_id(self) -> int:
        return self.instance[0]


@dataclass(slots=True)
class Instant:
    """What one ``Dispatcher.step`` did, in order of application."""

    time: float
    #: jobs released at this instant, in the order given
    departed: list[int] = field(default_factory=list)
    #: jobs admitted at this instant, in admission order
    started: list[int] = field(default_factory=list)
    #: every migration, in the order applied
    moves: list[AppliedMove] = field(default_factory=list)

    def migrated_jobs(self, state: ClusterState) -> dict[int, list[int]]:
        """Jobs that migrate at this instant: job id -> indices into ``moves``.

        A move is a migration (it costs a checkpoint-restart) only if its job was running
        before the instant and still runs after it: moves of a job admitted at this instant
        only change where it starts, and a job that departed after moving needs no restart.
        """
        started = set(self.started) if self.started else ()
        running = state.is_running
        out: dict[int, list[int]] = {}
        for i, move in enumerate(self.moves):
            job_id = move.instance[0]
            if job_id not in started and running(job_id):
                if (rows := out.get(job_id)) is None:
                    out[job_id] = [i]
                else:
                    rows.append(i)
        return dict(sorted(out.items())) if len(out) > 1 else out


class JobQueue(Sequence[Job]):
    """The jobs waiting for admission, in FIFO (arrival) order, indexed by job id.

    An insertion-ordered dict: appending, taking the head and removing any admitted job are
    O(1), so an admission pass that starts jobs out of order (backfill, MCG's order) removes
    them without rebuilding the queue. Reads: ``len``, iteration in FIFO order, ``queue[0]``
    (the head) and ``queue[-1]`` (the tail) in O(1); any other index walks the queue.
    ``by_id`` is the dict itself, for the dispatcher's and the simulator's hot loops.

    A dict keeps the slots of deleted entries until it grows, and iteration walks over them,
    so FIFO removals leave a run of empty slots that every read of the head crosses (as
    many as the queue is long, and more). ``remove`` counts them and rebuilds the dict in
    place, in order, when they outnumber a quarter of the queue: O(1) per removal amortised.
    """

    __slots__ = ("_jobs", "_holes")

    def __init__(self, jobs: Iterable[Job] = ()) -> None:
        self._jobs: dict[int, Job] = {job.job_id: job for job in jobs}
        self._holes = 0  # removals since the dict was last rebuilt (or more)

    @property
    def by_id(self) -> dict[int, Job]:
        """The queued jobs by id, in FIFO order (the queue's own dict: read it, or add and
        delete jobs as ``append`` and ``remove`` do)."""
        return self._jobs

    def __len__(self) -> int:
        return len(self._jobs)

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __iter__(self) -> Iterator[Job]:
        return iter(self._jobs.values())

    def __getitem__(self, index: int) -> Job:  # type: ignore[override]
        jobs = self._jobs
        if index == 0 and jobs:
            return next(iter(jobs.values()))
        n = len(jobs)
        if not -n <= index < n:
            raise IndexError("queue index out of range")
        if index == -1:
            return next(reversed(jobs.values()))
        return next(islice(jobs.values(), index % n, None))

    def __repr__(self) -> str:
        return f"JobQueue({[job.job_id for job in self]})"

    def append(self, job: Job) -> None:
        """Queue ``job`` last (its id must not be queued already)."""
        if job.job_id in self._jobs:
            raise ValueError(f"job {job.job_id} is queued already")
        self._jobs[job.job_id] = job

    def remove(self, job_ids: Iterable[int]) -> None:
        """Take the jobs ``job_ids`` out of the queue (each must be queued)."""
        jobs = self._jobs
        for job_id in job_ids:
            del jobs[job_id]
            self._holes += 1
        if self._holes > len(jobs) // 4 + 16:
            self._compact()

    def _compact(self) -> None:
        """Rebuild the dict in place (its identity is ``by_id``'s) without empty slots."""
        jobs = self._jobs
        kept = dict(jobs)
        jobs.clear()
        jobs.update(kept)
        self._holes = 0

    def clear(self) -> None:
        """Empty the queue."""
        self._jobs.clear()
        self._holes = 0


def overrides(scheduler: Scheduler, hook: str) -> bool:
    """Whether ``scheduler`` defines ``hook`` itself (its class or the instance), rather than
    inheriting ``Scheduler``'s default (no moves, the FIFO queue with blocking)."""
    return getattr(type(scheduler), hook) is not getattr(Scheduler, hook) or hook in vars(
        scheduler)


class Dispatcher:
    """Applies a scheduler's decisions to a cluster state, one instant at a time.

    A hook the scheduler inherits from ``Scheduler`` unchanged is not called: its answer is
    known (no moves; the queue in FIFO order with head-of-line blocking).
    """

    def __init__(self, scheduler: Scheduler, state: ClusterState) -> None:
        self.scheduler = scheduler
        self.state = state
        #: jobs waiting for admission, in FIFO order
        self.queue = JobQueue()
        self._waiting = self.queue.by_id  # the queue's own dict, for the hot paths
        self._on_arrival = scheduler.on_arrival if overrides(scheduler, "on_arrival") else None
        self._on_departure = (scheduler.on_departure if overrides(scheduler, "on_departure")
                              else None)
        self._ordered = overrides(scheduler, "admission_order")
        self._place = scheduler.place  # bound once, not per pass

    def reset(self, workload: Sequence[Job]) -> None:
        """Prepare the scheduler for a run over ``workload`` on the (empty) state."""
        self.scheduler.reset(self.state, workload)

    def stuck(self) -> str | None:
        """Why a run cannot finish once nothing else will happen (no job running or due):
        the queue head the scheduler refuses on the idle cluster; None if the queue is empty."""
        if not self.queue:
            return None
        head = self.queue[0]
        return (f"scheduler {self.scheduler.name!r} cannot place job {head.job_id} "
                f"(w={head.num_instances}, g={head.gpus_per_instance}) on an idle cluster of "
                f"{self.state.nodes} nodes")

    def first_timer(self, workload: Sequence[Job]) -> float:
        """The first timer instant: the first multiple of the scheduler's ``timer_period`` at
        or after the first submission (inf without a timer or jobs; docs/simulator.md)."""
        period = self.scheduler.timer_period
        if not period or not workload:
            return math.inf
        if period <= 0:
            raise ValueError(f"{self.scheduler.name}: timer_period must be > 0")
        return self.timer_at_or_after(workload[0].submit_time)

    def next_timer(self, now: float) -> float:
        """The timer instant after the one at ``now`` (timers fire at multiples of the period)."""
        period = self.scheduler.timer_period
        return (round(now / period) + 1) * period if period else math.inf

    def timer_at_or_after(self, t: float) -> float:
        """The first timer instant k x period >= ``t`` (k an integer, as ``next_timer``'s;
        inf without a timer)."""
        period = self.scheduler.timer_period
        if not period:
            return math.inf
        k = math.ceil(t / period)
        while (k - 1) * period >= t:  # t / period rounded up past an integer
            k -= 1
        while k * period < t:
            k += 1
        return k * period

    def step(
        self,
        now: float,
        departures: Iterable[Job] = (),
        timer: bool = False,
        arrivals: Iterable[Job] = (),
    ) -> Instant:
        """Handle one instant: departures, timer, arrivals, then one admission pass (the
        arguments may be given by position: the simulator's call per instant is)."""
        instant = Instant(now)
        state = self.state
        if departures:
            on_departure, release, departed = self._on_departure, state.release_job, \
                instant.departed
            for job in departures:
                release(job.job_id)
                departed.append(job.job_id)
                if on_departure is not None and (moves := on_departure(job, state, now)):
                    self._apply(moves, instant)
        if timer and (moves := self.scheduler.on_timer(state, now)):
            self._apply(moves, instant)
        waiting = self._waiting
        if arrivals:
            on_arrival = self._on_arrival
            for job in arrivals:
                waiting[job.job_id] = job
                if on_arrival is not None and (moves := on_arrival(job, state, now)):
                    self._apply(moves, instant)
        if waiting:
            self._admission_pass(instant)
        return instant

    def _admission_pass(self, instant: Instant) -> None:
        now, state, waiting = instant.time, self.state, self._waiting
        if self._ordered:
            order, blocking = self.scheduler.admission_order(self.queue, state, now)
        else:
            order, blocking = waiting.values(), True
        place = self._place
        admitted: list[int] = []
        for job in order:
            placement = place(job, state, now)
            if placement is None:
                if blocking:
                    break
                continue
            self._start(job, placement, instant)
            admitted.append(job.job_id)
        if admitted:
            self.queue.remove(admitted)

    def _start(self, job: Job, placement: Placement, instant: Instant) -> None:
        job_id = job.job_id
        if not isinstance(placement, Placement) or placement.job_id != job_id:
            raise SchedulerError(f"{self.scheduler.name}: place({job_id}) returned "
                                 f"{placement!r}")
        nodes = placement.nodes
        if len(nodes) != job.num_instances:
            raise SchedulerError(
                f"{self.scheduler.name}: job {job_id} has {job.num_instances} instances, "
                f"placement gives {len(nodes)} nodes"
            )
        pre = placement.pre_moves
        try:
            if pre:  # moves that make the job's room: validated with it, all or nothing
                for move in pre:
                    if not isinstance(move, Move):
                        raise SchedulerError(
                            f"{self.scheduler.name}: expected a Move, got {move!r}")
                sources = self.state.place_job_after_moves(
                    job_id, job.gpus_per_instance, nodes, [(m.instance, m.dst) for m in pre])
                instant.moves.extend(AppliedMove(m.instance, src, m.dst, m.operator)
                                     for m, src in zip(pre, sources))
            else:
                self.state.place_job(job_id, job.gpus_per_instance, nodes)
        except PlacementError as e:
            raise SchedulerError(f"{self.scheduler.name}: invalid placement at "
                                 f"t={instant.time}: {e}") from e
        instant.started.append(job_id)
        if placement.moves:
            self._apply(placement.moves, instant)

    def _apply(self, moves: Iterable[Move], instant: Instant) -> None:
        move_to, applied = self.state.move, instant.moves
        try:
            for move in moves:
                if type(move) is not Move and not isinstance(move, Move):
                    raise SchedulerError(f"{self.scheduler.name}: expected a Move, got {move!r}")
                src = move_to(move.instance, move.dst)
                applied.append(AppliedMove(move.instance, src, move.dst, move.operator))
        except PlacementError as e:
            raise SchedulerError(
                f"{self.scheduler.name}: invalid move at t={instant.time}: {e}") from e
