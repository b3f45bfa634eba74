"""CAFGD: lifecycle-aware FGD plus a wait-for-peak hold (Lao et al., ICDCS'25; paper s. 5.4).

Spec: docs/baselines.md and baselines.md s. 3. Sources: montaguelhz/CAFGD
``pkg/simulator/plugin/cafgd_score.go`` (best-fit until the predictor is ready, then the FGD
score under the predicted distribution; ``NormalizeScore`` keeps the best score, smallest
node name on ties), ``pkg/type/predict.go`` (``NewPredictPod``, ``Add``, ``genTopK``,
``GetPM2``, ``getTimeWeight``), ``pkg/simulator/simulator.go`` (windows 400 / 10 000,
water 0.95) and ``pkg/simulator/plugin/sim_time.go`` (run time taken as known).

Rule: each instance of job j goes to argmin (dF_m(f_n, g), n) with m = m(tau_j) =
w(tau_j) P_L + (1 - w(tau_j)) P_S, where P_L is the top-K mix of the last B arrived instances,
P_S the recency-weighted mix of the last S (last 50 if tau_j < 500 s) and w the lifecycle
weight of the job's run time tau_j. Until S instances have arrived: best-fit.

Assumptions ([A]):
* the predictor is fed at job arrival with the job's w_j instances (the source feeds each
  pod just before scheduling it and has no queue); count ties in the top-K go to the smaller
  size;
* w(tau) is clamped to [0, 1] (the source reaches 1.5 just below 500 000 s:
  ``clamp_lifecycle_weight=False``); P_S uses the real ramp (the source's integer division
  flattens it: ``integer_ramp=True``); exact dF unless ``quantize_scores=True``;
* wait-for-peak (named in the paper, absent from the public code): when the job offered at
  the head of the queue fits now with total gradient dF_J > 0, release the running jobs that
  end in (t, t + H] tentatively, in end-time order (jobs ending together at once); at the
  first end time t' where the job would fit with dF_J' < dF_J, hold it (and, by
  head-of-line blocking, the queue) until t'; each job is held at most once; ``hold_window``
  H = 300 s, 0 disables it. No hold during warm-up. ``hold_rule="bounded"`` (default, ours)
  holds only while waiting can pay off: the job has waited less than H since its
  submission and the empty nodes cannot host the GPUs of every queued job;
  ``"unbounded"`` (the first rule) holds any job once and serialises a loaded queue;
  dF_J is the exact gradient sum also when node choice uses quantised scores;
* end times are start + run time: CAFGD never migrates, so migration pauses never shift
  them and every t' is a departure instant of the simulator.
"""

from __future__ import annotations

import math
from bisect import insort
from collections import Counter, deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice, repeat
from typing import Any, Literal

from compass.cluster import ClusterState
from compass.model import InstanceKey, Job
from compass.schedulers.base import (
    Move,
    NodeKey,
    Placement,
    Scheduler,
    greedy_gang,
)
from compass.schedulers.fragmentation_gradient import (
    FragmentationGradient,
    SlidingHistogram,
    blend,
    dense,
    gradient_gang,
    typical_sizes,
    whole_node_gang,
)
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.registry import register

#: Run times below this get lifecycle weight 0 and the short P_S window (``predict.go``).
SHORT_LIFE_S = 500.0
#: Run time at which the lifecycle weight reaches 1 (log-linear from SHORT_LIFE_S).
FULL_LIFE_S = 50_000.0
#: Above this run time the source sets the weight to 1 (it is 1.5 just below).
SOURCE_CLAMP_S = 500_000.0
#: Short window for jobs with tau < SHORT_LIFE_S (``GetPM2``: last 50 entries).
SHORT_LIFE_WINDOW = 50
#: A tentative release must lower dF_J by more than this to trigger a hold.
HOLD_TOLERANCE = 1e-9
#: Slots per hold window in the calendar of end times (``CAFGD._ending``).
END_SLOTS_PER_WINDOW = 8
#: When the wait-for-peak hold applies (``CAFGD.may_hold``).
HoldRule = Literal["bounded", "unbounded"]
HOLD_RULES: tuple[HoldRule, ...] = ("bounded", "unbounded")
#: log10 of SHORT_LIFE_S and the log10 span up to FULL_LIFE_S (``lifecycle_weight``).
_LOG_SHORT_LIFE = math.log10(SHORT_LIFE_S)
_LOG_LIFE_SPAN = math.log10(FULL_LIFE_S) - _LOG_SHORT_LIFE


