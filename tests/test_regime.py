"""The regime table (compass.experiments.studies.regime.operating): paper/regime.yaml read
whole, each measure on hand-built frames, the Wilson interval against scipy's binomial test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from compass.experiments.stats import wilson
from compass.experiments.studies.regime.operating import (
    BASELINES,
    STALL_QUEUE_S,
    before_after,
    beside_regimes,
    case_band,
    composition_band,
    eta_floor,
    read_regime,
    regime_rows,
    stalled_share,
)
from compass.traces.paths import repo_root

REGIME = repo_root() / "paper" / "regime.yaml"


def test_the_paper_values_are_the_texts():
    """Every quantity names where it is stated, and its value appears in those words."""
    quantities = {q.id: q for q in read_regime(REGIME)}
    assert quantities["composition-afr-baselines"].paper == (0.058, 0.324)
    assert quantities["composition-agu-baselines"].paper == (0.77, 0.90)
    assert quantities["case-partial-five"].paper == (60, 80)
    assert quantities["case-partial-fft"].paper == (25, 50)
    assert quantities["gfs-agu-compass-abs"].role == "held-out"
    assert {q.role for q in quantities.values() if q.schedulers != "compass-abs"} == {"regime"}
    for q in quantities.values():
        assert q.where.startswith(("section", "not stated")), q.id
        if isinstance(q.paper, tuple):
            words = q.where.replace("-", " ").replace(",", " ")
            assert all(f"{x:g}" in words for x in q.paper), q.id


def _runs(rows):
    return pd.DataFrame(rows, columns=["trace", "day", "eta", "seed", "scheduler", "afr",
                                       "agu", "mean_queue_time"])


def test_composition_band_is_over_day_and_scheduler_means():
    runs = _runs([("gfs", 26, 0.9, s, b, 0.1 * (s + 1) + (0.5 if b == "fft" else 0), 0.8, 0)
                  for s in (0, 1) for b in ("gfs", "fft", "compass-abs")])
    got = composition_band(runs, BASELINES, "afr")
    assert got.value == pytest.approx((0.15, 0.65))  # gfs mean (0.1, 0.2), fft (0.6, 0.7)
    assert got.interval == pytest.approx((0.1, 0.7)) and got.samples == 4


def test_eta_floor_takes_the_lowest_eta_mean():
    runs = _runs([("gfs", 1, eta, s, "compass-abs", 0, agu, 0)
                  for eta, agus in ((0.85, (0.9, 0.94)), (0.95, (0.96, 0.98)))
                  for s, agu in enumerate(agus)])
    got = eta_floor(runs, ("compass-abs",), "agu")
    half = 1.96 * np.std([0.9, 0.94], ddof=1) / math.sqrt(2)
    assert got.value == pytest.approx(0.92) and got.samples == 2
    assert got.interval == pytest.approx((0.92 - half, 0.92 + half))


def test_case_band_spans_the_groups_percentiles():
    summary = pd.DataFrame({"window": ["paper", "paper", "paper", "busiest"],
                            "scheduler": ["gfs", "fgd", "fft", "gfs"],
                            "partial_nodes_p10": [60, 65, 25, 0],
                            "partial_nodes_p90": [75, 80, 50, 1]})
    got = case_band(summary, ("gfs", "fgd"), "partial_nodes")
    assert got.value == (60, 80) and got.interval == (67.5, 72.5) and got.samples == 2
    with pytest.raises(ValueError, match="no case-study rows"):
        case_band(summary, ("drr",), "partial_nodes")


def test_stalled_share_counts_samples_by_their_median_baseline():
    rows = []
    for day, queues in ((1, (10, 2 * STALL_QUEUE_S, 3 * STALL_QUEUE_S)), (2, (10, 20, 1e9))):
        rows += [("gfs", day, 0.9, 0, b, 0, 0, q) for b, q in zip(("gfs", "fgd", "mcg"), queues)]
    got = stalled_share(_runs(rows), BASELINES, "gfs")
    assert got.value == 0.5 and got.samples == 2  # day 1's median stalls, day 2's does not


@given(n=st.integers(1, 500), data=st.data())
def test_wilson_matches_scipy(n, data):
    k = data.draw(st.integers(0, n))
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert wilson(k, n, z=1.959963984540054) == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_regime_rows_and_before_after():
    quantities = read_regime(REGIME)
    runs = _runs([("gfs", 113, eta, 0, b, 0.1, 0.85, 100.0)
                  for eta in (0.85, 0.9) for b in (*BASELINES, "compass-abs")])
    table = regime_rows(quantities, runs, runs, None)
    assert len(table) == len(quantities)
    rows = table.set_index("id")
    assert rows.loc["composition-agu-baselines", "ours"] == "[0.85, 0.85]"
    assert rows.loc["case-partial-fft", "ours"] == "not measured"
    assert rows.loc["stalled-share-gfs", "paper"] == "not stated"
    assert rows.loc["stalled-share-gfs", "ours"] == "0"
    both = before_after(table, table.assign(ours="x"))
    assert (both["ours_after"] == "x").all() and len(both) == len(table)


def test_each_regimes_values_sit_beside_ours_by_quantity():
    """regime.csv gains ours_<regime>, interval_<regime>, samples_<regime> per sensitivity
    regime, matched by id (whatever the regime table's order), before `where`."""
    quantities = read_regime(REGIME)
    runs = _runs([("gfs", 113, 0.9, 0, b, 0.1, 0.85, 100.0) for b in (*BASELINES, "compass-abs")])
    ours = regime_rows(quantities, runs, runs, None)
    theirs = regime_rows(quantities, runs.assign(agu=0.8), runs.assign(agu=0.8), None)
    both = beside_regimes(ours, {"paper-regime": theirs.iloc[::-1]})
    assert list(both.columns) == [*ours.columns[:-1], "ours_paper_regime",
                                  "interval_paper_regime", "samples_paper_regime", "where"]
    rows = both.set_index("id")
    assert rows.loc["composition-agu-baselines", "ours"] == "[0.85, 0.85]"
    assert rows.loc["composition-agu-baselines", "ours_paper_regime"] == "[0.8, 0.8]"
    assert (both["samples_paper_regime"] == ours["samples"]).all()
    assert rows.loc["case-partial-fft", "ours_paper_regime"] == "not measured"
    pd.testing.assert_frame_equal(beside_regimes(ours, {}), ours)
