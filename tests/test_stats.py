"""The paired bootstrap (compass.experiments.stats) on distributions with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.experiments.stats import (
    CLASSES,
    MIN_SAMPLES,
    Interval,
    bootstrap_mean,
    classify,
    lead_steps,
    paired_lead,
    unpaired_lead_steps,
)


def test_a_constant_has_a_zero_width_interval_at_itself():
    iv = bootstrap_mean(np.full(7, 3.5))
    assert (iv.value, iv.low, iv.high, iv.n) == (3.5, 3.5, 3.5, 7)


def test_one_sample_has_no_interval():
    iv = bootstrap_mean(np.array([2.0]))
    assert iv.value == 2.0 and iv.n == 1 and not iv.defined
    lead = paired_lead(np.array([10.0]), np.array([[12.0, 15.0]]), lower_is_better=True)
    assert lead.interval.value == 2.0 and not lead.interval.defined and lead.strongest == 0


def test_the_interval_matches_the_normal_theory_width():
    """For n = 400 draws of N(0, 1) the percentile interval is the mean +- 1.96 / 20 to
    within a few per cent (the bootstrap's and the sample's own error)."""
    x = np.random.default_rng(1).normal(0.0, 1.0, 400)
    iv = bootstrap_mean(x)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert iv.low == pytest.approx(x.mean() - half, abs=0.1 * half)
    assert iv.high == pytest.approx(x.mean() + half, abs=0.1 * half)


def test_coverage_is_near_the_nominal_level():
    """Over 300 data sets of 30 exponential draws (mean 1), the 95 % interval holds the true
    mean in 88-98 % of them (the percentile bootstrap undercovers slightly on skewed data at
    small n; far outside this band would be a bug)."""
    rng = np.random.default_rng(7)
    hits = sum(iv.low <= 1.0 <= iv.high for iv in (
        bootstrap_mean(rng.exponential(1.0, 30), resamples=2000, seed=s) for s in range(300)))
    assert 0.88 <= hits / 300 <= 0.98


def test_pairing_cancels_what_the_samples_share():
    """Days differ by thousands of seconds, the reference is better by exactly 10 s on each:
    the paired interval is [10, 10]; the unpaired difference of means would span thousands."""
    days = np.random.default_rng(3).normal(20_000, 5_000, 12)
    lead = paired_lead(days, (days + 10.0)[:, None], lower_is_better=True)
    assert lead.interval.value == pytest.approx(10.0)
    assert lead.interval.low == pytest.approx(10.0) and lead.interval.high == pytest.approx(10.0)
    assert lead.relative_pct == pytest.approx(100 * 10.0 / (days + 10.0).mean())


def test_higher_is_better_flips_the_sign():
    ref = np.array([0.80, 0.82, 0.81])
    lead = paired_lead(ref, np.array([[0.78], [0.80], [0.79]]), lower_is_better=False)
    assert lead.interval.value == pytest.approx(0.02)
    assert lead.interval.low == pytest.approx(0.02) and lead.interval.high == pytest.approx(0.02)


def test_the_strongest_baseline_is_chosen_per_resample():
    """Two baselines that each win half the samples: the lead over the strongest (min over
    baselines of the mean difference) is never above either single-baseline lead."""
    ref = np.zeros(8)
    base = np.array([[1, 9], [1, 9], [1, 9], [1, 9], [9, 1], [9, 1], [9, 1], [9, 1]], float)
    lead = paired_lead(ref, base, lower_is_better=True)
    assert lead.interval.value == 5.0
    for j in range(2):
        single = paired_lead(ref, base[:, j], lower_is_better=True).interval
        assert lead.interval.low <= single.low and lead.interval.high <= single.high
    assert lead.interval.high < 9.0   # a resample never beats the weaker choice of both


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_mean(np.array([1.0, math.nan]))
    with pytest.raises(ValueError, match="complete samples"):
        paired_lead(np.array([1.0, 2.0]), np.array([[1.0], [math.nan]]), True)
    with pytest.raises(ValueError, match="n x k"):
        paired_lead(np.array([1.0, 2.0]), np.ones((3, 1)), True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=40),
       st.integers(0, 2**31))
def test_the_interval_lies_within_the_data_and_is_reproducible(values, seed):
    x = np.array(values)
    iv = bootstrap_mean(x, resamples=500, seed=seed)
    slack = 1e-9 * max(1.0, float(np.abs(x).max()))
    assert x.min() - slack <= iv.low <= iv.high <= x.max() + slack
    assert iv.n == x.size and bootstrap_mean(x, resamples=500, seed=seed) == iv


def test_a_lead_is_classed_sign_first_then_against_its_margin():
    """Wholly above zero: win; wholly below: loss (whatever the margin); spanning zero and
    inside [-m, m]: tie; spanning zero and reaching past a bound: undecided; fewer than
    MIN_SAMPLES samples: undecided whatever the interval."""
    n = MIN_SAMPLES
    assert classify(Interval(5.0, 2.0, 8.0, n), 1.0) == "win"
    assert classify(Interval(0.1, -0.5, 0.9, n), 1.0) == "tie"
    assert classify(Interval(-5.0, -8.0, -2.0, n), 1.0) == "loss"
    assert classify(Interval(1.0, 0.5, 3.0, n), 1.0) == "win"
    assert classify(Interval(1.0, -0.5, 3.0, n), 1.0) == "undecided"
    # the cells: a stall-inflated margin once made these a tie or undecided
    assert classify(Interval(-2_000.0, -5_783.0, -2.84, n), 7_000.0) == "loss"
    assert classify(Interval(-8.0, -13.4, -2.75, n), 18.5) == "loss"
    assert classify(Interval(-386.0, -741.0, -89.0, n), 3_000.0) == "loss"
    assert classify(Interval(0.004, 0.001, 0.008, n), 0.005) == "win"
    assert classify(Interval(5.0, 2.0, 8.0, n - 1), 1.0) == "undecided"
    assert classify(Interval(5.0, math.nan, math.nan, 1), 1.0) == "undecided"


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e3, 1e3), st.floats(0, 1e3), st.floats(0, 1e2), st.integers(2, 40))
def test_classes_are_exclusive_and_mirror_under_negation(low, width, margin, n):
    """Exactly one class; negating the interval swaps win and loss and keeps tie and
    undecided; a win's or loss's interval lies wholly outside +-margin."""
    iv = Interval(low + width / 2, low, low + width, n)
    mirror = Interval(-iv.value, -iv.high, -iv.low, n)
    got, back = classify(iv, margin), classify(mirror, margin)
    assert got in CLASSES
    assert back == {"win": "loss", "loss": "win"}.get(got, got)
    if got == "win":
        assert iv.low > 0 and n >= MIN_SAMPLES
    if got == "tie":
        assert -margin <= iv.low <= 0 <= iv.high <= margin
    if n >= MIN_SAMPLES and (iv.low > 0 or iv.high < 0):
        assert got in ("win", "loss")  # a margin never swallows a settled sign


def test_lead_steps_match_paired_lead_and_collapse_on_constant_leads():
    """Each condition's lead is ``paired_lead``'s; with every sample's leads the same (10, 25,
    45 s over the strongest of two baselines) the steps' intervals are the exact steps."""
    days = np.random.default_rng(5).normal(5_000, 1_000, 8)
    ref = np.stack([days, days + 100, days + 200], axis=1)
    base = np.stack([np.stack([ref[:, j] + gap, ref[:, j] + gap + 50], axis=1)
                     for j, gap in enumerate((10.0, 25.0, 45.0))], axis=1)
    leads, steps = lead_steps(ref, base, lower_is_better=True)
    assert leads == pytest.approx([10.0, 25.0, 45.0])
    for j in range(3):
        one = paired_lead(ref[:, j], base[:, j, :], lower_is_better=True).interval
        assert leads[j] == pytest.approx(one.value)
    assert [(s.value, s.low, s.high) for s in steps] == [
        pytest.approx((15.0, 15.0, 15.0)), pytest.approx((20.0, 20.0, 20.0))]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(2, 4), st.integers(1, 3), st.integers(0, 2**31))
