"""EASY backfill, a queue policy of our extension (docs/theory.md, section 8), and
``gfs-backfill``: best-fit with it, the fair reference for COMPASS-ABS+'s backfill.

The FIFO queue loses head-of-line blocking: when a job is refused (the head of the pass) it
gets a reservation, its *shadow time*: the first planned departure (start + runtime
estimate; pauses not counted) after which it would fit by count with nothing moved
(``shadow_time``). Jobs behind it are then offered in FIFO order and only those that would
end by then start, so the head is not delayed while the plans hold. None of the paper's
FIFO schedulers plans with runtimes.
``Backfill`` is the gate's bookkeeping, shared by every scheduler that uses it.

The plan's runtimes are ``runtime_estimate``'s (``estimates``: ``exact``, the clairvoyant
default; ``user``; ``history``). A job that outlives its estimate is not killed: while it
runs past its planned end it counts as leaving at the current instant (``shadow_time``
takes max(end, now)), so the reservation is recomputed at every pass, and a head that starts
after its first shadow time adds that extra wait to ``Backfill.late_heads``/``extra_wait_s``.

The pass is bounded (``Backfill.offers``): until the first refusal the queue is offered in
FIFO order; after it only the jobs the gate admits are offered, found in a candidate index
of the queue by shape and estimate (``WaitingIndex``) instead of a scan of the whole queue,
and shapes wider than the free GPUs are skipped (their trial could only be refused). The
jobs offered, and so every decision, are those of the full scan (tested).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Iterator, Sequence

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import Move, Placement
from compass.schedulers.estimates import Estimator, RuntimeEstimate, Shape, make_estimator
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
    return max(first_fitting_end(head, state, ends, width), now)


def first_fitting_end(head: Job, state: ClusterState, ends: Sequence[tuple[float, int]],
                      width: int) -> float:
    """``shadow_time`` before the max with now: -inf if the head fits by count already,
    else the first planned end after which it does (inf if none). It reads the state and
    the ends only, so it holds until one of them changes."""
    room = state.instance_capacity(width)
    if room >= head.num_instances:
        return -math.inf
    free: dict[int, int] = {}
    for end, job_id in ends:
        for instance in state.job_instances(job_id):
            node = state.node_of(instance)
            before = free.get(node, state.free(node))
            free[node] = before + state.size_of(instance)
            room += free[node] // width - before // width
        if room >= head.num_instances:
            return end
    return math.inf

class _MinTree:
    """A growable array of floats with "first index >= i holding a value <= limit" in
    O(log n) (a min segment tree; a removed entry holds inf)."""

    __slots__ = ("size", "tree", "n")

    def __init__(self) -> None:
        self.size, self.n = 1, 0
        self.tree = [math.inf, math.inf]

    def append(self, value: float) -> int:
        if self.n == self.size:  # double: rebuild over the leaves kept so far
            leaves = self.tree[self.size:] + [math.inf] * self.size
            self.size *= 2
            self.tree = [math.inf] * self.size + leaves
            for i in range(self.size - 1, 0, -1):
                self.tree[i] = min(self.tree[2 * i], self.tree[2 * i + 1])
        self.n += 1
        self.set(self.n - 1, value)
        return self.n - 1

    def set(self, index: int, value: float) -> None:
        t = self.tree
        i = index + self.size
        t[i] = value
        i >>= 1
        while i:
            v = min(t[2 * i], t[2 * i + 1])
            if t[i] == v:
                break
            t[i] = v
            i >>= 1

    def first(self, start: int, limit: float) -> int:
        """The least index >= ``start`` holding a value <= ``limit``; -1 if none."""
        if start >= self.n:
            return -1
        t, size = self.tree, self.size
        i = start + size
        while t[i] > limit:
            while i & 1:  # a right child: its successors start above its parent
                i >>= 1
            if i == 0:
                return -1
            i += 1
        while i < size:
            i = 2 * i if t[2 * i] <= limit else 2 * i + 1
        return i - size


class _ShapeQueue:
    """The queued jobs of one shape (g, w) in FIFO order: their arrival numbers, the jobs
    (None once started) and their fixed estimate parts in a ``_MinTree``, with the last
    answer of ``next_after`` kept across passes."""

    __slots__ = ("shape", "gpus", "seqs", "jobs", "tree", "_memo")

    def __init__(self, shape: Shape) -> None:
        self.shape, self.gpus = shape, shape[0] * shape[1]
        self.seqs: list[int] = []
        self.jobs: list[Job | None] = []
        self.tree = _MinTree()
        self._memo: tuple[int, float, int, int] = (-1, -math.inf, 0, -1)

    def next_after(self, seq: int, limit: float) -> int:
        """The local index of the first queued job arrived after ``seq`` whose fixed part
        is <= ``limit``; -1 if none. The last answer (from seq0 under limit0) still holds
        for seq >= seq0 and limit <= limit0: the jobs it passed over stay over the limit
        and arrivals come last, so it is reused when it still qualifies (or was none with
        no arrival since)."""
        seq0, limit0, arrived, local = self._memo
        if seq >= seq0 and limit <= limit0:
            if local < 0:
                if arrived == len(self.seqs):
                    return -1
            elif self.seqs[local] > seq and self.tree.tree[local + self.tree.size] <= limit:
                return local
        local = self.tree.first(bisect_right(self.seqs, seq), limit)
        self._memo = (seq, limit, len(self.seqs), local)
        return local


class WaitingIndex:
    """The queue as backfill's candidate index: per shape, the jobs in FIFO order with a
    min-tree over their fixed estimate parts (``Estimator.job_part``), so that the first
    job after a position with an estimate under a bound costs O(log n) per shape."""

    def __init__(self) -> None:
        self.shapes: dict[Shape, _ShapeQueue] = {}
        #: the shape queues by GPUs needed (g w), ascending
        self.by_gpus: list[_ShapeQueue] = []
        self._where: dict[int, tuple[_ShapeQueue, int]] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self._where)

    def add(self, job: Job, part: float) -> None:
        shape = (job.gpus_per_instance, job.num_instances)
        queue = self.shapes.get(shape)
        if queue is None:
            queue = self.shapes[shape] = _ShapeQueue(shape)
            self.by_gpus.append(queue)
            self.by_gpus.sort(key=lambda q: (q.gpus, q.shape))
        queue.seqs.append(self._seq)
        queue.jobs.append(job)
        self._where[job.job_id] = (queue, queue.tree.append(part))
        self._seq += 1

    def remove(self, job_id: int) -> None:
        """Drop a started job (absent: it never queued through ``add``)."""
        found = self._where.pop(job_id, None)
        if found is not None:
            queue, local = found
            queue.jobs[local] = None
            queue.tree.set(local, math.inf)

    def seq_of(self, job_id: int) -> int:
        queue, local = self._where[job_id]
        return queue.seqs[local]


class Backfill:
    """The gate of one admission pass and the planned ends of the running jobs.

    Per pass: ``offers`` (or ``open_pass`` and the caller's own order); for each offered job
    ``admits`` (may it be tried at all?), then ``started`` or ``refused``; ``arrived`` a job
    joining the queue, ``departed`` one that left. The first refusal of a pass sets the
    reservation; a shape (g, w) refused since the last start is refused again without a
    trial (the state is the same, so is the answer). Planned runtimes are ``estimator``'s.
    """

    def __init__(self, estimator: Estimator | None = None) -> None:
        self.estimator = estimator or Estimator()
        #: (planned end, job id) of the running jobs, ascending, and the ends by job
        self.ends: list[tuple[float, int]] = []
        self._planned: dict[int, float] = {}
        self._reserve = False
        #: the current pass's shadow time once set (None: the pass is not gated)
        self.shadow: float | None = None
        self._refused: set[tuple[int, int]] = set()
        self.waiting = WaitingIndex()
        #: each waiting head's first shadow time, and the heads that started after theirs
        #: with the sum of those extra waits (s)
        self._first_shadow: dict[int, float] = {}
        self.late_heads = 0
        self.extra_wait_s = 0.0
        #: starts and departures so far: the state and the ends change only with them
        #: (moves come with a start or after a departure), so a head's first fitting end
        #: is kept until the next one: (epoch, job id, width, end)
        self._epoch = 0
        self._memo: tuple[int, int, int, float] = (-1, -1, 0, math.inf)

    def open_pass(self) -> None:
        """A new admission pass: no reservation yet."""
        self._reserve, self.shadow = True, None
        self._refused.clear()

    def offers(self, queue: Sequence[Job], state: ClusterState, now: float) -> Iterable[Job]:
        """Open a pass and give the jobs to offer: the queue in FIFO order until the first
        refusal, then only jobs the gate may admit, in FIFO order. The plain queue if the
        index does not hold it (jobs queued without ``arrived``)."""
        self.open_pass()
        if len(self.waiting) != len(queue):
            return queue
        return self._offers(queue, state, now)

    def _offers(self, queue: Sequence[Job], state: ClusterState, now: float
                ) -> Iterator[Job]:
        """``offers`` once the index holds the queue. After the reservation, each shape's
        next candidate (arrived after the last offer, fixed part under the shadow less the
        shape part, with a margin for rounding that ``admits`` settles) is cached until it
        is passed; shapes refused since the last start, or needing more GPUs than are free
        (free GPUs only fall during a pass), are skipped: their trial could only fail."""
        for job in queue:
            yield job
            if self.shadow is not None:
                pos = self.waiting.seq_of(job.job_id)
                break
        else:
            return
        room = self.shadow - now
        room += 1e-9 * max(1.0, abs(self.shadow)) if math.isfinite(room) else 0.0
        shape_part = self.estimator.shape_part
        refused = self._refused
        # (seq, local, queue, limit) per shape that may still offer a job: one with no
        # candidate left under the limit, or wider than the free GPUs, is dropped for the
        # rest of the pass (pos only grows, free GPUs only fall, the limit is fixed); a
        # shape whose least queued fixed part (the min-tree's root) is over its limit, or
        # that needs more GPUs than are free when the pass opens, never enters
        live = []
        free = state.total_gpus - state.used_gpus
        for sq in self.waiting.by_gpus:
            if sq.gpus > free:
                break
            limit = room - shape_part(sq.shape)
            if sq.tree.tree[1] <= limit:  # the least fixed part queued in the shape
                live.append([pos, -1, sq, limit])
        while True:
            free = state.total_gpus - state.used_gpus
            best: list | None = None
            kept = []
            for entry in live:
                sq = entry[2]
                if sq.gpus > free:
                    break
                if sq.shape in refused:  # skipped until the next start clears the set
                    kept.append(entry)
                    continue
                if entry[0] <= pos:
                    local = sq.next_after(pos, entry[3])
                    if local < 0:
                        continue
                    entry[0], entry[1] = sq.seqs[local], local
                kept.append(entry)
                if best is None or entry[0] < best[0]:
                    best = entry
            live = kept
            if best is None:
                return
            pos = best[0]
            job = best[2].jobs[best[1]]
            assert job is not None
            yield job

    def admits(self, job: Job, now: float) -> bool:
        """False if ``job`` must wait: it would end after the reservation, or its shape was
        refused since the last start."""
        return self.shadow is None or (
            now + self.estimator.estimate(job) <= self.shadow
            and (job.gpus_per_instance, job.num_instances) not in self._refused)

    def arrived(self, job: Job) -> None:
        """``job`` joins the queue."""
        self.waiting.add(job, self.estimator.job_part(job))

    def refused(self, job: Job, state: ClusterState, now: float, width: int) -> None:
        """``job`` was refused: remember its shape; the first refusal sets the reservation."""
        self._refused.add((job.gpus_per_instance, job.num_instances))
        if self._reserve:
            self._reserve = False
            epoch, job_id, w, end = self._memo
            if (epoch, job_id, w) != (self._epoch, job.job_id, width):
                end = first_fitting_end(job, state, self.ends, width)
                self._memo = (self._epoch, job.job_id, width, end)
            self.shadow = max(end, now)
            self._first_shadow.setdefault(job.job_id, self.shadow)

    def started(self, job: Job, now: float) -> None:
        """``job`` starts at ``now``: its planned end joins the plan."""
        self._refused.clear()
        self._epoch += 1
        self.waiting.remove(job.job_id)
        first = self._first_shadow.pop(job.job_id, None)
        if first is not None and now > first:
            self.late_heads += 1
            self.extra_wait_s += now - first
        end = now + self.estimator.estimate(job)
        self._planned[job.job_id] = end
        insort(self.ends, (end, job.job_id))

    def planned_end(self, job_id: int) -> float:
        """A running job's planned end; inf for one that never started through the gate."""
        return self._planned.get(job_id, math.inf)

    def departed(self, job: Job) -> None:
        """Drop a departed job's planned end (absent if it never started through the gate);
        the estimator learns its duration."""
        self._epoch += 1
        end = self._planned.pop(job.job_id, None)
        if end is not None:
            del self.ends[bisect_left(self.ends, (end, job.job_id))]
        self.estimator.completed(job)


@register
class GfsBackfill(GFS):
    """Best-fit (``gfs``) under EASY backfill (ours): the reference that tells what
    backfill alone gives, apart from COMPASS-ABS+'s packing."""

    name = "gfs-backfill"
    role = "reference"
    display = "GFS + backfill (our reference)"
    color = "#b15928"
    rank = 0

    def __init__(self, *, seed: int = 0, runtime_estimate: RuntimeEstimate = "exact") -> None:
        super().__init__(seed=seed)
        self.runtime_estimate = runtime_estimate
        self.gate = Backfill(make_estimator(runtime_estimate, seed))

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self.gate = Backfill(make_estimator(self.runtime_estimate, self.seed))

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        self.gate.arrived(job)
        return ()

    def admission_order(self, queue: Sequence[Job], state: ClusterState,
                        now: float) -> tuple[Iterable[Job], bool]:
        """The queue in FIFO order, after the first refusal only the jobs the gate may
        admit (``Backfill.offers``); a refusal does not block (``place`` gates)."""
        return self.gate.offers(queue, state, now), False

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
        self.gate.departed(job)
        return ()
