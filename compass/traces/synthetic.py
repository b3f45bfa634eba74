"""Seeded synthetic traces, the offline default: ``venus-synth``, ``gfs-synth``, ``physmix``.

Each day is planned, then generated from the calibrated models (``compass.traces.models``):
its job count is the calibrated count of that calendar day, shapes come from the trace's
joint (g, w) pmf, durations from its duration model (depending on shape through the model's
coupling), arrivals follow the hour-of-day profile. ``gfs-synth`` then re-pairs each day's
durations with its shapes so the day submits the real day's GPU-seconds (within 5 %;
``compass.traces.load_match``). ``gfs-synth-indep`` is the earlier GFS
generator (width independent of g inside Table 1's classes, durations independent of shape),
kept for workload-sensitivity comparisons; it draws from the same random streams as
``gfs-synth``, so both have the same days, job counts and arrival times. Three kinds of day:

* ``base``: the calibrated model as is;
* ``table2``: the days of paper Table 2 (Venus 92, GFS 26 and 58), whose instance-size
  ratios are pushed to that row exactly (the model reweighted, then single-instance jobs
  relabelled until the instance counts match to the nearest instance);
* ``wcc-stress``: Table 3 puts 51 of 564 Venus (day, eta) pairs at WCC coverage rho < 0.99
  (GFS: none). Venus days become stress days at that rate; a stress day draws a target rho
  from those buckets (by their counts, uniform inside one), and a burst of 5-GPU instances,
  more than three times the 1-GPU instances active then, runs for (1 - rho) of the day, so
  the WCC fails there. The bucket [0.99, 1) is left to the base days, where an unpaired
  FUF job now and then breaks the WCC briefly by itself (docs/traces.md gives the rates).

``gfs-paper-regime`` and ``venus-paper-regime`` are sensitivity traces: ``gfs-synth`` and
``venus-synth`` (same streams, so the same days before reshaping) with each day reshaped by
the fitted knobs of ``data/calibration/paper_regime.yaml`` (``compass.traces.regime_knobs``)
toward the regime the paper reports for its baselines. Any kind takes explicit ``knobs``.

Randomness: one numpy stream per (seed, kind, day, purpose), so a day is the same whichever
range it is generated in. Every frame says ``synthetic:<kind>`` in its ``source`` column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from compass.traces import calibration as cal
from compass.traces import physmix
from compass.traces.load_match import match_load, real_day_gpu_seconds
from compass.traces.models import SizeModel, TraceModel, trace_model
from compass.traces.regime_knobs import RegimeKnobs, read_knobs, reshape_day
from compass.traces.schema import CANONICAL_COLUMNS, validate_trace
from compass.traces.windows import DAY_SECONDS, TABLE2_BUCKETS, active_instances, day_window

KINDS = ("venus-synth", "gfs-synth", "physmix", "gfs-synth-indep", "gfs-paper-regime",
         "venus-paper-regime")
#: The paper-regime kinds and the calibrated kind each reshapes (its days, streams, model).
REGIME_BASE = {"gfs-paper-regime": "gfs-synth", "venus-paper-regime": "venus-synth"}
#: Prefix of the ``source`` column of every synthetic frame.
SYNTHETIC_PREFIX = "synthetic:"
#: Phys-Mix jobs per day by default: about 1.1 times the 4 x 8 cluster's GPU-hours.
PHYSMIX_JOBS_PER_DAY = 150
#: Instances per job of a stress burst (5-GPU instances, one per node).
STRESS_WIDTH = 4
#: Instance size of a stress burst: n5 weighs 3 in the WCC (eq. 9).
STRESS_SIZE = 5

Scenario = Literal["base", "table2", "wcc-stress"]
#: The calibrated model (``compass.traces.models.trace_model``) of each kind, and the paper
#: trace it stands for (Table 1-3 targets, the WCC-stress rate).
MODEL_OF = {"venus-synth": "venus", "gfs-synth": "gfs", "gfs-synth-indep": "gfs-indep",
            "gfs-paper-regime": "gfs", "venus-paper-regime": "venus"}
TRACE_OF = {"venus-synth": "venus", "gfs-synth": "gfs", "gfs-synth-indep": "gfs",
            "gfs-paper-regime": "gfs", "venus-paper-regime": "venus"}
#: Random-stream id per kind: gfs-synth-indep shares gfs-synth's streams (paired traces, and
#: the same output as the earlier gfs-synth for a seed).
#: (A paper-regime kind draws from its base kind's streams, ``REGIME_BASE``.)
_KIND_ID = {"venus-synth": 0, "gfs-synth": 1, "physmix": 2, "gfs-synth-indep": 1}
_PURPOSE = {"plan": 0, "shape": 1, "duration": 2, "arrival": 3, "composition": 4, "stress": 5,
            "load": 6, "regime": 7}
#: Kinds whose days carry the real day's submitted GPU-seconds (``compass.traces.load_match``).
#: gfs-paper-regime is drawn load-matched too, then reshaped: it carries more load on
#: purpose (``duration_scale``), so it is not listed here.
LOAD_MATCHED = ("gfs-synth",)


@dataclass(frozen=True)
class DayPlan:
    """What one synthetic day is made to be."""

    day: int
    jobs: int
    scenario: Scenario
    composition: Mapping[str, float] | None = None
    target_rho: float | None = None


def _rng(seed: int, kind: str, day: int, purpose: str) -> np.random.Generator:
    return np.random.default_rng([seed, _KIND_ID[kind], day, _PURPOSE[purpose]])


#: Stress days aim below this coverage; above it, base days supply rho < 1 by themselves.
STRESS_RHO_CEILING = 0.99


def _stress_buckets(trace: str) -> dict[tuple[float, float], int]:
    """Table 3's (day, eta) counts of the rho buckets that lie below STRESS_RHO_CEILING."""
    out = {}
    for label, count in cal.TABLE3_RHO_BUCKETS[trace].items():
        if label != "1.0":
            lo, hi = (float(x) for x in label.strip("[)").split(","))
            if hi <= STRESS_RHO_CEILING:
                out[(lo, hi)] = count
    return out


