"""A synthetic trace beside its calibration targets: one row per statistic, with a tolerance.

Tolerances are statistical: a floor plus four standard errors of the statistic for the
trace's size (binomial for job shares and CDF points, the delta method over the model's
(g, w) pmf for instance shares, whose jobs carry many instances, and over shapes and
durations for GPU-time shares, which a few long wide jobs dominate). Bounds (the widest
1-GPU gang) are checked as bounds. Shape and duration statistics use the ``base`` days only
(Table 2 and stress days are pushed on purpose); counts per day, hour-of-day shares and the
span use every day.

A paper-regime kind (``compass.traces.regime_knobs``) is checked on what its knobs leave
alone (arrivals per day and hour) and on the knobs themselves (every gang inside its day's
cap, the sub-node share reached); the rest is exempt on purpose (``REGIME_EXEMPT``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import pandas as pd

from compass.model import G_DEFAULT
from compass.traces import calibration as cal
from compass.traces import physmix
from compass.traces.load_match import real_day_gpu_seconds
from compass.traces.models import (
    WIDE_JOB_INSTANCES,
    Buckets,
    SizeModel,
    TraceModel,
    bucket_range,
    gfs_demand_shares,
    table1_targets,
    trace_model,
    venus_gpu_time_targets,
)
from compass.traces.regime_knobs import gang_limit, subnode_instance_share
from compass.traces.synthetic import (
    KINDS,
    LOAD_MATCHED,
    MODEL_OF,
    REGIME_BASE,
    SYNTHETIC_PREFIX,
    TRACE_OF,
    kind_knobs,
    wcc_stress_rate,
)
from compass.traces.windows import (
    DAY_SECONDS,
    TABLE1_CLASSES,
    TABLE2_BUCKETS,
    class_shares,
    composition,
    day_window,
    day_windows,
    jobs_in_window,
    wcc_coverage,
)

#: Standard errors allowed on top of each statistic's floor.
SIGMAS = 4.0


@dataclass(frozen=True)
class Check:
    """One statistic: target, generated value and the largest allowed |difference|."""

    statistic: str
    target: float
    generated: float
    tolerance: float
    source: str
    #: "approx": |generated - target| <= tolerance; "at_most": generated <= target
    rule: Literal["approx", "at_most"] = "approx"

    @property
    def ok(self) -> bool:
        """Whether the generated value meets the target."""
        if self.rule == "at_most":
            return self.generated <= self.target + 1e-12
        return abs(self.generated - self.target) <= self.tolerance + 1e-12


def _binomial(p: float, n: int, floor: float) -> float:
    return floor + SIGMAS * math.sqrt(max(p * (1 - p), 0.0) / max(n, 1))


def _share_sd(model: SizeModel, sizes: tuple[int, ...], share: float, n: int) -> float:
    """Delta-method standard error of an instance share over n jobs drawn from ``model``."""
    z = model.w * (np.isin(model.g, sizes) - share)
    return math.sqrt(float((model.p * z**2).sum()) / max(n, 1)) / model.mean_instances()


def _kind_of(frame: pd.DataFrame) -> str:
    sources = set(frame["source"].astype(str))
    kinds = {s.removeprefix(SYNTHETIC_PREFIX) for s in sources if s.startswith(SYNTHETIC_PREFIX)}
    if len(sources) != 1 or len(kinds) != 1 or not kinds <= set(KINDS):
        raise ValueError(f"not one synthetic trace: source column holds {sorted(sources)}")
    return kinds.pop()


def _table1(base: pd.DataFrame, model: SizeModel, targets: dict[str, float],
            source: str) -> list[Check]:
    got = class_shares(base)
    return [Check(f"instance share {name} (Table 1)", targets[name], got[name],
                  0.002 + SIGMAS * _share_sd(model, TABLE1_CLASSES[name], targets[name],
                                             len(base)), source)
            for name in TABLE1_CLASSES]


def gpu_time_shares(frame: pd.DataFrame, buckets: Buckets) -> dict[str, float]:
    """Each bucket's share of the trace's GPU time (sum of w g duration)."""
    g, w = frame["gpus_per_instance"].to_numpy(), frame["num_instances"].to_numpy()
    gpu_time = g * w * frame["duration"].to_numpy(dtype=float)
    index = buckets.of(g, w)
    total = gpu_time.sum()
    return {label: float(gpu_time[index == b].sum() / total) if total else math.nan
            for b, label in enumerate(buckets.labels)}


def _gpu_time_share_sd(model: TraceModel, buckets: Buckets, n: int) -> dict[str, float]:
    """Delta-method standard error of each bucket's GPU-time share over n jobs of ``model``."""
    sizes, coupling = model.sizes, model.coupling
    index = buckets.of(sizes.g, sizes.w)
    if coupling is None:
        moments = np.array([[model.durations.partial_mean(0.0, 1.0, k) for k in (1, 2)]])
        own = np.zeros(sizes.p.size, dtype=np.int64)
    else:
        moments = np.array([[coupling.moment(model.durations, b, k) for k in (1, 2)]
                            for b in range(len(coupling.buckets.labels))])
        own = coupling.buckets.of(sizes.g, sizes.w)
    gpus = sizes.g * sizes.w
    mass = sizes.p * gpus * moments[own, 0]
    shares = np.bincount(index, weights=mass, minlength=len(buckets.labels)) / mass.sum()
    second = sizes.p * gpus**2 * moments[own, 1]
    out = {}
    for b, label in enumerate(buckets.labels):
        var = float((second * ((index == b) - shares[b]) ** 2).sum())
        out[label] = math.sqrt(var / max(n, 1)) / float(mass.sum())
    return out


