"""Intervals over samples: the paired bootstrap behind every lead the report judges, and
the Student-t intervals (the openb study's busy days and seeds) and the Wilson interval of a
proportion (the operating regime's stalled shares) beside it: every statistic of the
experiments lives here.

A *sample* is one replay of the same jobs under every scheduler: a (day, seed) pair on a
synthetic trace, a day on a real one. Leads compare schedulers on the same samples, so their
interval comes from a *paired* bootstrap: resample the samples with replacement, keep each
sample's values together, and recompute the statistic (Efron and Tibshirani, 1993, ch. 13;
percentile interval). Sample-to-sample variation that every scheduler shares (a busy day,
a heavy seed) cancels in the paired differences instead of widening the interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Resamples of every bootstrap; the interval's Monte Carlo error is well under its width.
RESAMPLES = 10_000
#: Two-sided coverage of every interval.
LEVEL = 0.95
#: Seed of the bootstrap's own random stream (the same data give the same interval).
BOOTSTRAP_SEED = 20_260_925


@dataclass(frozen=True)
class Interval:
    """A statistic over ``n`` samples with its ``level`` percentile interval [low, high];
    low and high are NaN with fewer than two samples (no interval can be drawn)."""

    value: float
    low: float
    high: float
    n: int
    level: float = LEVEL

    @property
    def defined(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))


def _percentiles(stats: np.ndarray, level: float) -> tuple[float, float]:
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(stats, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_mean(values: np.ndarray, *, resamples: int = RESAMPLES, level: float = LEVEL,
                   seed: int = BOOTSTRAP_SEED) -> Interval:
    """The mean of ``values`` (one per sample) with its percentile bootstrap interval."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0 or np.isnan(x).any():
        raise ValueError("bootstrap_mean needs a non-empty 1-d array without NaN")
    if x.size < 2:
        return Interval(float(x.mean()), math.nan, math.nan, int(x.size), level)
    idx = np.random.default_rng(seed).integers(0, x.size, size=(resamples, x.size))
    return Interval(float(x.mean()), *_percentiles(x[idx].mean(axis=1), level), int(x.size),
                    level)


@dataclass(frozen=True)
class Lead:
    """The reference's lead over the strongest of several baselines (positive: the reference
    is better), its interval, which baseline is strongest on the full sample set, and the
    lead relative to that baseline's mean (%)."""

    interval: Interval
    strongest: int
    baseline_mean: float

    @property
    def relative_pct(self) -> float:
        if self.baseline_mean == 0 or math.isnan(self.baseline_mean):
            return math.nan
        return 100 * self.interval.value / abs(self.baseline_mean)


def paired_lead(reference: np.ndarray, baselines: np.ndarray, lower_is_better: bool, *,
                resamples: int = RESAMPLES, level: float = LEVEL,
                seed: int = BOOTSTRAP_SEED) -> Lead:
    """Lead of ``reference`` (n samples) over the strongest column of ``baselines`` (n x k).

    The statistic is min_j mean_i d_ij with d_ij = +-(baseline_ij - reference_i) (the sign
    makes better positive): the lead over whichever baseline is strongest *on the resample*,
    so the choice of the strongest baseline is part of what the interval covers.
    """
    ref = np.asarray(reference, dtype=float)
    base = np.asarray(baselines, dtype=float)
    if base.ndim == 1:
        base = base[:, None]
    if ref.ndim != 1 or base.shape[0] != ref.size or ref.size == 0 or base.shape[1] == 0:
        raise ValueError("paired_lead needs n reference values and an n x k baseline array")
    if np.isnan(ref).any() or np.isnan(base).any():
        raise ValueError("paired_lead needs complete samples (drop those with a NaN first)")
    diff = (base - ref[:, None]) * (1.0 if lower_is_better else -1.0)
    means = diff.mean(axis=0)
    strongest = int(np.argmin(means))
    value = float(means[strongest])
    if ref.size < 2:
        interval = Interval(value, math.nan, math.nan, int(ref.size), level)
    else:
        idx = np.random.default_rng(seed).integers(0, ref.size, size=(resamples, ref.size))
        stats = diff[idx].mean(axis=1).min(axis=1)
        interval = Interval(value, *_percentiles(stats, level), int(ref.size), level)
    return Lead(interval, strongest, float(base[:, strongest].mean()))


