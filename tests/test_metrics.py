"""AFR, AGU and AJCT by exact integration of a hand-made step function."""

import math

import pandas as pd
import pytest

from compass import metrics


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