def _gpu_time_checks(base: pd.DataFrame, model: TraceModel, buckets: Buckets,
                     targets: Mapping[str, float], what: str, source: str) -> list[Check]:
    got = gpu_time_shares(base, buckets)
    sd = _gpu_time_share_sd(model, buckets, len(base))
    return [Check(f"GPU-time share of jobs with {what.format(label)}", targets[label], got[label],
                  0.01 + SIGMAS * sd[label], source) for label in buckets.labels]


def wide_job_g8_share(frame: pd.DataFrame) -> float:
    """Share of the jobs with w > WIDE_JOB_INSTANCES whose instances have g = 8."""
    wide = frame[frame["num_instances"] > WIDE_JOB_INSTANCES]
    return float((wide["gpus_per_instance"] == 8).mean()) if len(wide) else math.nan


def _cdf_points(base: pd.DataFrame, points: dict[float, float], source: str) -> list[Check]:
    d = base["duration"].to_numpy()
    return [Check(f"share of durations <= {x:g} s", q, float((d <= x).mean()),
                  _binomial(q, len(d), 0.005), source) for x, q in points.items()]


def _arrival_checks(frame: pd.DataFrame, model: TraceModel, source: str) -> list[Check]:
    day = np.floor(frame["submit_time"].to_numpy() / DAY_SECONDS).astype(np.int64)
    days, counts = np.unique(day, return_counts=True)
    wrong = sum(int(c != model.arrivals.jobs_on(int(d))) for d, c in zip(days, counts, strict=True))
    hour = np.floor((frame["submit_time"].to_numpy() % DAY_SECONDS) / 3600).astype(np.int64)
    shares = np.bincount(hour, minlength=24) / len(frame)
    expected = sum(c * model.arrivals.hours_on(int(d))
                   for d, c in zip(days, counts, strict=True)) / len(frame)
    worst = float(np.abs(shares - expected).max())
    checks = [
        Check("days whose job count differs from the calibrated count", 0, wrong, 0, source),
        Check("hour-of-day share, largest |generated - target|", 0.0, worst,
              _binomial(float(expected.max()), len(frame), 0.002), source),
    ]
    span = model.arrivals.span_days
    if days[0] == 0 and days[-1] + 1 >= math.ceil(span):
        t = frame["submit_time"].to_numpy()
        checks.append(Check("span in days", span, float((t.max() - t.min()) / DAY_SECONDS), 0.1,
                            source))
    return checks


def _wcc_days(frame: pd.DataFrame, trace: str) -> Check:
    windows = day_windows(frame)
    rho = np.array([wcc_coverage(jobs_in_window(frame, w), w) for w in windows])
    target = wcc_stress_rate(trace)
    return Check("share of days with WCC coverage rho < 0.99 (Table 3)", target,
                 float((rho < 0.99).mean()), _binomial(target, len(windows), 0.02),
                 "TABLE3_RHO_BUCKETS")


def _table2_days(frame: pd.DataFrame, trace: str) -> list[Check]:
    checks = []
    day = np.floor(frame["submit_time"].to_numpy() / DAY_SECONDS)
    for (t, d), target in cal.TABLE2_COMPOSITION.items():
        if t == trace and (day == d).any():
            got = composition(frame[day == d])
            checks += [Check(f"day {d} share {name} (Table 2)", target[name], got[name], 0.005,
                             "TABLE2_COMPOSITION") for name in TABLE2_BUCKETS]
    return checks


