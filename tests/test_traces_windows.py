"""Windows, D(t), p_eta, N(eta), composition and WCC coverage on traces with known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.oracle.fragmentation import wcc_holds
from compass.traces.windows import (
    Window,
    class_shares,
    cluster_size,
    composition,
    concurrent_demand,
    day_summary,
    day_window,
    day_windows,
    jobs_in_window,
    max_job_nodes,
    percentile_demand,
    wcc_coverage,
    wcc_deficit_curve,
    wcc_violation,
)


def trace(*jobs: tuple[float, float, int, int]) -> pd.DataFrame:
    """Jobs as (submit, duration, w, g)."""
    cols = ["submit_time", "duration", "num_instances", "gpus_per_instance"]
    frame = pd.DataFrame(list(jobs), columns=cols)
    frame.insert(0, "job_id", range(len(frame)))
    return frame


# D: [0,5) 8 | [5,10) 16 | [10,15) 8 | [15,20) 0 | [20,25) 1 | then 0. Support: 20 s.
A = trace((0, 10, 1, 8), (5, 10, 2, 4), (20, 5, 1, 1))


def test_concurrent_demand_is_eq_12():
    d = concurrent_demand(A)
    assert list(d.times) == [0, 5, 10, 15, 20, 25]
    assert list(d.values) == [8, 16, 8, 0, 1, 0]
    assert list(d.at([-1, 0, 4.9, 5, 12, 17, 24, 30])) == [0, 8, 8, 16, 8, 0, 1, 0]


@pytest.mark.parametrize("eta, p", [
    (0.2, 1),    # 4 s of 20 needed: level 1 holds for 5 s (the 5 idle seconds are not support)
    (0.25, 1), (0.5, 8), (0.75, 8),  # level <= 8 for 15 s = exactly 0.75
    (0.76, 16), (0.9, 16), (1.0, 16),
])
def test_percentile_demand_over_the_support(eta, p):
    assert percentile_demand(A, eta) == p


@pytest.mark.parametrize("window, eta, p", [
    (Window(0, 12), 0.5, 8),    # in the window: 8 GPUs for 7 s, 16 for 5 s
    (Window(0, 12), 0.6, 16),
    (Window(15, 22), 0.9, 1),   # [15, 20) is idle, not support; [20, 22) at 1 GPU
    (Window(30, 40), 0.9, 0),   # no support inside
])
def test_percentile_within_a_window(window, eta, p):
    assert percentile_demand(A, eta, within=window) == p


def test_percentile_rejects_bad_eta_and_handles_empty():
    with pytest.raises(ValueError, match="eta"):
        percentile_demand(A, 0.0)
    assert percentile_demand(A.iloc[:0], 0.9) == 0


@pytest.mark.parametrize("w, g, nodes", [(5, 3, 3), (3, 5, 3), (9, 1, 2), (8, 1, 1),
                                         (4, 2, 1), (5, 2, 2), (2, 8, 2)])
def test_max_job_nodes(w, g, nodes):
    assert max_job_nodes(trace((0, 1, w, g), (0, 1, 1, 1))) == nodes


def test_cluster_size_is_eq_13():
    size = cluster_size(A, 0.9)
    assert (size.p_eta, size.demand_nodes, size.maxjob_nodes, size.nodes) == (16, 2, 1, 2)
    wide = trace((0, 10, 1, 1), (0, 1, 5, 6))  # p_0.5 = 1 GPU, but the 5 x 6 job needs 5 nodes
    assert cluster_size(wide, 0.5).nodes == 5 and cluster_size(wide, 0.5).demand_nodes == 1


def test_composition_and_class_shares():
    # instances: 3 x g1, 1 x g2, 2 x g4, 1 x g3, 3 x g8 = 10
    f = trace((0, 1, 3, 1), (0, 1, 1, 2), (0, 1, 2, 4), (0, 1, 1, 3), (0, 1, 3, 8))
    assert class_shares(f) == pytest.approx({"I=1": .3, "I_FF": .3, "I_FUF": .1, "I=8": .3})
    assert composition(f) == pytest.approx({"1 GPU": .3, "2-7 GPU": .4, "8 GPU": .3})
    assert all(math.isnan(v) for v in composition(f.iloc[:0]).values())


def test_windows_are_half_open_days():
    f = trace((10, 1, 1, 1), (86_399.5, 1, 1, 1), (86_400, 1, 1, 1), (3 * 86_400 + 5, 1, 1, 1))
    assert [w.day for w in day_windows(f)] == [0, 1, 2, 3]
    assert list(jobs_in_window(f, day_window(0))["job_id"]) == [0, 1]
    assert list(jobs_in_window(f, day_window(1))["job_id"]) == [2]
    assert jobs_in_window(f, day_window(2)).empty
    with pytest.raises(ValueError):
        Window(5, 5)


def test_wcc_coverage_counts_violated_time():
    # n1 = 2 on [0, 20); one 6-GPU instance on [10, 40) needs 2 fillers: fails on [20, 40).
    # A 7-GPU instance alone on [90, 150) fails from 90 to the window's end at 100.
    f = trace((0, 20, 2, 1), (10, 30, 1, 6), (90, 60, 1, 7))
    assert list(wcc_deficit_curve(f).values) == [-2, 0, 2, 0, 1, 0]
    fails = wcc_violation(f)
    assert list(fails.times) == [0, 10, 20, 40, 90, 150]
    assert list(fails.values) == [0, 0, 1, 0, 1, 0]
    assert wcc_coverage(f, Window(0, 100)) == pytest.approx(1 - 30 / 100)
    assert wcc_coverage(f, Window(0, 100), "support") == pytest.approx(1 - 80 / 150)
    assert wcc_coverage(f.iloc[:0], Window(0, 100)) == 1.0
    assert wcc_coverage(f.iloc[:0], Window(0, 100), "support") == 1.0
    with pytest.raises(ValueError, match="horizon"):
        wcc_coverage(f, Window(0, 100), "day")


def test_day_summary_rows():
    f = trace((0, 100, 1, 1), (50, 100, 1, 6), (86_400, 10, 2, 8))
    s = day_summary(f, etas=(0.9,), days=[0, 1, 2])
    assert list(s["jobs"]) == [2, 1, 0] and list(s["instances"]) == [2, 2, 0]
    assert list(s["gpus"]) == [7, 16, 0]
    assert s.loc[0, "share 1 GPU"] == 0.5 and s.loc[1, "share 8 GPU"] == 1.0
    assert list(s["N_0.9"]) == [1, 2, 0] and list(s["p_0.9"]) == [7, 16, 0]
    # day 0: the 6-GPU instance (2 fillers needed) has 1 filler, then none: [50, 150) fails
    assert s.loc[0, "rho"] == pytest.approx(1 - 100 / 86_400) and s.loc[2, "rho"] == 1.0
    # a 9-day 1-GPU job beside a 1-day 16-GPU job: over the support D is 1 GPU 8/9 of the
    # time, inside day 0 it is 17 GPUs all the time
    f = trace((0, 9 * 86_400, 1, 1), (0, 86_400, 2, 8))
    assert list(day_summary(f, etas=(0.5,))["p_0.5"]) == [1]
    assert list(day_summary(f, etas=(0.5,), demand_within_window=True)["p_0.5"]) == [17]


# ------------------------------------------------------------------ property tests
jobs = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 15), st.integers(1, 3),
                          st.integers(1, 8)), min_size=1, max_size=12)


def _unit_values(f: pd.DataFrame, horizon: int) -> tuple[np.ndarray, list[list[int]]]:
    """Brute force over unit seconds: D and the per-size counts on [t, t + 1)."""
    demand, counts = np.zeros(horizon, dtype=int), [[0] * 9 for _ in range(horizon)]
    for a, d, w, g in f[["submit_time", "duration", "num_instances",
                         "gpus_per_instance"]].itertuples(index=False):
        for t in range(a, a + d):
            demand[t] += w * g
            counts[t][g] += w
    return demand, counts


@settings(max_examples=60, deadline=None)
@given(jobs, st.sampled_from([0.3, 0.5, 0.85, 0.9, 0.95, 1.0]))
def test_percentile_matches_brute_force(js, eta):
    f = trace(*js)
    demand, _ = _unit_values(f, 50)
    support = np.sort(demand[demand > 0])
    expected = support[math.ceil(eta * support.size - 1e-9) - 1]
    assert percentile_demand(f, eta) == expected


@settings(max_examples=60, deadline=None)
@given(jobs, st.integers(0, 20), st.integers(5, 40))
def test_wcc_coverage_matches_brute_force(js, start, length):
    f = trace(*js)
    _, counts = _unit_values(f, 60)
    ok = [wcc_holds(counts[t]) for t in range(start, start + length)]
    assert wcc_coverage(f, Window(start, start + length)) == pytest.approx(sum(ok) / length)