def lifecycle_weight(tau: float, clamp: bool = True) -> float:
    """w(tau) = (log10 tau - log10 500) / (log10 50 000 - log10 500), 0 below 500 s.

    ``clamp``: limit to [0, 1] (default, [A]); otherwise the source's ``getTimeWeight``
    (unclamped up to 500 000 s, then 1).
    """
    if tau < SHORT_LIFE_S:
        return 0.0
    if not clamp and tau > SOURCE_CLAMP_S:
        return 1.0
    w = (math.log10(tau) - _LOG_SHORT_LIFE) / _LOG_LIFE_SPAN
    return min(w, 1.0) if clamp else w


def recency_mix(window: SlidingHistogram, integer_ramp: bool = False) -> dict[int, float]:
    """P_S: the window's sizes weighted by recency (``GetPM2``), in O(G).

    Entry i (0 = oldest) of L gets (1.5 - (L - i) / L) / L, a ramp from 0.5/L to ~1.5/L whose
    sum is 1 - 1/(2L); per size s with c_s entries at positions summing to I_s the mass is
    (0.5 c_s + I_s / L) / L. ``integer_ramp``: (L - i) / L in integer division as the source
    evaluates it, i.e. 0.5/L for the oldest entry and 1.5/L for the others.
    """
    masses = recency_masses(window, max(window.counts, default=0), integer_ramp)
    return {s: masses[s] for s in window.counts}


def recency_masses(window: SlidingHistogram, gpus_per_node: int, integer_ramp: bool = False
                   ) -> list[float]:
    """``recency_mix`` per size 0..G (sizes above G dropped), written directly: the P_S
    input of every job's gradient (``SizePredictor.masses``)."""
    G, L, counts = gpus_per_node, len(window), window.counts
    masses = [0.0] * (G + 1)
    if not L:
        return masses
    if integer_ramp:
        for s, c in counts.items():
            if s <= G:
                masses[s] = 1.5 * c / L
        if (oldest := window.oldest) <= G:
            masses[oldest] -= 1.0 / L
        return masses
    first, index_sums = window.first_index, window.index_sums
    for s, c in counts.items():
        if s <= G:
            masses[s] = (0.5 * c + (index_sums[s] - c * first) / L) / L
    return masses