def test_lead_steps_mirror_when_the_conditions_are_reversed(n, m, k, seed):
    """Reversing the conditions reverses the leads and negates every step and its interval
    (the same resamples)."""
    rng = np.random.default_rng(seed)
    ref, base = rng.normal(100, 10, (n, m)), rng.normal(105, 10, (n, m, k))
    leads, steps = lead_steps(ref, base, True, resamples=300, seed=seed)
    back_leads, back = lead_steps(ref[:, ::-1], base[:, ::-1], True, resamples=300, seed=seed)
    assert back_leads == pytest.approx(leads[::-1])
    for s, b in zip(steps, back[::-1]):
        assert s.n == n and b.value == pytest.approx(-s.value)
        assert b.low == pytest.approx(-s.high) and b.high == pytest.approx(-s.low)


def test_unpaired_steps_resample_each_group_alone():
    """Three groups (days) with constant per-sample leads 30, 20, 5 over the strongest of two
    baselines: the leads, and steps -10 and -15 with zero-width intervals, whatever the
    groups' sizes and levels; a one-sample group gives no interval."""
    rng = np.random.default_rng(2)
    groups = []
    for n, lead in ((6, 30.0), (9, 20.0), (5, 5.0)):
        ref = rng.normal(1_000 * n, 300, n)
        groups.append((ref, np.stack([ref + lead, ref + lead + 40], axis=1)))
    leads, steps = unpaired_lead_steps(groups, lower_is_better=True)
    assert leads == pytest.approx([30.0, 20.0, 5.0])
    assert [(s.value, s.low, s.high, s.n) for s in steps] == [
        pytest.approx((-10.0, -10.0, -10.0, 6)), pytest.approx((-15.0, -15.0, -15.0, 5))]
    _, one = unpaired_lead_steps([groups[0], (groups[1][0][:1], groups[1][1][:1])], True)
    assert one[0].n == 1 and not one[0].defined
