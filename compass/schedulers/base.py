"""The scheduler protocol shared by COMPASS-ABS, the baselines and SIFOpt.

A scheduler reads the ``ClusterState`` and returns decisions; only the simulator mutates
the state, validating every decision first (docs/simulator.md). The hooks:

* ``reset(state, workload)`` once before a run;
* ``on_departure(job, state, now)`` after the job's instances were released: migrations;
* ``on_arrival(job, state, now)`` when a job joins the queue: migrations (usually none);
* ``on_timer(state, now)`` every ``timer_period`` seconds if the scheduler declares one;
* ``check(state)`` after every instant when the simulator runs with ``debug_checks``;
* the admission pass after the events of an instant: ``admission_order`` gives the order in
  which queued jobs are offered and whether the first refusal blocks the rest (head-of-line
  blocking, the default), and ``place(job, state, now)`` answers each offer with a full
  ``Placement`` (one node per instance, plus any migrations before and after it) or ``None``.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from bisect import insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from compass.cluster import ClusterState
from compass.model import InstanceKey, Job
from compass.oracle.panels import has_panel_layout, multi_panels

#: The operators that issue migrations, by scheduler: COMPASS-ABS's Place (filler draws),
#: Remove (a departed filler's replacement), stray re-homing, the three BestFitDrain passes of
#: Compact (section 4.3.4), the corrected scheduler's slotted repair and NVL72's panel-level
#: Compact; FFT's round repack, DRR's drain of a low-utilisation node, SIFOpt's witness;
#: COMPASS-ABS+'s admission by compaction and lazy compaction (our extension).
OPERATORS = ("place", "remove", "rehome", "compact-pool", "compact-w4", "compact-w2",
             "repair", "panel-compact", "repack", "drain", "witness", "admit", "lazy-compact")


@dataclass(frozen=True, slots=True)
class Move:
    """Migrate one running instance to node ``dst`` (checkpoint-restart).

    ``operator`` names the step that issued it (one of ``OPERATORS``, "" if untagged): the
    migration log and the per-operator accounting read it; the engine and equality ignore it
    (two moves are the same decision whatever step issued them).
    """

    instance: InstanceKey
    dst: int
    operator: str = field(default="", compare=False)


def tag_moves(moves: Iterable[Move], operator: str) -> tuple[Move, ...]:
    """The same moves issued by ``operator``."""
    return tuple(Move(m.instance, m.dst, operator) for m in moves)


@dataclass(frozen=True, slots=True)
class Placement:
    """Admit ``job_id``: apply ``pre_moves`` in order, then instance k goes to ``nodes[k]``;
    then apply ``moves`` in order.

    ``pre_moves`` make the room the job needs (admission by compaction, COMPASS-ABS+): the
    engine validates them with the placement, all or nothing, and charges them like every
    other migration (``ClusterState.place_job_after_moves``).
    """

    job_id: int
    nodes: tuple[int, ...]
    moves: tuple[Move, ...] = ()
    pre_moves: tuple[Move, ...] = ()


#: What a scheduler is to the reproduction, in the order figures and tables show them: the
#: paper's method (COMPASS-ABS), its baselines (section 5.4), the SIFOpt oracle (appendix C),
#: our extension, the references that isolate a part of the extension, and variants (the
#: pseudo-code as written, NVL72 hierarchies, plug-ins) that no default lane runs.
Role = Literal["paper", "baseline", "oracle", "extension", "reference", "variant"]
ROLES: tuple[Role, ...] = ("paper", "baseline", "oracle", "extension", "reference", "variant")


@dataclass(frozen=True)
class SchedulerCard:
    """A scheduler's identity, declared once on its class and read by the registry, the
    pipeline's role tuples and the figures' colour and name tables."""

    name: str
    role: Role
    display: str
    color: str | None
    rank: int

    @property
    def sort_key(self) -> tuple[int, int, str]:
        """Figures' order: by role (``ROLES``), then the class's ``rank``, then the name."""
        return ROLES.index(self.role), self.rank, self.name


class Scheduler(ABC):
    """Base class: FIFO admission with head-of-line blocking, no migrations, no timer.

    A subclass declares its card (``name``, ``role``, ``display``, ``color``, ``rank``) as
    class attributes, and keeps each constructor argument as an attribute of the same name:
    ``params()`` reads them back by the constructor's signature.
    """

    #: Registry name (``compass.schedulers.available()``).
    name: ClassVar[str] = ""
    #: The card (``card()``), never inherited: a class that declares no role is a variant.
    #: The scheduler's role (``ROLES``).
    role: ClassVar[Role] = "variant"
    #: Name in figures and tables (default: ``name``).
    display: ClassVar[str] = ""
    #: Fixed colour in figures (hex), or None for one of the spare colours.
    color: ClassVar[str | None] = None
    #: Position among the schedulers of the same role (section 5.4's order for baselines).
    rank: ClassVar[int] = 100
    #: Seconds between ``on_timer`` calls, or None for no timer.
    timer_period: float | None = None
    #: True if an admission pass or a timer, run again on the state and queue that an
    #: instant which started and moved nothing left, does nothing again (they read the state,
    #: the queue and what the event hooks left, not ``now``). The simulator then skips the
    #: instants at which no event happens after such an instant: a timer after an idle one,
    #: a departure superseded by a migration pause (docs/simulator.md, "Events").
    skip_idle_instants: bool = False
    #: Parameters a run accepts beside the constructor's, turned into constructor arguments
    #: above the scheduler layer (``compass.sim.run_inputs``): name -> (type, default).
    build_parameters: ClassVar[dict[str, tuple[Any, Any]]] = {}

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    @classmethod
    def card(cls) -> SchedulerCard:
        """The class's card (identity, role, display name, colour, rank), read from the
        attributes the class itself declares: a subclass (``compass-abs-paper``) never
        inherits its parent's role, colour or display name."""
        own = vars(cls)
        role = own.get("role", "variant")
        if role not in ROLES:
            raise ValueError(f"{cls.__name__}.role must be one of {ROLES}, got {role!r}")
        return SchedulerCard(cls.name, role, own.get("display") or cls.name, own.get("color"),
                             own.get("rank", 100))

    @classmethod
    def constructor_parameters(cls) -> tuple[str, ...]:
        """The keyword arguments of the constructor (what ``params()`` records)."""
        return tuple(name for name, p in inspect.signature(cls.__init__).parameters.items()
                     if name != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))

    def params(self) -> dict[str, Any]:
        """Parameters that define this instance (recorded in a run's metadata): each
        constructor argument, read from the attribute of the same name. An argument kept
        under another name is left out (a scripted test scheduler's, say); every registered
        scheduler of the package keeps all of its own (tests/test_scheduler_cards.py)."""
        return {name: getattr(self, name) for name in self.constructor_parameters()
                if hasattr(self, name)}

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Prepare for a run on an empty ``state``; ``workload`` is the whole trace window."""

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        return ()

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        return ()

    def on_timer(self, state: ClusterState, now: float) -> Sequence[Move]:
        return ()

    def admission_order(
        self, queue: Sequence[Job], state: ClusterState, now: float
    ) -> tuple[Iterable[Job], bool]:
        """Jobs to offer, in order (the pass reads them once, so a generator may produce
        them as it goes), and whether a refusal stops the pass (HOL blocking)."""
        return queue, True

    def check(self, state: ClusterState) -> None:
        """Raise if the scheduler's own bookkeeping disagrees with ``state`` (debug mode)."""

    @abstractmethod
    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """A full placement for ``job`` on the current state, or None if it does not fit."""


