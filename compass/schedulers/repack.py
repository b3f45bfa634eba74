"""The repacking ILP of FFT (baselines.md section 5), aggregated by node type; SIFOpt reuses it.

Spec model: integer c_{n,g} (new counts), binary y_n (node used), d_{n,g} >= a_{n,g} - c_{n,g}
(instances leaving); min sum y + eps1 sum d + eps2 sum (n/N) y, eps1 = 1/(I+1),
eps2 = eps1/(N+1) (17N variables). Here, scaled to integers, plus a last term [A] that
breaks the spec's remaining ties towards fewer partial nodes (the worked example "State R"
needs it: moving J2 onto N0 or onto N2 ties on all three spec terms). Weights per used node,
migrated instance, index unit of a used node and partial node:
(I+1) W, W = N (N+1)^2, N+1 and 1; each exceeds the largest possible sum of the later terms.

Aggregated form with the same optimum: nodes with equal content a_{n,.} form a type t of m_t
nodes; integer z_{t,c} counts nodes of type t given bin configuration c (a multiset of sizes
with load <= G, or the empty bin). A node's migrations sum_g max(0, a_{t,g} - c_g) and its
partial flag are then linear in z. For k_t used nodes of a type the index term is least on
its k_t lowest-index nodes: continuous u_{t,i} in [0, 1] with sum_i u_{t,i} = k_t and costs
increasing in i express that exactly. A solution of either model maps to one of the other
with an equal or better objective, so the optima coincide (tested against brute force and
the direct model). ``ceil(T / G) <= used`` is added as a valid cut. Size: T*C + N variables
for T node types and C <= 67 configurations, instead of 17N.

SIFOpt's repair (``objective="repair"``, ``max_partial=Phi*``) reuses the model: a packing
with Phi* partial nodes that moves the fewest GPUs, then the fewest instances [A].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.sparse import csr_matrix

from compass import milp
from compass.cluster import ClusterState
from compass.fragmentation import bin_configurations
from compass.milp import Milp, Solution, Solver
from compass.schedulers.realise import node_counts

Objective = Literal["fft", "partial-nodes", "repair"]
OBJECTIVES: tuple[Objective, ...] = ("fft", "partial-nodes", "repair")
#: HiGHS options for the repacking ILP: presolve off, as it costs more than it saves on a
#: model this small (measured on FFT's rounds: the relaxation 1.4 ms instead of 6.7 ms, the
#: MIP's root 70 ms instead of 200 ms; ``benchmarks/bench_milp.py``).
HIGHS_OPTIONS = {"presolve": "off"}
#: Branch-and-bound nodes per solve (FFT's rounds, SIFOpt's repair): a deterministic limit,
#: so that decisions never depend on machine speed (no wall-clock limit by default).
NODE_LIMIT = 10_000


@dataclass(frozen=True)
class RepackModel:
    """The repacking ILP over x = (z, u) and what its variables stand for."""

    members: list[list[int]]  # nodes of each type, ascending
    configs: list[tuple[int, ...]]  # bin contents, descending sizes; () = empty bin
    problem: Milp  # warm start: the current placement, when it is feasible


@dataclass(frozen=True)
class Repack:
    """A solution: per-node target counts (N x (G+1)) and its objective terms."""

    target: np.ndarray
    used: int
    migrations: int
    optimal: bool
    partial: int = 0


@dataclass
class _Rows:
    """Sparse constraint rows lower <= sum vals * x[cols] <= upper, built one at a time."""

    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    vals: list[float] = field(default_factory=list)
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)

    def add(self, cols: Sequence[int], vals: Sequence[float], lower: float, upper: float) -> None:
        self.rows.extend([len(self.lower)] * len(cols))
        self.cols.extend(cols)
        self.vals.extend(vals)
        self.lower.append(lower)
        self.upper.append(upper)

    def matrix(self, width: int) -> csr_matrix:
        return csr_matrix((self.vals, (self.rows, self.cols)), shape=(len(self.lower), width))


def build_model(
    state: ClusterState,
    *,
    added: Sequence[int] | None = None,
    objective: Objective = "fft",
    max_partial: int | None = None,
) -> RepackModel:
    """Repack the running instances plus ``added[g]`` new ones of each size g.

    ``objective="fft"``: used nodes, then migrated instances, then node indices, then partial
    nodes (module docstring). ``"partial-nodes"`` (FFT's variant): partial nodes, then
    migrated instances, then node indices. ``"repair"`` (SIFOpt): migrated GPUs, then
    migrated instances (moving few GPUs needs little free room, so such targets are easier
    to order one by one).
    ``max_partial`` bounds the partial nodes. Migrations count running instances only.
    """
    G, N = state.gpus_per_node, state.nodes
    counts = node_counts(state)
    totals = counts.sum(axis=0) + (np.asarray(added) if added is not None else 0)
    groups: dict[tuple[int, ...], list[int]] = {}
    for n in range(N):
        groups.setdefault(tuple(counts[n].tolist()), []).append(n)
    members = list(groups.values())
    configs = [c for c in bin_configurations(G) if all(c.count(g) <= totals[g] for g in set(c))]
    configs.append(())
    a = np.array(list(groups), dtype=np.int64)
    c = np.zeros((len(configs), G + 1), dtype=np.int64)
    for j, config in enumerate(configs):
        np.add.at(c[j], list(config), 1)
    load = c @ np.arange(G + 1)
    partial = ((load > 0) & (load < G)).astype(np.int64)
    order = np.array([n for nodes in members for n in nodes])
    cost = _costs(objective, np.maximum(a[:, None, :] - c[None, :, :], 0), partial, order,
                  int(totals.sum()))
    T, C = len(members), len(configs)
    rows = _constraints(members, c, totals, partial, max_partial, G)
    return RepackModel(members, configs, Milp(
        cost=cost, matrix=rows.matrix(T * C + N),
        lower=np.array(rows.lower, dtype=float), upper=np.array(rows.upper, dtype=float),
        bound=np.concatenate([np.full(T * C, np.inf), np.ones(N)]),
        integral=np.concatenate([np.ones(T * C), np.zeros(N)]),
        warm=_warm(state, a, members, configs) if added is None and max_partial is None else None,
        integral_optimum=True,  # integer costs; at an optimum u is 0/1 (its costs increase)
    ))


def _costs(
    objective: Objective, leaving: np.ndarray, partial: np.ndarray, order: np.ndarray,
    instances: int,
) -> np.ndarray:
    """Integer costs of (z, u); ``leaving[t, c, g]``: size-g instances a type-t node sheds
    under configuration c; ``order``: node index of each u variable."""
    N, sizes = len(order), np.arange(leaving.shape[2])
    if objective == "fft":
        w_move = N * (N + 1) ** 2
        z_cost = w_move * leaving.sum(axis=2) + partial
        u_cost = w_move * (instances + 1) + (N + 1) * order
    elif objective == "partial-nodes":  # index sum < N^2 per unit of migration
        w_move = N * N
        z_cost = w_move * (instances + 1) * partial + w_move * leaving.sum(axis=2)
        u_cost = order
    elif objective == "repair":
        z_cost = (instances + 1) * (leaving @ sizes) + leaving.sum(axis=2)
        u_cost = np.zeros(N)
    else:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    return np.concatenate([z_cost.ravel(), u_cost]).astype(float)


def _constraints(
    members: list[list[int]], c: np.ndarray, totals: np.ndarray, partial: np.ndarray,
    max_partial: int | None, G: int,
) -> _Rows:
    """Each node gets one configuration; every instance is placed once; k_t = sum_i u_{t,i};
    used nodes >= ceil(T / G); optionally partial nodes <= max_partial."""
    T, C = len(members), len(c)
    N = sum(len(nodes) for nodes in members)
    rows = _Rows()
    for t, nodes in enumerate(members):
        rows.add(range(t * C, (t + 1) * C), [1] * C, len(nodes), len(nodes))
    for g in np.flatnonzero(totals).tolist():
        holders = np.flatnonzero(c[:, g]).tolist()
        cols = [t * C + j for t in range(T) for j in holders]
        vals = [int(c[j, g]) for _ in range(T) for j in holders]
        rows.add(cols, vals, int(totals[g]), int(totals[g]))
    start = T * C
    for t, nodes in enumerate(members):
        cols = [*range(t * C, (t + 1) * C - 1), *range(start, start + len(nodes))]
        rows.add(cols, [1] * (C - 1) + [-1] * len(nodes), 0, 0)
        start += len(nodes)
    demand = int(totals @ np.arange(G + 1))
    rows.add(range(T * C, T * C + N), [1] * N, -(-demand // G), np.inf)
    if max_partial is not None:
        holders = np.flatnonzero(partial).tolist()
        rows.add([t * C + j for t in range(T) for j in holders], [1] * (T * len(holders)),
                 -np.inf, max_partial)
    return rows


def _warm(
    state: ClusterState, a: np.ndarray, members: list[list[int]], configs: list[tuple[int, ...]]
) -> np.ndarray:
    """The current placement as a solution vector (for the solver's warm start)."""
    G, C = state.gpus_per_node, len(configs)
    index = {config: j for j, config in enumerate(configs)}
    warm = np.zeros(len(members) * C + state.nodes)
    start = len(members) * C
    for t, nodes in enumerate(members):
        config = tuple(g for g in range(G, 0, -1) for _ in range(a[t, g]))
        warm[t * C + index[config]] = len(nodes)
        warm[start : start + len(nodes)] = 1 if config else 0
        start += len(nodes)
    return warm


def solve_model(model: RepackModel, time_limit: float | None, solver: Solver,
                node_limit: int | None = None) -> Solution | None:
    """Best solution found within the limits (``Solution.optimal``: proven optimal); None if
    none was found before a limit stopped the search."""
    return milp.solve(model.problem, solver, time_limit, HIGHS_OPTIONS, node_limit=node_limit)


def targets(model: RepackModel, x: np.ndarray, gpus_per_node: int) -> np.ndarray:
    """Per-node target counts: in each type, non-empty configurations (fullest first) go to
    its lowest-index nodes, as the index term asks."""
    C = len(model.configs)
    z = np.rint(x[: len(model.members) * C]).astype(np.int64).reshape(len(model.members), C)
    ranked = sorted(range(C), key=lambda j: _fullest_first(model.configs[j]))
    nodes = sum(len(m) for m in model.members)
    target = np.zeros((nodes, gpus_per_node + 1), dtype=np.int64)
    for t, members in enumerate(model.members):
        contents = [model.configs[j] for j in ranked for _ in range(z[t, j])]
        for n, config in zip(members, contents, strict=True):
            np.add.at(target[n], list(config), 1)
    return target


def _fullest_first(config: tuple[int, ...]) -> tuple[int, list[int]]:
    return -sum(config), [-g for g in config]


def repack(
    state: ClusterState,
    time_limit: float | None = None,
    solver: Solver = "cbc",
    *,
    added: Sequence[int] | None = None,
    objective: Objective = "fft",
    max_partial: int | None = None,
    node_limit: int | None = None,
) -> Repack | None:
    """Solve the repacking ILP on ``state`` (options: see ``build_model``); None if a limit
    (``node_limit`` branch-and-bound nodes, ``time_limit`` seconds) stopped the solver
    before it found a solution."""
    model = build_model(state, added=added, objective=objective, max_partial=max_partial)
    solution = solve_model(model, time_limit, solver, node_limit)
    if solution is None:
        return None
    target = targets(model, solution.x, state.gpus_per_node)
    migrations = int(np.maximum(node_counts(state) - target, 0).sum())
    load = target @ np.arange(state.gpus_per_node + 1)
    used = int((load > 0).sum())
    partial = int(((load > 0) & (load < state.gpus_per_node)).sum())
    return Repack(target, used, migrations, solution.optimal, partial)
