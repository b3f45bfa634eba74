"""``compass-abs-hier-paper``, the literal appendix-D.3 scheduler, against Theorem 2.

The same checks as tests/test_nvl72_theorems.py applies to ``compass-abs-hier``: random
streams of one-instance jobs under both WCCs (eq. 24, 25), the GPU level on the
scheduler's own panels, the panel level in the cluster-wide reading SIF_panel <= 2/D of
docs/nvl72.md. The literal version keeps its own invariants (both spaces agree with the
cluster; Lemma A.2's saturated FUF slots and Lemma A.3's single partial pool at both
levels) but breaks both bounds of eq. 26 (and, like compass-abs-paper, Proposition 1);
the smallest streams we found are kept as regression tests, each also run on
``compass-abs-hier``, which keeps the bounds.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from test_nvl72_theorems import Event, HierDriver, both_wcc, cases, panel_excess

import compass
from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.fragmentation import hierarchical_fragmentation, inherent_partial_nodes
from compass.schedulers import Move, create
from compass.schedulers.hierarchical_paper import panel_slot_width
from compass.traces.nvl72 import Nvl72Workload, generate

PAPER = "compass-abs-hier-paper"


class PaperDriver(HierDriver):
    """``HierDriver`` for any scheduler name (default: the literal one)."""

    def __init__(self, domains: int, panels: int, name: str = PAPER) -> None:
        self.state = ClusterState(domains, 8 * panels)
        self.sched = create(name)
        self.sched.reset(self.state, [])
        self.jobs: dict[int, Job] = {}
        self.next_id = 0

    def arrive_all(self, sizes: list[int]) -> PaperDriver:
        for g in sizes:
            assert self.arrive(g), g
        return self


def literal_panel_excess(d: PaperDriver) -> int:
    """Panel-partial domains minus Phi*_panel on the literal scheduler's own layout (items:
    each multi-panel anchor as p panels, each other occupied panel as 1)."""
    space, k = d.sched.panel_space, d.sched.panels
    occupied = [space.used(x) for x in range(space.nodes)]
    multi = Counter(s.g for x in range(space.nodes) for s in space.slots_on(x))
    items = multi + Counter({1: sum(occupied) - sum(p * n for p, n in multi.items())})
    phi = inherent_partial_nodes(items, nodes=space.nodes, gpus_per_node=k)
    return sum(0 < o < k for o in occupied) - phi


def excess(d: PaperDriver) -> int:
    """The cluster-wide panel-level excess for either scheduler."""
    return literal_panel_excess(d) if d.sched.name == PAPER else panel_excess(d)


def gpu_level(d: PaperDriver) -> tuple[int, int, int]:
    """(non-fully-packed slotted panels, partial pool panels, partial panels - Phi*_GPU)."""
    space = d.sched.space
    nonfull = [space.kind(n) for n in range(space.nodes) if 0 < space.used(n) < 8]
    phi = hierarchical_fragmentation(d.domains(), d.sched.panels).phi_star_gpu
    return nonfull.count("slotted"), nonfull.count("pool"), len(nonfull) - phi


def both(domains: int, panels: int, sizes: list[int]) -> dict[str, PaperDriver]:
    """The same arrivals on the literal and the corrected scheduler, both checked."""
    runs = {}
    for name in (PAPER, "compass-abs-hier"):
        d = PaperDriver(domains, panels, name).arrive_all(sizes)
        assert both_wcc(d.sizes())
        d.state.check()
        d.sched.check(d.state)
        runs[name] = d
    return runs


# ------------------------------------------------------------------ the model
def test_panel_slot_widths() -> None:
    """Eq. 23 for p < K, the width-K degenerate slot for p = K (D.3)."""
    assert [panel_slot_width(p, 9) for p in range(2, 10)] == [2, 4, 4, 8, 8, 8, 8, 9]
    assert [panel_slot_width(p, 3) for p in (2, 3)] == [2, 3]
    assert [panel_slot_width(p, 5) for p in range(2, 6)] == [2, 4, 4, 5]


@pytest.mark.parametrize(("panels", "gap"), [(6, "width 8 > K = 6"), (7, "width 8 > K = 7"),
                                             (10, "p = 9 has no panel-slot width")])
def test_refuses_k_the_paper_does_not_cover(panels: int, gap: str) -> None:
    trace = pd.DataFrame({"job_id": [0], "submit_time": [0.0], "duration": [1.0],
                          "num_instances": [1], "gpus_per_instance": [8]})
    with pytest.raises(ValueError, match=gap):
        compass.simulate(trace, PAPER, nodes=2, gpus_per_node=8 * panels)


def test_k1_is_compass_abs_paper() -> None:
    """K = 1: the panel level is empty (D.5); arrivals (g, w) and departures (job id) get
    exactly compass-abs-paper's placements, moves and layout."""
    flat, hier = create("compass-abs-paper"), create(PAPER)
    states = [ClusterState(3, 8), ClusterState(3, 8)]
    for sched, state in zip((flat, hier), states, strict=True):
        sched.reset(state, [])
    events: list[tuple[int, int] | int] = [
        (3, 1), (1, 2), (5, 1), (2, 2), (8, 1), (1, 1), (4, 2), 2, (2, 1), (4, 1), 0, (1, 2),
        4, (6, 1), (1, 3),
    ]
    jobs: dict[int, Job] = {}
    for i, event in enumerate(events):
        moves: tuple[Move, ...] = ()
        if isinstance(event, tuple):
            job = jobs[i] = Job(i, 0.0, 1.0, event[1], event[0])
            decisions = [flat.place(job, states[0], 0.0), hier.place(job, states[1], 0.0)]
            assert decisions[0] == decisions[1]
            p = decisions[0]
            if p is not None:
                for state in states:
                    state.place_job(i, job.gpus_per_instance, p.nodes)
                moves = p.moves
        else:
            for state in states:
                state.release_job(event)
            moves = tuple(flat.on_departure(jobs[event], states[0], 0.0))
            assert tuple(hier.on_departure(jobs[event], states[1], 0.0)) == moves
        for state in states:
            for m in moves:
                state.move(m.instance, m.dst)
        hier.check(states[1])
    assert flat.space.layout() == hier.space.layout()