#: A node rule scores a candidate (free GPUs f, lowest node with that f); lower wins.
NodeKey = Callable[[int, int], Any]


class ScoreKey:
    """The node rule (scores[f], n): a score per free count, ties to the lowest index.

    Every rule of the baselines has this form; ``greedy_gang`` reads ``scores`` directly
    instead of calling the rule per candidate.
    """

    __slots__ = ("scores",)

    def __init__(self, scores: Sequence[Any]) -> None:
        self.scores = tuple(scores)

    def __call__(self, f: int, n: int) -> tuple[Any, int]:
        return self.scores[f], n


class PanelFit:
    """The panel-aware fit test of the node rules on domains of K > 1 panels (appendix D.1).

    A node accepts ``count`` more g-GPU instances only if its instances plus them still have
    a panel layout (``has_panel_layout``, memoised by the sorted multiset of sizes: a tiny
    bin packing into K panels of 8). Adding instances never creates a layout, so a node that
    refuses one more instance refuses any more (docs/baselines.md, "Multi-panel domains").
    """

    __slots__ = ("state", "g", "panels", "_sizes")

    def __init__(self, state: ClusterState, g: int, panels: int) -> None:
        self.state = state
        self.g = g
        self.panels = panels
        self._sizes: dict[int, tuple[int, ...]] = {}

    def fits(self, node: int, count: int) -> bool:
        """Whether ``node`` has a panel layout with ``count`` more g-GPU instances."""
        sizes = self._sizes.get(node)
        if sizes is None:
            sizes = self._sizes[node] = tuple(self.state.instances_on(node).values())
        return has_panel_layout(tuple(sorted(sizes + (self.g,) * count)), self.panels)

    def room(self, node: int, most: int) -> int:
        """How many g-GPU instances, at most ``most``, ``node`` takes with a panel layout."""
        take = 0
        while take < most and self.fits(node, take + 1):
            take += 1
        return take


