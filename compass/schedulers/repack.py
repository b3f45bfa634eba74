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
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.sparse import csc_matrix

from compass.cluster import ClusterState
from compass.oracle import milp
from compass.oracle.fragmentation import configuration_matrix
from compass.oracle.milp import Milp, Solution, Solver
from compass.schedulers.realise import node_counts

Objective = Literal["fft", "partial-nodes", "repair"]
OBJECTIVES: tuple[Objective, ...] = ("fft", "partial-nodes", "repair")
#: HiGHS options for the repacking ILP: presolve off, as it costs more than it saves on a
#: model this small (measured on FFT's rounds: the relaxation 1.4 ms instead of 6.7 ms, the
#: MIP's root 70 ms instead of 200 ms; ``benchmarks/bench_milp.py``); the root
#: reduced-cost heuristic off, as its sub-MIP was most of a branch-and-bound round's time
#: (the 15 such rounds of a gfs-synth day: 1.66 -> 0.91 CPU-s, same optima). Neither
#: affects exactness.
HIGHS_OPTIONS = {"presolve": "off", "mip_heuristic_run_root_reduced_cost": False}
#: Branch-and-bound nodes per solve (FFT's rounds, SIFOpt's repair): a deterministic limit,
#: so that decisions never depend on machine speed (no wall-clock limit by default).
NODE_LIMIT = 10_000


@dataclass(frozen=True)
class RepackModel:
    """The repacking ILP over x = (z, u) and what its variables stand for."""

    members: list[np.ndarray]  # nodes of each type, ascending; types by their lowest node
    configs: np.ndarray  # C x (G+1) bin contents per size; the last row is the empty bin
    problem: Milp  # warm start: the current placement, when it is feasible
    counts: np.ndarray  # N x (G+1) the running placement the model was built on


@dataclass(frozen=True)
class Repack:
    """A solution: per-node target counts (N x (G+1)) and its objective terms."""

    target: np.ndarray
    used: int
    migrations: int
    optimal: bool
    partial: int = 0


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
    G = state.gpus_per_node
    counts = node_counts(state)
    totals = counts.sum(axis=0) + (np.asarray(added) if added is not None else 0)
    members, a = _node_types(counts)
    fits = configuration_matrix(G)
    c = np.vstack([fits[(fits <= totals).all(axis=1)], np.zeros(G + 1, dtype=np.int64)])
    load = c @ np.arange(G + 1)
    partial = ((load > 0) & (load < G)).astype(np.int64)
    order = np.concatenate(members)
    cost = _costs(objective, np.maximum(a[:, None, :] - c[None, :, :], 0), partial, order,
                  int(totals.sum()))
    matrix, lower, upper = _constraints([len(m) for m in members], c, totals, partial,
                                        max_partial, G)
    T, C, N = len(members), len(c), len(order)
    return RepackModel(members, c, counts=counts, problem=Milp(
        cost=cost, matrix=matrix, lower=lower, upper=upper,
        bound=np.concatenate([np.full(T * C, np.inf), np.ones(N)]),
        integral=np.concatenate([np.ones(T * C), np.zeros(N)]),
        warm=_warm(state, a, members, c) if added is None and max_partial is None else None,
        integral_optimum=True,  # integer costs; at an optimum u is 0/1 (its costs increase)
    ))