def direction(interval: Interval | None) -> str:
    """Whether a lead's interval lies above zero (``ahead``: the reference is better), below
    it (``behind``), or admits both (``undecided``); one sample gives the sign alone, marked
    so; "" for a value that is not a lead."""
    if interval is None or math.isnan(interval.value):
        return ""
    if not interval.defined:
        return ("ahead" if interval.value > 0 else "behind" if interval.value < 0
                else "tied") + " (one sample)"
    if interval.low > 0:
        return "ahead"
    return "behind" if interval.high < 0 else "undecided"


#: The fewest samples for an interval verdict: with fewer, a 95 % percentile interval is
#: little more than the range of the samples, and a verdict is at most "inconclusive".
MIN_SAMPLES = 5
#: The classes of one comparison against a practical-equivalence margin m. The sign is
#: decided first: the whole interval above zero is a win, below zero a loss; otherwise a
#: tie when the whole interval lies inside [-m, m], else undecided. A margin can then never
#: swallow an effect whose sign the samples settle.
CLASSES = ("win", "tie", "loss", "undecided")


def classify(interval: Interval, margin: float) -> str:
    """A lead's class (``CLASSES``) against the margin ``margin`` >= 0: decided only with an
    interval over at least ``MIN_SAMPLES`` samples, else "undecided"."""
    if not interval.defined or interval.n < MIN_SAMPLES:
        return "undecided"
    if interval.low > 0:
        return "win"
    if interval.high < 0:
        return "loss"
    if -margin <= interval.low and interval.high <= margin:
        return "tie"
    return "undecided"


def lead_steps(reference: np.ndarray, baselines: np.ndarray, lower_is_better: bool, *,
               resamples: int = RESAMPLES, level: float = LEVEL,
               seed: int = BOOTSTRAP_SEED) -> tuple[np.ndarray, list[Interval]]:
    """Leads at m conditions on the same n samples and the steps between them.

    ``reference`` is n x m (a sample's value at each condition, e.g. each eta), ``baselines``
    n x m x k. The lead at each condition is ``paired_lead``'s (over the strongest baseline,
    re-chosen per resample); each step lead[j + 1] - lead[j] gets its interval from one
    joint resampling of the samples, so that what the conditions share cancels. Returns
    (the m leads, the m - 1 step intervals)."""
    ref = np.asarray(reference, dtype=float)
    base = np.asarray(baselines, dtype=float)
    if ref.ndim != 2 or base.shape[:2] != ref.shape or base.ndim != 3 or ref.shape[0] == 0:
        raise ValueError("lead_steps needs an n x m reference and an n x m x k baseline array")
    if np.isnan(ref).any() or np.isnan(base).any():
        raise ValueError("lead_steps needs complete samples (drop those with a NaN first)")
    diff = (base - ref[:, :, None]) * (1.0 if lower_is_better else -1.0)
    leads = diff.mean(axis=0).min(axis=1)
    n = ref.shape[0]
    if n < 2:
        return leads, [Interval(float(s), math.nan, math.nan, n, level)
                       for s in np.diff(leads)]
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    steps = np.diff(diff[idx].mean(axis=1).min(axis=2), axis=1)
    return leads, [Interval(float(s), *_percentiles(steps[:, j], level), n, level)
                   for j, s in enumerate(np.diff(leads))]


