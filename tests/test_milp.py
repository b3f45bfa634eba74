"""compass.oracle.milp: both solvers reach the brute-force optimum, and each of HiGHS's three steps
(integral relaxation, search, branch-and-bound) is exercised and exact."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.oracle import milp
from compass.oracle.milp import Milp, MilpInfeasible


@st.composite
def programs(draw, integral_optimum: bool = True) -> Milp:
    """Small all-integer programs with integer data: x in {0..3}^n, a few rows."""
    n = draw(st.integers(2, 4))
    m = draw(st.integers(1, 3))
    ints = st.integers(-3, 4)
    matrix = np.array([[draw(ints) for _ in range(n)] for _ in range(m)], dtype=float)
    lower = np.array([draw(st.integers(-4, 6)) for _ in range(m)], dtype=float)
    width = np.array([draw(st.sampled_from([0, 1, 3, np.inf])) for _ in range(m)])
    cost = np.array([draw(st.integers(-5, 5)) for _ in range(n)], dtype=float)
    return Milp(cost, matrix, lower, lower + width, np.full(n, 3.0), np.ones(n),
                integral_optimum=integral_optimum)


def brute_force(problem: Milp) -> float | None:
    """The optimum over every integer point in the box, None if none is feasible."""
    best = None
    for point in itertools.product(range(4), repeat=len(problem.cost)):
        x = np.array(point, dtype=float)
        row = problem.matrix @ x
        if np.all(row >= problem.lower - 1e-9) and np.all(row <= problem.upper + 1e-9):
            value = float(problem.cost @ x)
            best = value if best is None else min(best, value)
    return best


def check(problem: Milp, solver: milp.Solver) -> None:
    expected = brute_force(problem)
    if expected is None:
        with pytest.raises(MilpInfeasible):
            milp.solve(problem, solver)
        return
    found = milp.solve(problem, solver)
    assert found is not None and found.optimal
    x = found.x
    assert np.allclose(x, np.rint(x)) and np.all(x >= 0) and np.all(x <= 3)
    row = problem.matrix @ x
    assert np.all(row >= problem.lower - 1e-6) and np.all(row <= problem.upper + 1e-6)
    assert problem.cost @ x == pytest.approx(expected)


@settings(max_examples=300, deadline=None)
@given(problem=programs())
def test_highs_reaches_the_brute_force_optimum(problem):
    check(problem, "highs")


@pytest.mark.xfail(strict=True, reason="a defect of the CBC bundled with pulp 3.3: it reports "
                   "x1=1, x3=2 (cost 0) as optimal; found by this file's property test, which "
                   "on random programs like these disagrees with brute force 2 times in 400 for "
                   "CBC, never for HiGHS. CBC stays a cross-check on the repacking ILP only "
                   "(tests/test_baselines_migrating.py), where it agrees with brute force.")
def test_cbc_reaches_the_optimum_of_a_program_it_gets_wrong():
    """min 2 x1 - x3  s.t.  2 <= 2 x3 - 2 x1 <= 3, x in {0..3}: optimum -1 at x1=0, x3=1."""
    problem = Milp(np.array([0.0, 2.0, 0.0, -1.0]), np.array([[0.0, -2.0, 0.0, 2.0]]),
                   np.array([2.0]), np.array([3.0]), np.full(4, 3.0), np.ones(4))
    check(problem, "highs")
    check(problem, "cbc")


@settings(max_examples=150, deadline=None)
@given(problem=programs(integral_optimum=False))
def test_highs_without_the_integral_optimum_hint_branches_and_is_exact(problem):
    check(problem, "highs")


def halves(integral_optimum: bool) -> Milp:
    """max x + y  s.t.  2x + 2y <= 3: the relaxation is worth 1.5, the optimum 1."""
    return Milp(np.array([-1.0, -1.0]), np.array([[2.0, 2.0]]), np.array([-np.inf]),
                np.array([3.0]), np.full(2, 3.0), np.ones(2), integral_optimum=integral_optimum)


def spy_steps(monkeypatch) -> list[str]:
    """Record which of HiGHS's steps returned the answer."""
    steps: list[str] = []
    real_point, real_search = milp._integral_point, milp._search

    def point(*args):
        x = real_point(*args)
        steps.append("relaxation" if x is not None else "fractional")
        return x

    def search(*args):
        x = real_search(*args)
        steps.append("search" if x is not None else "search failed")
        return x

    monkeypatch.setattr(milp, "_integral_point", point)
    monkeypatch.setattr(milp, "_search", search)
    return steps


