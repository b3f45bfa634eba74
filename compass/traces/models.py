"""Statistical models of Venus and GFS jobs, built from the embedded calibration (section 5.3).

Three independent parts per trace: a joint pmf of job shape (g GPUs per instance, w
instances), a duration distribution (piecewise log-linear inverse CDF through published
quantiles), and arrivals (jobs per calendar day, a 24-hour profile, the span). The joint
shape is not published anywhere; the assumptions that close it are stated where they are made
and in docs/traces.md.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from compass.traces import calibration as cal
from compass.traces.windows import TABLE1_CLASSES

HOURS = 24


@dataclass(frozen=True)
class SizeModel:
    """Joint pmf of a job's shape: P(g = g[k], w = w[k]) = p[k]."""

    g: np.ndarray
    w: np.ndarray
    p: np.ndarray

    def __post_init__(self) -> None:
        if not (self.g.shape == self.w.shape == self.p.shape):
            raise ValueError("g, w and p must have one shape")
        if (self.p < 0).any() or not np.isclose(self.p.sum(), 1.0):
            raise ValueError("p must be a probability vector")

    def sample_index(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` entries k drawn with probabilities p[k]."""
        k = np.searchsorted(np.cumsum(self.p), rng.random(n) * self.p.sum(), side="right")
        return np.minimum(k, self.p.size - 1)

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` job shapes (g, w)."""
        k = self.sample_index(rng, n)
        return self.g[k], self.w[k]

    def instance_shares(self, groups: Mapping[str, tuple[int, ...]]) -> dict[str, float]:
        """Expected share of instances per group of sizes (Table 1 or Table 2 style)."""
        mass = self.p * self.w
        return {name: float(mass[np.isin(self.g, s)].sum() / mass.sum())
                for name, s in groups.items()}

    def mean_instances(self) -> float:
        """E[w]."""
        return float((self.p * self.w).sum())

    def pushed(self, targets: Mapping[str, float],
               groups: Mapping[str, tuple[int, ...]]) -> SizeModel:
        """The model reweighted per group so the expected instance shares equal ``targets``."""
        current = self.instance_shares(groups)
        factor = np.zeros(self.p.size)
        for name, sizes in groups.items():
            if current[name] == 0 and targets[name] > 0:
                raise ValueError(f"group {name!r} has no mass to push toward {targets[name]}")
            scale = targets[name] / current[name] if current[name] else 0.0
            factor[np.isin(self.g, sizes)] = scale
        p = self.p * factor
        return SizeModel(self.g, self.w, p / p.sum())


@dataclass(frozen=True)
class DurationModel:
    """Durations by a piecewise log-linear inverse CDF through knots (seconds, CDF)."""

    seconds: np.ndarray
    cdf: np.ndarray

    def __post_init__(self) -> None:
        if (np.diff(self.seconds) <= 0).any() or (np.diff(self.cdf) <= 0).any():
            raise ValueError("duration knots must increase in both seconds and CDF")
        if self.cdf[-1] != 1.0 or self.seconds[0] < 1:
            raise ValueError("the CDF must end at 1 and durations start at >= 1 s")

    def quantile(self, q: float | np.ndarray) -> np.ndarray:
        """Duration at CDF level ``q`` (below the first knot: the first knot's duration)."""
        return np.exp(np.interp(q, self.cdf, np.log(self.seconds)))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` durations in whole seconds (>= 1)."""
        return np.maximum(np.round(self.quantile(rng.random(n))), 1.0)


@dataclass(frozen=True)
class ArrivalModel:
    """Jobs per calendar day, their hour-of-day profile, and the trace's span in days."""

    jobs_per_day: np.ndarray
    hour_weights: np.ndarray
    span_days: float

    def jobs_on(self, day: int) -> int:
        """Jobs submitted on ``day``; days past the table wrap around to its start."""
        return int(self.jobs_per_day[day % self.jobs_per_day.size])

    def hours_on(self, day: int) -> np.ndarray:
        """Hour-of-day pmf of ``day``: the profile cut to the span on the span's last day."""
        within = self.span_days - (day % self.jobs_per_day.size)
        open_hours = np.clip(within * HOURS - np.arange(HOURS), 0.0, 1.0)
        weights = self.hour_weights * open_hours
        return weights / weights.sum()


@dataclass(frozen=True)
class TraceModel:
    """Everything a synthetic day of one trace needs."""

    name: str
    sizes: SizeModel
    durations: DurationModel
    arrivals: ArrivalModel


def table1_targets(trace: str) -> dict[str, float]:
    """Table 1's per-class instance shares of ``trace``, normalised to sum to 1."""
    raw = cal.TABLE1_SHARE_PCT[trace]
    total = sum(raw.values())
    return {k: v / total for k, v in raw.items()}


# ------------------------------------------------------------------ Venus
#: Venus per-job gpu_num bins -> (g, w). Jobs of up to 8 GPUs sit on one node; bigger ones
#: are whole 8-GPU nodes (w = gpu_num / 8), except the 0.003 % of 9-12 GPUs, taken as 3 x 4.
VENUS_BIN_SHAPES: dict[str, tuple[int, int]] = {
    "1": (1, 1), "2": (2, 1), "3-4": (4, 1), "5-8": (8, 1), "9-12": (4, 3),
    "13-16": (8, 2), "17-24": (8, 3), "25-32": (8, 4), "33-40": (8, 5), "41-48": (8, 6),
    "49-56": (8, 7), "57-64": (8, 8),
}
#: Smallest w of the '>64' bin; its largest is fitted to Table 1's I=1 share.
VENUS_WIDE_MIN_W = 9


def venus_sizes() -> SizeModel:
    """Venus shapes: the per-job gpu_num bins, closed by Table 1 (see VENUS_BIN_SHAPES).

    The bins do not split 3 from 4 nor 5-7 from 8: FUF jobs get the mass that gives Table 1's
    FUF instance share, split 3:5:6:7 like GFS's integer jobs, taken from the 3-4 and 5-8 bins.
    The '>64' bin is w uniform on 9..W, W chosen so the I=1 instance share fits Table 1.
    """
    share = {k: v / 100 for k, v in cal.VENUS_GPU_NUM_JOB_SHARE_PCT.items()}
    target = table1_targets("venus")
    fixed_mean_w = sum(share[b] * w for b, (_, w) in VENUS_BIN_SHAPES.items())
    mean_w = share["1"] / target["I=1"]
    wide_mean = (mean_w - fixed_mean_w) / share[">64"]
    wide_max = max(VENUS_WIDE_MIN_W, round(2 * wide_mean - VENUS_WIDE_MIN_W))
    wide_w = np.arange(VENUS_WIDE_MIN_W, wide_max + 1)
    mean_w = fixed_mean_w + share[">64"] * wide_w.mean()

    fuf_counts = {g: cal.GFS_JOBS_BY_GPU_REQUEST[g] for g in TABLE1_CLASSES["I_FUF"]}
    fuf_total = target["I_FUF"] * mean_w
    fuf = {g: fuf_total * n / sum(fuf_counts.values()) for g, n in fuf_counts.items()}
    entries: list[tuple[int, int, float]] = [
        (g, w, share[b]) for b, (g, w) in VENUS_BIN_SHAPES.items()
    ]
    entries += [(8, int(w), share[">64"] / wide_w.size) for w in wide_w]
    entries += [(g, 1, m) for g, m in fuf.items()]
    # the FUF mass leaves the bins it came from: 3 from '3-4' (as g=4), 5..7 from '5-8' (g=8)
    entries += [(4, 1, -fuf[3]), (8, 1, -(fuf[5] + fuf[6] + fuf[7]))]
    return _collapse(entries)


def _collapse(entries: list[tuple[int, int, float]]) -> SizeModel:
    table: dict[tuple[int, int], float] = {}
    for g, w, p in entries:
        table[(g, w)] = table.get((g, w), 0.0) + p
    keys = sorted(k for k, v in table.items() if v > 0)
    p = np.array([table[k] for k in keys])
    return SizeModel(np.array([k[0] for k in keys]), np.array([k[1] for k in keys]), p / p.sum())


def venus_durations() -> DurationModel:
    """Venus GPU-job durations through the CDF at 2^0..2^21 s (1 s below the first knot)."""
    knots = sorted(cal.VENUS_DURATION_CDF_PCT.items())
    return DurationModel(np.array([k for k, _ in knots], float),
                         np.array([v / 100 for _, v in knots]))


def venus_arrivals() -> ArrivalModel:
    """Venus GPU jobs per day over the 180 days with submissions, by clock-hour profile."""
    days = np.array(cal.VENUS_GPU_JOBS_BY_DAY[: cal.VENUS_SPAN_DAYS])
    hours = np.array(cal.VENUS_GPU_JOBS_BY_HOUR_OF_DAY)
    return ArrivalModel(days, hours / hours.sum(), float(cal.VENUS_SPAN_DAYS))


# ------------------------------------------------------------------ GFS
def gfs_sizes() -> SizeModel:
    """GFS shapes: g by the integer gpu_request counts, w by the worker_num histogram.

    The two marginals are published, the joint is not. Assumption: w = 1 with probability
    q_c in class c (Table 1's classes), else w follows the histogram's w >= 2 tail. q_c is
    solved so that per-instance shares equal Table 1: E[w | c] = E[w] s_c / p_c (s_c the
    instance share, p_c the job share), which keeps P(w = 1) and E[w] of the histogram.
    """
    g_counts = cal.GFS_JOBS_BY_GPU_REQUEST
    jobs = sum(g_counts.values())
    workers = np.array(sorted(cal.GFS_WORKER_NUM_JOBS))
    w_jobs = np.array([cal.GFS_WORKER_NUM_JOBS[w] for w in workers], dtype=float)
    mean_w = float((workers * w_jobs).sum() / w_jobs.sum())
    tail_w, tail_p = workers[workers > 1], w_jobs[workers > 1] / w_jobs[workers > 1].sum()
    tail_mean = float((tail_w * tail_p).sum())
    target = table1_targets("gfs")
    entries: list[tuple[int, int, float]] = []
    for name, sizes in TABLE1_CLASSES.items():
        p_class = sum(g_counts[g] for g in sizes) / jobs
        mean_c = mean_w * target[name] / p_class
        single = float(np.clip((tail_mean - mean_c) / (tail_mean - 1), 0.0, 1.0))
        for g in sizes:
            p_g = g_counts[g] / jobs
            entries.append((g, 1, p_g * single))
            entries += [(g, int(w), p_g * (1 - single) * q)
                        for w, q in zip(tail_w, tail_p, strict=True)]
    return _collapse(entries)


def gfs_durations() -> DurationModel:
    """GFS durations through the bucket shares and quantiles of all jobs, 1 s to the maximum."""
    edges = {"0_to_1_min": 60, "1_to_10_min": 600, "10_to_60_min": 3600,
             "1_to_6_hours": 21600, "6_to_24_hours": 86400, "1_to_3_days": 259200}
    knots = {float(cal.GFS_DURATION_MIN_MAX_S[0]): 0.0}
    cum = 0.0
    for label, upper in edges.items():
        cum += cal.GFS_DURATION_BUCKET_SHARES[label]
        knots[float(upper)] = cum
    knots.update({s: q for q, s in cal.GFS_DURATION_QUANTILES_S.items()})
    knots[float(cal.GFS_DURATION_MIN_MAX_S[1])] = 1.0
    ordered = sorted(knots.items())
    return DurationModel(np.array([s for s, _ in ordered]), np.array([c for _, c in ordered]))


def gfs_backlog_jobs() -> int:
    """Jobs stamped at t = 0 that were already running: trace hour 0 minus a typical hour 0."""
    return round(cal.GFS_TRACE_HOUR0_JOBS - cal.GFS_HOUR0_MEAN_JOBS_EXCL_TRACE_HOUR0)


def gfs_arrivals() -> ArrivalModel:
    """GFS jobs per day as the loader keeps them: whole-GPU jobs only, day 0 without backlog."""
    whole_share = 1 - cal.GFS_FRACTIONAL_GPU_JOBS / cal.GFS_TOTAL_JOBS
    days = np.array(cal.GFS_JOBS_BY_DAY, dtype=float)
    days[0] -= gfs_backlog_jobs()
    hours = np.array(cal.GFS_JOBS_BY_HOUR_OF_DAY, dtype=float)
    return ArrivalModel(np.round(days * whole_share).astype(np.int64), hours / hours.sum(),
                        cal.GFS_SPAN_DAYS)


@functools.cache
def trace_model(trace: str) -> TraceModel:
    """The calibrated model of ``trace`` ('venus' or 'gfs')."""
    if trace == "venus":
        return TraceModel("venus", venus_sizes(), venus_durations(), venus_arrivals())
    if trace == "gfs":
        return TraceModel("gfs", gfs_sizes(), gfs_durations(), gfs_arrivals())
    raise ValueError(f"no calibrated model for trace {trace!r}; choose 'venus' or 'gfs'")