@dataclass
class SizePredictor:
    """CAFGD's online size predictor over arrived instances (``predict.go``, spec s. 3)."""

    short_window: int = 400
    long_window: int = 10_000
    water: float = 0.95
    integer_ramp: bool = False
    long_term: dict[int, float] = field(init=False, default_factory=dict)
    #: instances fed so far
    arrived: int = field(init=False, default=0)
    #: the last B sizes, counted only when P_L is rebuilt (every S or B arrivals)
    _long: deque[int] = field(init=False)
    #: the arrival count at which P_L is rebuilt next (``_next_top_k``)
    _due: int = field(init=False)
    #: the last S sizes; the last 50 of them are P_S's window for short jobs (``tail``)
    _short: SlidingHistogram = field(init=False)
    #: G -> P_L per size 0..G, until P_L is rebuilt (``masses``)
    _long_masses: dict[int, list[float]] = field(init=False, default_factory=dict)
    #: (short_life, G) -> P_S per size 0..G, until the next arrival (``masses``)
    _short_masses: dict[tuple[bool, int], list[float]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if not 1 <= self.short_window <= self.long_window or not 0 < self.water <= 1:
            raise ValueError("need 1 <= short_window <= long_window and 0 < water <= 1")
        self._long = deque(maxlen=self.long_window)
        self._short = SlidingHistogram(self.short_window)
        self._due = self._next_top_k()

    @property
    def ready(self) -> bool:
        """Warm-up is over once S instances have arrived (``IsReady``)."""
        return self.arrived >= self.short_window

    def add(self, size: int, count: int = 1) -> None:
        """Feed ``count`` arrived instances of ``size`` GPUs (``Add``, one at a time): the
        windows take them in runs that end where P_L is due."""
        self._short_masses.clear()
        if self.arrived + count < self._due:  # no rebuild on the way: one run
            self._long.extend(repeat(size, count))
            self._short.add(size, count)
            self.arrived += count
            return
        while count:
            run = min(count, self._due - self.arrived)
            self._long.extend(repeat(size, run))
            self._short.add(size, run)
            self.arrived += run
            count -= run
            if self.arrived == self._due:
                self.long_term = typical_sizes(Counter(self._long), self.water)
                self._long_masses.clear()
                self._due = self._next_top_k()

    def _next_top_k(self) -> int:
        """The next arrival count at which P_L is rebuilt: every S arrivals up to B arrivals,
        then every B."""
        S, B = self.short_window, self.long_window
        every_s = (self.arrived // S + 1) * S
        return every_s if every_s <= B else (max(self.arrived, B) // B + 1) * B

    def short_term(self, short_life: bool) -> dict[int, float]:
        """P_S over the last S instances, or the last 50 for a job with tau < 500 s."""
        return recency_mix(self._window(short_life), self.integer_ramp)

    def _window(self, short_life: bool) -> SlidingHistogram:
        """P_S's window: the last S instances, or the last 50 for a short job (taken from
        the last S when asked: few jobs are short, every arrival would feed it)."""
        if short_life:
            return self._short.tail(min(SHORT_LIFE_WINDOW, self.short_window))
        return self._short

    def masses(self, short_life: bool, gpus_per_node: int) -> tuple[list[float], list[float]]:
        """P_L and P_S (``short_term``) per size 0..G, computed once per arrival: the inputs
        of every job's gradient (``FragmentationGradient.blended``)."""
        long = self._long_masses.get(gpus_per_node)
        if long is None:
            long = self._long_masses[gpus_per_node] = dense(self.long_term, gpus_per_node)
        short = self._short_masses.get((short_life, gpus_per_node))
        if short is None:
            short = self._short_masses[short_life, gpus_per_node] = recency_masses(
                self._window(short_life), gpus_per_node, self.integer_ramp)
        return long, short


@register
class CAFGD(Scheduler):
    """FGD under a per-job predicted mix m(tau_j), best-fit warm-up, wait-for-peak hold."""

    name = "cafgd"
    role = "baseline"
    display = "CAFGD"
    color = "#cc78bc"
    rank = 3

    def __init__(
        self,
        *,
        seed: int = 0,
        short_window: int = 400,
        long_window: int = 10_000,
        water: float = 0.95,
        hold_window: float = 300.0,
        quantize_scores: bool = False,
        integer_ramp: bool = False,
        clamp_lifecycle_weight: bool = True,
        hold_rule: HoldRule = "bounded",
    ) -> None:
        super().__init__(seed=seed)
        if hold_window < 0:
            raise ValueError(f"hold_window must be >= 0, got {hold_window}")
        if hold_rule not in HOLD_RULES:
            raise ValueError(f"hold_rule must be one of {HOLD_RULES}, got {hold_rule!r}")
        self.hold_rule: HoldRule = hold_rule
        self.short_window = short_window
        self.long_window = long_window
        self.water = water
        self.hold_window = hold_window
        self.quantize_scores = quantize_scores
        self.integer_ramp = integer_ramp
        self.clamp_lifecycle_weight = clamp_lifecycle_weight
        self.predictor = self._new_predictor()
        self._gradients: dict[tuple[float, bool], FragmentationGradient] = {}
        #: calendar of the running jobs' (end time, job id), by slot of H / 8 seconds
        #: (slot k holds the ends in [k, k + 1) widths); slots that end by now are dropped
        self._slots: dict[int, list[tuple[float, int]]] = {}
        self._slot_width = (self.hold_window or 1.0) / END_SLOTS_PER_WINDOW
        self._first_slot = 0
        self._end_of: dict[int, float] = {}
        self._hold_until: dict[int, float] = {}
        #: GPUs requested by the queued jobs (arrived, not yet started)
        self._queued_gpus = 0
        #: jobs held so far in this run
        self.holds = 0

    def params(self) -> dict[str, Any]:
        return {
            **super().params(),
            "distribution_source": "online: instances fed at arrival; P_L top-K of the last "
            f"{self.long_window}, P_S recency-weighted last {self.short_window}",
            "long_term_distribution": dict(self.predictor.long_term),
        }

    def _new_predictor(self) -> SizePredictor:
        return SizePredictor(self.short_window, self.long_window, self.water, self.integer_ramp)

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Forget everything learned in a previous run."""
        self.predictor = self._new_predictor()
        self._gradients.clear()
        self._slots.clear()
        self._first_slot = 0
        self._end_of.clear()
        self._hold_until.clear()
        self._queued_gpus = 0
        self.holds = 0

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        self.predictor.add(job.gpus_per_instance, job.num_instances)
        self._queued_gpus += job.total_gpus
        self._gradients.clear()
        return ()

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        self._end_of.pop(job.job_id)
        slot = int(now // self._slot_width)
        if slot > self._first_slot:  # the slots before now's hold departed jobs only
            slots = self._slots
            gone = (range(self._first_slot, slot) if slot - self._first_slot <= len(slots)
                    else [k for k in slots if k < slot])
            for k in gone:
                slots.pop(k, None)
            self._first_slot = slot
        return ()

    def check(self, state: ClusterState) -> None:
        running = set(state.running_jobs())
        if set(self._end_of) != running:
            raise AssertionError(f"cafgd tracks {sorted(self._end_of)}, running {sorted(running)}")

    def distribution(self, tau: float) -> dict[int, float]:
        """m(tau) = w(tau) P_L + (1 - w(tau)) P_S (spec s. 3)."""
        return blend(self.predictor.long_term, self.predictor.short_term(tau < SHORT_LIFE_S),
                     lifecycle_weight(tau, self.clamp_lifecycle_weight))

    def gradient(self, tau: float, gpus_per_node: int) -> FragmentationGradient:
        """dF tables under m(tau) (those of ``distribution(tau)``), cached until the next
        arrival."""
        key = (lifecycle_weight(tau, self.clamp_lifecycle_weight), tau < SHORT_LIFE_S)
        gradient = self._gradients.get(key)
        if gradient is None:
            gradient = self._gradients[key] = FragmentationGradient.blended(
                *self.predictor.masses(key[1], gpus_per_node), key[0])
        return gradient

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        if not self.predictor.ready:
            nodes = best_fit_gang(state, job.gpus_per_instance, job.num_instances)
            return None if nodes is None else self._start(job, nodes, now)
        held_until = self._hold_until.get(job.job_id)
        if held_until is not None and now < held_until:
            return None
        if state.instance_capacity(job.gpus_per_instance) < job.num_instances:
            return None  # greedy_gang's own first test, before any gradient is needed
        if job.gpus_per_instance == state.gpus_per_node:
            # dF_J = 0 under every mix (``whole_node_gang``): placed without one, never held
            nodes = whole_node_gang(state, job)
            return None if nodes is None else self._start(job, nodes, now)
        g = job.gpus_per_instance
        gradient = self.gradient(job.duration, state.gpus_per_node)
        key = gradient.node_key(g, self.quantize_scores)
        nodes = greedy_gang(state, job, key)
        if nodes is None:
            return None
        if held_until is None and self.may_hold(job, state, now):  # dF_J only where it may
            delta = gradient.placement_gradients(state, g, nodes)[-1]
            until = None if delta <= 0 else self.first_better_release(
                job, state, now, gradient, key, delta)
            if until is not None:
                self._hold_until[job.job_id] = until
                self.holds += 1
                return None
        return self._start(job, nodes, now)

    def may_hold(self, job: Job, state: ClusterState, now: float) -> bool:
        """Whether waiting for a better node may pay off (docs/baselines.md, CAFGD):
        "bounded" (default) holds only a job that has waited less than H since its
        submission, and only while the empty nodes cannot host every queued job's GPUs
        (capacity is short, so fragmentation costs); "unbounded" is the first rule, which
        holds any job once, whatever the load."""
        if self.hold_window <= 0:
            return False
        if self.hold_rule == "unbounded":
            return True
        return (now - job.submit_time < self.hold_window
                and state.empty_nodes * state.gpus_per_node < self._queued_gpus)

    def _start(self, job: Job, nodes: tuple[int, ...], now: float) -> Placement:
        """Record the job's known end time (start + run time) and admit it."""
        self._queued_gpus -= job.total_gpus
        self._record_end(job.job_id, now + job.duration)
        self._hold_until.pop(job.job_id, None)
        return Placement(job.job_id, nodes)

    def _record_end(self, job_id: int, end: float) -> None:
        """Enter a started job's end time in the calendar (an endless job, as packing runs
        them, never ends within a hold window and is left out)."""
        self._end_of[job_id] = end
        if end < math.inf:
            self._slots.setdefault(int(end // self._slot_width), []).append((end, job_id))

    def first_better_release(
        self, job: Job, state: ClusterState, now: float, gradient: FragmentationGradient,
        key: NodeKey, delta: float,
    ) -> float | None:
        """First end time t' in (now, now + H] after which the job's dF_J' < dF_J, or None.

        Jobs ending together are released together, on one ``ReleasedView`` of the state,
        end time after end time as ``_ending`` reads them off the calendar, so the cost follows
        the end times up to t': O(G (w + hosts)) and one greedy placement per end time.
        """
        view = ReleasedView(state, job.gpus_per_instance, job.num_instances)
        for end, ids in self._ending(now):
            for j in ids:
                view.release_job(j)
            placed = gradient_gang(view, job, gradient, key)
            if placed is not None and placed[1] < delta - HOLD_TOLERANCE:
                return end
        return None

    def _ending(self, now: float) -> Iterator[tuple[float, list[int]]]:
        """(end, job ids) of the running jobs that end in (now, now + H], by end time and
        id: read slot by slot off the calendar (each slot sorted in place when read; equal
        ends share a slot), so the cost follows the slots up to the last end read."""
        slots, width, end_of = self._slots, self._slot_width, self._end_of
        limit = now + self.hold_window
        for k in range(int(now // width), int(limit // width) + 1):
            entries = slots.get(k)
            if not entries:
                continue
            entries.sort()
            group_end, ids = 0.0, []
            for end, j in entries:
                if end > limit:
                    break
                if end <= now or end_of.get(j) != end:
                    continue
                if ids and end != group_end:
                    yield group_end, ids
                    ids = []
                group_end = end
                ids.append(j)
            if ids:
                yield group_end, ids


class ReleasedView:
    """What greedy placement reads of ``state`` (free counts, free-GPU buckets, instance
    capacity; on K > 1 domains also the instances on a node) once some of its running jobs
    are released, without copying the state.

    A released job's hosts leave their buckets and sit, by their free count after the
    releases, in small sorted lists beside them. On K = 1 domains greedy placement of w
    g-GPU instances takes at most w nodes from any bucket f >= g and reads them lowest
    first, so ``free_buckets`` holds only the w lowest nodes of those buckets, merged anew
    only where a release changed them: O(w + hosts) per changed bucket, not O(N). On K > 1
    domains the panel overlay scans whole buckets (``nodes_with_free``, O(bucket)) and tests
    the instances left on a node (``instances_on``).
    """

    __slots__ = ("state", "gpus_per_node", "_g", "_w", "_released", "_free", "_hosts",
                 "_left", "_buckets", "_changed", "_whole")

    def __init__(self, state: ClusterState, g: int, w: int) -> None:
        G = state.gpus_per_node
        self.state = state
        self.gpus_per_node = G
        self._g, self._w = g, w
        self._released: set[int] = set()
        #: released hosts -> their free count now
        self._free: dict[int, int] = {}
        #: released hosts by their free count now, ascending
        self._hosts: list[list[int]] = [[] for _ in range(G + 1)]
        #: released hosts that left the state's bucket f
        self._left = [0] * (G + 1)
        self._buckets: list[list[int]] = [[] for _ in range(G + 1)]
        self._changed = set(range(g, G + 1))
        self._whole: dict[int, list[int]] = {}

    def release_job(self, job_id: int) -> None:
        """Release one running job of ``state`` in the view."""
        state, free, hosts = self.state, self._free, self._hosts
        size = state.size_of(state.job_instances(job_id)[0])
        self._released.add(job_id)
        for n in state.job_nodes(job_id):
            f = free.get(n)
            if f is None:
                f = state.free(n)
                self._left[f] += 1
            else:
                hosts[f].remove(n)
            free[n] = f + size
            insort(hosts[f + size], n)
            self._changed.update((f, f + size))
        self._whole.clear()

    def free(self, node: int) -> int:
        f = self._free.get(node)
        return self.state.free(node) if f is None else f

    def instance_capacity(self, g: int) -> int:
        """How many more g-GPU instances fit: sum over nodes of floor(f_n / g), O(G)."""
        base, left, hosts = self.state.free_buckets(), self._left, self._hosts
        return sum((len(base[f]) - left[f] + len(hosts[f])) * (f // g)
                   for f in range(g, self.gpus_per_node + 1))

    def free_buckets(self) -> list[list[int]]:
        """The w lowest nodes of each bucket f >= g (K = 1 greedy placement reads no more)."""
        if self._changed:
            base, free, w = self.state.free_buckets(), self._free, self._w
            for f in self._changed:
                if f >= self._g:
                    lowest = islice((n for n in base[f] if n not in free), w)
                    self._buckets[f] = sorted(chain(lowest, self._hosts[f]))[:w]
            self._changed.clear()
        return self._buckets

    def nodes_with_free(self, f: int) -> list[int]:
        """Every node with ``f`` free GPUs, ascending (K > 1: the panel overlay's scan)."""
        nodes = self._whole.get(f)
        if nodes is None:
            free = self._free
            nodes = self._whole[f] = sorted(chain(
                (n for n in self.state.nodes_with_free(f) if n not in free), self._hosts[f]))
        return nodes

    def instances_on(self, node: int) -> Mapping[InstanceKey, int]:
        """The instances left on ``node``, mapped to their sizes."""
        released = self._released
        return {k: s for k, s in self.state.instances_on(node).items() if k[0] not in released}
