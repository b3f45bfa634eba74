"""Best-fit and first-fit: closed-form gang placement against per-instance brute force."""

import hypothesis.strategies as st
from hypothesis import given, settings

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers import greedy_gang
from compass.schedulers.first_fit import first_fit_gang
from compass.schedulers.gfs import best_fit_gang


def _state_from_loads(loads, G=8):
    s = ClusterState(len(loads), G)
    for n, load in enumerate(loads):
        if load:
            s.place_job(1000 + n, load, [n])
    return s


def _naive(free, g, w, key):
    """Per-instance scan of every node: the definition of the rule."""
    free = list(free)
    out = []
    for _ in range(w):
        cands = [n for n in range(len(free)) if free[n] >= g]
        if not cands:
            return None
        n = min(cands, key=lambda n: key(free[n], n))
        free[n] -= g
        out.append(n)
    return tuple(out)


loads = st.lists(st.integers(0, 8), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(loads=loads, g=st.integers(1, 8), w=st.integers(1, 10))
def test_best_fit_matches_naive_scan(loads, g, w):
    s = _state_from_loads(loads)
    expected = _naive(s.free_list(), g, w, lambda f, n: (f, n))
    assert best_fit_gang(s, g, w) == expected
    job = Job(0, 0.0, 1.0, w, g)
    assert greedy_gang(s, job, lambda f, n: (f, n)) == expected


@settings(max_examples=300, deadline=None)
@given(loads=loads, g=st.integers(1, 8), w=st.integers(1, 10))
def test_first_fit_matches_naive_scan(loads, g, w):
    s = _state_from_loads(loads)
    expected = _naive(s.free_list(), g, w, lambda f, n: n)
    assert first_fit_gang(s, g, w) == expected
    assert greedy_gang(s, Job(0, 0.0, 1.0, w, g), lambda f, n: n) == expected


def test_best_fit_worked_example_state_s():
    """baselines.md section 8, state S: free (2, 5, 8); a 1-GPU job goes to N0."""
    s = ClusterState(3)
    s.place_job(10, 4, [0])
    s.place_job(11, 2, [0])
    s.place_job(12, 1, [1, 1, 1])
    assert best_fit_gang(s, 1, 1) == (0,)
    assert first_fit_gang(s, 1, 1) == (0,)


def test_gang_blocking_example():
    """Paper section 1: free {3, 5, 2}; two 4-GPU instances do not fit (only one node can host)."""
    s = _state_from_loads([5, 3, 6])
    assert s.instance_capacity(4) == 1
    assert best_fit_gang(s, 4, 2) is None and first_fit_gang(s, 4, 2) is None
    assert greedy_gang(s, Job(0, 0.0, 1.0, 2, 4), lambda f, n: (f, n)) is None
