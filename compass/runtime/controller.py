"""The physical-mode controller: COMPASS-ABS (or any scheduler) driving real training jobs.

Section 5.1 runs the scheduler "as a controller process that launches and migrates real
PyTorch training jobs", each migration "a checkpoint-and-restart protocol on the actual
training processes". This controller replays a trace in scaled wall-clock time (trace time
= origin + wall seconds x ``time_scale``) and hands every instant to the same
``compass.sim.dispatch.Dispatcher`` the simulator uses, so policy code runs once, unchanged.

Each loop it polls the running gangs, then feeds the dispatcher, in time order, the
arrivals and timer ticks that fell due (stamped with their nominal trace times) and the
jobs found finished (stamped with the trace time they were observed at). Each instant is
journaled before it is executed:

* departed jobs: their actors are released;
* migrated jobs (running before and after the instant): checkpoint-and-stop every instance,
  then a new gang (the next generation) at the decided nodes restores and continues; the
  latency, from the stop request until every new instance trains again, is measured;
* started jobs: a gang at the decided nodes, all instances at once.

A gang whose actor dies or whose training fails restarts from its last checkpoint on the
same nodes (a counted restart; placement is unchanged, so the scheduler is not involved).
A checkpoint that cannot be read is skipped for the previous one, else the job starts from
scratch (``compass.runtime.checkpoint``); each skipped file is journaled and logged.
A restarted controller replays the journal and reconciles (``_reconcile``).
"""

from __future__ import annotations

import logging
import math
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import ray
from ray.exceptions import GetTimeoutError, RayError
from tqdm.auto import tqdm

from compass.cluster import ClusterState
from compass.model import Job
from compass.runtime import worker
from compass.runtime.engine import RayCluster
from compass.runtime.journal import Journal
from compass.runtime.trainer import InstanceSpec
from compass.runtime.workloads import family_of, step_budget
from compass.schedulers import Scheduler
from compass.sim.dispatch import Dispatcher, Instant, UnfitJob, check_jobs_fit
from compass.sim.records import JOB_COLUMNS, job_row
from compass.sim.timeline import TimelineRecorder
from compass.traces import jobs_from_frame

log = logging.getLogger(__name__)


class JournalMismatch(RuntimeError):
    """Replaying the journal through the scheduler gave other decisions than were logged."""


class ControllerError(RuntimeError):
    """The run cannot go on (a job that never fits, a job that keeps failing)."""


@dataclass(frozen=True)
class ControllerConfig:
    """How the controller runs a trace (times are wall seconds unless named trace)."""

    #: trace seconds per wall second
    time_scale: float
    #: training steps per trace second of a job's duration (its step budget)
    steps_per_trace_second: float
    #: a rank-0 checkpoint about this often while training, bounding the work a fault loses
    checkpoint_interval_s: float = 2.0
    poll_interval_s: float = 0.2
    #: give up on a job after this many fault restarts
    max_restarts: int = 3
    #: a gang that does not answer a poll within this time is treated as failed
    poll_timeout_s: float = 60.0
    #: a gang not training this long after its launch (rendezvous stuck) is treated as failed
    start_timeout_s: float = 300.0
    seed: int = 0
    progress: bool = False


@dataclass
class _Gang:
    """The live actors of one generation of a job."""

    job: Job
    generation: int
    nodes: tuple[int, ...]
    actors: list[Any]
    #: refs of the instances' ``start`` calls until every instance trains
    start_refs: list[Any] | None
    launched_wall: float = 0.0
    #: wall times of the checkpoint-and-stop request this gang is the restart of, and of
    #: the old actors' kill (None: not a migration)
    migration: tuple[float, float] | None = None
    steps: int | None = None


@dataclass
class _JobRecord:
    start: float = math.nan
    end: float = math.nan
    migrations: int = 0
    instance_moves: int = 0


@dataclass
class ControllerRecords:
    """What a run produced, in trace seconds: the simulator's tables plus measurements."""

    jobs: pd.DataFrame
    timeline: pd.DataFrame
    migrations: pd.DataFrame
    placements: pd.DataFrame
    restarts: pd.DataFrame
    #: one row per unreadable checkpoint a restore skipped (``Journal.checkpoint_fault``)
    checkpoint_faults: pd.DataFrame