def panel_fit(state: ClusterState, g: int) -> PanelFit | None:
    """The panel test for g-GPU instances on ``state``, or None where nodes are not
    multi-panel domains (G = 8K with K > 1, eq. 22): then any node with f_n >= g fits."""
    panels = multi_panels(state.gpus_per_node)
    return PanelFit(state, g, panels) if panels is not None else None


class PanelOverlay:
    """``FreeOverlay``'s two queries for ``greedy_gang`` on K > 1 domains: per free-count
    bucket, the lowest-index node that passes the panel test with the gang's earlier
    tentative instances on it.

    A node the test refuses keeps refusing during the gang (the state does not change), so
    each bucket of the state is scanned once per gang by a cursor, and a tentative node
    that refuses one more instance is dropped: a gang costs at most one panel test per node
    with f_n >= g plus one per instance, on top of FreeOverlay's O(G log N) per instance.
    """

    __slots__ = ("_fit", "_cursor", "_taken", "_taken_at")

    def __init__(self, fit: PanelFit) -> None:
        self._fit = fit
        G = fit.state.gpus_per_node
        self._cursor = [0] * (G + 1)
        self._taken: dict[int, int] = {}  # node -> tentative instances on it
        self._taken_at: list[list[int]] = [[] for _ in range(G + 1)]  # by tentative free

    def lowest_node_with_free(self, f: int) -> int | None:
        """Lowest-index node with tentative free count ``f`` that takes one more instance."""
        fit, bucket = self._fit, self._fit.state.nodes_with_free(f)
        i = self._cursor[f]
        while i < len(bucket) and (bucket[i] in self._taken or not fit.fits(bucket[i], 1)):
            i += 1
        self._cursor[f] = i
        best = bucket[i] if i < len(bucket) else None
        taken = self._taken_at[f]
        while taken and not fit.fits(taken[0], self._taken[taken[0]] + 1):
            taken.pop(0)
        if taken and (best is None or taken[0] < best):
            best = taken[0]
        return best

    def take(self, node: int, gpus: int) -> None:
        """Place one tentative instance of the gang's size on ``node``."""
        count = self._taken.get(node, 0)
        free = self._fit.state.free(node) - count * self._fit.g
        if count:
            self._taken_at[free].remove(node)
        self._taken[node] = count + 1
        insort(self._taken_at[free - gpus], node)