# ----------------------------------------------------------- property tests
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_literal_invariants_under_both_wccs(case: tuple[int, int, list[Event]]) -> None:
    """What does hold for the literal version: both levels agree with the cluster and with
    each other (``check``), FUF slots and panel-slots saturated (Lemma A.2 and its eq.-25
    analogue), at most one partial pool panel and one partial panel-pool domain (Lemma A.3
    at both levels). Strays can occur (Proposition 1 fails, docs/theory.md)."""
    domains, k, events = case
    d = PaperDriver(domains, k)
    for depart, g, pick in events:
        if depart and d.jobs:
            job_id = sorted(d.jobs)[pick % len(d.jobs)]
            if both_wcc(d.sizes() - Counter({d.jobs[job_id].gpus_per_instance: 1})):
                d.depart(job_id)
        elif not depart and both_wcc(d.sizes() + Counter({g: 1})):
            d.arrive(g)
        d.state.check()
        d.sched.check(d.state)
        gpu, panel = d.sched.space, d.sched.panel_space
        for space in (gpu, panel):
            assert all(s.vacancy == 0 for n in range(space.nodes) for s in space.slots_on(n))
        assert gpu_level(d)[1] <= 1
        assert sum(panel.kind(x) == "pool" and panel.used(x) < k
                   for x in range(panel.nodes)) <= 1


