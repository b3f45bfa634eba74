"""A synthetic day's load matched to the real day's: submitted GPU-seconds per trace day.

The published GFS aggregates give, per trace day, the GPU-seconds submitted (sum of
``gpu_request x worker_num x duration`` over the day's jobs; ``GFS_GPU_SECONDS_BY_DAY``). The
paper replays whole-GPU jobs only, so a day's target is that sum times the whole-GPU share
of GPU-seconds (``GFS_WHOLE_GPU_SECONDS_SHARE``, 99.25 %). Day 0's sum holds the jobs
already running at trace start; its target is the median of the other days instead.

A day drawn from the calibrated model misses its target by a wide margin (a few long wide
gangs carry most GPU-seconds), so the day's durations are re-paired with its shapes: two
jobs exchange durations, the one with more GPUs taking the shorter duration when the day is
too heavy and the longer one when it is too light, until the day's GPU-seconds lie within
``LOAD_BAND`` of the target. An exchange keeps the day's multiset of durations (so every
duration quantile of the day) and every job's shape (so the (g, w) pmf, Table 1-2 shares
and the wide-gang count) exactly; only which shapes carry the long durations moves, and
docs/traces.md measures how far the GPU-time splits move with it. On the lightest real days
no pairing of the drawn durations is light enough (a day of 2,400 jobs draws some 24 of
over 65 days); there the heaviest job is shortened to what lands the day on its target,
and on days no pairing can make heavy enough, the widest single-node job is lengthened.
"""

from __future__ import annotations

import numpy as np

from compass.traces import calibration as cal
from compass.traces.models import DurationModel

#: A day's submitted GPU-seconds are matched to within this relative band of the target.
LOAD_BAND = 0.05
#: Jobs tried per step for a swap before the step sets a duration instead.
TRIES = 8
#: A light day's fallback lengthens the widest job of at most this many GPUs (one node): a
#: long wide gang would hold its nodes for days.
SINGLE_NODE_GPUS = 8


def real_day_gpu_seconds(day: int) -> float:
    """GPU-seconds submitted on real GFS trace ``day`` by whole-GPU jobs (estimated share).

    Days past the table wrap around like the job counts; day 0 (the time-0 backlog) takes
    the median of days 1..184.
    """
    table = np.asarray(cal.GFS_GPU_SECONDS_BY_DAY)
    index = day % table.size
    raw = float(np.median(table[1:])) if index == 0 else float(table[index])
    return raw * cal.GFS_WHOLE_GPU_SECONDS_SHARE


def match_load(g: np.ndarray, w: np.ndarray, duration: np.ndarray, target: float,
               durations: DurationModel, rng: np.random.Generator,
               band: float = LOAD_BAND) -> np.ndarray:
    """``duration`` re-paired with the shapes (g, w) so that sum(g w d) is within ``band``
    of ``target`` (unchanged when already inside).

    Each step draws ``TRIES`` jobs with ``rng`` among those above the fewest GPUs, by
    weight g w d when the day is too heavy (each GPU-second alike) and g w when too light
    (each GPU alike), and swaps the first one's duration that can with the job j of fewer
    GPUs whose swap lands the day's total closest to the target (a swap must bring the
    total closer). When none of them has such a partner (most long durations already sit
    on 1-GPU jobs, or most short ones), the heaviest job (too heavy) or the widest job of
    one node (too light) takes the duration that lands the total on the target, inside
    ``durations``' range, and the swaps go on.
    """
    d = np.asarray(duration, dtype=float).copy()
    gpus = np.asarray(g, dtype=float) * np.asarray(w, dtype=float)
    lo, hi = target * (1 - band), target * (1 + band)
    total = float((gpus * d).sum())
    for _ in range(20 * d.size):
        if lo <= total <= hi:
            break
        heavy = total > hi
        weight = (gpus * d if heavy else gpus) * (gpus > gpus.min())
        count = min(TRIES, int(np.count_nonzero(weight)))
        tries = (rng.choice(d.size, size=count, replace=False, p=weight / weight.sum())
                 if count else [])
        for i in tries:
            change = (gpus[i] - gpus) * (d - d[i])  # the total's change if i swaps with j
            useful = (gpus < gpus[i]) & (np.abs(total + change - target) < abs(total - target))
            if useful.any():
                j = int(np.flatnonzero(useful)[np.argmin(np.abs(total + change[useful] - target))])
                total += float(change[j])
                d[i], d[j] = d[j], d[i]
                break
        else:
            if heavy:
                k = int(np.argmax(gpus * d * (d > durations.seconds[0])))
            else:
                k = int(np.argmax(gpus * (d < durations.seconds[-1]) * (gpus <= SINGLE_NODE_GPUS)))
            new = float(np.clip(np.round(d[k] + (target - total) / gpus[k]),
                                durations.seconds[0], durations.seconds[-1]))
            total += float(gpus[k] * (new - d[k]))
            d[k] = new
    return d