def wcc_stress_rate(trace: str) -> float:
    """Share of Table 3's (day, eta) pairs with rho < STRESS_RHO_CEILING."""
    return sum(_stress_buckets(trace).values()) / sum(cal.TABLE3_RHO_BUCKETS[trace].values())


def _stress_rho(rng: np.random.Generator, trace: str) -> float:
    """A rho drawn like Table 3's buckets below the ceiling, uniform inside the bucket."""
    buckets = _stress_buckets(trace)
    labels = list(buckets)
    counts = np.array([buckets[k] for k in labels], dtype=float)
    lo, hi = labels[int(rng.choice(len(labels), p=counts / counts.sum()))]
    return float(lo + (hi - lo) * rng.random())


def _trace_days(kind: str, days: int | None, start_day: int) -> range:
    if start_day < 0:
        raise ValueError(f"start_day must be >= 0, got {start_day}")
    if days is None:
        span = 1 if kind == "physmix" else trace_model(MODEL_OF[kind]).arrivals.span_days
        days = max(int(np.ceil(span)) - start_day, 0)
    if days < 1:
        raise ValueError(f"days must be >= 1, got {days}")
    return range(start_day, start_day + days)


def day_plans(kind: str, days: int | None = None, start_day: int = 0,
              seed: int = 0) -> list[DayPlan]:
    """The plan of each day ``start_day .. start_day + days - 1`` (None: to the span's end)."""
    if kind not in KINDS:
        raise ValueError(f"unknown synthetic kind {kind!r}; choose one of {KINDS}")
    span = _trace_days(kind, days, start_day)
    if kind == "physmix":
        return [DayPlan(d, PHYSMIX_JOBS_PER_DAY, "base") for d in span]
    trace = TRACE_OF[kind]
    arrivals = trace_model(MODEL_OF[kind]).arrivals
    rate = wcc_stress_rate(trace)
    plans = []
    for d in span:
        jobs = arrivals.jobs_on(d)
        rng = _rng(seed, REGIME_BASE.get(kind, kind), d, "plan")
        if (trace, d) in cal.TABLE2_COMPOSITION:
            plans.append(DayPlan(d, jobs, "table2", cal.TABLE2_COMPOSITION[(trace, d)]))
        elif jobs and rng.random() < rate:
            plans.append(DayPlan(d, jobs, "wcc-stress", target_rho=_stress_rho(rng, trace)))
        else:
            plans.append(DayPlan(d, jobs, "base"))
    return plans


