"""Runtime estimates for backfill (COMPASS-ABS+ and ``gfs-backfill``; docs/theory.md,
section 8, "Runtime estimates").

EASY backfill plans with each job's runtime: a queued job may pass a refused head only if
it is planned to end by the head's shadow time, and the shadow time itself is read from the
running jobs' planned ends. Where the plan comes from is ``runtime_estimate``:

* ``exact``: the trace's duration, a perfect estimate no cluster has (*clairvoyant*);
* ``user``: the limit a user would request (``UserEstimates``): the duration divided by an
  accuracy drawn uniform on [``min_accuracy``, 1], rounded up to the next of a few popular
  round limits (the modal estimates of Tsafrir, Etsion and Feitelson, "Modeling User
  Runtime Estimates", JSSPP 2005), so never below the duration. One draw per job from its
  own stream, seeded by the run's seed, the purpose and the job id (order-free);
* ``history``: a running quantile of the durations of the jobs already completed in the
  run, per shape (g, w) (``HistoryEstimates``); it never reads a queued or running job's
  own duration.

An estimate is split into a part fixed per job at its arrival and a part common to its shape
(``Estimator.job_part``, ``shape_part``; the estimate is their sum and one of them is 0), so
that backfill's candidate index can keep the queue sorted once (``backfill.WaitingIndex``)
while ``history``'s per-shape estimates move with every completion.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, insort
from collections import deque
from dataclasses import dataclass
from typing import Literal

from compass.model import Job

RuntimeEstimate = Literal["exact", "user", "history"]
ESTIMATES: tuple[RuntimeEstimate, ...] = ("exact", "user", "history")
#: How each estimate is labelled in every table and figure.
LABELS = {"exact": "clairvoyant", "user": "user", "history": "history"}

Shape = tuple[int, int]


def label(estimate: str) -> str:
    """The display label of ``estimate`` (``exact`` reads "clairvoyant")."""
    return LABELS[estimate]


@dataclass(frozen=True)
class UserEstimates:
    """The user-estimate model's parameters: the popular limits (s, ascending) and the
    lowest accuracy (duration / requested limit before rounding). Beyond the largest limit
    a request is rounded up to a multiple of it."""

    limits: tuple[float, ...] = (300.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0, 28800.0,
                                 43200.0, 86400.0, 172800.0, 345600.0, 604800.0)
    min_accuracy: float = 0.1

    def __post_init__(self) -> None:
        if not self.limits or list(self.limits) != sorted(self.limits) or self.limits[0] <= 0:
            raise ValueError("user estimate limits must be positive and ascending")
        if not 0 < self.min_accuracy <= 1:
            raise ValueError("min_accuracy must lie in (0, 1]")

    def request(self, duration: float, u: float) -> float:
        """The requested limit for ``duration`` at uniform draw ``u`` in [0, 1)."""
        accuracy = 1.0 - u * (1.0 - self.min_accuracy)  # uniform on (min_accuracy, 1]
        wanted = duration / accuracy
        k = bisect_left(self.limits, wanted)
        if k < len(self.limits):
            return self.limits[k]
        top = self.limits[-1]
        return top * math.ceil(wanted / top)


class Estimator:
    """Planned runtimes: ``estimate(job) = job_part(job) + shape_part(shape)``."""

    name: RuntimeEstimate = "exact"

    def job_part(self, job: Job) -> float:
        """The part of the estimate fixed when the job arrives."""
        return job.duration

    def shape_part(self, shape: Shape) -> float:
        """The part common to every job of ``shape`` = (g, w) now (0 unless learned)."""
        return 0.0

    def estimate(self, job: Job) -> float:
        return self.job_part(job) + self.shape_part((job.gpus_per_instance,
                                                     job.num_instances))

    def completed(self, job: Job) -> None:
        """``job`` has completed (its duration may now be read)."""


class UserEstimator(Estimator):
    """``user``: each job's requested limit (``UserEstimates``), drawn once per job from
    the stream seeded by (run seed, "user-estimate", job id)."""

    name: RuntimeEstimate = "user"

    def __init__(self, seed: int, model: UserEstimates = UserEstimates()) -> None:
        self.seed, self.model = seed, model
        self._drawn: dict[int, float] = {}

    def job_part(self, job: Job) -> float:
        value = self._drawn.get(job.job_id)
        if value is None:
            u = random.Random(f"{self.seed}:user-estimate:{job.job_id}").random()
            value = self._drawn[job.job_id] = self.model.request(job.duration, u)
        return value


@dataclass(frozen=True)
class HistoryEstimates:
    """``history``'s parameters: the quantile of the last ``window`` completed durations of
    the shape; a shape with fewer than ``min_samples`` falls back to the same quantile over
    every shape's last ``window``, and before any completion to ``prior_s``."""

    quantile: float = 0.9
    window: int = 200
    min_samples: int = 5
    prior_s: float = 3600.0

    def __post_init__(self) -> None:
        if not 0 <= self.quantile <= 1 or self.window < 1 or self.min_samples < 1:
            raise ValueError("need 0 <= quantile <= 1, window >= 1 and min_samples >= 1")


class _Recent:
    """The last ``window`` values, kept sorted for quantiles."""

    def __init__(self, window: int) -> None:
        self.order: deque[float] = deque()
        self.sorted: list[float] = []
        self.window = window

    def add(self, value: float) -> None:
        self.order.append(value)
        insort(self.sorted, value)
        if len(self.order) > self.window:
            del self.sorted[bisect_left(self.sorted, self.order.popleft())]

    def quantile(self, q: float) -> float:
        """The lower empirical quantile (an observed value)."""
        return self.sorted[min(len(self.sorted) - 1, int(q * len(self.sorted)))]


class HistoryEstimator(Estimator):
    """``history``: per shape, a running quantile of completed jobs' durations."""

    name: RuntimeEstimate = "history"

    def __init__(self, params: HistoryEstimates = HistoryEstimates()) -> None:
        self.params = params
        self._by_shape: dict[Shape, _Recent] = {}
        self._all = _Recent(params.window)
        self._cache: dict[Shape, float] = {}

    def job_part(self, job: Job) -> float:
        return 0.0

    def shape_part(self, shape: Shape) -> float:
        value = self._cache.get(shape)
        if value is None:
            p, mine = self.params, self._by_shape.get(shape)
            if mine is not None and len(mine.sorted) >= p.min_samples:
                value = mine.quantile(p.quantile)
            elif self._all.sorted:
                value = self._all.quantile(p.quantile)
            else:
                value = p.prior_s
            self._cache[shape] = value
        return value

    def completed(self, job: Job) -> None:
        shape = (job.gpus_per_instance, job.num_instances)
        recent = self._by_shape.get(shape)
        if recent is None:
            recent = self._by_shape[shape] = _Recent(self.params.window)
        recent.add(job.duration)
        self._all.add(job.duration)
        self._cache.clear()  # the fallback of every sparse shape moved too


def make_estimator(kind: str, seed: int) -> Estimator:
    """The estimator named ``kind`` (``ESTIMATES``) for a run seeded ``seed``."""
    if kind == "exact":
        return Estimator()
    if kind == "user":
        return UserEstimator(seed)
    if kind == "history":
        return HistoryEstimator()
    raise ValueError(f"runtime_estimate must be one of {list(ESTIMATES)}, got {kind!r}")