class Controller:
    """Runs ``frame`` (a canonical trace) under ``scheduler`` on ``cluster``.

    ``journal`` must hold the run's ``run_id`` and ``wall_origin`` (``run_physical`` writes
    them); ``workdir`` holds checkpoints and rendezvous files. ``on_instant`` is called
    after each live instant is executed (progress, tests' fault injection).
    """

    def __init__(self, frame: pd.DataFrame, scheduler: Scheduler, cluster: RayCluster,
                 config: ControllerConfig, journal: Journal, workdir: Path,
                 on_instant: Callable[[Instant], None] | None = None) -> None:
        self.scheduler, self.cluster, self.config = scheduler, cluster, config
        self.journal, self.workdir, self.on_instant = journal, workdir, on_instant
        self.jobs = jobs_from_frame(frame)
        self.by_id = {j.job_id: j for j in self.jobs}
        workloads = frame["workload"] if "workload" in frame else [None] * len(frame)
        self.families = {int(j): family_of(int(j), w)
                         for j, w in zip(frame["job_id"], workloads)}
        try:
            check_jobs_fit(self.jobs, self.cluster.nodes, self.cluster.gpus_per_node)
        except UnfitJob as err:
            raise ControllerError(str(err)) from None
        self.state = ClusterState(self.cluster.nodes, self.cluster.gpus_per_node)
        self.dispatcher = Dispatcher(self.scheduler, self.state)
        self.dispatcher.reset(self.jobs)
        self.timeline = TimelineRecorder(self.state)
        self.records = {j.job_id: _JobRecord() for j in self.jobs}
        self.gangs: dict[int, _Gang] = {}
        self.next_arrival = 0
        self.next_timer = self.dispatcher.first_timer(self.jobs)
        meta = self.journal.meta()
        self.run_id: str = meta["run_id"]
        self.wall_origin: float = meta["wall_origin"]
        self.trace_origin = self.jobs[0].submit_time if self.jobs else 0.0

    # ------------------------------------------------------------------ main loop
    def run(self) -> ControllerRecords:
        """Replay the journal (if any), then run until every job has completed."""
        self._replay()
        self._reconcile()
        finished = sum(1 for r in self.records.values() if not math.isnan(r.end))
        with tqdm(total=len(self.jobs), initial=finished, desc=f"{self.scheduler.name} "
                  "(physical)", unit="job", disable=not self.config.progress) as bar:
            while finished < len(self.jobs):
                departures = self._poll()
                self._advance(self.clock(), departures)
                if departures:
                    bar.update(len(departures))
                    finished += len(departures)
                self._check_stall()
                time.sleep(self.config.poll_interval_s)
        return self.records_frames()

    def clock(self) -> float:
        """The trace time now: wall seconds since the run began, scaled."""
        return self.trace_origin + (time.time() - self.wall_origin) * self.config.time_scale

    def _advance(self, now: float, departures: list[int]) -> None:
        """Feed the dispatcher every instant due by ``now``, in time order."""
        arrivals: dict[float, list[Job]] = {}
        while (self.next_arrival < len(self.jobs)
               and self.jobs[self.next_arrival].submit_time <= now):
            job = self.jobs[self.next_arrival]
            arrivals.setdefault(job.submit_time, []).append(job)
            self.next_arrival += 1
        ticks = set()
        while self.next_timer <= now:
            ticks.add(self.next_timer)
            self.next_timer = self.dispatcher.next_timer(self.next_timer)
        times = sorted(set(arrivals) | ticks | ({now} if departures else set()))
        for t in times:
            deps = [self.by_id[j] for j in departures] if t == now else []
            instant = self.dispatcher.step(t, departures=deps, timer=t in ticks,
                                           arrivals=arrivals.get(t, ()))
            self.journal.log_instant(instant, t in ticks, [j.job_id for j in arrivals.get(t, ())])
            migrated = self._account(instant)
            self._execute(instant, migrated)
            if self.on_instant is not None:
                self.on_instant(instant)

    def _account(self, instant: Instant) -> dict[int, list[int]]:
        """Book an instant into the job records and the timeline (live and on replay);
        returns its migrated jobs (``Instant.migrated_jobs``)."""
        t = instant.time
        for job_id in instant.started:
            self.records[job_id].start = t
        for job_id in instant.departed:
            self.records[job_id].end = t
        migrated = instant.migrated_jobs(self.state)
        for job_id, moves in migrated.items():
            self.records[job_id].migrations += 1
            self.records[job_id].instance_moves += len(moves)
        self.timeline.record(t, self.dispatcher.queue)
        return migrated

    def _check_stall(self) -> None:
        if self.next_arrival == len(self.jobs) and not self.gangs:
            if (reason := self.dispatcher.stuck()) is not None:
                raise ControllerError(reason)

    # ------------------------------------------------------------------ execution
    def _execute(self, instant: Instant, migrated: dict[int, list[int]]) -> None:
        for job_id in instant.departed:
            self._retire(job_id)
        self._migrate(list(migrated), instant.time)
        for job_id in instant.started:
            self._launch(self.by_id[job_id], instant.time, "start")

    def _migrate(self, job_ids: Sequence[int], now: float) -> None:
        """Checkpoint-restart each job's gang at the job's decided nodes."""
        stopped = self._checkpoint_stop(job_ids)
        for job_id in job_ids:
            t0, step, checkpoint_s = stopped[job_id]
            old = self.gangs.pop(job_id)
            gang = self._launch(self.by_id[job_id], now, "migrate")
            gang.migration = (t0, t0 + checkpoint_s)
            self.journal.migration(now, job_id, gang.generation, old.nodes, gang.nodes, step,
                                   checkpoint_s)

    def _retire(self, job_id: int) -> None:
        gang = self.gangs.pop(job_id)
        self._kill(gang.actors)
        self.journal.finished(job_id, gang.steps if gang.steps is not None else
                              self._budget(gang.job))

    def _checkpoint_stop(self, job_ids: Sequence[int]) -> dict[int, tuple[float, int | None,
                                                                          float]]:
        """Checkpoint-and-stop the gangs of ``job_ids`` together; kill their actors.

        Returns per job: wall time of the request, the checkpointed step (None when an
        instance had died: the job then continues from its last periodic checkpoint) and
        the seconds until every instance had stopped and saved.
        """
        for job_id in job_ids:  # finish measuring a previous restart of the job first
            gang = self.gangs[job_id]
            if gang.start_refs is not None:  # a start may take minutes on a loaded machine
                left = gang.launched_wall + self.config.start_timeout_s - time.time()
                ray.wait(gang.start_refs, num_returns=len(gang.start_refs),
                         timeout=max(left, self.config.poll_timeout_s))
                self._check_start(gang)
        t0 = time.time()
        refs = {job_id: [a.stop.remote() for a in self.gangs[job_id].actors]
                for job_id in job_ids}
        out = {}
        for job_id, job_refs in refs.items():
            try:
                step: int | None = ray.get(job_refs[0])
                ray.get(job_refs[1:])
            except RayError as err:
                log.warning("job %d: checkpoint-and-stop failed (%s); it resumes from its last "
                            "checkpoint", job_id, type(err).__name__)
                step = None
            out[job_id] = (t0, step, time.time() - t0)
            self._kill(self.gangs[job_id].actors)
        return out

    def _launch(self, job: Job, now: float, reason: str) -> _Gang:
        """Start a new generation of ``job``'s gang at its decided nodes (non-blocking)."""
        nodes = self.state.job_nodes(job.job_id)
        prev = self.journal.job(job.job_id)
        gen = prev.generation + 1 if prev else 1
        cfg = self.config
        steps = self._budget(job)
        period = job.duration / cfg.time_scale / steps
        rendezvous = None
        if job.num_instances > 1:
            rendezvous = self.workdir / "rendezvous" / f"j{job.job_id}-g{gen}"
            rendezvous.parent.mkdir(parents=True, exist_ok=True)
            rendezvous.unlink(missing_ok=True)
        self.journal.launched(job.job_id, gen, nodes, now, reason)
        actors = []
        for k, node in enumerate(nodes):
            spec = InstanceSpec(
                job_id=job.job_id, family=self.families[job.job_id],
                seed=zlib.crc32(f"{cfg.seed}/{job.job_id}".encode()), steps=steps, rank=k,
                world_size=job.num_instances, checkpoint=self.checkpoint_path(job.job_id),
                checkpoint_every=max(1, round(cfg.checkpoint_interval_s / period)),
                step_period_s=period, rendezvous=rendezvous, device=self.cluster.device)
            actors.append(worker.launch(
                spec, name=worker.actor_name(self.run_id, job.job_id, k, gen), node=node,
                gpus=job.gpus_per_instance, device=self.cluster.device))
        gang = _Gang(job, gen, nodes, actors, [a.start.remote() for a in actors], time.time())
        self.gangs[job.job_id] = gang
        return gang

    def _restart(self, gang: _Gang, reason: str) -> None:
        """Relaunch a failed gang on the same nodes from the job's last checkpoint."""
        job_id = gang.job.job_id
        self._kill(gang.actors)
        del self.gangs[job_id]
        restarts = self.journal.job(job_id).restarts
        if restarts >= self.config.max_restarts:
            raise ControllerError(f"job {job_id} failed {restarts + 1} times; giving up")
        now = self.clock()
        new = self._launch(gang.job, now, "restart")
        self.journal.restarted(job_id, new.generation, now, reason)
        log.warning("job %d: %s; restarted from its last checkpoint (generation %d)",
                    job_id, reason, new.generation)

    @staticmethod
    def _kill(actors: Sequence[Any]) -> None:
        for actor in actors:
            ray.kill(actor, no_restart=True)

    def _budget(self, job: Job) -> int:
        return step_budget(job.duration, self.config.steps_per_trace_second)

    def checkpoint_path(self, job_id: int) -> Path:
        return self.workdir / "checkpoints" / f"job-{job_id}.pt"

    # ------------------------------------------------------------------ monitoring
    def _poll(self) -> list[int]:
        """Advance gang starts, detect faults; return the jobs whose training finished."""
        polls = {}
        for job_id, gang in list(self.gangs.items()):
            if gang.start_refs is not None:
                self._check_start(gang)
            elif gang.steps is None:
                polls[job_id] = [a.poll.remote() for a in gang.actors]
        done = []
        for job_id, refs in polls.items():
            gang = self.gangs[job_id]
            try:
                status = ray.get(refs, timeout=self.config.poll_timeout_s)
            except (RayError, GetTimeoutError) as err:
                self._restart(gang, f"instance lost ({type(err).__name__})")
                continue
            errors = [s["error"] for s in status if s["error"]]
            if errors:
                self._restart(gang, f"training failed: {errors[0].splitlines()[-1]}")
            elif all(s["done"] for s in status):
                gang.steps = status[0]["step"]
                done.append(job_id)
        return sorted(done)

    def _check_start(self, gang: _Gang) -> None:
        """Once every instance trains: record where Ray put them and the migration latency."""
        refs = gang.start_refs
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        try:
            for ref in ready:
                ray.get(ref)  # raises if the instance died while starting
        except RayError as err:
            self._restart(gang, f"instance lost while starting ({type(err).__name__})")
            return
        if len(ready) < len(refs):
            if time.time() - gang.launched_wall > self.config.start_timeout_s:
                self._restart(gang, f"not training {self.config.start_timeout_s:g}s after launch")
            return
        started = ray.get(refs)
        job_id = gang.job.job_id
        gang.start_refs = None
        self.journal.executed(job_id, gang.generation, [s["node"] for s in started])
        self.journal.restored(job_id, gang.generation, started[0]["step"])
        self._record_faults(gang, started[0])
        if gang.migration is not None:
            (t0, killed), born = gang.migration, max(s["born_wall"] for s in started)
            ready = max(s["ready_wall"] for s in started)
            self.journal.migration_latency(job_id, gang.generation, ready - t0, born - killed,
                                           ready - born)

    def _record_faults(self, gang: _Gang, started: dict[str, Any]) -> None:
        """Journal and log the unreadable checkpoints rank 0 skipped while restoring."""
        resumed, job_id = started["resumed_from"], gang.job.job_id
        step = None if resumed == "scratch" else started["step"]
        for fault in started["faults"]:
            self.journal.checkpoint_fault(self.clock(), job_id, gang.generation, fault["file"],
                                          fault["error"], resumed, step)
            log.warning("job %d (generation %d): checkpoint %s unreadable (%s); resumed from %s",
                        job_id, gang.generation, fault["file"], fault["error"],
                        f"the previous checkpoint, step {step}" if step is not None
                        else "scratch (step 0)")

    # ------------------------------------------------------------------ restart
    def _replay(self) -> None:
        """Rebuild the dispatcher, records and timeline from the journaled instants."""
        for logged in self.journal.instants():
            arrived = [self.by_id[j] for j in logged.arrived]
            instant = self.dispatcher.step(
                logged.time, departures=[self.by_id[j] for j in logged.departed],
                timer=logged.timer, arrivals=arrived)
            if instant.started != logged.started or instant.moves != logged.moves:
                raise JournalMismatch(
                    f"at t={logged.time} the scheduler decided started={instant.started}, "
                    f"moves={instant.moves}; the journal has started={logged.started}, "
                    f"moves={logged.moves} (different trace, scheduler or parameters?)")
            self._account(instant)
            self.next_arrival += len(arrived)
            if logged.timer:
                self.next_timer = self.dispatcher.next_timer(logged.time)

    def _reconcile(self) -> None:
        """Make the world match the replayed decisions; no job is lost or run twice.

        For each job the decisions say is running: its last launched gang is adopted when
        every actor is alive on the decided nodes; migrated if alive elsewhere (the
        controller stopped between deciding and executing a migration); else relaunched
        from its checkpoint (a counted restart when a gang had been launched before).
        Departed jobs lose any leftover actors.
        """
        now = self.clock()
        moved = []
        for job_id in list(self.state.running_jobs()):
            job, prev = self.by_id[job_id], self.journal.job(job_id)
            if prev is None:
                self._launch(job, now, "start")
                continue
            actors = [worker.find(worker.actor_name(self.run_id, job_id, k, prev.generation))
                      for k in range(job.num_instances)]
            gang = _Gang(job, prev.generation, prev.nodes, [a for a in actors if a], None,
                         time.time())
            alive = None not in actors and self._answers(gang.actors)
            if alive:
                gang.start_refs = [a.start.remote() for a in gang.actors]  # idempotent
                self.gangs[job_id] = gang
                if prev.nodes != self.state.job_nodes(job_id):
                    moved.append(job_id)
            else:
                self._kill(gang.actors)
                new = self._launch(job, now, "restart")
                self.journal.restarted(job_id, new.generation, now, "controller restart")
        self._migrate(moved, now)
        for job_id, rec in self.records.items():
            prev = self.journal.job(job_id)
            if not math.isnan(rec.end) and prev is not None and prev.phase != "done":
                self._kill([a for k in range(self.by_id[job_id].num_instances)
                            if (a := worker.find(worker.actor_name(
                                self.run_id, job_id, k, prev.generation)))])
                self.journal.finished(job_id, self._budget(self.by_id[job_id]))

    def _answers(self, actors: Sequence[Any]) -> bool:
        try:
            ray.get([a.poll.remote() for a in actors], timeout=self.config.poll_timeout_s)
        except (RayError, GetTimeoutError):
            return False
        return True

    # ------------------------------------------------------------------ records
    def records_frames(self) -> ControllerRecords:
        """The jobs table (the simulator's columns plus family, step budget, steps trained
        and restarts; ``pause_time`` is the measured migration latency in trace seconds),
        the timeline, and the journal's measured tables."""
        scale = self.config.time_scale
        migrations = self.journal.frame("migrations").drop(columns="id")
        migrations["latency_trace_s"] = migrations["latency_s"] * scale
        pause = migrations.groupby("job_id")["latency_trace_s"].sum()
        state = self.journal.frame("jobs").set_index("job_id")
        rows = []
        for job in self.jobs:
            r = self.records[job.job_id]
            rows.append(job_row(job, r.start, r.end, r.migrations, r.instance_moves,
                                float(pause.get(job.job_id, 0.0)))
                        + (self.families[job.job_id], self._budget(job),
                           state["steps"].get(job.job_id),
                           int(state["restarts"].get(job.job_id, 0))))
        jobs = pd.DataFrame(rows, columns=[*JOB_COLUMNS, "family", "step_budget", "steps",
                                           "restarts"])
        return ControllerRecords(jobs, self.timeline.frame(), migrations,
                                 self.journal.frame("placements"),
                                 self.journal.frame("restarts"),
                                 self.journal.frame("checkpoint_faults"))