def _match_composition(g: np.ndarray, w: np.ndarray, targets: Mapping[str, float],
                       sizes: SizeModel, rng: np.random.Generator) -> np.ndarray:
    """Relabel single-instance jobs until the Table 2 instance counts meet ``targets``."""
    names = list(TABLE2_BUCKETS)
    bucket_of = np.zeros(max(max(s) for s in TABLE2_BUCKETS.values()) + 1, dtype=np.int64)
    for b, name in enumerate(names):
        bucket_of[list(TABLE2_BUCKETS[name])] = b
    bucket = bucket_of[g]
    total = int(w.sum())
    want = np.round(np.array([targets[n] for n in names]) * total).astype(np.int64)
    want[np.argmax(want)] += total - want.sum()
    surplus = np.bincount(bucket, weights=w, minlength=len(names)).astype(np.int64) - want
    movers = np.concatenate([
        rng.permutation(np.flatnonzero((bucket == b) & (w == 1)))[: max(surplus[b], 0)]
        for b in range(len(names))
    ]).astype(np.int64)
    destinations = np.repeat(np.arange(len(names)), np.maximum(-surplus, 0))
    n = min(movers.size, destinations.size)
    out = g.copy()
    single = sizes.w == 1
    for b, name in enumerate(names):
        chosen = movers[:n][destinations[:n] == b]
        choices = single & np.isin(sizes.g, TABLE2_BUCKETS[name])
        p = sizes.p[choices] / sizes.p[choices].sum()
        out[chosen] = rng.choice(sizes.g[choices], size=chosen.size, p=p)
    return out


