"""Panel-aware node rules of the baselines on multi-panel domains (appendix D.1; docs/nvl72.md,
docs/baselines.md "Multi-panel domains").

A node (domain of K panels) accepts a g-GPU instance only if its instances plus the new one,
and the gang's earlier tentative instances on it, still have a panel layout. Checked by hand,
against a per-instance scan with a brute-force layout test, and end to end through the
simulator, which stops any run whose domain has no panel layout.
"""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import assume, given, settings
from trace_rows import trace

import compass
from compass.cluster import ClusterState
from compass.experiments.studies.nvl72.config import Platform
from compass.experiments.studies.nvl72.runs import run_one
from compass.model import Job
from compass.schedulers import greedy_gang
from compass.schedulers.base import panel_fit
from compass.schedulers.cafgd import ReleasedView
from compass.schedulers.first_fit import first_fit_gang
from compass.schedulers.fragmentation_gradient import FragmentationGradient, gradient_gang
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.mcg import node_key as mcg_node_key
from compass.traces.nvl72 import Nvl72Workload


def _best_fit(f: int, n: int) -> tuple[int, int]:
    return (f, n)


def _first_fit(f: int, n: int) -> int:
    return n


def _brute_layout(sizes: list[int], panels: int) -> bool:
    """Reference: some assignment puts every g <= 8 into one panel of 8 next to the
    multi-panel instances' whole panels (exhaustive search)."""
    free = panels - sum(g // 8 for g in sizes if g > 8)
    if free < 0:
        return False
    loads = [0] * free

    def place(items: list[int]) -> bool:
        if not items:
            return True
        tried = set()
        for b, load in enumerate(loads):
            if load + items[0] <= 8 and load not in tried:
                tried.add(load)
                loads[b] += items[0]
                if place(items[1:]):
                    return True
                loads[b] -= items[0]
        return False

    return place(sorted((g for g in sizes if g <= 8), reverse=True))


def _naive(state: ClusterState, g: int, w: int, key) -> tuple[int, ...] | None:
    """The rule's definition: per instance, scan every node that keeps a layout."""
    panels = state.gpus_per_node // 8
    sizes = {n: list(state.instances_on(n).values()) for n in range(state.nodes)}
    free = state.free_list()
    out = []
    for _ in range(w):
        cands = [n for n in range(state.nodes)
                 if free[n] >= g and _brute_layout(sizes[n] + [g], panels)]
        if not cands:
            return None
        n = min(cands, key=lambda n: key(free[n], n))
        free[n] -= g
        sizes[n].append(g)
        out.append(n)
    return tuple(out)


def _sizes(panels: int) -> list[int]:
    return list(range(1, 9)) + [8 * p for p in range(2, panels + 1)]


@st.composite
def _states(draw: st.DrawFn) -> tuple[ClusterState, int]:
    """A random K > 1 cluster whose domains all have panel layouts, and a job size g."""
    panels = draw(st.sampled_from([2, 3, 9]))
    state = ClusterState(draw(st.integers(1, 5)), 8 * panels)
    for job_id in range(draw(st.integers(0, 6 * state.nodes))):
        g = draw(st.sampled_from(_sizes(panels)))
        n = draw(st.integers(0, state.nodes - 1))
        if state.free(n) >= g and _brute_layout([*state.instances_on(n).values(), g], panels):
            state.place_job(job_id, g, [n])
    return state, draw(st.sampled_from(_sizes(panels)))


def test_old_rule_splits_new_rule_does_not() -> None:
    # K = 2: domain 0 holds 5 + 5 (one per panel, 6 free), domain 1 is empty. Plain best fit
    # would put a 6 on domain 0 (6 free is the tightest fit), splitting it across panels.
    state = ClusterState(2, 16)
    state.place_job(0, 5, [0])
    state.place_job(1, 5, [0])
    assert best_fit_gang(state, 6, 1) == (1,)
    assert first_fit_gang(state, 6, 1) == (1,)
    assert greedy_gang(state, Job(9, 0.0, 1.0, 1, 6), _best_fit) == (1,)
    assert best_fit_gang(state, 3, 2) == (0, 0)  # 5 + 3 in each panel still fits
    assert best_fit_gang(state, 6, 2) == (1, 1)  # one 6 per panel of domain 1
    # 6 free GPUs on domain 0 pass the free-count check, but no third 6 has a panel
    assert state.instance_capacity(6) == 3 and best_fit_gang(state, 6, 3) is None
    assert greedy_gang(state, Job(9, 0.0, 1.0, 3, 6), _best_fit) is None


def test_gang_counts_its_earlier_tentative_instances() -> None:
    # Domain 0 holds a 7 (9 free): it takes two 3s (one panel 7, one panel 3 + 3), not three.
    state = ClusterState(2, 16)
    state.place_job(0, 7, [0])
    job = Job(9, 0.0, 1.0, 3, 3)
    assert best_fit_gang(state, 3, 3) == (0, 0, 1)
    assert greedy_gang(state, job, _best_fit) == (0, 0, 1)
    assert first_fit_gang(state, 3, 3) == (0, 0, 1)


def test_single_panel_clusters_take_the_plain_path() -> None:
    assert panel_fit(ClusterState(2, 8), 3) is None  # K = 1
    assert panel_fit(ClusterState(2, 12), 3) is None  # not whole panels: no panel model
    assert panel_fit(ClusterState(2, 16), 3) is not None


@settings(max_examples=150, deadline=None)
@given(case=_states(), w=st.integers(1, 4), p=st.dictionaries(st.integers(1, 72),
                                                               st.floats(0.01, 1), min_size=1))
def test_node_rules_match_the_per_instance_definition(case, w, p) -> None:
    state, g = case
    G = state.gpus_per_node
    job = Job(99, 0.0, 1.0, w, g)
    best = _naive(state, g, w, _best_fit)
    assert best_fit_gang(state, g, w) == best
    assert greedy_gang(state, job, _best_fit) == best
    first = _naive(state, g, w, _first_fit)
    assert first_fit_gang(state, g, w) == first
    assert greedy_gang(state, job, _first_fit) == first
    gradient = FragmentationGradient.of({s: v for s, v in p.items() if s <= G}, G)
    for key in (gradient.node_key(g), mcg_node_key(gradient, g, 0.5)):
        assert greedy_gang(state, job, key) == _naive(state, g, w, key)


@settings(max_examples=60, deadline=None)
@given(case=_states(), data=st.data())
def test_released_view_decides_like_the_full_state(case, data) -> None:
    state, g = case
    running = list(state.running_jobs())
    assume(running)
    released = data.draw(st.lists(st.sampled_from(running), min_size=1, unique=True))
    w = data.draw(st.integers(1, 3))
    grad = FragmentationGradient.of({1: 0.5, 4: 0.2, g: 0.3}, state.gpus_per_node)
    key = grad.node_key(g)
    job = Job(-1, 0.0, 1.0, w, g)
    full, view = state.copy(), ReleasedView(state, g, w)
    for j in [None, *released]:
        if j is not None:
            full.release_job(j)
            view.release_job(j)
        assert gradient_gang(view, job, grad, key) == gradient_gang(full, job, grad, key)


#: Every baseline on the shared node rules; CAFGD with short windows to leave its warm-up.
BASELINES = [("gfs", {}), ("fgd", {}), ("first-fit", {}), ("mcg", {}),
             ("cafgd", {"short_window": 4, "long_window": 8})]


@st.composite
def _gang_traces(draw: st.DrawFn):
    """Mixed sub-panel and multi-panel jobs, sizes uniform (the generator of
    ``compass.traces.nvl72`` rarely draws the sizes that split), gangs of up to 3."""
    panels = draw(st.sampled_from([2, 9]))
    domains = draw(st.integers(1, 3))
    rows, t = [], 0
    for job_id in range(draw(st.integers(1, 20))):
        t += draw(st.integers(0, 300))
        g = draw(st.sampled_from(_sizes(panels)))
        per_domain = panels // (g // 8) if g > 8 else panels  # one per panel always fits
        w = draw(st.integers(1, min(3, domains * per_domain)))
        rows.append((job_id, t, draw(st.integers(1, 900)), w, g))
    return panels, domains, trace(*rows)


@pytest.mark.parametrize("name, params", BASELINES, ids=[n for n, _ in BASELINES])
@settings(max_examples=20, deadline=None)
@given(case=_gang_traces())
def test_baselines_keep_a_panel_layout_with_gangs(name, params, case) -> None:
    # the simulator raises SchedulerError at any instant a domain has no panel layout
    panels, domains, tr = case
    r = compass.simulate(tr, name, nodes=domains, gpus_per_node=8 * panels,
                         scheduler_params=params, debug_checks=True)
    assert r.jobs["end_time"].notna().all()
    assert r.timeline["sif_gpu"].notna().all()


def test_8x9_gfs_run_that_was_refused_now_completes() -> None:
    # nvl72(jobs=400, seed=0) used to record gfs on 8 x 9 as refused (a split sub-panel instance)
    row = run_one(Platform("8x9", 8, 9), "gfs", Nvl72Workload(8, 9, jobs=400, seed=0))
    assert row["status"] == "ok"
    assert row["sif_gpu"] >= 0 and row["sif_panel"] >= 0 and row["ajct"] > 0
