"""Statistical models of Venus and GFS jobs, built from the embedded calibration (section 5.3).

Per trace: a joint pmf of job shape (g GPUs per instance, w instances), a duration
distribution (piecewise log-linear inverse CDF through published quantiles), optionally a
coupling that makes durations depend on shape, and arrivals (jobs per calendar day, a 24-hour
profile, the span). The GFS joint and both couplings are fitted to published shares of
instances and of GPU time; the assumptions that close them are stated where they are made
and in docs/traces.md. ``gfs-indep`` keeps the earlier GFS model (w independent of g inside
Table 1's classes, durations independent of shape) for workload-sensitivity runs.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from compass.traces import calibration as cal
from compass.traces.maxent import minimum_kl
from compass.traces.windows import TABLE1_CLASSES

HOURS = 24
#: Wide jobs have more instances than this: the paper's case study (section 6.6) finds over
#: 90 % of the blocked jobs at g = 8 and w > 30.
WIDE_JOB_INSTANCES = 30


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

    def level_of(self, seconds: float | np.ndarray) -> np.ndarray:
        """The CDF level of a duration (the inverse of ``quantile`` inside the knots)."""
        return np.interp(np.log(seconds), np.log(self.seconds), self.cdf)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` durations in whole seconds (>= 1)."""
        return self.at_levels(rng.random(n))

    def at_levels(self, levels: np.ndarray) -> np.ndarray:
        """Durations in whole seconds (>= 1) at CDF levels ``levels``."""
        return np.maximum(np.round(self.quantile(levels)), 1.0)

    def partial_mean(self, lo: float, hi: float, power: int = 1) -> float:
        """The integral of Q(u)^power over [lo, hi], exactly (log Q is linear between knots;
        below the first knot Q is the first knot's duration)."""
        edges = np.concatenate([[0.0], self.cdf])
        logs = power * np.log(np.concatenate([[self.seconds[0]], self.seconds]))
        total = 0.0
        for a, b, la, lb in zip(edges[:-1], edges[1:], logs[:-1], logs[1:], strict=True):
            u0, u1 = max(a, lo), min(b, hi)
            if u1 <= u0:
                continue
            slope = (lb - la) / (b - a)
            q0, q1 = (np.exp(la + slope * (u - a)) for u in (u0, u1))
            total += (q1 - q0) / slope if slope else q0 * (u1 - u0)
        return float(total)

    def mean(self) -> float:
        """E[Q(U)] for U uniform on [0, 1) (before rounding to whole seconds)."""
        return self.partial_mean(0.0, 1.0)


def bucket_range(label: str) -> tuple[float, float]:
    """[lo, hi] of a bucket label as the sources write them: '1', '3-4', '2 to 8', '129 plus',
    '>64'."""
    text = label.strip()
    if text.startswith(">"):
        return float(text[1:]) + 1, np.inf
    if text.endswith(" plus"):
        return float(text.removesuffix(" plus")), np.inf
    lo, _, hi = text.replace(" to ", "-").partition("-")
    return float(lo), float(hi or lo)