def _venus_shapes(base: pd.DataFrame, model: TraceModel) -> list[Check]:
    checks = _table1(base, model.sizes, table1_targets("venus"), "TABLE1_SHARE_PCT")
    gpus = (base["num_instances"] * base["gpus_per_instance"]).to_numpy()
    for label, pct in cal.VENUS_GPU_NUM_JOB_SHARE_PCT.items():
        low, high = bucket_range(label)
        got = float(((gpus >= low) & (gpus <= high)).mean())
        checks.append(Check(f"job share with {label} GPUs", pct / 100, got,
                            _binomial(pct / 100, len(base), 0.002),
                            "VENUS_GPU_NUM_JOB_SHARE_PCT"))
    if model.coupling is not None:
        checks += _gpu_time_checks(base, model, model.coupling.buckets, venus_gpu_time_targets(),
                                   "{} GPUs", "VENUS_GPU_TIME_SHARE_PCT")
    points = {x: cal.VENUS_DURATION_CDF_PCT[x] / 100 for x in (128, 256, 1024, 8192, 65536)}
    checks += _cdf_points(base, points, "VENUS_DURATION_CDF_PCT")
    checks.append(Check("median duration, log10 s", math.log10(cal.VENUS_MEDIAN_GPU_RUN_TIME_S),
                        math.log10(float(base["duration"].median())), 0.05,
                        "VENUS_MEDIAN_GPU_RUN_TIME_S"))
    return checks


def _gfs_shapes(base: pd.DataFrame, model: TraceModel) -> list[Check]:
    checks = _table1(base, model.sizes, table1_targets("gfs"), "TABLE1_SHARE_PCT")
    jobs = sum(cal.GFS_JOBS_BY_GPU_REQUEST.values())
    g = base["gpus_per_instance"].to_numpy()
    for name, sizes in TABLE1_CLASSES.items():
        p = sum(cal.GFS_JOBS_BY_GPU_REQUEST[s] for s in sizes) / jobs
        checks.append(Check(f"job share {name}", p, float(np.isin(g, sizes).mean()),
                            _binomial(p, len(base), 0.002), "GFS_JOBS_BY_GPU_REQUEST"))
    workers = np.array(list(cal.GFS_WORKER_NUM_JOBS))
    counts = np.array(list(cal.GFS_WORKER_NUM_JOBS.values()), dtype=float)
    mean_w = float((workers * counts).sum() / counts.sum())
    sd_w = math.sqrt(float((workers**2 * counts).sum() / counts.sum()) - mean_w**2)
    w = base["num_instances"].to_numpy()
    checks.append(Check("mean instances per job", mean_w, float(w.mean()),
                        0.02 + SIGMAS * sd_w / math.sqrt(len(base)), "GFS_WORKER_NUM_JOBS"))
    buckets = Buckets("instances", tuple(cal.GFS_GPU_SECONDS_SHARE_BY_WORKERS))
    index = buckets.of(base["gpus_per_instance"].to_numpy(), w)
    for b, label in enumerate(buckets.labels):
        lo, hi = bucket_range(label)
        p = float(counts[(workers >= lo) & (workers <= hi)].sum() / counts.sum())
        checks.append(Check(f"job share with w {label}", p, float((index == b).mean()),
                            _binomial(p, len(base), 0.002), "GFS_WORKER_NUM_JOBS"))
    knots = model.durations
    inner = dict(zip(knots.seconds[1:-1], knots.cdf[1:-1], strict=True))
    checks += _cdf_points(base, inner, "GFS_DURATION_QUANTILES_S/_BUCKET_SHARES")
    if model.coupling is None:  # gfs-synth-indep: not fitted to the joint's targets
        return checks
    wide = int((w > WIDE_JOB_INSTANCES).sum())
    target = cal.GFS_WIDE_JOB_G8_SHARE
    one_gpu = w[base["gpus_per_instance"].to_numpy() == 1]
    return checks + [
        Check(f"share of w > {WIDE_JOB_INSTANCES} jobs at g = 8", target, wide_job_g8_share(base),
              _binomial(target, wide, 0.02), "GFS_WIDE_JOB_G8_SHARE"),
        Check("widest 1-GPU gang (instances), at most", cal.GFS_MAX_WORKERS_AT_G1,
              float(one_gpu.max(initial=0)), 0.0, "GFS_MAX_WORKERS_AT_G1", rule="at_most"),
        *_gpu_time_checks(base, model, buckets, cal.GFS_GPU_SECONDS_SHARE_BY_WORKERS,
                          "w {}", "GFS_GPU_SECONDS_SHARE_BY_WORKERS"),
        *_gpu_time_checks(base, model, Buckets("gpus", tuple(gfs_demand_shares())),
                          gfs_demand_shares(), "{} GPUs", "GFS_GPU_SECONDS_SHARE_BY_DEMAND"),
    ]