def fill_in_order(
    state: ClusterState, g: int, w: int, candidates: Iterable[tuple[int, int]]
) -> tuple[int, ...] | None:
    """w instances of g GPUs on ``candidates`` (free f, node n) taken in order, each node
    filled with floor(f / g) of them (``best_fit_gang``, ``first_fit_gang``).

    On K > 1 domains a node takes only as many as keep a panel layout (``PanelFit.room``, one
    memoised panel test per node visited); a node that refuses keeps refusing, so per-node
    filling still equals the instance-by-instance rule. ``candidates`` must list every node
    with f >= g; the caller has checked ``instance_capacity``, which is exact for K = 1.
    """
    fit = panel_fit(state, g)
    nodes: list[int] = []
    for f, n in candidates:
        take = min(f // g, w - len(nodes))
        nodes.extend([n] * (take if fit is None else fit.room(n, take)))
        if len(nodes) == w:
            return tuple(nodes)
    if fit is None:
        raise AssertionError("instance_capacity and the free-GPU buckets disagree")
    return None


def greedy_gang(state: ClusterState, job: Job, key: NodeKey) -> tuple[int, ...] | None:
    """Place the job's instances one at a time by ``key`` on a tentative view.

    Every node rule of the baselines depends on a node only through its free count and its
    index, so the best node for one instance is among the lowest-index node of each
    free-count bucket f >= g: O(G) per instance plus O(log N) per take. On K > 1 domains
    the candidate of a bucket is its lowest-index node that keeps a panel layout
    (``PanelOverlay``). Returns None (and leaves no trace) if an instance finds no node.
    """
    g = job.gpus_per_instance
    G = state.gpus_per_node
    fit = panel_fit(state, g)
    if fit is not None:
        return _panel_gang(state, job, key, fit)
    w = job.num_instances
    scores = key.scores if type(key) is ScoreKey else None
    buckets = state.free_buckets()
    if w == 1:  # the best lowest-index node of a bucket
        best = best_key = None
        for f in range(g, G + 1):
            if bucket := buckets[f]:
                k = (scores[f], bucket[0]) if scores is not None else key(f, bucket[0])
                if best_key is None or k < best_key:
                    best, best_key = bucket[0], k
        return None if best is None else (best,)
    if state.instance_capacity(g) < w:
        return None
    # the tentative view: the untaken nodes of bucket f are a suffix of it (the lowest is
    # always the one taken), taken nodes sit in ``moved`` by their tentative free count
    first = [0] * (G + 1)
    moved: list[list[int]] = [[] for _ in range(G + 1)]
    nodes: list[int] = []
    for _ in range(w):
        best = best_key = None
        best_f = 0
        for f in range(g, G + 1):
            bucket, i, m = buckets[f], first[f], moved[f]
            n = bucket[i] if i < len(bucket) else None
            if m and (n is None or m[0] < n):
                n = m[0]
            if n is None:
                continue
            k = (scores[f], n) if scores is not None else key(f, n)
            if best_key is None or k < best_key:
                best, best_key, best_f = n, k, f
        bucket, i = buckets[best_f], first[best_f]
        if i < len(bucket) and bucket[i] == best:
            first[best_f] = i + 1
        else:
            moved[best_f].pop(0)
        insort(moved[best_f - g], best)
        nodes.append(best)
    return tuple(nodes)


def _panel_gang(state: ClusterState, job: Job, key: NodeKey, fit: PanelFit
                ) -> tuple[int, ...] | None:
    """``greedy_gang`` on K > 1 domains, through the panel-aware overlay."""
    g = job.gpus_per_instance
    if state.instance_capacity(g) < job.num_instances:
        return None
    G = state.gpus_per_node
    overlay = PanelOverlay(fit)
    nodes: list[int] = []
    for _ in range(job.num_instances):
        best = None
        best_key = None
        for f in range(g, G + 1):
            n = overlay.lowest_node_with_free(f)
            if n is None:
                continue
            k = key(f, n)
            if best_key is None or k < best_key:
                best, best_key = n, k
        if best is None:  # instance_capacity ignores panels
            return None
        overlay.take(best, g)
        nodes.append(best)
    return tuple(nodes)
