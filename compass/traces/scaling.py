"""A SYNTHETIC trace at another arrival rate: ``load_scale`` times the calibrated jobs.

The calibrated generators (``compass.traces.synthetic``) reproduce a trace's daily arrival
counts, so a cluster of another size sees another load. ``load_scaled`` superposes
ceil(s) independent draws of the same days (seeds ``seed``, ``seed + SEED_STRIDE``, ...)
and keeps each job with probability s / ceil(s): the arrival process is s times as dense,
with the same hourly shape, shapes and durations (a superposition and an independent
thinning of the per-day processes keep their form).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from compass.traces.schema import validate_trace
from compass.traces.synthetic import SYNTHETIC_PREFIX, synthesize

#: Seed distance between the superposed draws.
SEED_STRIDE = 1_000_003


def load_scaled(kind: str, load_scale: float, *, days: int | None = None, start_day: int = 0,
                seed: int = 0) -> pd.DataFrame:
    """``synthesize(kind, ...)`` with ``load_scale`` times as many arrivals (1: unchanged)."""
    if not math.isfinite(load_scale) or load_scale <= 0:
        raise ValueError(f"load_scale must be a finite number > 0, got {load_scale}")
    if load_scale == 1:
        return synthesize(kind, days=days, start_day=start_day, seed=seed)
    copies = math.ceil(load_scale)
    parts = [synthesize(kind, days=days, start_day=start_day, seed=seed + k * SEED_STRIDE)
             for k in range(copies)]
    merged = pd.concat(parts, ignore_index=True)
    keep = np.random.default_rng(seed).random(len(merged)) < load_scale / copies
    merged = merged[keep].sort_values("submit_time", kind="stable").reset_index(drop=True)
    merged["job_id"] = np.arange(len(merged), dtype=np.int64)
    return validate_trace(merged, source=f"{SYNTHETIC_PREFIX}{kind} x{load_scale:g}")