@pytest.mark.parametrize(("domains", "panels"), [(6, 2), (2, 9)])
def test_simulator_runs_with_debug_checks(domains: int, panels: int) -> None:
    """The NVL72 workload (and a gang trace) through the simulator, checked every instant."""
    result = compass.simulate(generate(Nvl72Workload(domains, panels, jobs=150, seed=3)), PAPER,
                              nodes=domains, gpus_per_node=8 * panels, debug_checks=True)
    assert result.jobs["end_time"].notna().all() and result.summary["migrations"] > 0
    rng = np.random.default_rng(panels)
    n = 100
    sizes = [1, 1, 2, 3, 4, 5, 8, 8] + [8 * p for p in range(2, panels + 1)]
    trace = pd.DataFrame({
        "job_id": range(n), "submit_time": np.sort(rng.integers(0, 1500, n)),
        "duration": rng.integers(50, 800, n), "num_instances": rng.integers(1, 3, n),
        "gpus_per_instance": rng.choice(sizes, n),
    })
    result = compass.simulate(trace, PAPER, nodes=domains, gpus_per_node=8 * panels,
                              debug_checks=True)
    assert result.jobs["end_time"].notna().all()


# ------------------------------------------------------- counterexamples (eq. 26)
def test_gpu_level_theorem_1_counterexample() -> None:
    """Theorem 2 part 1 fails with the literal GPU level (Theorem 1's gap, docs/theory.md):
    K = 2, D = 1, arrivals 2, 4, 4: panels {2, 4} and {4}, two non-fully-packed slotted
    panels (claim: at most one)."""
    runs = both(1, 2, [2, 4, 4])
    assert gpu_level(runs[PAPER])[0] == 2
    assert gpu_level(runs["compass-abs-hier"])[0] == 1


def test_gpu_level_sif_counterexample() -> None:
    """SIF_GPU <= 2/N_p fails: K = 3, D = 1, six 1s, a 2, two 4s: pool 6/8, {2, 4}, {4}:
    3 partial panels, Phi*_GPU = 0 (16 GPUs fill 2 panels), SIF_GPU = 3/3 > 2/3."""
    runs = both(1, 3, [1, 1, 1, 1, 1, 1, 2, 4, 4])
    assert gpu_level(runs[PAPER]) == (2, 1, 3)
    assert gpu_level(runs["compass-abs-hier"])[2] <= 2


def test_nvl72_panel_level_counterexample() -> None:
    """The cluster-wide panel bound fails on NVL72 itself: K = 9, D = 3, arrivals 8, 56,
    64, 16. The 8 opens a panel-pool domain, the 56 (p = 7, width 8) draws it as its
    filler, the 64 takes domain 0, the 16 (width 2) fits no domain with D(d) = 1: three
    panel-slotted domains with one, one and seven free panels, Phi*_panel = 0 ({7, 2},
    {8, 1}), SIF_panel = 3/3 > 2/3. Every domain hosts a multi-panel anchor, so D.5's
    "one width-8 panel-slot plus one residual panel" layout is the failure: the residual
    panel cannot take the width-2 slot. The panel-w2 pass has one host only."""
    runs = both(3, 9, [8, 56, 64, 16])
    paper = runs[PAPER]
    assert sorted(paper.domains()) == [(8, 56), (16,), (64,)]
    assert literal_panel_excess(paper) == 3
    assert hierarchical_fragmentation(paper.domains(), 9).sif_panel == 1.0
    assert sum(paper.sched.panel_space.residual(x) > 0 for x in range(3)) == 3
    assert excess(runs["compass-abs-hier"]) == 0


@pytest.mark.parametrize(("domains", "panels", "sizes", "departing"), [
    (4, 2, [4, 4, 8, 4, 4, 8, 4, 4, 8, 4, 4], 8),   # docs/nvl72.md counterexample 2
    (3, 3, [1, 1, 1, 1, 1, 1, 1, 2, 16, 16], None),  # docs/nvl72.md counterexample 3
])
def test_earlier_counterexamples_break_the_literal_version(
        domains: int, panels: int, sizes: list[int], departing: int | None) -> None:
    """The counterexamples that shaped compass-abs-hier's panel drain also break the
    literal D.3 scheme: its panel level never moves sub-panel panels."""
    runs = both(domains, panels, sizes)
    for d in runs.values():
        for job_id in [j for j, job in list(d.jobs.items()) if job.gpus_per_instance == departing]:
            d.depart(job_id)
        assert both_wcc(d.sizes())
        d.sched.check(d.state)
    assert excess(runs[PAPER]) >= 3
    assert excess(runs["compass-abs-hier"]) == 0
