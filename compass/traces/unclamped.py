"""``venus-unclamped``: the real Venus jobs with the 48-hour clamp undone by a seeded tail.

The derived table (``helios-jobs``) cut 2,379 durations (1.9 % of the jobs) at 48 h. The
Helios summary gives the GPU-time of all Venus GPU jobs (complete + cancelled + failed:
``VENUS_GPU_TIME_S``), so the GPU-time the clamp removed is known in total, not per job.
This kind gives each clamped job 48 h plus an exponential tail (memoryless past the clamp;
seeded) whose mean ``tail_mean_s`` makes the expected GPU-time equal the summary's:
about 195,800 s, a mean clamped duration of about 368,600 s (the summary's mean duration
would give 381,000 s; the 3 % between them is how the clamped jobs' GPUs weigh). Every other
job, and every shape and submission, is the real one. A sensitivity kind (docs/traces.md,
"The clamp"): its durations are imputed, so its frames say ``synthetic:venus-unclamped``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from compass.traces.formats.helios_jobs import CLAMP_S, SHIPPED, load_helios_jobs
from compass.traces.paths import data_file
from compass.traces.schema import CANONICAL_COLUMNS
from compass.traces.windows import DAY_SECONDS

KIND = "venus-unclamped"
#: GPU-seconds of all Venus GPU jobs, complete + cancelled + failed (Helios summary).
#: Source: venus_summary.csv.
VENUS_GPU_TIME_S = 6_373_315_670 + 4_920_266_598 + 1_052_030_340
#: Random-stream id of the tail (beside ``compass.traces.synthetic``'s kinds 0-2).
_STREAM = 9


@lru_cache(maxsize=1)
def real_jobs() -> pd.DataFrame:
    """The shipped table, loaded once (canonical columns + provenance; paper day numbers)."""
    frame, _ = load_helios_jobs(data_file(SHIPPED))
    return frame


def clamped(frame: pd.DataFrame) -> np.ndarray:
    """Which jobs of a ``helios-jobs`` frame the converter cut at 48 h."""
    return frame["duration"].to_numpy() >= CLAMP_S


def tail_mean_s(frame: pd.DataFrame, total_gpu_s: float = VENUS_GPU_TIME_S) -> float:
    """The tail mean m past 48 h for which sum(g w d) over ``frame`` equals ``total_gpu_s``
    in expectation: the missing GPU-time over the clamped jobs' GPUs."""
    gpus = (frame["num_instances"] * frame["gpus_per_instance"]).to_numpy(dtype=float)
    have = float((gpus * frame["duration"].to_numpy()).sum())
    cut = clamped(frame)
    if not cut.any() or total_gpu_s <= have:
        raise ValueError(f"no GPU-time to restore: {cut.sum()} clamped jobs, "
                         f"{have:.4g} of {total_gpu_s:.4g} GPU-seconds present")
    return (total_gpu_s - have) / float(gpus[cut].sum())


def unclamp(frame: pd.DataFrame, seed: int, mean_s: float) -> pd.DataFrame:
    """A copy of ``frame`` whose clamped durations are 48 h + Exp(``mean_s``), drawn in the
    frame's order from one stream of ``seed`` (so a day is the same in any range)."""
    out = frame.copy()
    cut = clamped(frame)
    rng = np.random.default_rng([seed, _STREAM])
    tail = np.round(rng.exponential(mean_s, size=int(cut.sum())))
    duration = out["duration"].to_numpy(dtype=float).copy()
    duration[cut] = CLAMP_S + tail
    out["duration"] = duration
    return out


def days_with_jobs() -> list[int]:
    """The days (paper numbering) on which the real table submits a job."""
    return sorted(set((real_jobs()["submit_time"] // DAY_SECONDS).astype(int)))


def synthesize_unclamped(days: int | None = None, start_day: int = 0,
                         seed: int = 0) -> pd.DataFrame:
    """Days ``start_day ..`` (None: to the trace's end) of ``venus-unclamped`` for ``seed``:
    the real jobs submitted then, the clamped ones with imputed durations. Canonical
    columns, ``source_id`` (the Helios job id) and ``source`` ("synthetic:venus-unclamped")."""
    full = real_jobs()
    imputed = unclamp(full, seed, tail_mean_s(full))
    day = (imputed["submit_time"] // DAY_SECONDS).astype(int)
    stop = day.max() + 1 if days is None else start_day + days
    part = imputed[(day >= start_day) & (day < stop)].reset_index(drop=True)
    part["job_id"] = np.arange(len(part), dtype=np.int64)
    part["source"] = f"synthetic:{KIND}"
    return part[[*CANONICAL_COLUMNS, "source_id", "source"]]
