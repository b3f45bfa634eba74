"""The multi-panel cluster model of appendix D (step 1 of issue 7; docs/nvl72.md).

Hand-worked layouts and both SIF levels of eq. 26, a hypothesis check that every level's
observed count is at least its inherent count (SIF >= 0) and that K = 1 adds no columns.
"""

from __future__ import annotations

import math
from collections import Counter

import hypothesis.strategies as st
import pandas as pd
import pytest
from hypothesis import given, settings

import compass
from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.fragmentation import (
    DomainLayout,
    InfeasiblePacking,
    domain_layout,
    hierarchical_fragmentation,
    inherent_partial_nodes,
)
from compass.oracle.panels import instance_panels
from compass.schedulers import Placement, Scheduler
from compass.sim.records import PANEL_COLUMNS, TIMELINE_COLUMNS
from compass.sim.simulator import SchedulerError, SimulationError
from compass.sim.timeline import TimelineRecorder


def _trace(rows: list[tuple[float, float, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [(i, *r) for i, r in enumerate(rows)],
        columns=["job_id", "submit_time", "duration", "num_instances", "gpus_per_instance"],
    )


def test_instance_panels() -> None:
    assert [instance_panels(g) for g in (1, 8, 16, 72)] == [0, 0, 2, 9]
    with pytest.raises(ValueError, match="multiple of 8"):
        instance_panels(12)


def test_domain_layout_by_hand() -> None:
    # 5 and 5 cannot share a panel: two partial panels; with a 6 there is no layout.
    assert domain_layout((5, 5), 2) == DomainLayout(0, 2, 2)
    with pytest.raises(InfeasiblePacking):
        domain_layout((5, 5, 6), 2)
    # 24 = 3 panels; 5 + 3 fill a fourth; 1 sits alone in a fifth.
    assert domain_layout((1, 3, 5, 24), 9) == DomainLayout(3, 2, 1)
    with pytest.raises(InfeasiblePacking):
        domain_layout((16, 16), 3)


def test_hierarchical_fragmentation_by_hand() -> None:
    # K = 2, two domains {3, 3} and {2}: one panel each, 6/8 and 2/8.
    h = hierarchical_fragmentation([(3, 3), (2,)], 2)
    # GPU level: 2 partial panels observed; 3 + 3 + 2 fills one panel, so Phi*_GPU = 0.
    assert (h.partial_panels, h.phi_star_gpu) == (2, 0)
    assert h.sif_gpu == pytest.approx(2 / 4)
    # panel level: both domains use 1 of 2 panels; the two 1-panel items could fill one.
    assert (h.panel_partial_domains, h.phi_star_panel, h.sif_panel) == (2, 0, 1.0)


@st.composite
def _domains(draw: st.DrawFn) -> tuple[list[tuple[int, ...]], int]:
    k = draw(st.sampled_from([2, 3, 9]))
    domains = []
    for _ in range(draw(st.integers(1, 4))):
        sizes: list[int] = []
        free = k
        for p in draw(st.lists(st.integers(2, k), max_size=2)):
            if p <= free:
                sizes.append(8 * p)
                free -= p
        for _ in range(free):
            sizes += draw(st.sampled_from([[], [8], [4, 4], [5, 3], [7], [1, 2], [6, 1, 1]]))
        domains.append(tuple(sorted(sizes)))
    return domains, k


@settings(max_examples=60, deadline=None)
@given(_domains())
def test_sif_nonnegative_and_bounded(case: tuple[list[tuple[int, ...]], int]) -> None:
    domains, k = case
    h = hierarchical_fragmentation(domains, k)
    assert 0 <= h.phi_star_gpu <= h.partial_panels <= len(domains) * k
    assert 0 <= h.phi_star_panel <= h.panel_partial_domains <= len(domains)
    small = Counter(g for d in domains for g in d if g <= 8)
    assert h.phi_star_gpu >= inherent_partial_nodes(small)  # fewer panels never helps


def test_k1_timeline_unchanged_and_multi_panel_columns() -> None:
    trace = _trace([(0, 10, 1, 5), (0, 10, 2, 3), (1, 5, 1, 8)])
    base = compass.simulate(trace, "gfs", nodes=2, gpus_per_node=8).timeline
    assert tuple(base.columns) == TIMELINE_COLUMNS
    multi = compass.simulate(_trace([(0, 10, 1, 16), (0, 10, 1, 5), (1, 5, 2, 3)]), "gfs",
                             nodes=2, gpus_per_node=16).timeline
    assert tuple(multi.columns) == TIMELINE_COLUMNS + PANEL_COLUMNS
    assert (multi["sif_gpu"] >= 0).all() and (multi["sif_panel"] >= 0).all()


def test_nvl72_runs_with_nan_domain_phi() -> None:
    tl = compass.simulate(_trace([(0, 10, 1, 72), (0, 10, 3, 8), (0, 10, 1, 40)]), "gfs",
                          nodes=2, gpus_per_node=72).timeline
    assert math.isnan(tl["phi_star"].iloc[0])  # no exact domain-level oracle for G > 16
    assert tl["phi_star_panel"].iloc[0] == 1  # 3 + 5 panels on 9: one partial domain


def test_multi_panel_g_must_be_whole_panels() -> None:
    with pytest.raises(SimulationError, match="multiple of 8"):
        compass.simulate(_trace([(0, 1, 1, 12)]), "gfs", nodes=1, gpus_per_node=16)


def test_jobs_beyond_panel_capacity_are_rejected_up_front() -> None:
    # 5 x 3 = 15 <= 16 GPUs, but two panels of 8 hold only 2 x floor(8/3) = 4 such instances
    with pytest.raises(SimulationError, match="cannot fit an empty cluster"):
        compass.simulate(_trace([(0, 1, 5, 3)]), "gfs", nodes=1, gpus_per_node=16)
    compass.simulate(_trace([(0, 1, 4, 3)]), "gfs", nodes=1, gpus_per_node=16)
    with pytest.raises(SimulationError, match="cannot fit an empty cluster"):
        compass.simulate(_trace([(0, 1, 2, 16)]), "gfs", nodes=1, gpus_per_node=24)


class _PanelBlind(Scheduler):
    """Every instance on node 0 whenever its free GPUs suffice: blind to panels."""

    name = "panel-blind"

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        fits = state.free(0) >= job.total_gpus
        return Placement(job.job_id, (0,) * job.num_instances) if fits else None


def test_panel_split_is_a_policy_error() -> None:
    # 5 + 5 + 6 = 16 GPUs fit the domain's free count but have no layout on 2 panels of 8.
    trace = _trace([(0, 10, 1, 5), (0, 10, 1, 5), (1, 10, 1, 6)])
    with pytest.raises(SchedulerError, match="panel-blind.*no panel layout"):
        compass.simulate(trace, _PanelBlind(), nodes=1, gpus_per_node=16)


@settings(max_examples=60, deadline=None)
@given(
    k=st.sampled_from([2, 3]),
    ops=st.lists(st.tuples(st.sampled_from([1, 2, 3, 4, 8, 16, 24]), st.integers(0, 3),
                           st.integers(0, 10)), min_size=1, max_size=40),
)
def test_incremental_panel_columns_equal_a_full_recount(k, ops) -> None:
    """The timeline updates only changed domains; every row equals eq. 26 from scratch."""
    state = ClusterState(4, 8 * k)
    recorder = TimelineRecorder(state)
    running: list[int] = []
    for job_id, (g, node, pick) in enumerate(ops):
        if running and pick < 3:  # a departure or a move
            victim = running[pick % len(running)]
            if pick == 0:
                state.release_job(victim)
                running.remove(victim)
            else:
                key = state.job_instances(victim)[0]
                dst = (state.node_of(key) + 1) % state.nodes
                layout_ok = _has_layout(state, dst, state.size_of(key), k)
                if state.free(dst) >= state.size_of(key) and layout_ok:
                    state.move(key, dst)
        elif g <= 8 * k and state.free(node) >= g and _has_layout(state, node, g, k):
            state.place_job(job_id, g, [node])
            running.append(job_id)
        recorder.record(float(job_id), [])
        row = recorder.frame().iloc[-1]
        domains = [tuple(sorted(state.instances_on(n).values())) for n in range(state.nodes)]
        h = hierarchical_fragmentation(domains, k)
        assert (row["partial_panels"], row["phi_star_gpu"], row["panel_partial_domains"],
                row["phi_star_panel"]) == (h.partial_panels, h.phi_star_gpu,
                                           h.panel_partial_domains, h.phi_star_panel)


def _has_layout(state: ClusterState, node: int, g: int, k: int) -> bool:
    sizes = tuple(sorted((*state.instances_on(node).values(), g)))
    try:
        domain_layout(sizes, k)
    except InfeasiblePacking:
        return False
    return True
