"""One mixed-integer linear program, two solvers: HiGHS in-process or CBC through pulp.

Shared by the exact Phi* oracle's configuration ILP (``compass.fragmentation``) and the
repacking ILP of FFT and SIFOpt (``compass.schedulers.repack``), so status handling, time
limits, warm starts and pulp's CBC deprecation warning live in one place. HiGHS
(``scipy.optimize.milp``) is the default; CBC (bundled with pulp 3) cross-checks it in tests.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix

Solver = Literal["highs", "cbc"]
SOLVERS: tuple[Solver, ...] = ("highs", "cbc")


class MilpInfeasible(RuntimeError):
    """The program has no feasible solution (proven by the solver)."""


@dataclass(frozen=True)
class Milp:
    """min cost @ x  s.t.  lower <= matrix @ x <= upper,  0 <= x <= bound,
    x_j integer where ``integral[j]``; ``warm`` is a feasible start for CBC (or None)."""

    cost: np.ndarray
    matrix: np.ndarray | csr_matrix
    lower: np.ndarray
    upper: np.ndarray
    bound: np.ndarray
    integral: np.ndarray
    warm: np.ndarray | None = None


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
    depends on machine speed); ``time_limit`` caps wall-clock seconds (it does). Raises
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


def _solve_highs(problem: Milp, time_limit: float | None, node_limit: int | None,
                 options: dict[str, Any]) -> Solution | None:
    options = {"mip_rel_gap": 0.0, "disp": False, **options}
    if time_limit is not None:
        options["time_limit"] = time_limit
    if node_limit is not None:
        options["node_limit"] = node_limit
    with warnings.catch_warnings():  # options HiGHS knows but scipy does not list
        warnings.filterwarnings("ignore", message="Unrecognized options", category=RuntimeWarning)
        res = milp(
            problem.cost, integrality=problem.integral, bounds=Bounds(0, problem.bound),
            constraints=LinearConstraint(problem.matrix, problem.lower, problem.upper),
            options=options,
        )
    if res.status == 2:
        raise MilpInfeasible(f"HiGHS: {res.message}")
    if res.x is None:
        if res.status == 1:  # time limit before any solution
            return None
        raise RuntimeError(f"HiGHS failed: {res.message}")
    return Solution(res.x, res.status == 0)


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
