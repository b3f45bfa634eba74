"""FFT's repacking ILP: cost per solve of each solver path on the rounds of a gfs-synth day.

Not a test: run ``python benchmarks/bench_milp.py``. FFT runs one SYNTHETIC gfs-synth day
at the pipeline's N(eta) (eta = 0.9) with its default solver; every round's model is kept,
then each is solved again by each path, timed in CPU seconds (this process and solver
children, so CBC's process counts):

* ``cbc``: CBC through pulp (MPS file, child process), warm-started; FFT's solver until
  issue 16;
* ``highs-mip``: HiGHS's branch-and-bound straight away (the repacking ILP's options);
* ``highs``: what ``compass.oracle.milp`` does: the LP relaxation, a depth-first search on the warm
  LP when it is fractional, branch-and-bound only when the search runs out of LPs.

Each path's optimum is compared with CBC's (objective values; packings may tie), and the
``highs`` row says how many solves each step answered. ``--objective partial-nodes`` times
FFT's variant. Writes benchmarks/results/milp_<objective>.csv.
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path

import numpy as np
import pandas as pd

import compass
from compass.experiments.runs import cpu_seconds
from compass.oracle import milp
from compass.oracle.milp import Milp, Solution
from compass.schedulers.fft import FFT_OBJECTIVES
from compass.schedulers.repack import HIGHS_OPTIONS
from compass.traces import synthesize
from compass.traces import windows as W

OUT = Path(__file__).parent / "results"


def round_models(day: int, eta: float, objective: str) -> tuple[list[Milp], int]:
    """The repacking models of every FFT round (``objective``) that reached the solver, and
    N."""
    frame = synthesize("gfs-synth", days=1, start_day=day, seed=0)
    nodes = W.cluster_size(frame, eta, within=W.day_window(day)).nodes
    models: list[Milp] = []
    real = milp.solve

    def keep(problem: Milp, *args, **kwargs) -> Solution | None:
        models.append(problem)
        return real(problem, *args, **kwargs)

    milp.solve = keep
    try:
        compass.simulate(frame, "fft", nodes=nodes, scheduler_params={"objective": objective})
    finally:
        milp.solve = real
    return models, nodes


def highs_mip(problem: Milp) -> Solution | None:
    """HiGHS's branch-and-bound without the relaxation and the search."""
    highs = milp._highs_model(problem, {**milp._HIGHS_DEFAULTS, **HIGHS_OPTIONS}, None,
                              10_000)
    integral = np.flatnonzero(problem.integral)
    highs.changeColsIntegrality(integral.size, integral.astype(np.int32),
                                np.full(integral.size, milp.highspy.HighsVarType.kInteger))
    highs.run()
    return Solution(np.asarray(highs.getSolution().col_value), True)


def count_steps(models: list[Milp]) -> dict[str, int]:
    """How many solves the relaxation, the search and branch-and-bound each answered."""
    steps = {"relaxation": 0, "search": 0, "branch-and-bound": 0}
    real_point, real_search = milp._integral_point, milp._search
    seen: list[str] = []
    milp._integral_point = lambda *a: _note(seen, "point", real_point(*a))
    milp._search = lambda *a: _note(seen, "search", real_search(*a))
    try:
        for problem in models:
            seen.clear()
            milp.solve(problem, "highs", highs_options=HIGHS_OPTIONS, node_limit=10_000)
            key = ("relaxation" if seen[0] == "point+" else
                   "search" if seen[-1] == "search+" else "branch-and-bound")
            steps[key] += 1
    finally:
        milp._integral_point, milp._search = real_point, real_search
    return steps


def _note(seen: list[str], step: str, x: np.ndarray | None) -> np.ndarray | None:
    seen.append(step + ("+" if x is not None else "-"))
    return x


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--day", type=int, default=26)
    p.add_argument("--eta", type=float, default=0.9)
    p.add_argument("--objective", choices=FFT_OBJECTIVES, default="used-nodes")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    models, nodes = round_models(args.day, args.eta, args.objective)
    paths = {
        "cbc": lambda m: milp.solve(m, "cbc", node_limit=10_000),
        "highs-mip": highs_mip,
        "highs": lambda m: milp.solve(m, "highs", highs_options=HIGHS_OPTIONS,
                                      node_limit=10_000),
    }
    values: dict[str, np.ndarray] = {}
    rows = []
    for name, solve in paths.items():
        start = cpu_seconds()
        values[name] = np.array([m.cost @ solve(m).x for m in models])
        cpu = cpu_seconds() - start
        gap = float(np.abs(values[name] - values["cbc"]).max())
        rows.append({"path": name, "objective": args.objective, "day": args.day,
                     "eta": args.eta, "nodes": nodes,
                     "solves": len(models), "ms_per_solve_cpu": 1e3 * cpu / len(models),
                     "max_abs_objective_gap_vs_cbc": gap, "python": platform.python_version()})
    rows[-1].update(count_steps(models))
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / f"milp_{args.objective}.csv", index=False)
    print(f"SYNTHETIC gfs-synth day {args.day}, eta {args.eta}, N = {nodes}, "
          f"objective {args.objective}: "
          f"{len(models)} round models")
    print(table.drop(columns=["python"]).to_string(index=False))


if __name__ == "__main__":
    main()
