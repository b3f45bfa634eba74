"""One mixed-integer linear program, two solvers: HiGHS in-process or CBC through pulp.

Shared by the exact Phi* oracle's configuration ILP (``compass.oracle.fragmentation``) and the
repacking ILP of FFT and SIFOpt (``compass.schedulers.repack``), so status handling, limits,
warm starts and pulp's CBC deprecation warning live in one place. HiGHS (``highspy``, the
model passed as sparse arrays, no files) is the default; CBC (bundled with pulp 3, through
MPS files and a child process) cross-checks it in tests.

HiGHS first solves the LP relaxation: when its optimum is integral it is an optimum of the
program (no integral point can beat the relaxation), so the branch-and-bound's set-up is
skipped. Otherwise, when the optimum is known to be an integer, a small depth-first search
on the warm LP (``_search``) looks for it; only if that runs out of LP solves is the same
model solved as a MIP. On FFT's rounds of a gfs-synth day (157) the relaxation answers 127,
the search 28 and branch-and-bound 2; a relaxation costs one to three milliseconds where the
MIP's root costs tens (``benchmarks/bench_milp.py``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import highspy
import numpy as np
from scipy.sparse import csc_matrix, csr_matrix

Solver = Literal["highs", "cbc"]
SOLVERS: tuple[Solver, ...] = ("highs", "cbc")


class MilpInfeasible(RuntimeError):
    """The program has no feasible solution (proven by the solver)."""


@dataclass(frozen=True)
class Milp:
    """min cost @ x  s.t.  lower <= matrix @ x <= upper,  0 <= x <= bound,
    x_j integer where ``integral[j]``; ``warm`` is a feasible start for CBC (or None).
    ``integral_optimum``: the caller knows the optimal value is an integer (integer costs,
    and continuous variables that take integral values at an optimum), so an integral point
    worth ceil(relaxation) is optimal; HiGHS then searches for an optimum on the warm LP
    before branching."""

    cost: np.ndarray
    matrix: np.ndarray | csr_matrix
    lower: np.ndarray
    upper: np.ndarray
    bound: np.ndarray
    integral: np.ndarray
    warm: np.ndarray | None = None
    integral_optimum: bool = False


@dataclass(frozen=True)
class Solution:
    """The best solution found and whether the solver proved it optimal."""

    x: np.ndarray
    optimal: bool


def solve(problem: Milp, solver: Solver = "highs", time_limit: float | None = None,
          highs_options: dict[str, Any] | None = None, *,
          node_limit: int | None = None) -> Solution | None:
    """Solve ``problem``; None if a limit stopped the search before any solution was found.

    ``node_limit`` caps the branch-and-bound nodes (a deterministic limit: the answer never
    depends on machine speed); ``time_limit`` caps the wall-clock seconds of each solver run
    (it does; HiGHS may run the relaxation, the search's LPs and branch-and-bound, each so
    capped). Raises
    ``MilpInfeasible`` when the solver proves there is none, RuntimeError on any other
    failure. ``highs_options`` go to HiGHS verbatim (``mip_rel_gap`` is 0: exact).
    """
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"node_limit must be >= 1, got {node_limit}")
    if solver == "highs":
        return _solve_highs(problem, time_limit, node_limit, highs_options or {})
    if solver == "cbc":
        return _solve_cbc(problem, time_limit, node_limit)
    raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")


#: HiGHS options for every solve: silent, exact (gap 0).
_HIGHS_DEFAULTS: dict[str, Any] = {"output_flag": False, "mip_rel_gap": 0.0}
#: Integer variables within this of an integer count as integral in an LP solution.
_INTEGRAL_TOL = 1e-9
#: Objective values within this of a bound count as reaching it.
_OBJECTIVE_TOL = 1e-6
#: LP re-solves the search may spend before the MIP takes over (a count: deterministic;
#: more costs more than it saves on FFT's partial-nodes rounds: 60, 200, 600 -> 68, 124,
#: 291 ms a solve).
_SEARCH_LPS = 60
_OPTIMAL = highspy.HighsModelStatus.kOptimal
_INFEASIBLE = highspy.HighsModelStatus.kInfeasible


def _solve_highs(problem: Milp, time_limit: float | None, node_limit: int | None,
                 options: dict[str, Any]) -> Solution | None:
    """The relaxation, then (``integral_optimum``) a search, then branch-and-bound."""
    highs = _highs_model(problem, {**_HIGHS_DEFAULTS, **options}, time_limit, node_limit)
    integral = np.flatnonzero(problem.integral)
    if integral.size:
        highs.run()
        status = highs.getModelStatus()
        if status == _INFEASIBLE:
            raise MilpInfeasible("HiGHS: the LP relaxation is infeasible")
        if status == _OPTIMAL:
            x = _integral_point(highs, integral)
            if x is None and problem.integral_optimum:
                x = _search(highs, integral, np.asarray(problem.bound, dtype=float))
            if x is not None:
                return Solution(x, True)
        highs.clearSolver()
        highs.changeColsBounds(len(problem.cost), np.arange(len(problem.cost), dtype=np.int32),
                               np.zeros(len(problem.cost)), np.asarray(problem.bound, float))
        highs.changeColsIntegrality(integral.size, integral.astype(np.int32),
                                    np.full(integral.size, highspy.HighsVarType.kInteger))
    highs.run()
    status = highs.getModelStatus()
    if status == _INFEASIBLE:
        raise MilpInfeasible(f"HiGHS: {highs.modelStatusToString(status)}")
    found = highs.getInfo().primal_solution_status == highspy.kSolutionStatusFeasible
    if status == _OPTIMAL and found:
        return Solution(np.asarray(highs.getSolution().col_value), True)
    if status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kSolutionLimit,
                  highspy.HighsModelStatus.kIterationLimit):
        return Solution(np.asarray(highs.getSolution().col_value), False) if found else None
    raise RuntimeError(f"HiGHS failed: {highs.modelStatusToString(status)}")


def _integral_point(highs: highspy._Highs, integral: np.ndarray) -> np.ndarray | None:
    """The LP solution with its integer variables rounded, if they are all integral."""
    return _rounded(np.asarray(highs.getSolution().col_value), integral)


def _rounded(x: np.ndarray, integral: np.ndarray) -> np.ndarray | None:
    """``x`` with its integer variables rounded, if they are all integral (else None)."""
    if np.any(np.abs(x[integral] - np.rint(x[integral])) > _INTEGRAL_TOL):
        return None
    x[integral] = np.rint(x[integral])
    return x


def _search(highs: highspy._Highs, integral: np.ndarray, upper: np.ndarray) -> np.ndarray | None:
    """An optimal integral point by a small depth-first search on the warm LP, when the
    optimum is known to be an integer; None once ``_SEARCH_LPS`` LP solves are spent.

    Every box branches on its most fractional variable: fixed to its nearest integer, else to
    the other one, else bounded beyond both (x <= f - 1, x >= f + 2, f its floor), so the
    search is complete. It first looks for a point worth ceil(relaxation), optimal if found:
    boxes whose LP exceeds that are set aside, so its first descent is a plain dive. If none
    is, the boxes set aside are searched, best LP first; a box whose ceil(LP) cannot beat the
    best point found is dropped, and the best point is optimal once none is left.
    """
    relaxation = highs.getInfo().objective_function_value
    bound = target = math.ceil(relaxation - _OBJECTIVE_TOL)
    columns = np.arange(len(upper), dtype=np.int32)
    root = (np.zeros(len(upper)), np.array(upper, dtype=float))
    #: (box, its LP solution or None if not solved yet, its LP value)
    pending = [(root, np.asarray(highs.getSolution().col_value), relaxation)]
    aside: list[tuple[tuple[np.ndarray, np.ndarray], np.ndarray, float]] = []
    best, best_value, solves = None, math.inf, 0
    while pending or aside:
        if not pending:  # no point is worth ``bound``: search the boxes set aside
            pending = sorted(aside, key=lambda item: -item[2])  # the best LP popped first
            target, aside = math.inf, []
        box, x, value = pending.pop()
        if x is None:
            if solves == _SEARCH_LPS:
                return None
            highs.changeColsBounds(len(columns), columns, *box)
            highs.run()
            solves += 1
            if highs.getModelStatus() != _OPTIMAL:
                continue
            x = np.asarray(highs.getSolution().col_value)
            value = highs.getInfo().objective_function_value
            if value > target + _OBJECTIVE_TOL:
                aside.append((box, x, value))
                continue
        if math.ceil(value - _OBJECTIVE_TOL) >= best_value:
            continue  # cannot beat the best point
        if (point := _rounded(x, integral)) is not None:
            best, best_value = point, math.ceil(value - _OBJECTIVE_TOL)
            if best_value <= bound:
                return best
            continue
        pending.extend((child, None, math.nan) for child in reversed(_children(box, x, integral)))
    return best


def _children(box: tuple[np.ndarray, np.ndarray], x: np.ndarray,
              integral: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The boxes that split ``box`` on its most fractional variable, nearest value first."""
    lower, upper = box
    fraction = np.abs(x[integral] - np.rint(x[integral]))
    j = int(integral[np.argmax(fraction)])
    floor = math.floor(x[j])
    near = float(np.rint(x[j]))
    other = float(floor if near > x[j] else floor + 1)
    ranges = [(near, near), (other, other)]
    if floor - 1 >= lower[j]:
        ranges.append((lower[j], floor - 1))
    if floor + 2 <= upper[j]:
        ranges.append((floor + 2, upper[j]))
    children = []
    for low, high in ranges:
        child = (lower.copy(), upper.copy())
        child[0][j], child[1][j] = low, high
        children.append(child)
    return children


