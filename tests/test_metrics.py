"""AFR, AGU and AJCT by exact integration of a hand-made step function."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.sim import metrics


def timeline():
    # intervals: [0,10) queue 0, [10,30) queue 2, [30,35) queue 1, [35,..) last row
    return pd.DataFrame({
        "time": [0.0, 10.0, 30.0, 35.0],
        "sif": [0.5, 0.25, 0.0, 0.9],
        "gpu_util": [0.2, 0.5, 1.0, 0.0],
        "queue_len": [0, 2, 1, 0],
        "partial_nodes": [1, 2, 0, 0],
    })


def test_afr_and_agu_average_over_t_peak_only():
    tl = timeline()
    assert metrics.peak_seconds(tl) == 25
    assert metrics.afr(tl) == pytest.approx((0.25 * 20 + 0.0 * 5) / 25)
    assert metrics.agu(tl) == pytest.approx((0.5 * 20 + 1.0 * 5) / 25)
    assert metrics.time_weighted_mean(tl, "gpu_util") == pytest.approx((2 + 10 + 5) / 35)


def test_no_peak_gives_nan():
    tl = timeline().assign(queue_len=0)
    assert math.isnan(metrics.afr(tl)) and math.isnan(metrics.agu(tl))


def test_ajct_is_mean_completion_time():
    jobs = pd.DataFrame({"jct": [10.0, 30.0, 20.0]})
    assert metrics.ajct(jobs) == 20.0


# ---------------------------------------------------------------- windows (issue 12, item 5)
def test_peak_window_merges_the_rows_with_a_queue():
    # rows [10,30) and [30,35) have a queue: one interval [10, 35)
    assert metrics.peak_window(timeline()).tolist() == [[10.0, 35.0]]
    assert metrics.peak_window(timeline().assign(queue_len=0)).shape == (0, 2)


def test_union_window_sorts_merges_touching_and_drops_empty_intervals():
    a = np.array([[0.0, 5.0], [20.0, 30.0]])
    b = np.array([[4.0, 8.0], [8.0, 9.0], [12.0, 12.0], [25.0, 26.0]])
    assert metrics.union_window([b, a]).tolist() == [[0.0, 9.0], [20.0, 30.0]]
    assert metrics.union_window([]).shape == (0, 2)


def test_window_weights_clip_rows_and_let_the_last_row_hold_on():
    # rows [0,10) [10,30) [30,35) [35,inf); window [5,12) and [33,40)
    w = metrics.window_weights(timeline(), np.array([[5.0, 12.0], [33.0, 40.0]]))
    assert w.tolist() == [5.0, 2.0, 2.0, 5.0]


def test_afr_agu_over_a_window_by_hand():
    # [5,12): sif 0.5 for 5 s, 0.25 for 2 s; [33,40): sif 0.0 for 2 s, 0.9 for 5 s
    afr, agu = metrics.afr_agu_over(timeline(), np.array([[5.0, 12.0], [33.0, 40.0]]))
    assert afr == pytest.approx((0.5 * 5 + 0.25 * 2 + 0.0 * 2 + 0.9 * 5) / 14)
    assert agu == pytest.approx((0.2 * 5 + 0.5 * 2 + 1.0 * 2 + 0.0 * 5) / 14)
    assert all(math.isnan(v) for v in metrics.afr_agu_over(timeline(), np.empty((0, 2))))


def test_the_own_peak_window_gives_afr_and_agu_exactly():
    tl = timeline()
    assert metrics.afr_agu_over(tl, metrics.peak_window(tl)) == (metrics.afr(tl), metrics.agu(tl))


def test_a_common_window_counts_a_finished_run_as_idle():
    # another run's queue waits on [30, 45): this run is empty from 35 on (last row)
    tl = timeline()
    common = metrics.union_window([metrics.peak_window(tl), np.array([[30.0, 45.0]])])
    assert common.tolist() == [[10.0, 45.0]]
    afr, agu = metrics.afr_agu_over(tl, common)
    assert afr == pytest.approx((0.25 * 20 + 0.0 * 5 + 0.9 * 10) / 35)
    assert agu == pytest.approx((0.5 * 20 + 1.0 * 5 + 0.0 * 10) / 35)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=8),
       st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=8))
def test_union_window_covers_exactly_the_union(a, b):
    spans = [(min(x), max(x)) for x in a + b]
    union = metrics.union_window([np.array(spans, dtype=float).reshape(-1, 2)])
    covered = {x for s, e in spans for x in range(s, e)}
    assert {x for s, e in union.astype(int) for x in range(s, e)} == covered
    assert (union[1:, 0] > union[:-1, 1]).all()  # disjoint, sorted, not touching
