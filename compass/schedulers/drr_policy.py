"""DRR's optional learned placement policy: behaviour cloning of best-fit (numpy only).

Source: DRR (Wu, Chen, Wang, SoCC'25) trains its DRL placement agent by imitation of
heuristics (the abstract; the COMPASS-ABS paper's section 5.4 names best-fit as the
imitated heuristic); rules: docs/baselines.md, "DRR". The SoCC'25 network and
weights are not public, so this is our own small stand-in [A]:

* Candidates: as in ``greedy_gang`` (compass/schedulers/base.py), the lowest-index node of
  each free-count bucket f >= g, so a decision stays O(G log N) per instance.
* Features of candidate f for a job of w instances of g GPUs (``candidate_features``),
  computed once per job on the state it is offered: the leftover (f - g) / G, a one-hot of
  f - g, f == G (empty node), the share of nodes with exactly f free GPUs, whether f holds
  every instance (floor(f / g) >= w), and the interactions of the leftover and the
  empty-node flag with cluster utilisation and with g / G.
* Scorer: linear, score(f) = theta . phi(f); the policy takes the highest-scoring
  candidate (lowest f on ties) instance by instance, on a tentative view of the state.
* Training: softmax cross-entropy over the candidates available at each instance decision,
  minibatch gradient descent with a seeded RNG (initial weights, subsampling, batch order);
  deterministic given the seed. Examples are recorded by ``RecordingScheduler`` while a
  best-fit teacher replays a training slice through the simulator; that replay lives above
  the simulator (``compass.sim.drr_training``), so this module, like every scheduler, never
  imports it. Decisions with a single candidate carry no signal and are left out of
  training and of agreement.
* Agreement: the share of instance decisions, on the teacher's own states, where the
  learned choice equals best-fit's; measured on the last ``holdout`` share of the slice's
  jobs with examples (by start order) when there are any, else on the training examples.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

import numpy as np

from compass.cluster import ClusterState, FreeOverlay
from compass.model import Job
from compass.schedulers.base import Move, Placement, Scheduler, greedy_gang
from compass.schedulers.gfs import best_fit_gang
from compass.traces.windows import DAY_SECONDS

#: State-dependent features per candidate (see ``dynamic_features``).
DYNAMIC_FEATURES = 4
#: State-independent features besides the one-hot of f - g (see ``static_features``).
_STATIC_EXTRA = 4


@dataclass(frozen=True)
class PolicyConfig:
    """Training hyper-parameters (ours [A]: the fewest epochs, of 20 and 100, that reached full
    agreement on the SYNTHETIC traces of docs/baselines.md)."""

    epochs: int = 100
    learning_rate: float = 0.5
    batch_size: int = 256
    l2: float = 1e-4
    max_examples: int = 20_000
    holdout: float = 0.2

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.max_examples < 1:
            raise ValueError("epochs, batch_size and max_examples must be >= 1")
        if self.learning_rate <= 0 or self.l2 < 0 or not 0 <= self.holdout < 1:
            raise ValueError("need learning_rate > 0, l2 >= 0 and 0 <= holdout < 1")


@dataclass
class Decisions:
    """Recorded instance decisions: one feature table per job, one row per decision.

    ``tables[j]`` is (G + 1, D), row f the features of candidate f (rows f < g are zero);
    decision i belongs to job ``job[i]``, could choose the f with ``mask[i, f]`` and chose
    ``label[i]`` (best-fit's f).
    """

    tables: np.ndarray
    job: np.ndarray
    mask: np.ndarray
    label: np.ndarray

    def __len__(self) -> int:
        return int(self.label.size)

    def subset(self, rows: np.ndarray) -> Decisions:
        return Decisions(self.tables, self.job[rows], self.mask[rows], self.label[rows])

    def features(self) -> np.ndarray:
        """(decisions, G + 1, D) feature tensor."""
        return self.tables[self.job]


@dataclass(frozen=True)
class PolicyReport:
    """What training produced: slice size, examples and the measured agreement."""

    training_jobs: int
    training_jobs_dropped: int
    examples: int
    fit_examples: int
    holdout_examples: int
    agreement: float
    agreement_on: Literal["holdout", "training", "none"]


def feature_count(gpus_per_node: int) -> int:
    """D: the one-hot of f - g (G values), the other static and the dynamic features."""
    return gpus_per_node + _STATIC_EXTRA + DYNAMIC_FEATURES


@cache
def static_features(gpus_per_node: int, g: int) -> np.ndarray:
    """(G + 1, G + 4) state-independent features of candidates f = 0..G (rows f < g: 0).

    Columns: 0 leftover (f - g) / G; 1..G one-hot of f - g; G+1 empty node (f == G);
    G+2 (g / G) x leftover; G+3 (g / G) x empty. Cached: read-only.
    """
    G = gpus_per_node
    f = np.arange(G + 1)
    ok = f >= g
    out = np.zeros((G + 1, G + _STATIC_EXTRA))
    out[:, 0] = np.where(ok, (f - g) / G, 0.0)
    out[ok, 1 + (f[ok] - g)] = 1.0
    out[:, G + 1] = (f == G) & ok
    out[:, G + 2] = g / G * out[:, 0]
    out[:, G + 3] = g / G * out[:, G + 1]
    out.setflags(write=False)
    return out


def dynamic_features(state: ClusterState, g: int, w: int) -> list[tuple[float, ...]]:
    """State-dependent features of candidates f = g..G (plain Python: G small, called per job).

    Per f: share of nodes with exactly f free GPUs; floor(f / g) >= w (the node holds every
    instance); utilisation x leftover (f - g) / G; utilisation x empty node.
    """
    G, N = state.gpus_per_node, state.nodes
    util = state.used_gpus / state.total_gpus
    return [(len(state.nodes_with_free(f)) / N, float(f // g >= w), util * (f - g) / G,
             util * (f == G)) for f in range(g, G + 1)]


def candidate_features(state: ClusterState, g: int, w: int) -> np.ndarray:
    """(G + 1, D) features of candidates f = 0..G: static then dynamic columns (rows f < g: 0)."""
    G = state.gpus_per_node
    dynamic = np.zeros((G + 1, DYNAMIC_FEATURES))
    dynamic[g:] = dynamic_features(state, g, w)
    return np.hstack([static_features(G, g), dynamic])


# ------------------------------------------------------------------------------ recording
class RecordingScheduler(Scheduler):
    """Runs ``teacher`` unchanged (every hook delegated) and logs, for each job it places
    with a choice, the candidate features and, per instance with more than one candidate,
    the candidates and the chosen free count. The simulator itself is not touched."""

    name = "drr-recorder"

    def __init__(self, teacher: Scheduler) -> None:
        super().__init__(seed=teacher.seed)
        self.teacher = teacher
        self.timer_period = teacher.timer_period
        self.skip_idle_instants = teacher.skip_idle_instants  # it logs placements only
        self.tables: list[np.ndarray] = []
        self.rows: list[tuple[int, np.ndarray, int]] = []

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self.teacher.reset(state, workload)

    def on_arrival(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        return self.teacher.on_arrival(job, state, now)

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        return self.teacher.on_departure(job, state, now)

    def on_timer(self, state: ClusterState, now: float) -> Sequence[Move]:
        return self.teacher.on_timer(state, now)

    def admission_order(self, queue: Sequence[Job], state: ClusterState, now: float
                        ) -> tuple[Iterable[Job], bool]:
        return self.teacher.admission_order(queue, state, now)

    def check(self, state: ClusterState) -> None:
        self.teacher.check(state)

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        placement = self.teacher.place(job, state, now)
        if placement is not None:
            self._log(job, state, placement.nodes)
        return placement

    def _log(self, job: Job, state: ClusterState, nodes: Sequence[int]) -> None:
        g, G = job.gpus_per_instance, state.gpus_per_node
        overlay = FreeOverlay(state)
        rows = []
        for n in nodes:
            mask = np.zeros(G + 1, dtype=bool)
            for f in range(g, G + 1):
                mask[f] = overlay.lowest_node_with_free(f) is not None
            if mask.sum() > 1:
                rows.append((len(self.tables), mask, overlay.free(n)))
            overlay.take(n, g)
        if rows:
            self.tables.append(candidate_features(state, g, job.num_instances))
            self.rows.extend(rows)

    def decisions(self, gpus_per_node: int) -> Decisions:
        """The logged decisions as arrays."""
        shape = (0, gpus_per_node + 1)
        tables = (np.array(self.tables) if self.tables
                  else np.zeros((*shape, feature_count(gpus_per_node))))
        return Decisions(
            tables,
            np.array([r[0] for r in self.rows], dtype=np.int64),
            np.array([r[1] for r in self.rows], dtype=bool).reshape(-1, gpus_per_node + 1),
            np.array([r[2] for r in self.rows], dtype=np.int64),
        )


# ------------------------------------------------------------------------------- training
def _masked_scores(weights: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.where(mask, np.einsum("bcd,d->bc", x, weights), -np.inf)


def _gradient(weights: np.ndarray, batch: Decisions, l2: float) -> np.ndarray:
    """Gradient of the mean softmax cross-entropy (plus l2 / 2 |theta|^2) on ``batch``."""
    x = batch.features()
    s = _masked_scores(weights, x, batch.mask)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(batch)), batch.label] -= 1.0
    return np.einsum("bc,bcd->d", p, x) / len(batch) + l2 * weights


def train(decisions: Decisions, config: PolicyConfig, seed: int) -> np.ndarray:
    """Weights theta fitted to ``decisions`` (seeded: same inputs and seed, same weights)."""
    rng = np.random.default_rng(seed)
    weights = rng.normal(0.0, 0.01, decisions.tables.shape[2])
    if len(decisions) > config.max_examples:
        decisions = decisions.subset(np.sort(rng.choice(len(decisions), config.max_examples,
                                                        replace=False)))
    for _ in range(config.epochs):
        order = rng.permutation(len(decisions))
        for start in range(0, len(order), config.batch_size):
            batch = decisions.subset(order[start:start + config.batch_size])
            weights -= config.learning_rate * _gradient(weights, batch, config.l2)
    return weights


def agreement(weights: np.ndarray, decisions: Decisions) -> float:
    """Share of decisions where the highest score (lowest f on ties) is best-fit's f."""
    if not len(decisions):
        return math.nan
    chosen = _masked_scores(weights, decisions.features(), decisions.mask).argmax(axis=1)
    return float((chosen == decisions.label).mean())


def split_holdout(decisions: Decisions, holdout: float) -> tuple[Decisions, Decisions]:
    """Decisions of the first (1 - holdout) of the recorded jobs (in start order), and of
    the rest."""
    cut = math.ceil(decisions.tables.shape[0] * (1.0 - holdout))
    fit = decisions.job < cut
    return decisions.subset(np.flatnonzero(fit)), decisions.subset(np.flatnonzero(~fit))


def submission_days(jobs: Sequence[Job]) -> frozenset[int]:
    """Days floor(submit_time / 86,400 s) of the jobs: the pipeline's day windows (5.2)."""
    return frozenset(math.floor(j.submit_time / DAY_SECONDS) for j in jobs)


def check_disjoint_days(training_days: frozenset[int], workload: Sequence[Job]) -> None:
    """Raise ValueError if a training job was submitted on a day of the evaluated window.

    Days are ``submission_days``, so a slice that shares a day with the evaluated window is
    refused even when the two submission ranges do not overlap.
    """
    shared = sorted(submission_days(workload) & training_days)
    if shared:
        raise ValueError(
            f"the learned DRR policy's training slice includes evaluated day(s) {shared[:5]}"
            f"{' ...' if len(shared) > 5 else ''}: train on other days than the ones replayed"
        )


# ------------------------------------------------------------------------------ the policy
@dataclass
class LearnedPlacement:
    """The trained scorer; ``weights`` None (no training example) means best-fit always.

    Counters of the current run: ``decisions`` (jobs placed), ``agreed`` (placed exactly as
    best-fit would on the same state) and ``fallbacks`` (placed by best-fit instead).
    """

    weights: np.ndarray | None
    fallbacks: int = 0
    decisions: int = 0
    agreed: int = 0
    _static_scores: dict[int, list[float]] = field(default_factory=dict, repr=False)

    def place(self, state: ClusterState, job: Job) -> tuple[int, ...] | None:
        """Nodes for the job's instances, or None exactly when best-fit finds none either."""
        best = best_fit_gang(state, job.gpus_per_instance, job.num_instances)
        if best is None:
            return None
        nodes = self._scored(state, job)
        if nodes is None:
            self.fallbacks += 1
            nodes = best
        self.decisions += 1
        self.agreed += nodes == best
        return nodes

    def scores(self, state: ClusterState, g: int, w: int) -> list[float]:
        """theta . phi(f) for candidates f = g..G: ``candidate_features`` @ theta, split into
        cached static scores plus the four dynamic terms, to stay cheap per job."""
        assert self.weights is not None
        G = state.gpus_per_node
        if g not in self._static_scores:
            static = static_features(G, g)[g:] @ self.weights[:G + _STATIC_EXTRA]
            self._static_scores[g] = static.tolist()
        a, b, c, d = self.weights[G + _STATIC_EXTRA:].tolist()
        return [s + a * x0 + b * x1 + c * x2 + d * x3 for s, (x0, x1, x2, x3)
                in zip(self._static_scores[g], dynamic_features(state, g, w), strict=True)]

    def _scored(self, state: ClusterState, job: Job) -> tuple[int, ...] | None:
        if self.weights is None:
            return None
        g = job.gpus_per_instance
        scores = self.scores(state, g, job.num_instances)
        if not all(math.isfinite(x) for x in scores):
            return None
        return greedy_gang(state, job, lambda f, n: -scores[f - g])

    def reset_counters(self) -> None:
        self.fallbacks = self.decisions = self.agreed = 0


@dataclass
class TrainedPolicy:
    """What DRR's ``learned`` argument takes: the trained scorer and how it was trained.

    Built above the simulator (``compass.sim.drr_training.train_policy``), which replays a
    best-fit teacher on the ``training`` slice (submitted on ``training_days``) on ``nodes``
    nodes of ``gpus_per_node`` GPUs. The scorer's features are shares and ratios, so it
    places on any cluster of the same G; ``DRR.reset`` refuses another G and a run that
    shares a day with the slice.
    """

    placement: LearnedPlacement
    report: PolicyReport
    config: PolicyConfig
    training: str
    training_days: frozenset[int]
    nodes: int
    gpus_per_node: int