def _inject_wcc_stress(g: np.ndarray, w: np.ndarray, submit: np.ndarray, duration: np.ndarray,
                       day: int, rho: float, rng: np.random.Generator) -> None:
    """Turn a few jobs into a 5-GPU burst over (1 - rho) of the day, in place."""
    length = int(round((1 - rho) * DAY_SECONDS))
    if length == 0:
        return
    start = day * DAY_SECONDS + int(rng.integers(0, int(DAY_SECONDS) - length + 1))
    frame = pd.DataFrame({"submit_time": submit, "duration": duration,
                          "num_instances": w, "gpus_per_instance": g})
    counts = active_instances(frame)
    inside = (counts.times >= start) & (counts.times < start + length)
    n1_peak = int(max(counts.at(start)[1], counts.values[inside, 1].max(initial=0)))
    burst = n1_peak // 3 + 1
    jobs = min(-(-burst // STRESS_WIDTH), g.size)
    victims = rng.choice(g.size, size=jobs, replace=False)
    widths = np.full(jobs, burst // jobs)
    widths[: burst % jobs] += 1
    g[victims], w[victims] = STRESS_SIZE, widths
    submit[victims], duration[victims] = start, length


def _generate_day(kind: str, model: TraceModel | None, plan: DayPlan,
                  seed: int, knobs: RegimeKnobs) -> dict[str, np.ndarray]:
    n, day = plan.jobs, plan.day
    kind = REGIME_BASE.get(kind, kind)
    arrival = _rng(seed, kind, day, "arrival")
    if model is None:
        g, w, duration, workload = physmix.sample_jobs(_rng(seed, kind, day, "shape"),
                                                       _rng(seed, kind, day, "duration"), n)
        hours = np.full(24, 1 / 24)
    else:
        sizes = (model.sizes.pushed(plan.composition, TABLE2_BUCKETS)
                 if plan.composition else model.sizes)
        g, w = sizes.sample(_rng(seed, kind, day, "shape"), n)
        if plan.composition:
            g = _match_composition(g, w, plan.composition, sizes,
                                   _rng(seed, kind, day, "composition"))
        duration = model.sample_durations(_rng(seed, kind, day, "duration"), g, w)
        if kind in LOAD_MATCHED:
            duration = match_load(g, w, duration, real_day_gpu_seconds(day), model.durations,
                                  _rng(seed, kind, day, "load"))
        workload = None
        hours = model.arrivals.hours_on(day)
    hour = arrival.choice(24, size=n, p=hours)
    submit = day * DAY_SECONDS + hour * 3600.0 + np.floor(arrival.random(n) * 3600.0)
    if plan.target_rho is not None:
        _inject_wcc_stress(g, w, submit, duration, day, plan.target_rho,
                           _rng(seed, kind, day, "stress"))
    if not knobs.identity:  # a Table 2 day keeps its instance mix
        frame = reshape_day(pd.DataFrame({"submit_time": submit, "duration": duration,
                                          "num_instances": w, "gpus_per_instance": g}),
                            knobs, _rng(seed, kind, day, "regime"), day_window(day),
                            keep_sizes=plan.composition is not None)
        duration, w, g = (frame[c].to_numpy() for c in ("duration", "num_instances",
                                                        "gpus_per_instance"))
    columns = {"submit_time": submit, "duration": duration, "num_instances": w,
               "gpus_per_instance": g, "day": np.full(n, day),
               "scenario": np.full(n, plan.scenario, dtype=object)}
    if workload is not None:
        columns["workload"] = workload
    return columns


def kind_knobs(kind: str) -> RegimeKnobs:
    """The knobs a kind is reshaped by: the fitted ones of a paper-regime kind
    (``data/calibration/paper_regime.yaml``), none for the others."""
    if kind not in REGIME_BASE:
        return RegimeKnobs()
    fitted = read_knobs()
    if kind not in fitted:
        raise ValueError(f"{kind}: no fitted knobs in data/calibration/paper_regime.yaml "
                         "(the regime fit writes them: docs/traces.md, 'The fit')")
    return fitted[kind]


def synthesize(kind: str, days: int | None = None, start_day: int = 0,
               seed: int = 0, knobs: RegimeKnobs | None = None) -> pd.DataFrame:
    """A synthetic trace of ``kind`` over days ``start_day ..`` (None: to the span's end),
    each day reshaped by ``knobs`` (None: the kind's own, ``kind_knobs``).

    Canonical columns plus ``source_id`` ("<kind>/s<seed>/d<day>/<k>"), ``source``
    ("synthetic:<kind>"), ``scenario`` (the day's plan) and, for physmix, ``workload``.
    """
    plans = day_plans(kind, days, start_day, seed)
    model = None if kind == "physmix" else trace_model(MODEL_OF[kind])
    knobs = kind_knobs(kind) if knobs is None else knobs
    parts = [_generate_day(kind, model, plan, seed, knobs) for plan in plans]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    index_in_day = np.concatenate([np.arange(p["day"].size) for p in parts])
    order = np.lexsort((index_in_day, data["day"], data["submit_time"]))
    frame = pd.DataFrame({k: v[order] for k, v in data.items()})
    frame.insert(0, "job_id", np.arange(len(frame), dtype=np.int64))
    day, k = frame.pop("day").to_numpy(), index_in_day[order]
    frame["source_id"] = pd.array([f"{kind}/s{seed}/d{d}/{i}" for d, i in zip(day, k, strict=True)],
                                  dtype="string")
    frame["source"] = SYNTHETIC_PREFIX + kind
    extras = [c for c in ("scenario", "workload") if c in frame]
    frame = frame[[*CANONICAL_COLUMNS, "source_id", "source", *extras]]
    return validate_trace(frame, source=f"{SYNTHETIC_PREFIX}{kind}")
