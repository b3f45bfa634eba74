"""The claims of section 4.4 and appendices A-B, checked on random event streams.

Streams are job arrivals and departures on clusters of 1..12 nodes (more under ``slow``),
applied with ``Driver`` (tests/test_compass_abs.py). Unrestricted streams test Proposition
1 and Lemma A.2; WCC streams (an arrival or departure that would break the WCC is
skipped, so the WCC holds after every event) test Theorem 1; FF-only streams test
Proposition 3. The explicit sequences at the end are the smallest counterexamples to the
paper's claims for the literal algorithm (``compass-abs-paper``), kept as regression tests
next to the corrected ``compass-abs`` (docs/theory.md).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from test_compass_abs import Driver

from compass.model import FUF_SIZES
from compass.oracle.fragmentation import inherent_partial_nodes, wcc_holds

BOTH = ["compass-abs", "compass-abs-paper"]
ALL_SIZES = [1, 1, 1, 2, 3, 4, 4, 5, 6, 7, 8, 8]
#: Small, busy clusters with many 3-GPU anchors: where strays (docs/theory.md) happen.
CROWDED_SIZES = [1, 1, 1, 2, 3, 3, 4, 4, 8]
FF_SIZES = [2, 4, 8]
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: An event: (departure?, g, w, which running job departs).
Event = tuple[bool, int, int, int]


def streams(sizes: list[int], min_events: int = 20, max_events: int = 80,
            departures: int = 4) -> st.SearchStrategy[list[Event]]:
    """Event lists; an event is a departure with probability ``departures`` / 10."""
    event = st.tuples(st.integers(0, 9).map(lambda x: x < departures), st.sampled_from(sizes),
                      st.integers(1, 8), st.integers(0, 999))
    return st.lists(event, min_size=min_events, max_size=max_events)


#: (nodes, events): mixed workloads on 1..12 nodes, or crowded ones on 1..4 nodes.
CASES = st.one_of(st.tuples(st.integers(1, 12), streams(ALL_SIZES)),
                  st.tuples(st.integers(1, 4), streams(CROWDED_SIZES, departures=3)))


def wcc_after(d: Driver, g: int, delta: int) -> bool:
    counts = list(d.state.counts)
    counts[g] += delta
    return wcc_holds(counts)


def replay(d: Driver, events: list[Event], wcc_only: bool = False) -> Iterator[str]:
    """Apply the events; yield "arrival" or "departure" after each applied one."""
    for depart, g, w, pick in events:
        if depart and d.jobs:
            job = d.jobs[sorted(d.jobs)[pick % len(d.jobs)]]
            if wcc_only and not wcc_after(d, job.gpus_per_instance, -job.num_instances):
                continue
            d.depart(job.job_id)
            yield "departure"
        else:
            w = 1 + (w - 1) % (8 if g == 1 else 3)
            if wcc_only and not wcc_after(d, g, w):
                continue
            if d.arrive(g, w) is not None:
                yield "arrival"


def sif_times_n(d: Driver) -> int:
    """N * SIF = partial nodes - Phi* (eq. 2), with the exact oracle."""
    return d.state.partial_nodes - inherent_partial_nodes(d.state.counts, nodes=d.state.nodes)


def theorem_1_holds(d: Driver) -> bool:
    """At most one non-fully-packed slotted and one pool node, so SIF <= 2/N (eq. 10)."""
    slotted, pool = d.nonfull()
    return slotted <= 1 and pool <= 1 and sif_times_n(d) <= 2


def unsaturated_fuf_slots(d: Driver) -> list:
    return [s.anchor for n in range(d.state.nodes) for s in d.space.slots_on(n)
            if s.g in FUF_SIZES and s.vacancy > 0]


# ------------------------------------------------------- property tests
@pytest.mark.parametrize("name, params", [
    ("compass-abs", {}), ("compass-abs-paper", {}),
    ("compass-abs", {"one_gpu_overflow": True, "compact_on_arrival": False}),
])
@FAST
@given(case=CASES)
def test_proposition_1_state_stays_in_the_abs(name, params, case):
    """After every event the state is in the ABS and agrees with the cluster, except for
    strays, which check() admits only when the 1-GPU rule has no destination at all."""
    nodes, events = case
    d = Driver(name, nodes, **params)
    for _ in replay(d, events):
        d.check()


@pytest.mark.parametrize("name", BOTH)
@FAST
@given(case=CASES)
def test_lemma_a2_fuf_slots_are_saturated_whenever_the_wcc_holds(name, case):
    nodes, events = case
    d = Driver(name, nodes)
    for _ in replay(d, events):
        if wcc_holds(d.state.counts):
            assert unsaturated_fuf_slots(d) == [], d.space.layout()


@FAST
@given(case=CASES)
def test_theorem_1_on_wcc_streams(case):
    nodes, events = case
    d = Driver("compass-abs", nodes)
    for _ in replay(d, events, wcc_only=True):
        d.check()
        assert theorem_1_holds(d), d.space.layout()


@FAST
@given(case=CASES)
def test_theorem_1_whenever_the_wcc_holds(case):
    """Stronger than the paper: the WCC may have failed before the event."""
    nodes, events = case
    d = Driver("compass-abs", nodes)
    for _ in replay(d, events):
        if wcc_holds(d.state.counts):
            assert theorem_1_holds(d), d.space.layout()


@FAST
@given(nodes=st.integers(1, 12), events=streams(FF_SIZES))
def test_proposition_3_best_fit_with_compact_on_departure(nodes, events):
    """FF-only, best fit, Compact after departures only: <= 2 partial nodes after an
    arrival, <= 1 after a departure; and SIF <= 1/N (the only two-partial state has free
    GPUs {2, 4}, so T = 2 mod 8 and Phi* = 1)."""
    d = Driver("compass-abs", nodes, compact_on_arrival=False)
    for kind in replay(d, events):
        d.check()
        assert d.state.partial_nodes <= (2 if kind == "arrival" else 1), d.space.layout()
        assert sif_times_n(d) <= 1


@pytest.mark.slow
@SLOW
@given(nodes=st.integers(1, 40),
       events=st.one_of(streams(ALL_SIZES, 100, 300),
                        streams([1, 1, 1, 1, 3, 5, 6, 7], 100, 300)))  # FUF-heavy
def test_theorem_1_long_wcc_streams(nodes, events):
    d = Driver("compass-abs", nodes)
    for _ in replay(d, events, wcc_only=True):
        d.check()
        assert theorem_1_holds(d) and unsaturated_fuf_slots(d) == [], d.space.layout()


def test_property_search_finds_the_literal_gap():
    """The Theorem 1 property, run on the literal algorithm, is falsified by the search."""
    def breaks(case: tuple[int, list[Event]]) -> bool:
        nodes, events = case
        d = Driver("compass-abs-paper", nodes)
        return any(not theorem_1_holds(d) for _ in replay(d, events, wcc_only=True))

    case = find(CASES, breaks, settings=settings(max_examples=500, deadline=None,
                                                  database=None, phases=[Phase.generate]))
    assert breaks(case)


# ------------------------------------------------ smallest counterexamples
def paper_and_ours(nodes: int, script, **params) -> dict[str, Driver]:
    """Run ``script(driver)`` on both variants."""
    out = {}
    for name in BOTH:
        d = Driver(name, nodes, **params)
        script(d)
        d.check()
        out[name] = d
    return out


def test_smallest_theorem_1_counterexample():
    """Two arrivals on N = 2 (WCC holds: no FUF): {2, 4} and {4}. The w4 pass sees only
    node 1 (node 0 has room_w4 = 0), the w2 pass only node 0 (node 1 has no w2 slot)."""
    def script(d):
        d.arrive(2)
        d.arrive(4, 2)

    runs = paper_and_ours(2, script)
    assert runs["compass-abs-paper"].nonfull() == (2, 0)
    assert runs["compass-abs"].nonfull() == (1, 0)


def test_design_note_sequence():
    """Anchors 4, 4 on node 0, then 2 and 4 on node 1, then a 4 on node 0 departs."""
    def script(d):
        first = d.arrive(4)
        d.arrive(4)
        d.arrive(2)
        d.arrive(4)
        d.depart(first)

    runs = paper_and_ours(2, script)
    paper = runs["compass-abs-paper"]
    assert (paper.widths(0), paper.widths(1)) == ([4], [2, 4])
    assert paper.nonfull() == (2, 0)
    assert runs["compass-abs"].nonfull() == (1, 0)


def test_smallest_sif_counterexample():
    """Three arrivals on N = 3 under the WCC: pool 6/8, {2, 4}, {4}: three partial nodes,
    T = 16 so Phi* = 0, SIF = 3/3 > 2/3 (eq. 10 fails)."""
    def script(d):
        d.arrive(1, 6)
        d.arrive(2)
        d.arrive(4, 2)

    runs = paper_and_ours(3, script)
    paper, ours = runs["compass-abs-paper"], runs["compass-abs"]
    assert wcc_holds(paper.state.counts)
    assert sif_times_n(paper) == 3 and not theorem_1_holds(paper)
    assert sif_times_n(ours) == 2 and theorem_1_holds(ours)


def test_smallest_proposition_3_counterexample():
    """Proposition 3's policy (Compact on departure only), N = 2: {2, 2, 4} and {4}; job 0
    departs; {2, 4} and {4} stay: two partial nodes after a departure (claim: <= 1)."""
    def script(d):
        first = d.arrive(2)
        d.arrive(2)
        d.arrive(4, 2)
        d.depart(first)

    runs = paper_and_ours(2, script, compact_on_arrival=False)
    assert runs["compass-abs-paper"].state.partial_nodes == 2
    assert runs["compass-abs"].state.partial_nodes == 1


def test_proposition_3_arrival_bound_fails_once_the_departure_bound_has():
    """Seven events, N = 3, Compact on departure only: the departure leaves {4} and {2};
    best fit then builds {2, 4}, {2, 4}, {4}: three partial nodes after an arrival (claim:
    <= 2; Lemma B.1's "one partial node per free value" assumes the departure left <= 1),
    T = 16, Phi* = 0, N * SIF = 3."""
    def script(d):
        d.arrive(4)
        pair = d.arrive(2, 2)         # node 0 {4, 2, 2}
        d.arrive(2)                   # node 1 {2}
        d.depart(pair)                # {4} and {2}
        d.arrive(2)
        d.arrive(4)
        d.arrive(4)

    runs = paper_and_ours(3, script, compact_on_arrival=False)
    paper = runs["compass-abs-paper"]
    assert paper.state.partial_nodes == 3 and sif_times_n(paper) == 3
    assert runs["compass-abs"].state.partial_nodes == 0


@pytest.mark.parametrize("name", BOTH)
def test_proposition_3_tightness_sequence(name):
    """Appendix A: one node holds {4, 2}; a job of three 4-GPU instances arrives. Best fit
    opens a node, fills it with the second instance, opens another for the third: two
    partial nodes (free 2 and 4). T = 18, so Phi* = 1 and SIF = 1/N, not the 2/N the
    appendix states."""
    d = Driver(name, 4, compact_on_arrival=False)
    d.arrive(8)                       # the rest of the cluster is fully packed
    d.arrive(4)
    d.arrive(2)                       # node 1 {4, 2}
    job = d.arrive(4, 3)
    assert d.state.job_nodes(job) == (2, 2, 3)
    assert sorted(d.state.free(n) for n in range(4) if 0 < d.state.free(n) < 8) == [2, 4]
    assert d.state.partial_nodes == 2 and sif_times_n(d) == 1


@pytest.mark.parametrize("name", BOTH)
def test_smallest_proposition_1_counterexample(name):
    """N = 1, four events: a 2- and a 3-GPU anchor share node 0, a 1-GPU instance fills the
    3's vacancy, the 3 departs. The orphan has no slot vacancy, pool node or empty node,
    and no ABS state holds {2-GPU anchor, 1-GPU instance} on one node: a stray."""
    d = Driver(name, 1)
    d.arrive(2)
    fuf = d.arrive(3)
    d.arrive(1)
    d.depart(fuf)
    d.check()
    assert not d.space.in_space and d.space.strays() == [(0, (2, 0))]


@pytest.mark.parametrize("name", BOTH)
def test_proposition_1_counterexample_under_the_wcc(name):
    """N = 2, WCC after every event: the 3's filler is orphaned while node 1 holds the
    4-GPU slot and node 0 is a full pool node. Nine 1-GPU instances and a 4-GPU anchor
    fit no ABS state on two nodes (a pool node holds 8, and no slot has a vacancy)."""
    d = Driver(name, 2)
    d.arrive(1)
    fuf = d.arrive(3)                 # node 1, draws the pool's instance
    d.arrive(4)                       # node 1 {4, 4}
    d.arrive(1, 8)                    # pool node 0, full
    d.depart(fuf)
    d.check()
    assert wcc_holds(d.state.counts)
    assert d.space.strays() == [(1, (0, 0))] and theorem_1_holds(d)


def test_literal_compact_keeps_a_stray_that_a_merge_resolves():
    """N = 2 under the WCC: after the 3 departs, node 0 {4} and node 1 {4} + orphan. The
    literal Compact leaves the stray (two non-fully-packed slotted nodes); compass-abs moves
    node 1's slot onto node 0, and the orphan becomes a pool occupant in place."""
    def script(d):
        d.arrive(1)
        fuf = d.arrive(3)
        d.arrive(4, 2)                # node 1 {4 + filler, 4}, node 0 {4}
        d.depart(fuf)

    runs = paper_and_ours(2, script)
    paper, ours = runs["compass-abs-paper"], runs["compass-abs"]
    assert wcc_holds(paper.state.counts)
    assert not paper.space.in_space and paper.nonfull() == (2, 0)
    assert ours.space.in_space and ours.nonfull() == (0, 1)
    assert ours.space.pool_on(1) == [(0, 0)]


def test_strays_break_the_bound_for_the_literal_compact_only():
    """Two strays under the WCC (N = 4): the literal Compact cannot move slots onto nodes
    whose residual a stray occupies; compass-abs swaps a stray for a slot and recovers."""
    def script(d):
        d.arrive(1, 2)                # pool node 0
        b = d.arrive(3)               # node 1 {4 + filler}
        d.arrive(4)                   # node 1 full
        e = d.arrive(3)               # node 2 {4 + filler}, node 0 empty
        d.arrive(4)                   # node 2 full
        d.arrive(2, 3)                # node 0 {2, 2, 2}
        d.arrive(1, 8)                # pool node 3, full
        d.depart(b)
        d.depart(e)

    runs = paper_and_ours(4, script)
    paper, ours = runs["compass-abs-paper"], runs["compass-abs"]
    assert wcc_holds(paper.state.counts)
    assert len(paper.space.strays()) == 2 and sif_times_n(paper) == 3
    assert ours.space.in_space and theorem_1_holds(ours)


# ------------------------------------------------ and nothing smaller
#: Every job shape the exhaustive search offers: g in 1..8 with w in 1..3, and wider 1-GPU jobs.
MENU = [(g, w) for g in range(1, 9) for w in (1, 2, 3)] + [(1, 4), (1, 6), (1, 8)]
FF_MENU = [(g, w) for g in FF_SIZES for w in (1, 2, 3)]


def explore(name: str, nodes: int, depth: int, menu: list[tuple[int, int]],
            **params) -> Iterator[tuple[Driver, str]]:
    """Every state reachable by <= ``depth`` events (an arrival from ``menu`` or the
    departure of any running job), with the kind of its last event."""
    stack = [(0, Driver(name, nodes, **params))]
    while stack:
        level, d = stack.pop()
        events = [(g, w) for g, w in menu] + sorted(d.jobs)
        for event in events:
            e = copy.deepcopy(d)
            if isinstance(event, tuple):
                if e.arrive(*event) is None:
                    continue
                yield e, "arrival"
            else:
                e.depart(event)
                yield e, "departure"
            if level + 1 < depth:
                stack.append((level + 1, e))


def test_no_shorter_theorem_1_or_sif_counterexample():
    """One event never breaks Theorem 1, two never break SIF <= 2/N (N * SIF > 2 needs
    three partial nodes, so N >= 3)."""
    for nodes in (2, 3):
        for d, _ in explore("compass-abs-paper", nodes, 1, MENU):
            assert not wcc_holds(d.state.counts) or theorem_1_holds(d)
    for nodes in (3, 4):
        for d, _ in explore("compass-abs-paper", nodes, 2, MENU):
            assert not wcc_holds(d.state.counts) or sif_times_n(d) <= 2


def test_no_shorter_proposition_3_counterexample():
    for nodes in (2, 3):
        for d, kind in explore("compass-abs-paper", nodes, 3, FF_MENU, compact_on_arrival=False):
            assert d.state.partial_nodes <= (2 if kind == "arrival" else 1)


@pytest.mark.slow
@pytest.mark.parametrize("nodes", [1, 2])
def test_no_shorter_proposition_1_counterexample(nodes):
    """Three events never leave a stray (a stray needs a departing 3-8 GPU anchor with a
    filler and another job's slot on its node: three arrivals before the departure)."""
    for d, _ in explore("compass-abs-paper", nodes, 3, MENU):
        assert d.space.in_space