@pytest.mark.parametrize("hint", [True, False])
def test_a_fractional_relaxation_is_searched_or_branched_to_the_optimum(monkeypatch, hint):
    steps = spy_steps(monkeypatch)
    found = milp.solve(halves(hint), "highs")
    assert found.optimal and found.x.sum() == pytest.approx(1)
    assert steps[0] == "fractional"
    assert steps[1:] == (["search"] if hint else [])


def test_the_search_finds_an_optimum_above_the_rounded_relaxation(monkeypatch):
    """max x + y + z with every pair summing to at most 1.5: the relaxation is 2.25 (all
    0.75), no integral point is worth 2, the optimum is 1. The search sets aside the boxes
    above 2, then finds and proves 1 among them, without branch-and-bound."""
    pairs = np.array([[2.0, 2.0, 0.0], [0.0, 2.0, 2.0], [2.0, 0.0, 2.0]])
    triangle = Milp(-np.ones(3), pairs, np.full(3, -np.inf), np.full(3, 3.0), np.full(3, 3.0),
                    np.ones(3), integral_optimum=True)
    steps = spy_steps(monkeypatch)
    found = milp.solve(triangle, "highs")
    assert found.optimal and -triangle.cost @ found.x == pytest.approx(1)
    assert steps == ["fractional", "search"]


def test_a_failed_search_hands_over_to_branch_and_bound(monkeypatch):
    """2x - 2y + 2z = 1 has no integral point but a feasible relaxation: the search runs and
    fails, and branch-and-bound proves the program infeasible."""
    infeasible = Milp(np.array([1.0, 0.0, 0.0]), np.array([[2.0, -2.0, 2.0]]), np.array([1.0]),
                      np.array([1.0]), np.full(3, 3.0), np.ones(3), integral_optimum=True)
    steps = spy_steps(monkeypatch)
    with pytest.raises(MilpInfeasible):
        milp.solve(infeasible, "highs")
    assert steps == ["fractional", "search failed"]


def test_a_node_limit_returns_nothing_or_a_feasible_point_flagged_as_it_is():
    rng = np.random.default_rng(3)
    n = 40  # an equality knapsack: one branch-and-bound node rarely proves it
    weights = rng.integers(50, 100, size=n).astype(float)
    target = np.array([float(weights.sum() // 3)])
    problem = Milp(-rng.integers(1, 100, size=n).astype(float), weights[None, :], target,
                   target, np.ones(n), np.ones(n))
    best = milp.solve(problem, "highs")
    limited = milp.solve(problem, "highs", node_limit=1)
    assert best is not None and best.optimal
    if limited is not None:
        assert weights @ limited.x == pytest.approx(target[0])
        assert problem.cost @ limited.x >= problem.cost @ best.x - 1e-6
        assert not limited.optimal or problem.cost @ limited.x == pytest.approx(
            problem.cost @ best.x)


def test_a_node_limit_that_stops_before_a_proof_returns_its_point_unproven():
    """The test above may pass with None or a proven point; here (presolve off, as the
    repacking ILP runs, seed 0) one node finds a feasible point but cannot prove it, and
    the answer says so."""
    rng = np.random.default_rng(0)
    n = 40
    weights = rng.integers(50, 100, size=n).astype(float)
    target = np.array([float(weights.sum() // 3)])
    problem = Milp(-rng.integers(1, 100, size=n).astype(float), weights[None, :], target,
                   target, np.ones(n), np.ones(n))
    options = {"presolve": "off"}
    best = milp.solve(problem, "highs", highs_options=options)
    limited = milp.solve(problem, "highs", highs_options=options, node_limit=1)
    assert best is not None and best.optimal
    assert limited is not None and not limited.optimal
    assert weights @ limited.x == pytest.approx(target[0])
    assert problem.cost @ limited.x >= problem.cost @ best.x - 1e-6


def test_seeded_programs_take_every_step_and_each_is_exact(monkeypatch):
    """The property tests above cannot see which step answered; here 300 seeded programs go
    through all three (integral relaxation, successful search, failed search then branching)."""
    steps = spy_steps(monkeypatch)
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        lower = rng.integers(-4, 7, size=m).astype(float)
        problem = Milp(rng.integers(-5, 6, size=n).astype(float),
                       rng.integers(-3, 5, size=(m, n)).astype(float), lower,
                       lower + rng.choice([0, 1, 3, np.inf], size=m), np.full(n, 3.0),
                       np.ones(n), integral_optimum=True)
        check(problem, "highs")
    assert {"relaxation", "search", "search failed"} <= set(steps)
