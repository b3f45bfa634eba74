"""EASY backfill, a queue policy of our extension (docs/theory.md, section 8), and
``gfs-backfill``: best-fit with it, the fair reference for COMPASS-ABS+'s backfill.

The FIFO queue loses head-of-line blocking: when a job is refused (the head of the pass) it
gets a reservation, its *shadow time*: the first planned departure (start + duration; pauses
not counted) after which it would fit by count with nothing moved (``shadow_time``). Jobs
behind it are then offered in FIFO order and only those that would end by then start, so
the head is not delayed while the plans hold. It reads the jobs' durations from the trace
(clairvoyant, a perfect runtime estimate), which none of the paper's FIFO schedulers does.
``Backfill`` is the gate's bookkeeping, shared by every scheduler that uses it.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Sequence

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import Move, Placement
from compass.schedulers.gfs import GFS
from compass.schedulers.registry import register


def shadow_time(head: Job, state: ClusterState, ends: Sequence[tuple[float, int]],
                now: float, width: int) -> float:
    """When the refused ``head`` would fit if the running jobs leave at their planned ``ends``
    ((end, job id), ascending) and nothing moves: the first such end after which
    sum_n floor(f_n / width) >= w (``width``: the GPUs one of the head's instances takes on
    a node; w its instances). ``now`` if it fits by that count already (only fragmentation
    refuses it; nothing backfills then), inf if it fits on no state. Reads only the leaving
    jobs' nodes."""
    room = state.instance_capacity(width)
    if room >= head.num_instances:
        return now
    free: dict[int, int] = {}
    for end, job_id in ends:
        for instance in state.job_instances(job_id):
            node = state.node_of(instance)
            before = free.get(node, state.free(node))
            free[node] = before + state.size_of(instance)
            room += free[node] // width - before // width
        if room >= head.num_instances:
            return max(end, now)
    return math.inf


class Backfill:
    """The gate of one admission pass and the planned ends of the running jobs.

    Per pass: ``open_pass``; for each offered job ``admits`` (may it be tried at all?), then
    ``started`` or ``refused``; ``forget`` a departed job. The first refusal of a pass sets
    the reservation; a shape (g, w) refused since the last start is refused again without a
    trial (the state is the same, so is the answer).
    """

    def __init__(self) -> None:
        #: (planned end, job id) of the running jobs, ascending, and the ends by job
        self.ends: list[tuple[float, int]] = []
        self._planned: dict[int, float] = {}
        self._reserve = False
        #: the current pass's shadow time once set (None: the pass is not gated)
        self.shadow: float | None = None
        self._refused: set[tuple[int, int]] = set()

    def open_pass(self) -> None:
        """A new admission pass: no reservation yet."""
        self._reserve, self.shadow = True, None
        self._refused.clear()

    def admits(self, job: Job, now: float) -> bool:
        """False if ``job`` must wait: it would end after the reservation, or its shape was
        refused since the last start."""
        return self.shadow is None or (
            now + job.duration <= self.shadow
            and (job.gpus_per_instance, job.num_instances) not in self._refused)

    def refused(self, job: Job, state: ClusterState, now: float, width: int) -> None:
        """``job`` was refused: remember its shape; the first refusal sets the reservation."""
        self._refused.add((job.gpus_per_instance, job.num_instances))
        if self._reserve:
            self._reserve = False
            self.shadow = shadow_time(job, state, self.ends, now, width)

    def started(self, job: Job, now: float) -> None:
        """``job`` starts at ``now``: its planned end joins the plan."""
        self._refused.clear()
        self._planned[job.job_id] = now + job.duration
        insort(self.ends, (now + job.duration, job.job_id))

    def planned_end(self, job_id: int) -> float:
        """A running job's planned end; inf for one that never started through the gate."""
        return self._planned.get(job_id, math.inf)

    def forget(self, job_id: int) -> None:
        """Drop a departed job's planned end (absent if it never started through the gate)."""
        end = self._planned.pop(job_id, None)
        if end is not None:
            del self.ends[bisect_left(self.ends, (end, job_id))]


@register
class GfsBackfill(GFS):
    """Best-fit (``gfs``) under EASY backfill (ours): the reference that tells what
    backfill alone gives, apart from COMPASS-ABS+'s packing."""

    name = "gfs-backfill"
    role = "reference"
    display = "GFS + backfill (our reference)"
    color = "#b15928"
    rank = 0

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.gate = Backfill()

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self.gate = Backfill()

    def admission_order(self, queue: Sequence[Job], state: ClusterState,
                        now: float) -> tuple[Sequence[Job], bool]:
        """The whole queue in FIFO order; a refusal does not block (``place`` gates)."""
        self.gate.open_pass()
        return queue, False

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        if not self.gate.admits(job, now):
            return None
        placement = super().place(job, state, now)
        if placement is None:
            self.gate.refused(job, state, now, job.gpus_per_instance)
            return None
        self.gate.started(job, now)
        return placement

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        self.gate.forget(job.job_id)
        return ()