@dataclass(frozen=True)
class Buckets:
    """Job buckets by a size measure, instances (w) or GPUs (w g), each a closed range."""

    measure: Literal["instances", "gpus"]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.measure not in ("instances", "gpus"):
            raise ValueError(f"measure must be 'instances' or 'gpus', got {self.measure!r}")

    def of(self, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Bucket index of each job; raises ``ValueError`` for a job outside every bucket."""
        size = np.asarray(w) if self.measure == "instances" else np.asarray(g) * np.asarray(w)
        out = np.full(size.shape, -1, dtype=np.int64)
        for i, label in enumerate(self.labels):
            lo, hi = bucket_range(label)
            out[(size >= lo) & (size <= hi)] = i
        if (out < 0).any():
            raise ValueError(f"a job of {self.measure} {size[out < 0][0]} is in no bucket "
                             f"of {self.labels}")
        return out


@dataclass(frozen=True)
class CrossBuckets:
    """Cells of two bucketings of jobs (say by GPUs and by instances): the cells that hold a
    shape of the model they were built for, labelled "<first> | <second>"."""

    first: Buckets
    second: Buckets
    cells: tuple[tuple[int, int], ...]

    @property
    def labels(self) -> tuple[str, ...]:
        """One label per cell."""
        return tuple(f"{self.first.labels[a]} | {self.second.labels[b]}" for a, b in self.cells)

    def of(self, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Cell index of each job; raises ``ValueError`` for a job in no listed cell."""
        a, b = self.first.of(g, w), self.second.of(g, w)
        key = a * len(self.second.labels) + b
        table = np.full(len(self.first.labels) * len(self.second.labels), -1, dtype=np.int64)
        for k, (x, y) in enumerate(self.cells):
            table[x * len(self.second.labels) + y] = k
        out = table[key]
        if (out < 0).any():
            raise ValueError("a job lies in no cell of the cross buckets")
        return out

    @classmethod
    def of_sizes(cls, first: Buckets, second: Buckets, sizes: SizeModel) -> CrossBuckets:
        """The cells the shapes of ``sizes`` occupy."""
        pairs = zip(first.of(sizes.g, sizes.w), second.of(sizes.g, sizes.w), strict=True)
        return cls(first, second, tuple(sorted({(int(a), int(b)) for a, b in pairs})))


def rake(mass: np.ndarray, first: np.ndarray, second: np.ndarray, first_share: np.ndarray,
         second_share: np.ndarray, iterations: int = 5000) -> np.ndarray:
    """Cell masses scaled (iterative proportional fitting) until the sums over ``first`` and
    over ``second`` equal the two share vectors; the result sums to 1."""
    out = mass / mass.sum()
    for _ in range(iterations):
        for index, share in ((first, first_share), (second, second_share)):
            sums = np.bincount(index, weights=out, minlength=share.size)
            out = out * np.divide(share, sums, out=np.zeros_like(share), where=sums > 0)[index]
    return out


@dataclass(frozen=True)
class DurationCoupling:
    """Durations that depend on job shape, with the overall duration distribution kept.

    A job of bucket b draws the CDF level u of its duration from a piecewise-constant density
    on [0, 1) (breakpoints ``levels``, row b of ``density``); its duration is Q(u). The rows
    average to 1 under the buckets' job shares, so durations drawn over all jobs still
    follow Q: only which jobs get the long ones changes.
    """

    buckets: Buckets | CrossBuckets
    levels: np.ndarray
    density: np.ndarray

    def __post_init__(self) -> None:
        if self.density.shape != (len(self.buckets.labels), self.levels.size - 1):
            raise ValueError("density needs one row per bucket and one column per segment")
        if (self.density < 0).any():
            raise ValueError("densities must be >= 0")
        mass = self.density @ np.diff(self.levels)
        if not np.allclose(mass, 1.0):
            raise ValueError(f"each bucket's density must integrate to 1, got {mass}")

    def moment(self, durations: DurationModel, bucket: int, power: int = 1) -> float:
        """E[d^power] of bucket ``bucket``'s jobs (before rounding)."""
        return float(sum(density * durations.partial_mean(lo, hi, power) for density, lo, hi
                         in zip(self.density[bucket], self.levels[:-1], self.levels[1:],
                                strict=True) if density > 0))

    def sample_levels(self, bucket: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """CDF levels for jobs of ``bucket`` from uniform draws (inverse CDF, per bucket)."""
        out = np.empty(uniform.shape)
        width = np.diff(self.levels)
        for b in range(self.density.shape[0]):
            chosen = bucket == b
            cdf = np.concatenate([[0.0], np.cumsum(self.density[b] * width)])
            # ties in cdf bound segments of zero density: only draws of measure zero land on them
            out[chosen] = np.interp(uniform[chosen], cdf, self.levels)
        return out


def fit_coupling(sizes: SizeModel, durations: DurationModel, buckets: Buckets | CrossBuckets,
                 gpu_time_share: Mapping[str, float]) -> DurationCoupling:
    """The coupling whose expected GPU-time share per bucket equals ``gpu_time_share``.

    Bucket b needs mean duration E_b proportional to share_b / (P(b) E[G | b]) with
    sum_b P(b) E_b = E[d]. Each bucket except the one with the most jobs (the reference)
    draws u uniform on [0, c] (shorter than average) or on [c, 1] (longer), c solved for
    E_b; the reference takes the remaining density, which must stay >= 0.
    """
    index = buckets.of(sizes.g, sizes.w)
    labels = buckets.labels
    jobs = np.array([sizes.p[index == b].sum() for b in range(len(labels))])
    gpus = np.array([(sizes.p * sizes.g * sizes.w)[index == b].sum() for b in range(len(labels))])
    if (jobs <= 0).any():
        raise ValueError(f"buckets without jobs in the shape model: "
                         f"{[lab for lab, j in zip(labels, jobs, strict=True) if j <= 0]}")
    share = np.array([gpu_time_share[lab] for lab in labels], dtype=float)
    ratio = share / gpus  # E_b up to a common factor
    mean = durations.mean()
    target = ratio * mean / (jobs * ratio).sum()
    ref = int(np.argmax(jobs))
    cuts: dict[int, tuple[float, float]] = {}
    for b in range(len(labels)):
        if b != ref:
            cuts[b] = _truncation(durations, target[b], below=target[b] < mean)
    levels = np.unique(np.concatenate([[0.0, 1.0], [c for pair in cuts.values() for c in pair]]))
    middle = (levels[:-1] + levels[1:]) / 2
    density = np.zeros((len(labels), middle.size))
    for b, (lo, hi) in cuts.items():
        density[b] = ((middle > lo) & (middle < hi)) / (hi - lo)
    rest = 1.0 - (jobs[:, None] * density).sum(axis=0)
    if (rest < -1e-9).any():
        raise ValueError("the GPU-time shares need more long (or short) jobs than the "
                         f"reference bucket {labels[ref]!r} can give up")
    density[ref] = np.maximum(rest, 0.0) / jobs[ref]
    return DurationCoupling(buckets, levels, density)


def _truncation(durations: DurationModel, mean: float, below: bool) -> tuple[float, float]:
    """[0, c] (``below``) or [c, 1] whose conditional mean duration is ``mean`` (bisection)."""
    lo, hi = 1e-9, 1.0 - 1e-9
    for _ in range(100):
        c = (lo + hi) / 2
        part = ((durations.partial_mean(0.0, c) / c) if below
                else durations.partial_mean(c, 1.0) / (1.0 - c))
        if part < mean:
            lo = c
        else:
            hi = c
    c = (lo + hi) / 2
    return (0.0, c) if below else (c, 1.0)


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
    """Everything a synthetic day of one trace needs (``coupling`` None: durations
    independent of shape)."""

    name: str
    sizes: SizeModel
    durations: DurationModel
    arrivals: ArrivalModel
    coupling: DurationCoupling | None = None

    def sample_durations(self, rng: np.random.Generator, g: np.ndarray,
                         w: np.ndarray) -> np.ndarray:
        """Durations in whole seconds for jobs of shapes (g, w)."""
        if self.coupling is None:
            return self.durations.sample(rng, g.size)
        uniform = rng.random(g.size)
        levels = self.coupling.sample_levels(self.coupling.buckets.of(g, w), uniform)
        return self.durations.at_levels(levels)


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


#: Venus single-node jobs (1-8 GPUs) form one duration bucket of the coupling.
VENUS_SINGLE_NODE = "1-8"


def venus_gpu_time_targets() -> dict[str, float]:
    """Share of Venus GPU time per bucket of the coupling: single-node jobs, then each
    multi-node gpu_num bin."""
    pct = cal.VENUS_GPU_TIME_SHARE_PCT
    single = [k for k in pct if bucket_range(k)[1] <= 8]
    shares = {VENUS_SINGLE_NODE: sum(pct[k] for k in single) / 100}
    shares.update({k: v / 100 for k, v in pct.items() if k not in single})
    return shares


def venus_coupling(sizes: SizeModel, durations: DurationModel) -> DurationCoupling:
    """Venus durations by per-job GPU count: each multi-node gpu_num bin's share of GPU time.

    The single-node bins (1, 2, 3-4, 5-8 GPUs) are one bucket, the reference: splitting
    them (short 1-GPU jobs, as their 4.6 % share of GPU time suggests) leaves fewer 1-GPU
    fillers running beside the FUF instances, and the WCC then fails on 7 % of base days
    instead of 1 %, against Table 3 (docs/traces.md).
    """
    shares = venus_gpu_time_targets()
    return fit_coupling(sizes, durations, Buckets("gpus", tuple(shares)), shares)


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
def _gfs_marginals() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(g values, job pmf of g over whole-GPU jobs, w values, job pmf of w)."""
    g = np.array(sorted(cal.GFS_JOBS_BY_GPU_REQUEST))
    p_g = np.array([cal.GFS_JOBS_BY_GPU_REQUEST[x] for x in g], dtype=float)
    w = np.array(sorted(cal.GFS_WORKER_NUM_JOBS))
    p_w = np.array([cal.GFS_WORKER_NUM_JOBS[x] for x in w], dtype=float)
    return g, p_g / p_g.sum(), w, p_w / p_w.sum()


def gfs_sizes() -> SizeModel:
    """GFS shapes: the joint (g, w) pmf closest to independence that meets the published facts.

    Constraints (an I-projection of the product of the marginals, ``maxent.minimum_kl``):
    the integer gpu_request histogram (g), the worker_num histogram (w), Table 1's instance
    shares of I=1 and I_FF (I=8 follows), and the real job rows' share of g = 8 among jobs
    with w > 30 (``GFS_WIDE_JOB_G8_SHARE``, 91.7 %). Support: 1-GPU gangs no wider than the
    widest in the real rows (``GFS_MAX_WORKERS_AT_G1``); FUF jobs single-instance, because
    Table 1's FUF instance share (0.05 %) is below what single-instance FUF jobs already give
    (0.0504 %), so it cannot be met exactly and w = 1 comes closest. The w histogram counts
    all jobs, fractional-GPU ones included (its whole-GPU part is not published).
    """
    g, p_g, w, p_w = _gfs_marginals()
    G, W = np.meshgrid(g, w, indexing="ij")
    prior = np.outer(p_g, p_w)
    prior[(G == 1) & (W > cal.GFS_MAX_WORKERS_AT_G1)] = 0.0
    prior[np.isin(G, TABLE1_CLASSES["I_FUF"]) & (W > 1)] = 0.0
    target = table1_targets("gfs")
    wide = W > WIDE_JOB_INSTANCES
    rows = [*((G == x) for x in g[:-1]), *((W == x) for x in w[:-1]),
            *(W * (np.isin(G, TABLE1_CLASSES[c]) - target[c]) for c in ("I=1", "I_FF")),
            wide * ((G == 8) - cal.GFS_WIDE_JOB_G8_SHARE)]
    goals = [*p_g[:-1], *p_w[:-1], 0.0, 0.0, 0.0]
    joint = minimum_kl(prior.ravel(), np.array([r.ravel() for r in rows], dtype=float),
                       np.array(goals))
    return _collapse([(int(a), int(b), float(p)) for a, b, p
                      in zip(G.ravel(), W.ravel(), joint, strict=True)])


def gfs_sizes_independent() -> SizeModel:
    """The earlier GFS shapes (``gfs-synth-indep``): g by the gpu_request counts, w by the
    worker_num histogram, independent inside each Table 1 class.

    Assumption: w = 1 with probability q_c in class c, else w follows the histogram's w >= 2
    tail. q_c is solved so that per-instance shares equal Table 1: E[w | c] = E[w] s_c / p_c
    (s_c the instance share, p_c the job share), which keeps P(w = 1) and E[w] of the
    histogram. It puts about half of the w > 30 jobs on 1-GPU instances.
    """
    g_counts = cal.GFS_JOBS_BY_GPU_REQUEST
    jobs = sum(g_counts.values())
    _, _, workers, p_w = _gfs_marginals()
    mean_w = float((workers * p_w).sum())
    tail_w, tail_p = workers[workers > 1], p_w[workers > 1] / p_w[workers > 1].sum()
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


def gfs_demand_shares() -> dict[str, float]:
    """Share of whole-GPU GFS GPU-seconds per total-GPU-demand bucket (bucket 0, jobs below
    one GPU in total, dropped and the rest renormalised)."""
    shares = cal.GFS_GPU_SECONDS_SHARE_BY_DEMAND
    total = sum(shares.values())
    return {k: v / total for k, v in shares.items()}


def gfs_coupling(sizes: SizeModel, durations: DurationModel) -> DurationCoupling:
    """GFS durations by job shape: both published splits of GPU-seconds at once.

    The real table splits GPU-seconds by total GPU demand (w g; 55 % on 1-GPU jobs) and by
    instances (w; 72 % on single-instance jobs). The coupling's buckets are the cells of the
    two bucketings the shapes occupy; the cells' shares of GPU time are raked (``rake``) from
    GPU time proportional to GPUs (durations independent of shape) until both splits hold,
    and each cell's mean duration follows (``fit_coupling``). Fitting the demand split as
    well, not instances alone, gives 8-GPU single-instance jobs shorter durations than 1-GPU
    jobs, as the real buckets do, and brings the submitted GPU-seconds per job from 1.9 times
    the real mean down to 1.1 times it (docs/traces.md).
    """
    demand_shares = gfs_demand_shares()
    worker_shares = cal.GFS_GPU_SECONDS_SHARE_BY_WORKERS
    demand = Buckets("gpus", tuple(demand_shares))
    workers = Buckets("instances", tuple(worker_shares))
    cells = CrossBuckets.of_sizes(demand, workers, sizes)
    index = cells.of(sizes.g, sizes.w)
    gpus = np.bincount(index, weights=sizes.p * sizes.g * sizes.w, minlength=len(cells.cells))
    first = np.array([a for a, _ in cells.cells])
    second = np.array([b for _, b in cells.cells])
    share = rake(gpus, first, second,
                 np.array(list(demand_shares.values())),
                 np.array(list(worker_shares.values()), dtype=float) / sum(worker_shares.values()))
    return fit_coupling(sizes, durations, cells, dict(zip(cells.labels, share, strict=True)))


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


#: The calibrated models by name: the GFS joint, the earlier independent GFS model, Venus.
MODELS = ("venus", "gfs", "gfs-indep")


@functools.cache
def trace_model(trace: str) -> TraceModel:
    """The calibrated model of ``trace`` (one of ``MODELS``)."""
    if trace == "venus":
        sizes, durations = venus_sizes(), venus_durations()
        return TraceModel("venus", sizes, durations, venus_arrivals(),
                          venus_coupling(sizes, durations))
    if trace == "gfs":
        sizes, durations = gfs_sizes(), gfs_durations()
        return TraceModel("gfs", sizes, durations, gfs_arrivals(),
                          gfs_coupling(sizes, durations))
    if trace == "gfs-indep":
        return TraceModel("gfs-indep", gfs_sizes_independent(), gfs_durations(), gfs_arrivals())
    raise ValueError(f"no calibrated model for trace {trace!r}; choose one of {MODELS}")