def _highs_model(problem: Milp, options: dict[str, Any], time_limit: float | None,
                 node_limit: int | None) -> highspy._Highs:
    """A HiGHS instance holding ``problem`` with every variable continuous (the caller
    restores integrality). ``highspy._Highs`` is the plain binding: the ``Highs`` wrapper
    prints a banner when built and adds callbacks this module does not use."""
    highs = highspy._Highs()
    for key, value in options.items():
        _set_option(highs, key, value)
    if time_limit is not None:
        _set_option(highs, "time_limit", float(time_limit))
    if node_limit is not None:
        _set_option(highs, "mip_max_nodes", int(node_limit))
    matrix = csc_matrix(problem.matrix)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = matrix.shape[1], matrix.shape[0]
    lp.col_cost_ = np.asarray(problem.cost, dtype=float)
    lp.col_lower_ = np.zeros(matrix.shape[1])
    lp.col_upper_ = np.asarray(problem.bound, dtype=float)  # HiGHS's infinity is inf
    lp.row_lower_ = np.asarray(problem.lower, dtype=float)
    lp.row_upper_ = np.asarray(problem.upper, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr.astype(np.int32)
    lp.a_matrix_.index_ = matrix.indices.astype(np.int32)
    lp.a_matrix_.value_ = matrix.data.astype(float)
    if highs.passModel(lp) != highspy.HighsStatus.kOk:
        raise RuntimeError("HiGHS rejected the model")
    return highs


def _set_option(highs: highspy._Highs, key: str, value: Any) -> None:
    if highs.setOptionValue(key, value) != highspy.HighsStatus.kOk:
        raise ValueError(f"HiGHS option {key}={value!r} was rejected")


def _solve_cbc(problem: Milp, time_limit: float | None,
               node_limit: int | None) -> Solution | None:
    import pulp

    prob = pulp.LpProblem("milp", pulp.LpMinimize)
    x = [
        prob.add_variable(
            f"x{j}", 0, None if np.isinf(b) else float(b),
            cat=pulp.LpInteger if problem.integral[j] else pulp.LpContinuous,
        )
        for j, b in enumerate(problem.bound)
    ]
    prob += pulp.LpAffineExpression([(x[j], float(v)) for j, v in enumerate(problem.cost) if v])
    m = csr_matrix(problem.matrix)
    for r in range(m.shape[0]):
        lo, hi = m.indptr[r], m.indptr[r + 1]
        terms = zip(m.indices[lo:hi].tolist(), m.data[lo:hi].tolist(), strict=True)
        expr = pulp.LpAffineExpression([(x[j], float(v)) for j, v in terms])
        low, up = float(problem.lower[r]), float(problem.upper[r])
        if low == up:
            prob += expr == low
            continue
        if np.isfinite(low):
            prob += expr >= low
        if np.isfinite(up):
            prob += expr <= up
    if problem.warm is not None:
        for var, value in zip(x, problem.warm, strict=True):
            var.setInitialValue(float(value))
    with warnings.catch_warnings():  # the bundled CBC is deprecated in pulp 3.3, gone in 4.0
        warnings.filterwarnings("ignore", message="PULP_CBC_CMD", category=DeprecationWarning)
        prob.solve(pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, gapRel=0,
                                     warmStart=problem.warm is not None, maxNodes=node_limit))
    if prob.status == pulp.LpStatusInfeasible:
        raise MilpInfeasible(f"CBC: {pulp.LpStatus[prob.status]}")
    if prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return Solution(np.array([v.varValue or 0.0 for v in x]),
                        prob.sol_status == pulp.LpSolutionOptimal)
    if time_limit is not None or node_limit is not None:
        return None
    raise RuntimeError(f"CBC failed: {pulp.LpStatus[prob.status]}")
