"""FFT, DRR and the SIFOpt oracle (baselines.md sections 5-8, docs/baselines.md).

Worked examples "State R" and "State S", FFT's ILP against brute force and against the spec's
direct 17N-variable model, the solver time limit, one-by-one validity of move sequences,
SIF = 0 under SIFOpt, and the simulator invariants for all three schedulers.
"""

import itertools
import time

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pulp
import pytest
from hypothesis import assume, given, settings
from scipy.optimize import Bounds, LinearConstraint, linear_sum_assignment, milp
from trace_rows import trace

import compass
from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle import milp as milp_module
from compass.oracle.fragmentation import inherent_partial_nodes, witness_bins
from compass.schedulers import Move, Placement
from compass.schedulers import fft as fft_module
from compass.schedulers import repack as repack_module
from compass.schedulers.drr import DRR
from compass.schedulers.fft import FFT
from compass.schedulers.realise import node_counts, realise
from compass.schedulers.repack import repack
from compass.schedulers.sifopt import SIFOpt, assign_bins, key_counts, node_keys

MIGRATING = ("fft", "drr", "sifopt")


# ----------------------------------------------------------------------------- helpers
def cluster(nodes, *jobs):
    """A state from (job_id, g, nodes of its instances) triples, started in that order."""
    state = ClusterState(nodes)
    for job_id, g, where in jobs:
        state.place_job(job_id, g, list(where))
    return state


def state_r():
    """Spec section 8: N0 {J1: 4}, N1 {J2: 4}, N2 {J3: 2, J4: 1}."""
    return cluster(3, (1, 4, [0]), (2, 4, [1]), (3, 2, [2]), (4, 1, [2]))


def state_s():
    """Spec section 8: N0 runs a 4- and a 2-GPU instance, N1 three 1-GPU ones, N2 empty."""
    return cluster(3, (1, 4, [0]), (2, 2, [0]), (3, 1, [1, 1, 1]))


def applied(state, moves):
    """A copy of ``state`` after the moves, each validated on its own (as the engine does)."""
    out = state.copy()
    for move in moves:
        out.move(move.instance, move.dst)
    out.check()
    return out


def avoidable(state):
    """N * SIF: partial nodes above Phi*."""
    return state.partial_nodes - inherent_partial_nodes(state.counts, state.nodes)


def loads(state):
    return [state.gpus_per_node - f for f in state.free_list()]


