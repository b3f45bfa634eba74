"""A synthetic trace beside its calibration targets: one row per statistic, with a tolerance.

Tolerances are statistical: a floor plus four standard errors of the statistic for the
trace's size (binomial for job shares and CDF points, the delta method over the model's
(g, w) pmf for instance shares, whose jobs carry many instances). Shape and duration
statistics use the ``base`` days only (Table 2 and stress days are pushed on purpose);
counts per day, hour-of-day shares and the span use every day.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from compass.traces import calibration as cal
from compass.traces import physmix
from compass.traces.models import SizeModel, TraceModel, table1_targets, trace_model
from compass.traces.synthetic import KINDS, SYNTHETIC_PREFIX, wcc_stress_rate
from compass.traces.windows import (
    DAY_SECONDS,
    TABLE1_CLASSES,
    TABLE2_BUCKETS,
    class_shares,
    composition,
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

    @property
    def ok(self) -> bool:
        """Whether the generated value is within tolerance of the target."""
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


def _venus_shapes(base: pd.DataFrame) -> list[Check]:
    model = trace_model("venus")
    checks = _table1(base, model.sizes, table1_targets("venus"), "TABLE1_SHARE_PCT")
    gpus = (base["num_instances"] * base["gpus_per_instance"]).to_numpy()
    for label, pct in cal.VENUS_GPU_NUM_JOB_SHARE_PCT.items():
        lo, _, hi = label.lstrip(">").partition("-")
        low, high = (int(lo) + 1, math.inf) if label.startswith(">") else (int(lo), int(hi or lo))
        got = float(((gpus >= low) & (gpus <= high)).mean())
        checks.append(Check(f"job share with {label} GPUs", pct / 100, got,
                            _binomial(pct / 100, len(base), 0.002),
                            "VENUS_GPU_NUM_JOB_SHARE_PCT"))
    points = {x: cal.VENUS_DURATION_CDF_PCT[x] / 100 for x in (128, 256, 1024, 8192, 65536)}
    checks += _cdf_points(base, points, "VENUS_DURATION_CDF_PCT")
    checks.append(Check("median duration, log10 s", math.log10(cal.VENUS_MEDIAN_GPU_RUN_TIME_S),
                        math.log10(float(base["duration"].median())), 0.05,
                        "VENUS_MEDIAN_GPU_RUN_TIME_S"))
    return checks


def _gfs_shapes(base: pd.DataFrame) -> list[Check]:
    model = trace_model("gfs")
    checks = _table1(base, model.sizes, table1_targets("gfs"), "TABLE1_SHARE_PCT")
    jobs = sum(cal.GFS_JOBS_BY_GPU_REQUEST.values())
    g = base["gpus_per_instance"].to_numpy()
    for name, sizes in TABLE1_CLASSES.items():
        p = sum(cal.GFS_JOBS_BY_GPU_REQUEST[s] for s in sizes) / jobs
        checks.append(Check(f"job share {name}", p, float(np.isin(g, sizes).mean()),
                            _binomial(p, len(base), 0.002), "GFS_JOBS_BY_GPU_REQUEST"))
    workers = np.array(list(cal.GFS_WORKER_NUM_JOBS))
    counts = np.array(list(cal.GFS_WORKER_NUM_JOBS.values()), dtype=float)
    p1 = cal.GFS_WORKER_NUM_JOBS[1] / counts.sum()
    mean_w = float((workers * counts).sum() / counts.sum())
    sd_w = math.sqrt(float((workers**2 * counts).sum() / counts.sum()) - mean_w**2)
    w = base["num_instances"].to_numpy()
    checks += [
        Check("job share with 1 instance", p1, float((w == 1).mean()),
              _binomial(p1, len(base), 0.002), "GFS_WORKER_NUM_JOBS"),
        Check("mean instances per job", mean_w, float(w.mean()),
              0.02 + SIGMAS * sd_w / math.sqrt(len(base)), "GFS_WORKER_NUM_JOBS"),
    ]
    knots = model.durations
    inner = dict(zip(knots.seconds[1:-1], knots.cdf[1:-1], strict=True))
    return checks + _cdf_points(base, inner, "GFS_DURATION_QUANTILES_S/_BUCKET_SHARES")


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


def calibration_checks(frame: pd.DataFrame) -> pd.DataFrame:
    """Targets beside generated values for a synthetic trace (kind read from ``source``).

    Shape and duration rows need base days; a trace of Table 2 days only has none of them.
    """
    kind = _kind_of(frame)
    if kind == "physmix":
        checks = _physmix(frame)
    else:
        trace = "venus" if kind == "venus-synth" else "gfs"
        base = frame[frame["scenario"] == "base"]
        shapes = _venus_shapes if trace == "venus" else _gfs_shapes
        checks = [
            *(shapes(base) if len(base) else []),
            *_arrival_checks(frame, trace_model(trace), f"{trace.upper()} arrivals by day/hour"),
            _wcc_days(frame, trace),
            *_table2_days(frame, trace),
        ]
    table = pd.DataFrame([asdict(c) for c in checks])
    table["ok"] = [c.ok for c in checks]
    return table