#: Jobs of at least this many GPUs are the very wide gangs counted per day.
VERY_WIDE_GPUS = 256
#: Share of the real day's GPU-seconds a gfs-synth day may miss by (``compass.traces.load_match``).
LOAD_TOLERANCE = 0.15
#: Hour-of-day profile of GPUs active: largest allowed |generated - real| of profile / mean.
CONCURRENCY_PROFILE_TOLERANCE = 0.08
#: Concurrency statistics skip the first days (the synthetic trace starts empty) and need
#: this many days after them.
CONCURRENCY_WARMUP_DAYS = 7
CONCURRENCY_MIN_DAYS = 28


def active_gpus_by_hour(frame: pd.DataFrame) -> np.ndarray:
    """GPUs requested by the jobs active (submitted, not yet ended) at each whole hour from
    0 to the last submission, as the real hourly_concurrency table counts them."""
    gpus = (frame["num_instances"] * frame["gpus_per_instance"]).to_numpy(dtype=float)
    start = frame["submit_time"].to_numpy(dtype=float)
    end = start + frame["duration"].to_numpy(dtype=float)
    hours = np.arange(int(start.max() // 3600) + 1) * 3600.0
    by_start, by_end = np.argsort(start), np.argsort(end)
    started = np.concatenate([[0.0], np.cumsum(gpus[by_start])])
    ended = np.concatenate([[0.0], np.cumsum(gpus[by_end])])
    return (started[np.searchsorted(start[by_start], hours, side="right")]
            - ended[np.searchsorted(end[by_end], hours, side="right")])


def load_checks(frame: pd.DataFrame) -> list[Check]:
    """gfs-synth's load beside the real aggregates: GPU-seconds per day, very wide gangs per
    day, and (on traces of CONCURRENCY_MIN_DAYS days past the warm-up) the shape of the
    hourly concurrency."""
    day = np.floor(frame["submit_time"].to_numpy() / DAY_SECONDS).astype(np.int64)
    gpus = (frame["num_instances"] * frame["gpus_per_instance"]).to_numpy()
    load = pd.Series(gpus * frame["duration"].to_numpy(dtype=float)).groupby(day).sum()
    ratio = np.array([load[d] / real_day_gpu_seconds(int(d)) for d in load.index])
    wide = cal.GFS_JOBS_AT_LEAST_129_GPUS / (cal.GFS_TOTAL_JOBS - cal.GFS_FRACTIONAL_GPU_JOBS)
    source = "GFS_GPU_SECONDS_BY_DAY x GFS_WHOLE_GPU_SECONDS_SHARE"
    checks = [
        Check("largest |day GPU-seconds / real day's - 1|", 0.0,
              float(np.abs(ratio - 1).max()), LOAD_TOLERANCE, source),
        Check("share of jobs with >= 129 GPUs", wide, float((gpus >= 129).mean()),
              _binomial(wide, gpus.size, 0.001), "GFS_JOBS_AT_LEAST_129_GPUS"),
        Check(f"share of jobs with >= {VERY_WIDE_GPUS} GPUs, at most the real 129+ share",
              wide, float((gpus >= VERY_WIDE_GPUS).mean()), 0.0,
              "GFS_JOBS_AT_LEAST_129_GPUS", rule="at_most"),
    ]
    first = int(day.min()) + CONCURRENCY_WARMUP_DAYS
    if int(day.max()) - first + 1 < CONCURRENCY_MIN_DAYS:
        return checks
    active = active_gpus_by_hour(frame)
    hour = np.arange(active.size)
    kept = (hour // 24 >= first) & (hour // 24 < int(day.max()))
    profile = np.bincount(hour[kept] % 24, weights=active[kept], minlength=24)
    profile = profile / profile.mean()
    daily = active[kept][: (kept.sum() // 24) * 24].reshape(-1, 24).mean(axis=1)
    real = np.array(cal.GFS_ACTIVE_GPUS_BY_HOUR_OF_DAY)
    return checks + [
        Check("hour-of-day profile of GPUs active, largest |generated - real| (x mean)", 0.0,
              float(np.abs(profile - real).max()), CONCURRENCY_PROFILE_TOLERANCE,
              "GFS_ACTIVE_GPUS_BY_HOUR_OF_DAY"),
        Check("day-to-day variation of daily mean GPUs active (CV)",
              cal.GFS_ACTIVE_GPUS_DAILY_CV, float(daily.std(ddof=1) / daily.mean()),
              cal.GFS_ACTIVE_GPUS_DAILY_CV, "GFS_ACTIVE_GPUS_DAILY_CV"),
    ]


def _physmix(frame: pd.DataFrame) -> list[Check]:
    model = physmix.template_model()
    checks = _table1(frame, model, physmix.physmix_class_targets(),
                     "TABLE1_SHARE_PCT (mean of GFS and Venus)")
    nodes = -(-frame["num_instances"] // (8 // frame["gpus_per_instance"]))
    too_big = int((nodes > physmix.PHYSMIX_NODES).sum())
    checks += [
        Check(f"jobs that do not fit {physmix.PHYSMIX_NODES} x 8 GPUs", 0, too_big, 0,
              "section 5.1"),
        Check("workload categories present", 5, frame["workload"].nunique(), 0, "section 5.3"),
    ]
    return checks


#: What a paper-regime kind is not checked on, and why: its knobs move it on purpose (the
#: base kinds, gfs-synth and venus-synth, keep every one of these checks).
REGIME_EXEMPT = {
    "load (GPU-seconds per real day, wide-gang shares, concurrency)":
        "duration_scale lengthens every job: the days carry more than the real days' "
        "GPU-seconds by design, and gang_cap removes the widest gangs",
    "shapes and durations (Table 1, job shares, GPU-time shares, duration CDF)":
        "subnode_share relabels full-node jobs, gang_cap trims wide gangs, duration_scale "
        "stretches the CDF",
    "Table 2 days and WCC-stress days":
        "the Table 2 days keep their sizes but gang_cap trims their widest 8-GPU gangs; "
        "longer jobs and relabelled sizes move the WCC coverage",
}


def _regime_checks(frame: pd.DataFrame, kind: str) -> list[Check]:
    """The knobs of a paper-regime kind, day by day: every gang within its day's cap, and
    (outside the Table 2 days, whose sizes stay) the sub-node share at least the knob's
    unless no single-instance full-node job is left to relabel."""
    knobs = kind_knobs(kind)
    day = np.floor(frame["submit_time"].to_numpy() / DAY_SECONDS).astype(np.int64)
    over, short = 0.0, 0.0
    for d in np.unique(day):
        jobs = frame[day == d]
        g, w = jobs["gpus_per_instance"].to_numpy(), jobs["num_instances"].to_numpy()
        if knobs.gang_cap is not None:
            limit = gang_limit(jobs, knobs.gang_cap, day_window(int(d)))
            over = max(over, float((g * w).max()) / limit)
        movable = ((g == G_DEFAULT) & (w == 1)).any()  # a job the knob could still relabel
        if movable and (TRACE_OF[kind], int(d)) not in cal.TABLE2_COMPOSITION:
            short = max(short, knobs.subnode_share - subnode_instance_share(g, w))
    source = "data/calibration/paper_regime.yaml"
    return [
        Check("widest gang / its day's gang_cap limit, at most", 1.0, over, 0.0, source,
              rule="at_most"),
        Check("largest shortfall of a day's sub-node instance share below subnode_share "
              "(days with a single-instance full-node job left)",
              0.0, short, 0.0, source, rule="at_most"),
    ]


def calibration_checks(frame: pd.DataFrame) -> pd.DataFrame:
    """Targets beside generated values for a synthetic trace (kind read from ``source``).

    Shape and duration rows need base days; a trace of Table 2 days only has none of them.
    """
    kind = _kind_of(frame)
    if kind == "physmix":
        checks = _physmix(frame)
    elif kind in REGIME_BASE:  # REGIME_EXEMPT says what is not checked, and why
        checks = [*_arrival_checks(frame, trace_model(MODEL_OF[kind]),
                                   f"{TRACE_OF[kind].upper()} arrivals by day/hour"),
                  *_regime_checks(frame, kind)]
    else:
        trace, model = TRACE_OF[kind], trace_model(MODEL_OF[kind])
        base = frame[frame["scenario"] == "base"]
        shapes = _venus_shapes if trace == "venus" else _gfs_shapes
        checks = [
            *(shapes(base, model) if len(base) else []),
            *_arrival_checks(frame, model, f"{trace.upper()} arrivals by day/hour"),
            _wcc_days(frame, trace),
            *_table2_days(frame, trace),
            *(load_checks(frame) if kind in LOAD_MATCHED else []),
        ]
    table = pd.DataFrame([asdict(c) for c in checks])
    table["ok"] = [c.ok for c in checks]
    return table