def random_trace(seed, jobs, nodes, sizes):
    """Continuous times (simultaneous departures are measure-zero), w within the cluster."""
    rng = np.random.default_rng(seed)
    g = rng.choice(sizes, jobs)
    w = np.minimum(rng.integers(1, 4, jobs), nodes * (8 // g))
    submit = np.cumsum(rng.exponential(4.0, jobs))
    return trace(*zip(range(jobs), submit, rng.uniform(2.0, 60.0, jobs), w, g, strict=True))


@st.composite
def states(draw, min_nodes=2, max_nodes=3, max_instances=5):
    """Small random placements: each instance (its own job) on a random node with room."""
    nodes = draw(st.integers(min_nodes, max_nodes))
    state = ClusterState(nodes)
    for job_id, g in enumerate(draw(st.lists(st.integers(1, 8), max_size=max_instances))):
        room = [n for n in range(nodes) if state.free(n) >= g]
        if room:
            state.place_job(job_id, g, [draw(st.sampled_from(room))])
    return state


def objective_terms(state, target):
    """(used nodes, migrated instances, sum of used indices, partial nodes) of a target."""
    load = target @ np.arange(target.shape[1])
    used = np.flatnonzero(load)
    moved = int(np.maximum(node_counts(state) - target, 0).sum())
    return len(used), moved, int(used.sum()), int(((load > 0) & (load < 8)).sum())


def brute_force_terms(state, terms=objective_terms):
    """Lexicographic minimum of ``terms`` (``objective_terms`` or ``partial_terms``) over every
    instance -> node assignment."""
    sizes = [g for n in range(state.nodes) for g in state.instances_on(n).values()]
    best = None
    for assignment in itertools.product(range(state.nodes), repeat=len(sizes)):
        target = np.zeros((state.nodes, 9), dtype=np.int64)
        for n, g in zip(assignment, sizes, strict=True):
            target[n, g] += 1
        if (target @ np.arange(9) <= 8).all():
            value = terms(state, target)
            best = value if best is None else min(best, value)
    return best


def direct_spec_terms(state):
    """The spec's direct model (c, d, y per node) solved by HiGHS: its first three terms."""
    a = node_counts(state)
    N, sizes = state.nodes, [g for g in range(1, 9) if a[:, g].any()]
    S, total = len(sizes), int(a.sum())
    c, d, y = 0, N * S, 2 * N * S  # variable blocks
    cost = np.zeros(2 * N * S + N)
    cost[d:y] = N * (N + 1)
    cost[y:] = N * (N + 1) * (total + 1) + np.arange(N)
    rows, lower, upper = [], [], []

    def row(entries, lo, hi):
        r = np.zeros(len(cost))
        for j, v in entries:
            r[j] = v
        rows.append(r)
        lower.append(lo)
        upper.append(hi)

    for s, g in enumerate(sizes):
        total = int(a[:, g].sum())
        row([(c + n * S + s, 1) for n in range(N)], total, total)
        for n in range(N):
            row([(d + n * S + s, 1), (c + n * S + s, 1)], int(a[n, g]), np.inf)
    for n in range(N):
        row([(c + n * S + s, g) for s, g in enumerate(sizes)] + [(y + n, -8)], -np.inf, 0)
    integral = np.concatenate([np.ones(N * S), np.zeros(N * S), np.ones(N)])
    upper_bounds = np.concatenate([np.full(2 * N * S, np.inf), np.ones(N)])
    res = milp(cost, integrality=integral, bounds=Bounds(0, upper_bounds),
               constraints=LinearConstraint(np.array(rows), lower, upper),
               options={"mip_rel_gap": 0.0})
    assert res.status == 0
    counts = np.rint(res.x[: N * S]).reshape(N, S)
    target = np.zeros_like(a)
    target[:, sizes] = counts
    return objective_terms(state, target)[:3]


# ------------------------------------------------------------- worked examples (section 8)
def test_state_r_fft_moves_j2_onto_n0():
    fft = FFT()
    state = state_r()
    fft.reset(state, [])
    moves = fft.on_timer(state, 0.0)
    assert moves == (Move((2, 0), 0),)
    after = applied(state, moves)
    assert after.partial_nodes == 1 and avoidable(after) == 0
    assert fft.stats.solves == 1 and fft.stats.repacks == 1


def test_state_r_drr_drains_n2_into_n0():
    drr = DRR()
    state = state_r()
    drr.reset(state, [])
    moves = drr.on_timer(state, 3600.0)
    assert moves == [Move((3, 0), 0), Move((4, 0), 0)]
    after = applied(state, moves)
    assert loads(after) == [7, 4, 0]
    assert after.partial_nodes == 2 and avoidable(after) == 1


def test_state_r_sifopt_moves_j2_onto_n0_after_a_departure():
    sifopt = SIFOpt()
    state = cluster(3, (1, 4, [0]), (2, 4, [1]), (3, 2, [2]), (4, 1, [2]), (5, 4, [0]))
    sifopt.reset(state, [])
    state.release_job(5)  # the engine releases, then calls on_departure: state R
    moves = sifopt.on_departure(Job(5, 0.0, 1.0, 1, 4), state, 1.0)
    assert moves == (Move((2, 0), 0),)
    assert avoidable(applied(state, moves)) == 0


def test_state_s_sifopt_admits_a_on_n0_and_moves_one_1gpu_instance():
    sifopt = SIFOpt()
    state = state_s()
    sifopt.reset(state, [])
    job_a = Job(9, 0.0, 10.0, 1, 1)
    moves = sifopt.on_arrival(job_a, state, 0.0)
    assert moves == (Move((3, 0), 0),)  # one 1-GPU instance N1 -> N0 (lowest instance id)
    after = applied(state, moves)
    placement = sifopt.place(job_a, after, 0.0)
    assert placement == Placement(9, (0,))
    after.place_job(9, 1, placement.nodes)
    assert loads(after) == [8, 2, 0] and after.partial_nodes == 1 == avoidable(after) + 1


@pytest.mark.parametrize("scheduler", [FFT(), DRR()])
def test_state_s_fft_and_drr_place_best_fit(scheduler):
    assert scheduler.place(Job(9, 0.0, 10.0, 1, 1), state_s(), 0.0) == Placement(9, (0,))


# ------------------------------------------------------------------------ FFT's ILP
@settings(max_examples=40, deadline=None)
@given(state=states(), solver=st.sampled_from(["highs", "cbc"]))
def test_fft_ilp_matches_brute_force(state, solver):
    solution = repack(state, 10.0, solver)
    assert solution is not None and solution.optimal
    assert objective_terms(state, solution.target) == brute_force_terms(state)
    moves = realise(state, solution.target)
    if moves is not None:
        assert (node_counts(applied(state, moves)) == solution.target).all()


@settings(max_examples=10, deadline=None)
@given(state=states(min_nodes=5, max_nodes=6, max_instances=14))
def test_aggregated_ilp_has_the_direct_models_optimum(state):
    solution = repack(state, 10.0, "highs")
    assert objective_terms(state, solution.target)[:3] == direct_spec_terms(state)


def test_fft_migrates_nothing_when_the_ilp_cannot_lower_used_nodes():
    state = cluster(3, (1, 5, [0]), (2, 5, [1]), (3, 5, [2]))  # 3 used > ceil(15/8) = 2
    fft = FFT()
    fft.reset(state, [])
    assert fft.on_timer(state, 0.0) == ()
    assert fft.stats.solves == 1 and fft.stats.repacks == 0
    packed = cluster(2, (1, 5, [0]), (2, 3, [0]), (3, 2, [1]))  # used 2 = ceil(10/8)
    assert fft.on_timer(packed, 360.0) == () and fft.stats.solves == 1  # no solve needed


@pytest.mark.parametrize(("nodes", "jobs", "seed"), [(6, 300, 11), (24, 500, 5)])
def test_highs_reaches_cbcs_optimum_at_every_round_of_a_run(monkeypatch, nodes, jobs, seed):
    """HiGHS replaced CBC as FFT's default: at every round of a CBC-driven run both solvers
    prove the same optimum, term by term (used nodes, migrations, indices, partial nodes).
    Their packings may differ where optima tie, so the runs themselves may diverge."""
    rounds = []

    def both(state, time_limit, solver, **kwargs):
        cbc = repack(state, time_limit, "cbc", **kwargs)
        highs = repack(state, time_limit, "highs", **kwargs)
        assert cbc.optimal and highs.optimal
        rounds.append((objective_terms(state, cbc.target), objective_terms(state, highs.target)))
        return cbc

    monkeypatch.setattr(fft_module, "repack", both)
    frame = compass.traces.demo_trace(num_jobs=jobs, seed=seed, mean_interarrival=70.0,
                                      max_instances=6)
    compass.simulate(frame, "fft", nodes=nodes, scheduler_params={"solver": "cbc"})
    assert len(rounds) >= 10
    assert all(cbc == highs for cbc, highs in rounds)


def test_fft_time_limit_reaches_both_solvers(monkeypatch):
    seen = {}
    real_highs, real_cbc = milp_module._highs_model, pulp.PULP_CBC_CMD

    def spy_highs(problem, options, time_limit, node_limit):
        seen["highs"] = time_limit
        return real_highs(problem, options, time_limit, node_limit)

    def spy_cbc(*args, **kwargs):
        seen["cbc"] = kwargs["timeLimit"]
        return real_cbc(*args, **kwargs)

    monkeypatch.setattr(milp_module, "_highs_model", spy_highs)  # the shared solver plumbing
    monkeypatch.setattr(pulp, "PULP_CBC_CMD", spy_cbc)
    for solver in ("highs", "cbc"):
        fft = FFT(time_limit=0.25, solver=solver)
        fft.reset(state_r(), [])
        assert fft.on_timer(state_r(), 0.0) == (Move((2, 0), 0),)
    assert seen == {"highs": 0.25, "cbc": 0.25}


def test_fft_node_limit_reaches_both_solvers_and_no_clock_by_default(monkeypatch):
    seen = {}
    real_highs, real_cbc = milp_module._highs_model, pulp.PULP_CBC_CMD

    def spy_highs(problem, options, time_limit, node_limit):
        seen["highs"] = (node_limit, time_limit)
        return real_highs(problem, options, time_limit, node_limit)

    def spy_cbc(*args, **kwargs):
        seen["cbc"] = (kwargs["maxNodes"], kwargs["timeLimit"])
        return real_cbc(*args, **kwargs)

    monkeypatch.setattr(milp_module, "_highs_model", spy_highs)
    monkeypatch.setattr(pulp, "PULP_CBC_CMD", spy_cbc)
    for solver in ("highs", "cbc"):
        fft = FFT(solver=solver, node_limit=77)
        fft.reset(state_r(), [])
        assert fft.on_timer(state_r(), 0.0) == (Move((2, 0), 0),)
    assert seen == {"highs": (77, None), "cbc": (77, None)}
    assert FFT().params()["time_limit"] is None  # decisions never depend on machine speed


def partial_terms(state, target):
    """(partial nodes, migrated instances, sum of used indices): the "partial-nodes" order."""
    used, moved, index, partial = objective_terms(state, target)
    return partial, moved, index


@settings(max_examples=40, deadline=None)
@given(state=states(), solver=st.sampled_from(["highs", "cbc"]), cut=st.booleans())
def test_partial_nodes_objective_matches_brute_force(state, solver, cut):
    """With or without FFT's constraint partial nodes <= Phi* (valid: no packing has fewer),
    the optimum is the brute-force one."""
    phi = inherent_partial_nodes(state.counts, state.nodes) if cut else None
    solution = repack(state, None, solver, objective="partial-nodes", node_limit=10_000,
                      max_partial=phi)
    assert solution is not None and solution.optimal
    assert partial_terms(state, solution.target) == brute_force_terms(state, partial_terms)
    assert solution.partial == partial_terms(state, solution.target)[0]


def test_fft_partial_nodes_round_reaches_phi_star():
    """State R has 3 partial nodes, Phi* = 1: the round repacks to Phi* with one move;
    a state already at Phi* skips the solver."""
    fft = FFT(objective="partial-nodes")
    state = state_r()
    fft.reset(state, [])
    moves = fft.on_timer(state, 0.0)
    after = applied(state, moves)
    assert avoidable(after) == 0 and len(moves) == 1
    assert fft.on_timer(after, 360.0) == () and fft.stats.solves == 1


@pytest.mark.parametrize("objective", ["used-nodes", "partial-nodes"])
def test_fft_objectives_run_clean(objective):
    frame = random_trace(3, 60, 4, [1, 2, 3, 4, 8])
    result = compass.simulate(frame, "fft", nodes=4, debug_checks=True,
                              scheduler_params={"objective": objective, "solver": "highs"})
    assert result.jobs["end_time"].notna().all()
    assert result.metadata["scheduler_params"]["objective"] == objective


def test_fft_solve_stays_within_its_time_limit_on_a_large_state():
    rng = np.random.default_rng(0)
    state = ClusterState(600)
    job_id = 0
    while state.used_gpus < 0.7 * state.total_gpus:  # random first placements: fragmented
        g = int(rng.choice([1, 1, 1, 2, 3, 4, 5, 6, 7]))
        room = np.flatnonzero(np.array(state.free_list()) >= g)
        state.place_job(job_id, g, [int(rng.choice(room))])
        job_id += 1
    for solver in ("highs", "cbc"):
        started = time.perf_counter()
        repack(state, 0.5, solver)
        assert time.perf_counter() - started < 0.5 + 4.0  # limit + model build and I/O


def test_fft_without_a_solution_in_time_migrates_nothing(monkeypatch):
    monkeypatch.setattr(repack_module, "solve_model", lambda *args: None)
    fft = FFT()
    fft.reset(state_r(), [])
    assert fft.on_timer(state_r(), 0.0) == ()
    assert fft.stats.timeouts == 1


# ------------------------------------------------------------- move ordering (realise)
def test_swap_cycle_is_broken_through_a_node_with_room():
    state = cluster(3, (1, 4, [0, 0]), (2, 2, [1, 1, 1, 1]))
    target = np.zeros((3, 9), dtype=np.int64)
    target[0, [4, 2]] = [1, 2]
    target[1, [4, 2]] = [1, 2]
    moves = realise(state, target)
    assert len(moves) == 4  # three planned moves plus one hop through N2
    assert (node_counts(applied(state, moves)) == target).all()
    assert realise(cluster(2, (1, 4, [0, 0]), (2, 2, [1, 1, 1, 1])), target[:2]) is None


@st.composite
def retargeted(draw):
    """A state with an empty node plus a random repacking of its instances (not onto it)."""
    state = draw(states(min_nodes=3, max_nodes=5, max_instances=12))
    spare = draw(st.sampled_from(range(state.nodes)))
    for key in list(state.instances_on(spare)):
        state.release_job(key[0])
    target = np.zeros((state.nodes, 9), dtype=np.int64)
    free = [0 if n == spare else 8 for n in range(state.nodes)]
    sizes = [g for g in range(1, 9) for _ in range(state.counts[g])]
    for g in draw(st.permutations(sizes)):
        room = [n for n in range(state.nodes) if free[n] >= g]
        if not room:
            return state, node_counts(state)
        n = draw(st.sampled_from(room))
        target[n, g] += 1
        free[n] -= g
    return state, target


@settings(max_examples=150, deadline=None)
@given(case=retargeted())
def test_moves_are_valid_one_by_one_and_reach_the_target(case):
    state, target = case
    moves = realise(state, target)
    if moves is not None:  # None: no order found (see the next test for how rare)
        assert (node_counts(applied(state, moves)) == target).all()


def test_a_spare_empty_node_makes_unorderable_targets_rare():
    """Greedy staging is not complete, but with an empty node outside the target it fails on
    about 1 in 2,000 random retargetings (16 of 33,271 in a longer run)."""
    failures = cases = 0
    for seed in range(1500):
        rng = np.random.default_rng(seed)
        nodes = int(rng.integers(3, 6))
        state = ClusterState(nodes)  # node 0 stays empty, before and after
        for job_id, g in enumerate(rng.integers(1, 9, int(rng.integers(1, 13))).tolist()):
            room = [n for n in range(1, nodes) if state.free(n) >= g]
            if room:
                state.place_job(job_id, g, [int(rng.choice(room))])
        target = np.zeros((nodes, 9), dtype=np.int64)
        free = [0] + [8] * (nodes - 1)
        sizes = [g for g in range(1, 9) for _ in range(state.counts[g])]
        for g in rng.permutation(sizes).tolist():
            room = [n for n in range(nodes) if free[n] >= g]
            if not room:
                break
            n = int(rng.choice(room))
            target[n, g] += 1
            free[n] -= g
        else:
            cases += 1
            moves = realise(state, target)
            failures += moves is None
            if moves is not None:
                assert (node_counts(applied(state, moves)) == target).all()
    assert cases > 1000 and failures <= 2


def test_selection_prefers_jobs_already_moving_then_the_latest_started():
    state = cluster(2, (7, 1, [0]), (8, 1, [0]), (9, 1, [0, 0]))
    target = np.zeros((2, 9), dtype=np.int64)
    target[:, 1] = [1, 3]
    moves = realise(state, target)
    assert [m.instance for m in moves] == [(9, 0), (9, 1), (8, 0)]


# --------------------------------------------------------------------------------- DRR
def test_drr_all_or_nothing_per_source():
    # N0 (u .375) drains only if both its instances find a non-empty, non-source node
    state = cluster(3, (1, 2, [0]), (2, 1, [0]), (3, 6, [1]), (4, 8, [2]))
    assert DRR().on_timer(state, 0.0) == []  # the 2 fits N1 (f=2), the 1 then finds no room
    state2 = cluster(3, (1, 2, [0]), (2, 1, [0]), (3, 5, [1]), (4, 8, [2]))
    assert DRR().on_timer(state2, 0.0) == [Move((1, 0), 1), Move((2, 0), 1)]


def test_drr_threshold_is_strict_and_budget_stops_the_cycle():
    half = cluster(2, (1, 4, [0]), (2, 2, [1]))  # u = .5 on N0 is not a source
    assert DRR().on_timer(half, 0.0) == [Move((2, 0), 0)]
    # sources N0 (u .25, two jobs) then N1 (u .375, one job); N2 (u .5) is not one
    crowded = cluster(3, (1, 1, [0]), (2, 1, [0]), (3, 3, [1]), (4, 4, [2]))
    assert DRR(re_num=1).on_timer(crowded, 0.0) == []  # N0 exceeds the budget: the cycle stops
    drain_n0 = [Move((1, 0), 2), Move((2, 0), 2)]  # best-fit: N2 (f 4) before N1 (f 5)
    assert DRR(re_num=2).on_timer(crowded, 0.0) == drain_n0
    assert DRR(re_num=5).on_timer(crowded, 0.0) == drain_n0  # N1's 3 then finds no room


# ------------------------------------------------------------------------------ SIFOpt
def test_sifopt_repairs_a_witness_that_no_move_order_can_reach():
    # Free 1 GPU on N0 and N1, N2 full: the max-overlap witness swaps {2, 1} with a 4
    state = cluster(3, (1, 3, [0]), (2, 2, [0]), (3, 1, [0, 0]), (4, 4, [1]),
                    (5, 1, [1, 1, 1]), (6, 8, [2]))
    sifopt = SIFOpt()
    sifopt.reset(state, [])
    moves = sifopt.on_departure(Job(99, 0.0, 1.0, 1, 1), state, 1.0)
    assert len(moves) == 1 and sifopt.repairs == 1 and sifopt.unrealised == 0
    assert avoidable(applied(state, moves)) == 0


def test_sifopt_keeps_an_optimal_placement():
    state = cluster(2, (1, 4, [0]), (2, 2, [1]))  # 2 partial nodes, Phi* = 1 (T = 6)
    sifopt = SIFOpt()
    sifopt.reset(state, [])
    assert avoidable(state) == 1
    assert sifopt.on_departure(Job(99, 0.0, 1.0, 1, 1), state, 1.0) == (Move((2, 0), 0),)
    optimal = cluster(2, (1, 4, [0]), (2, 2, [0]))
    assert sifopt.on_departure(Job(99, 0.0, 1.0, 1, 1), optimal, 1.0) == ()


@settings(max_examples=60, deadline=None)
@given(state=states(min_nodes=2, max_nodes=6, max_instances=14), data=st.data())
def test_assign_bins_reaches_the_maximum_overlap(state, data):
    """Keeping identical nodes and pruning empty ones loses nothing against a full LSA."""
    assume(state.used_gpus > 0)
    groups = data.draw(st.permutations(witness_bins(state.counts, state.nodes)))
    current = node_counts(state)
    keys = node_keys(state)
    assert (np.array(key_counts(keys.tolist(), state.gpus_per_node)) == current).all()
    nodes, now, rows = assign_bins(tuple(groups), keys, state.gpus_per_node)
    assert (current[nodes] == np.array(now).reshape(-1, 9)).all()
    target = current.copy()
    target[nodes] = np.array(rows).reshape(-1, 9)
    bins = [content for content, m in groups for _ in range(m)]
    assert sorted(map(tuple, target[target.any(axis=1)].tolist())) == sorted(
        tuple(np.bincount(b, minlength=9).tolist()) for b in bins
    )
    content = np.array([np.bincount(b, minlength=9) for b in bins])
    overlap = np.minimum(content[:, None, :], current[None, :, :])[..., 1:].sum(axis=2)
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    assert np.minimum(target, current).sum() == overlap[rows, cols].sum()


@st.composite
def wcc_streams(draw):
    """Sizes 1, 2, 4, 8 only: the WCC (n1 >= n3 + 3 n5 + 2 n6 + n7) holds at every instant."""
    nodes = draw(st.integers(2, 4))
    rows, t = [], 0.0
    for job_id in range(draw(st.integers(5, 25))):
        t += draw(st.integers(0, 10))
        g = draw(st.sampled_from([1, 1, 2, 4, 8]))
        w = draw(st.integers(1, min(4, nodes * (8 // g))))
        rows.append((job_id, t, draw(st.integers(1, 60)), w, g))
    return nodes, trace(*rows)


@settings(max_examples=30, deadline=None)
@given(case=wcc_streams(), keep_optimal=st.booleans())
def test_sifopt_sif_is_zero_after_every_event_on_wcc_streams(case, keep_optimal):
    nodes, jobs = case
    sifopt = SIFOpt(keep_optimal=keep_optimal)
    result = compass.simulate(jobs, sifopt, nodes=nodes, debug_checks=True)
    assert result.timeline["wcc"].all()
    assert (result.timeline["sif"] == 0).all()
    assert sifopt.unrealised == 0


@pytest.mark.parametrize("seed", range(6))
def test_sifopt_sif_is_zero_whenever_the_wcc_holds_on_mixed_streams(seed):
    jobs = random_trace(seed, 40, 4, [1, 1, 1, 2, 3, 4, 5, 6, 7, 8])
    result = compass.simulate(jobs, "sifopt", nodes=4, debug_checks=True)
    timeline = result.timeline
    assert (timeline.loc[timeline["wcc"].astype(bool), "sif"] == 0).all()


# ------------------------------------------------------------- simulator invariants
SCHEDULER_PARAMS = {"fft": {"round_s": 15.0}, "drr": {"re_time": 20.0}, "sifopt": {}}


@pytest.mark.parametrize("name", MIGRATING)
def test_invariants_and_determinism_on_random_traces(name):
    moved = 0
    for seed in range(4):
        jobs = random_trace(seed, 40, 4, [1, 1, 1, 2, 3, 4, 5, 6, 7, 8])
        runs = [
            compass.simulate(jobs, name, nodes=4, debug_checks=True,
                             scheduler_params=SCHEDULER_PARAMS[name])
            for _ in range(2)
        ]
        first = runs[0]
        assert first.jobs["end_time"].notna().all()
        assert (first.jobs["end_time"] >= first.jobs["start_time"] + first.jobs["duration"]).all()
        assert (first.timeline["used_gpus"] <= 4 * 8).all()
        assert (first.timeline["sif"] >= 0).all()
        for frame in ("jobs", "timeline", "migrations"):
            pd.testing.assert_frame_equal(getattr(first, frame), getattr(runs[1], frame))
        moved += len(first.migrations)
    assert moved > 0


@pytest.mark.parametrize(
    ("name", "defaults"),
    [
        # the spec's 10 s solver limit is replaced by a deterministic node limit [ours]
        ("fft", {"round_s": 360.0, "time_limit": None, "node_limit": 10_000, "solver": "highs",
                 "objective": "used-nodes", "seed": 0}),
        ("drr", {"re_time": 3600.0, "util_threshold": 0.5, "re_num": 5, "seed": 0}),
        ("sifopt", {"keep_optimal": True, "repair_time_limit": None,
                    "repair_node_limit": 10_000, "seed": 0}),
    ],
)
def test_defaults_are_the_specs_and_reach_the_metadata(name, defaults):
    result = compass.simulate(trace((0, 0.0, 5.0, 1, 1)), name, nodes=1)
    assert result.metadata["scheduler_params"] == defaults


def test_timers_drive_fft_rounds_and_drr_cycles():
    assert FFT().timer_period == 360.0 and DRR().timer_period == 3600.0
    assert SIFOpt().timer_period is None
    fft = FFT(round_s=10.0)
    compass.simulate(random_trace(0, 20, 3, [1, 2, 4]), fft, nodes=3)
    assert fft.stats.rounds > 0


# ------------------------------------------------------------- migration operators
@pytest.mark.parametrize("name, operators", [
    ("fft", {"repack"}), ("drr", {"drain"}), ("sifopt", {"witness"}),
    ("compass-abs", {"place", "remove", "rehome", "compact-pool", "compact-w4", "compact-w2",
                     "repair"}),
])
def test_every_logged_migration_names_its_operator(name, operators):
    rng = np.random.default_rng(3)
    rows = [(i, float(rng.integers(0, 400)), float(rng.integers(5, 300)),
             int(rng.integers(1, 3)), int(rng.choice([1, 1, 2, 3, 4, 8])))
            for i in range(80)]
    params = {"fft": {"round_s": 15.0}, "drr": {"re_time": 20.0}}.get(name, {})
    r = compass.simulate(trace(*sorted(rows, key=lambda x: (x[1], x[0]))), name, nodes=6,
                         scheduler_params=params)
    log = r.migrations
    assert len(log) > 0
    assert set(log["operator"]) <= operators