def unpaired_lead_steps(groups: Sequence[tuple[np.ndarray, np.ndarray]], lower_is_better: bool,
                        *, resamples: int = RESAMPLES, level: float = LEVEL,
                        seed: int = BOOTSTRAP_SEED) -> tuple[np.ndarray, list[Interval]]:
    """Leads measured on *different* samples (e.g.
    different days): each group (reference n_j, baselines n_j x k) is resampled on its own,
    its lead over the strongest baseline re-chosen per resample (as ``paired_lead``), and
    each step lead[j + 1] - lead[j] gets its interval from the differences of those
    resampled leads. ``n`` of a step is the smaller of its two groups. Returns (the leads,
    the steps' intervals)."""
    rng = np.random.default_rng(seed)
    stats, points, sizes = [], [], []
    for reference, baselines in groups:
        ref = np.asarray(reference, dtype=float)
        base = np.asarray(baselines, dtype=float).reshape(ref.size, -1)
        diff = (base - ref[:, None]) * (1.0 if lower_is_better else -1.0)
        points.append(float(diff.mean(axis=0).min()))
        sizes.append(ref.size)
        idx = rng.integers(0, ref.size, size=(resamples, ref.size))
        stats.append(diff[idx].mean(axis=1).min(axis=1))
    out = []
    for j in range(len(groups) - 1):
        n = min(sizes[j], sizes[j + 1])
        step = points[j + 1] - points[j]
        if n < 2:
            out.append(Interval(step, math.nan, math.nan, n, level))
        else:
            out.append(Interval(step, *_percentiles(stats[j + 1] - stats[j], level), n, level))
    return np.array(points), out


# ------------------------------------------------------------------ Student-t intervals
def t_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the Student-t interval of the mean at ``LEVEL`` (NaN if < 2)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    # imported here: scipy.stats costs about 0.4 s to import, and every simulate step of the
    # pipeline loads this module (through compass.experiments) without ever needing it
    from scipy import stats as scipy_stats

    half = float(scipy_stats.t.ppf(0.5 + LEVEL / 2, x.size - 1) * x.std(ddof=1)
                 / math.sqrt(x.size))
    return mean, mean - half, mean + half


def t_interval_table(table: pd.DataFrame, by: Sequence[str],
                     measures: Sequence[str]) -> pd.DataFrame:
    """Per group of ``by`` and measure: the mean over the group's rows with its Student-t
    interval (``t_interval``) and n."""
    rows = []
    for key, part in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for m in measures:
            mean, lo, hi = t_interval(part[m])
            rows.append({**dict(zip(by, key)), "measure": m, "mean": mean, "low": lo,
                         "high": hi, "n": int(part[m].notna().sum())})
    return pd.DataFrame(rows)


def t_paired_leads(table: pd.DataFrame, by: Sequence[str], sample: str, reference: str,
                   baselines: Sequence[str], measures: Sequence[str],
                   lower_is_better: Mapping[str, bool]) -> pd.DataFrame:
    """The reference's lead over the strongest baseline, paired by ``sample`` (seed or day),
    with the Student-t interval of the mean paired difference.

    Per group and measure the strongest baseline is the one with the best mean; the lead of
    each sample is (baseline - reference) for lower-is-better measures, else the opposite,
    so a positive lead means the reference is better. Mean and interval over the samples.
    """
    rows = []
    for key, part in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for m in measures:
            wide_table = part.pivot_table(index=sample, columns="scheduler", values=m)
            base = [b for b in baselines if b in wide_table and wide_table[b].notna().any()]
            row = {**dict(zip(by, key)), "measure": m, "reference": reference,
                   "strongest_baseline": None, "lead": math.nan, "low": math.nan,
                   "high": math.nan, "n": 0}
            if reference in wide_table and base:
                means = wide_table[base].mean()
                best = str(means.idxmin() if lower_is_better[m] else means.idxmax())
                diff = wide_table[best] - wide_table[reference]
                lead, lo, hi = t_interval(diff if lower_is_better[m] else -diff)
                row.update(strongest_baseline=best, lead=lead, low=lo, high=hi,
                           n=int(diff.notna().sum()))
            rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ proportions
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion k / n."""
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