def _node_types(counts: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Nodes grouped by equal content (types ordered by their lowest node, members ascending)
    and each type's content."""
    base = counts.shape[1] ** np.arange(counts.shape[1])  # counts per size <= G < base
    keys, first, inverse = np.unique(counts @ base, return_index=True, return_inverse=True)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(keys))
    kind = rank[inverse]
    nodes = np.argsort(kind, kind="stable")
    members = np.split(nodes, np.cumsum(np.bincount(kind))[:-1])
    return members, counts[np.sort(first)]


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
    sizes: Sequence[int], c: np.ndarray, totals: np.ndarray, partial: np.ndarray,
    max_partial: int | None, G: int,
) -> tuple[csc_matrix, np.ndarray, np.ndarray]:
    """Rows, column by column (``sizes``: nodes per type; ``c``: contents per
    configuration, the empty bin last): each node gets one configuration (row t); every
    instance is placed once (a row per size present); k_t = sum_i u_{t,i} (row per type);
    used nodes >= ceil(T / G); optionally partial nodes <= max_partial. Returns the matrix
    and the rows' lower and upper bounds."""
    T, C, N = len(sizes), len(c), int(sum(sizes))
    present = np.flatnonzero(totals)
    link, cut = T + len(present), 2 * T + len(present)  # first link row, the cut's row
    # type 0's entries: per configuration (row of ``slots``) its assignment row, its size
    # rows, its link row (non-empty bins) and the partial row; type t shifts the assignment
    # and link rows by t (``shift``)
    slots = np.zeros((C, len(present) + 3))
    slots[:, 0] = 1
    slots[:, 1 : len(present) + 1] = c[:, present]
    slots[: C - 1, -2] = 1
    if max_partial is not None:
        slots[:, -1] = partial
    slot_rows = np.concatenate([[0], T + np.arange(len(present)), [link, cut + 1]])
    slot_shift = np.zeros(len(slot_rows), dtype=np.int64)
    slot_shift[[0, -2]] = 1
    config, slot = np.nonzero(slots)  # row-major: by configuration, rows ascending
    width = np.bincount(config, minlength=C)
    types = np.repeat(np.arange(T), len(slot))
    z_rows = np.tile(slot_rows[slot], T) + types * np.tile(slot_shift[slot], T)
    u_rows = np.column_stack([link + np.repeat(np.arange(T), sizes), np.full(N, cut)]).ravel()
    indices = np.concatenate([z_rows, u_rows])
    data = np.concatenate([np.tile(slots[config, slot], T), np.tile([-1.0, 1.0], N)])
    indptr = np.concatenate([[0], np.cumsum(np.concatenate([np.tile(width, T), np.full(N, 2)]))])
    demand = int(totals @ np.arange(G + 1))
    lower = np.concatenate([sizes, totals[present], np.zeros(T), [-(-demand // G)]])
    upper = np.concatenate([sizes, totals[present], np.zeros(T), [np.inf]])
    if max_partial is not None:
        lower, upper = np.append(lower, -np.inf), np.append(upper, max_partial)
    matrix = csc_matrix((data, indices, indptr), shape=(len(lower), T * C + N))
    return matrix, lower.astype(float), upper.astype(float)


def _warm(
    state: ClusterState, a: np.ndarray, members: list[np.ndarray], configs: np.ndarray
) -> np.ndarray:
    """The current placement as a solution vector (for the solver's warm start)."""
    C = len(configs)
    index = {tuple(row): j for j, row in enumerate(configs.tolist())}
    warm = np.zeros(len(members) * C + state.nodes)
    start = len(members) * C
    for t, nodes in enumerate(members):
        content = tuple(a[t].tolist())
        warm[t * C + index[content]] = len(nodes)
        warm[start : start + len(nodes)] = 1 if any(content) else 0
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
    configs = model.configs
    C = len(configs)
    z = np.rint(x[: len(model.members) * C]).astype(np.int64).reshape(len(model.members), C)
    # fullest first, then more of the larger sizes (descending size tuples, lexicographic)
    load = configs @ np.arange(gpus_per_node + 1)
    ranked = np.lexsort([-configs[:, g] for g in range(1, gpus_per_node + 1)] + [-load])
    target = np.zeros((sum(len(m) for m in model.members), gpus_per_node + 1), dtype=np.int64)
    for t, members in enumerate(model.members):
        contents = np.repeat(ranked, z[t, ranked])
        if len(contents) != len(members):
            raise ValueError(f"type {t}: {len(contents)} bins for {len(members)} nodes")
        target[members] = configs[contents]
    return target


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
    migrations = int(np.maximum(model.counts - target, 0).sum())
    load = target @ np.arange(state.gpus_per_node + 1)
    used = int((load > 0).sum())
    partial = int(((load > 0) & (load < state.gpus_per_node)).sum())
    return Repack(target, used, migrations, solution.optimal, partial)
