"""FGD, CAFGD and MCG: the worked examples of baselines.md s. 8 and the run invariants."""

import math
from itertools import groupby
from operator import itemgetter

import hypothesis.strategies as st
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from trace_rows import trace

import compass
from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import ScoreKey, greedy_gang
from compass.schedulers.cafgd import (
    CAFGD,
    ReleasedView,
    SizePredictor,
    lifecycle_weight,
    recency_masses,
    recency_mix,
)
from compass.schedulers.fgd import FGD
from compass.schedulers.fragmentation_gradient import (
    FragmentationGradient,
    SlidingHistogram,
    blend,
    dense,
    gradient_gang,
    instance_histogram,
    quantized_score,
    typical_sizes,
    whole_node_gang,
)
from compass.schedulers.mcg import MCG
from compass.schedulers.mcg import node_key as mcg_node_key
from compass.schedulers.registry import create
from compass.traces import demo_trace, jobs_from_frame, validate_trace

#: The distribution of the spec's worked examples (s. 8).
P = {1: 0.35, 2: 0.10, 4: 0.05, 8: 0.50}


def job(job_id, g, w=1, submit=0.0, duration=100.0):
    return Job(job_id, submit, duration, w, g)


def state_s():
    """State S: N0 runs a 4- and a 2-GPU instance (f=2), N1 three 1-GPU (f=5), N2 empty."""
    s = ClusterState(3)
    s.place_job(100, 4, [0])
    s.place_job(101, 2, [0])
    s.place_job(102, 1, [1, 1, 1])
    return s


def run_pass(sched, queue, state, now=0.0):
    """One admission pass as the simulator runs it; returns the admitted job ids in order."""
    order, blocking = sched.admission_order(list(queue), state, now)
    admitted = []
    for j in order:
        placement = sched.place(j, state, now)
        if placement is None:
            if blocking:
                break
            continue
        state.place_job(j.job_id, j.gpus_per_instance, placement.nodes)
        admitted.append(j.job_id)
    return admitted


def gradients(gradient, state, g):
    """dF of one g-GPU instance on each node of ``state`` (None where it does not fit)."""
    return [gradient.delta(g)[f] if f >= g else None for f in state.free_list()]


# ------------------------------------------------------------------ the measure (s. 0)
def test_frag_table_of_the_worked_examples():
    frag = FragmentationGradient.of(P, 8).frag
    assert frag == pytest.approx([0, 0.65, 1.10, 1.65, 2.00, 2.50, 3.00, 3.50, 0])


@given(st.dictionaries(st.integers(1, 8), st.floats(0, 1), min_size=1))
def test_empty_and_full_nodes_carry_no_fragmentation(p):
    grad = FragmentationGradient.of(p, 8)
    assert grad.frag[0] == grad.frag[8] == 0
    for g in range(1, 9):
        exact_fill, open_empty = grad.delta(g)[g], grad.delta(g)[8]
        assert exact_fill <= 0 <= open_empty


masses = st.lists(st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.25, 0.5]) | st.floats(0, 1),
                  min_size=9, max_size=9)


@given(masses, masses, st.floats(0, 1.5))
def test_blended_gradient_is_the_gradient_of_the_blend(a, b, weight):
    """Bit for bit: CAFGD and MCG build their per-job / per-pass gradient this way."""
    blended = FragmentationGradient.blended(a, b, weight)
    as_dicts = {s: v for s, v in enumerate(a) if s}, {s: v for s, v in enumerate(b) if s}
    reference = FragmentationGradient.of(blend(*as_dicts, weight), 8)
    assert blended.frag == reference.frag
    assert blended.distribution == reference.distribution
    assert all(blended.delta(g) == reference.delta(g) for g in range(1, 9))


@settings(max_examples=60, deadline=None)
@given(masses, st.lists(st.integers(0, 8), min_size=1, max_size=12), st.integers(1, 8),
       st.integers(1, 6))
def test_node_key_places_as_the_rounded_rule(p, loads, g, w):
    """The unrounded key of an untied row places exactly as the rounded row, with the same
    dF_J (ties, e.g. from zero masses, fall back to the rounded row)."""
    grad = FragmentationGradient.of(dict(enumerate(p)), 8)
    state = ClusterState(len(loads))
    for n, load in enumerate(loads):
        if load:
            state.place_job(100 + n, load, [n])
    j = job(0, g, w)
    assert gradient_gang(state, j, grad, grad.node_key(g)) == gradient_gang(
        state, j, grad, ScoreKey(grad.delta(g)))


@settings(max_examples=60, deadline=None)
@given(masses, st.lists(st.integers(0, 8), min_size=1, max_size=12), st.integers(1, 6),
       st.sampled_from([0.0, 0.5]))
def test_whole_node_gang_places_as_every_node_rule(p, loads, w, lb_weight):
    """A g = G job takes the lowest empty nodes under any mix, with dF_J = 0."""
    grad = FragmentationGradient.of(dict(enumerate(p)), 8)
    state = ClusterState(len(loads))
    for n, load in enumerate(loads):
        if load:
            state.place_job(100 + n, load, [n])
    j = job(0, 8, w)
    nodes = whole_node_gang(state, j)
    for key in (grad.node_key(8), mcg_node_key(grad, 8, lb_weight)):
        assert gradient_gang(state, j, grad, key) == (None if nodes is None else (nodes, 0.0))


def test_quantized_scores_of_state_s():
    assert [quantized_score(d) for d in (-0.45, -0.50, 3.50)] == [61, 62, 2]


@pytest.mark.parametrize("two, four, kept", [(3600, 2500, {1, 8, 2}), (2500, 3600, {1, 8, 4})])
def test_typical_pods_on_the_table1_gfs_mix(two, four, kept):
    # Table 1 GFS row x 1000: 1-GPU 64.2 %, 8-GPU 29.7 %, FF 6.1 %, FUF 0.05 %
    counts = {1: 64200, 8: 29700, 2: two, 4: four, 3: 20, 5: 10, 6: 10, 7: 10}
    p = typical_sizes(counts, 0.95)
    assert set(p) == kept
    assert sum(p.values()) == pytest.approx(1)
    assert p[1] / p[8] == pytest.approx(64200 / 29700)


def test_typical_pods_threshold_step_and_ties():
    counts = {1: 50, 2: 30, 4: 10, 8: 10}
    assert set(typical_sizes(counts, 0.60)) == {1, 2}
    assert set(typical_sizes(counts, 0.60, step=10)) == {1, 2, 4, 8}  # the code's default step
    assert typical_sizes(counts, 1.0) == {1: 0.5, 2: 0.3, 4: 0.1, 8: 0.1}
    assert set(typical_sizes({8: 5, 4: 5}, 0.5)) == {4}  # count ties: smaller size first


# ----------------------------------------------------------- state S, one job A (s. 8)
@pytest.mark.parametrize("quantize", [False, True])
def test_fgd_on_state_s_picks_n1(quantize):
    sched = FGD(distribution=P, quantize_scores=quantize)
    state = state_s()
    sched.reset(state, [])
    assert gradients(sched.gradient, state, 1) == pytest.approx([-0.45, -0.50, 3.50])
    assert sched.place(job(0, 1), state, 0.0).nodes == (1,)


def test_fgd_distribution_comes_from_the_whole_window_and_is_recorded():
    tr = demo_trace(num_jobs=60, seed=3)
    r = compass.simulate(tr, "fgd", nodes=8)
    jobs = jobs_from_frame(validate_trace(tr))
    expected = typical_sizes(instance_histogram(jobs), 0.95)
    assert r.metadata["scheduler_params"]["typical_pods"] == pytest.approx(expected)
    assert r.metadata["scheduler_params"]["popularity_threshold"] == 95.0


def test_cafgd_warm_up_is_best_fit():
    sched = CAFGD()
    state = state_s()
    sched.reset(state, [])
    sched.predictor.add(4, 399)
    assert not sched.predictor.ready
    assert sched.place(job(0, 1), state, 0.0).nodes == (0,)


def test_cafgd_short_job_uses_the_last_50_instances():
    sched = CAFGD()
    state = state_s()
    sched.reset(state, [])
    sched.predictor.add(8, 350)
    sched.predictor.add(4, 50)
    a = job(0, 1, duration=100.0)
    m = sched.distribution(a.duration)
    assert set(m) == {4} and m[4] == pytest.approx(1 - 1 / 100)  # ramp mass 1 - 1/(2L)
    grad = sched.gradient(a.duration, 8)
    assert gradients(grad, state, 1) == pytest.approx([-1, 0, 0], abs=0.011)
    assert sched.place(a, state, 0.0).nodes == (0,)


def test_cafgd_long_job_follows_the_long_term_mix():
    sched = CAFGD(water=1.0)  # keep every size so that P_L = p exactly
    state = state_s()
    sched.reset(state, [])
    for size, share in P.items():
        sched.predictor.add(size, round(400 * share))
    a = job(0, 1, duration=60_000.0)
    assert sched.distribution(a.duration) == pytest.approx(P)
    assert gradients(sched.gradient(a.duration, 8), state, 1) == pytest.approx([-0.45, -0.5, 3.5])
    assert sched.place(a, state, 0.0).nodes == (1,)


def test_mcg_with_injected_distribution_on_state_s_picks_n1():
    sched = MCG(distribution=P)
    state = state_s()
    sched.reset(state, [])
    assert run_pass(sched, [job(0, 1)], state) == [0]
    assert state.free_list() == [2, 4, 8]


# ------------------------------------------------------- queue order, MCG vs FGD (s. 8)
def test_queue_order_mcg_versus_fgd():
    a, b = job(0, 1, submit=0.0), job(1, 3, submit=1.0)
    mcg, fgd = MCG(distribution=P), FGD(distribution=P)
    s_mcg, s_fgd = state_s(), state_s()
    mcg.reset(s_mcg, [a, b])
    fgd.reset(s_fgd, [a, b])
    order, blocking = mcg.admission_order([a, b], s_mcg, 2.0)
    # the FIFO head fits, so the queue is offered by gradient; a refusal would stop the pass
    assert [j.job_id for j in order] == [1, 0] and blocking
    assert [mcg.job_gradient(j, s_mcg) for j in (b, a)] == pytest.approx([-1.40, -0.50])
    assert run_pass(mcg, [a, b], s_mcg, 2.0) == [1, 0]
    assert s_mcg.free_list() == [1, 2, 8]
    assert run_pass(fgd, [a, b], s_fgd, 2.0) == [0, 1]
    assert s_fgd.free_list() == [2, 1, 8]


# ------------------------------------------------------------- gang blocking (s. 8)
def blocked_state():
    s = ClusterState(3)
    for i, used in enumerate((5, 3, 6)):
        s.place_job(100 + i, used, [i])
    return s  # free {3, 5, 2}


@pytest.mark.parametrize("sched", [FGD(distribution=P), CAFGD(), MCG(distribution=P),
                                   MCG(distribution=P, backfill=True)],
                         ids=["fgd", "cafgd", "mcg", "mcg-backfill"])
def test_gang_blocking_leaves_the_job_queued(sched):
    state = blocked_state()
    big, small = job(0, 4, w=2), job(1, 1, submit=1.0)
    sched.reset(state, [big, small])
    sched.on_arrival(big, state, 0.0)
    sched.on_arrival(small, state, 1.0)
    order, blocking = sched.admission_order([big, small], state, 1.0)
    assert sched.place(big, state, 1.0) is None
    assert state.instance_capacity(4) == 1
    # the blocked FIFO head blocks the job behind it; MCG with backfill offers it first
    backfill = getattr(sched, "backfill", False)
    assert blocking == (not backfill)
    if backfill:
        assert [j.job_id for j in order] == [1, 0]
    else:  # the queue, head first; MCG, which saw that the head cannot fit, offers nothing
        assert [j.job_id for j in order] == ([] if sched.name == "mcg" else [0, 1])
    assert run_pass(sched, [big, small], state, 1.0) == ([1] if backfill else [])


def test_cafgd_warm_started_refuses_the_blocked_gang():
    sched = CAFGD(short_window=2, long_window=4)
    state = blocked_state()
    sched.reset(state, [])
    sched.predictor.add(4, 4)
    assert sched.predictor.ready and sched.place(job(0, 4, w=2), state, 0.0) is None


# ------------------------------------------------------------- CAFGD's predictor (s. 3)
def test_predictor_rebuilds_top_k_every_s_then_every_b():
    pred = SizePredictor(short_window=2, long_window=4, water=0.95)
    pred.add(1)
    assert not pred.ready and pred.long_term == {}
    pred.add(1)
    assert pred.ready and pred.long_term == {1: 1.0}
    pred.add(2, 2)  # 4 arrivals: rebuilt over [1, 1, 2, 2]
    assert pred.long_term == {1: 0.5, 2: 0.5}
    pred.add(8, 2)  # 6 > B arrivals: next rebuild only at 8
    assert pred.long_term == {1: 0.5, 2: 0.5}
    pred.add(8, 2)  # 8 arrivals: the long window now holds only the last 4 instances
    assert pred.long_term == {8: 1.0}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(0, 7), st.lists(st.tuples(st.integers(1, 8),
                                                                st.integers(1, 9)), max_size=30))
def test_predictor_fed_in_runs_equals_one_at_a_time(short, extra, arrivals):
    """``add(size, count)`` runs the windows in batches; every state matches single feeds."""
    runs, singles = (SizePredictor(short_window=short, long_window=short + extra)
                     for _ in range(2))
    for size, count in arrivals:
        runs.add(size, count)
        for _ in range(count):
            singles.add(size)
        assert runs.long_term == singles.long_term
        for short_life in (False, True):
            assert runs.short_term(short_life) == singles.short_term(short_life)


def test_predictor_default_windows():
    pred = SizePredictor()
    assert (pred.short_window, pred.long_window, pred.water) == (400, 10_000, 0.95)
    pred.add(1, 399)
    assert not pred.ready
    pred.add(2)
    assert pred.ready and pred.long_term == {1: 1.0}  # 2 is 0.25 %: cut by the 95 % water
    pred.add(2, 9600)  # 10 000 arrivals: rebuilt
    assert pred.long_term == {2: 1.0}  # 96 % of the last 10 000
    pred.add(1, 9999)  # 19 999 arrivals: not rebuilt before 20 000
    assert pred.long_term == {2: 1.0}
    pred.add(1)
    assert pred.long_term == {1: 1.0}


def recency_weights(length, integer_ramp=False):
    """Reference P_S weights, oldest first: (1.5 - (L - i) / L) / L, as ``GetPM2`` writes it."""
    L = length
    if integer_ramp:
        return [(1.5 - (L - i) // L) / L for i in range(L)]
    return [(1.5 - (L - i) / L) / L for i in range(L)]


def test_recency_weights_ramp_and_integer_form():
    assert recency_weights(4) == pytest.approx([0.125, 0.1875, 0.25, 0.3125])
    assert sum(recency_weights(400)) == pytest.approx(1 - 1 / 800)
    assert recency_weights(4, integer_ramp=True) == pytest.approx([0.125, 0.375, 0.375, 0.375])


@given(st.integers(1, 12), st.lists(st.integers(1, 8), min_size=1, max_size=40), st.booleans())
def test_recency_mix_equals_the_explicit_weighted_sum(size, sizes, integer_ramp):
    window = SlidingHistogram(size)
    for s in sizes:
        window.add(s)
    entries = sizes[-size:]
    expected = {}
    for s, w in zip(entries, recency_weights(len(entries), integer_ramp), strict=True):
        expected[s] = expected.get(s, 0.0) + w
    assert recency_mix(window, integer_ramp) == pytest.approx(expected)
    # the dense form CAFGD's gradients read has the floats of the per-size formula
    L, first = len(window), window.first_index
    if integer_ramp:
        formula = {s: 1.5 * c / L for s, c in window.counts.items()}
        formula[entries[0]] -= 1.0 / L
    else:
        formula = {s: (0.5 * c + (window.index_sums[s] - c * first) / L) / L
                   for s, c in window.counts.items()}
    assert recency_masses(window, 8, integer_ramp) == dense(formula, 8)
    assert window.distribution() == pytest.approx(
        {s: entries.count(s) / len(entries) for s in set(entries)})


class OneAtATimeWindow:
    """Reference window: every entry stored, counts and index sums recounted on demand."""

    def __init__(self, size):
        self.size, self.entries, self.added = size, [], 0

    def add(self, value, count=1):
        for _ in range(count):
            self.entries = (self.entries + [(self.added, value)])[-self.size:]
            self.added += 1

    def counts(self):
        return {s: sum(v == s for _, v in self.entries) for _, s in self.entries}

    def index_sums(self):
        return {s: sum(i for i, v in self.entries if v == s) for _, s in self.entries}


def assert_same_window(window, reference):
    assert len(window) == len(reference.entries)
    assert window.added == reference.added
    assert window.first_index == (reference.entries[0][0] if reference.entries
                                  else reference.added)
    assert dict(window.counts) == reference.counts()
    assert dict(window.index_sums) == reference.index_sums()
    if reference.entries:
        assert window.oldest == reference.entries[0][1]


@given(st.integers(1, 12), st.data(), st.lists(st.tuples(st.integers(1, 8),
                                                         st.integers(0, 15)), max_size=30))
def test_sliding_histogram_fed_in_runs_equals_one_at_a_time(size, data, arrivals):
    """Runs, and a tail of the window (CAFGD's short-life P_S), as if fed one by one."""
    tail_size = data.draw(st.integers(1, size))
    window, reference = SlidingHistogram(size), OneAtATimeWindow(size)
    tail_reference = OneAtATimeWindow(tail_size)
    for value, count in arrivals:
        window.add(value, count)
        reference.add(value, count)
        tail_reference.add(value, count)
        assert_same_window(window, reference)
        assert_same_window(window.tail(tail_size), tail_reference)


def test_short_term_window_length_depends_on_run_time():
    sched = CAFGD()
    sched.reset(ClusterState(1), [])
    sched.predictor.add(1, 350)
    sched.predictor.add(2, 50)
    assert set(sched.distribution(499.0)) == {2}  # last 50 only
    long_window = sched.distribution(500.0)  # w(500) = 0: plain P_S over 400
    assert long_window[1] + long_window[2] == pytest.approx(1 - 1 / 800)
    assert long_window[2] > 50 / 400  # recent entries weigh more


def test_lifecycle_weight():
    assert lifecycle_weight(499) == lifecycle_weight(500) == 0
    assert lifecycle_weight(5_000) == pytest.approx(0.5)
    assert lifecycle_weight(50_000) == pytest.approx(1)
    assert lifecycle_weight(400_000) == 1.0
    assert lifecycle_weight(400_000, clamp=False) == pytest.approx(1 + math.log10(8) / 2)
    assert lifecycle_weight(600_000, clamp=False) == 1.0


# ---------------------------------------------------------------- CAFGD's hold (s. 3)
def hold_trace():
    """A (w2 g4, ends 100) fills N0, C (w2 g4, ends 150) N1, B (g4) half of N2; J (g1) at 10."""
    return trace((0, 0, 100, 2, 4), (1, 0, 150, 2, 4), (2, 0, 1000, 1, 4), (3, 10, 50, 1, 1))


@pytest.mark.parametrize("hold_window, start", [(300.0, 100.0), (50.0, 10.0), (0.0, 10.0)])
def test_cafgd_holds_the_head_until_a_better_departure(hold_window, start):
    # S = 6: A, C, B go best-fit (5 instances); J sees m = P_S of [4, 4, 4, 4, 4, 1], so
    # J on N2 (f 4 -> 3) has dF = 3 m_4 > 0, while A's departure at 100 frees N0 (dF 0).
    params = {"short_window": 6, "long_window": 12, "hold_window": hold_window}
    r = compass.simulate(hold_trace(), "cafgd", nodes=3, scheduler_params=params,
                         debug_checks=True)
    assert r.jobs.set_index("job_id").loc[3, "start_time"] == start
    assert list(r.jobs["start_time"][:3]) == [0, 0, 0]


def test_cafgd_holds_each_job_at_most_once():
    sched = CAFGD(short_window=6, long_window=12)
    state = ClusterState(3)
    jobs = jobs_from_frame(hold_trace())
    sched.reset(state, jobs)
    for j in jobs[:3]:
        sched.on_arrival(j, state, 0.0)
    assert run_pass(sched, jobs[:3], state, 0.0) == [0, 1, 2]
    assert state.free_list() == [0, 0, 4]
    sched.on_arrival(jobs[3], state, 10.0)
    assert sched.place(jobs[3], state, 10.0) is None  # held until A ends at 100
    assert sched.place(jobs[3], state, 99.0) is None
    # at 100, even if nothing had been released (C still ends within H), no second hold
    assert sched.place(jobs[3], state, 100.0).nodes == (2,)


def test_cafgd_holds_only_while_waiting_can_pay_off():
    """The bounded rule: no hold while the empty nodes could host every queued job's GPUs,
    none for a job that has already waited H; the first rule holds regardless."""
    jobs = jobs_from_frame(hold_trace())
    for rule, nodes, submit, held in [("bounded", 3, 10.0, True),  # no empty node: hold
                                      ("bounded", 4, 10.0, False),  # an empty node hosts J
                                      ("bounded", 3, -290.0, False),  # J waited 300 s = H
                                      ("unbounded", 3, -290.0, True)]:
        sched = CAFGD(short_window=6, long_window=12, hold_rule=rule)
        state = ClusterState(nodes)
        sched.reset(state, jobs)
        for j in jobs[:3]:
            sched.on_arrival(j, state, 0.0)
        assert run_pass(sched, jobs[:3], state, 0.0) == [0, 1, 2]
        late = Job(3, submit, 50.0, 1, 1)
        sched.on_arrival(late, state, 10.0)
        placement = sched.place(late, state, 10.0)
        assert (placement is None) == held, (rule, nodes, submit)
        assert sched.holds == int(held)


def half_loaded_stream(nodes: int, num_jobs: int) -> pd.DataFrame:
    """SYNTHETIC demo mix at 90 % offered load over a span so short that the cluster is
    never full: best-fit never queues a job."""
    probe = demo_trace(num_jobs=num_jobs, seed=0, max_instances=8)
    gpu_seconds = float((probe["num_instances"] * probe["gpus_per_instance"]
                         * probe["duration"]).mean())
    return demo_trace(num_jobs=num_jobs, seed=0, max_instances=8,
                      mean_interarrival=gpu_seconds / (0.9 * nodes * 8))


def test_cafgd_does_not_idle_a_half_loaded_cluster():
    """Issue 17: the first hold rule queued this stream at most instants (AJCT ~2.6x
    best-fit's); the bounded hold keeps CAFGD's AJCT within 1.2x of best-fit's."""
    frame = half_loaded_stream(1000, 5000)
    best_fit = compass.simulate(frame, "gfs", nodes=1000)
    assert (best_fit.timeline["queue_len"] == 0).all()
    bounded = compass.simulate(frame, "cafgd", nodes=1000)
    unbounded = compass.simulate(frame, "cafgd", nodes=1000,
                                 scheduler_params={"hold_rule": "unbounded"})
    assert bounded.summary["ajct"] <= 1.2 * best_fit.summary["ajct"]
    assert unbounded.summary["ajct"] > 1.2 * best_fit.summary["ajct"]  # what the rule fixes


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_released_view_decides_like_the_full_state(data):
    nodes = data.draw(st.integers(1, 12))
    state = ClusterState(nodes)
    job_id = 0
    for _ in range(data.draw(st.integers(1, 3 * nodes))):
        g = data.draw(st.integers(1, 8))
        room = [n for n in range(nodes) if state.free(n) >= g]
        if room:
            state.place_job(job_id, g, data.draw(st.lists(st.sampled_from(room), min_size=1,
                                                          max_size=2, unique=True)))
            job_id += 1
    assume(job_id > 0)
    released = data.draw(st.lists(st.sampled_from(range(job_id)), min_size=1, unique=True))
    p = data.draw(st.dictionaries(st.integers(1, 8), st.floats(0.01, 1), min_size=1))
    g, w = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 6))
    grad = FragmentationGradient.of(p, 8)
    key = grad.node_key(g)
    full, view, before = state.copy(), ReleasedView(state, g, w), state.free_list()
    for j in [None, *released]:
        if j is not None:
            full.release_job(j)
            view.release_job(j)
        assert view.instance_capacity(g) == full.instance_capacity(g)
        assert [view.free(n) for n in range(nodes)] == full.free_list()
        assert gradient_gang(view, job(-1, g, w), grad, key) == gradient_gang(
            full, job(-1, g, w), grad, key)
    assert state.free_list() == before  # the view leaves the state alone


def replayed_release(state, ends, j, grad, key, delta, now, horizon):
    """Reference hold rule: release whole end-time groups on a full copy, in time order."""
    full = state.copy()
    for end in sorted({e for e, _ in ends if now < e <= now + horizon}):
        for e, i in ends:
            if e == end:
                full.release_job(i)
        placed = gradient_gang(full, j, grad, key)
        if placed is not None and placed[1] < delta - 1e-9:
            return end
    return None


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_first_better_release_matches_a_full_replay(data):
    nodes = data.draw(st.integers(1, 8))
    sched, state = CAFGD(), ClusterState(nodes)
    sched.reset(state, [])
    ends = []
    for i in range(data.draw(st.integers(1, 16))):
        g = data.draw(st.integers(1, 8))
        j = job(i, g, w=data.draw(st.integers(1, 2)),
                duration=data.draw(st.sampled_from([50.0, 100.0, 150.0, 200.0, 400.0])))
        placement = sched.place(j, state, 0.0)  # warm-up: best-fit, end times recorded
        if placement is not None:
            state.place_job(i, g, placement.nodes)
            ends.append((j.duration, i))
    p = data.draw(st.dictionaries(st.integers(1, 8), st.floats(0.01, 1), min_size=1))
    g, w = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 3))
    grad = FragmentationGradient.of(p, 8)
    key = grad.node_key(g)
    j = job(-1, g, w)
    placed = gradient_gang(state, j, grad, key)
    delta = math.inf if placed is None else placed[1]
    expected = replayed_release(state, ends, j, grad, key, delta, 0.0, sched.hold_window)
    assert sched.first_better_release(j, state, 0.0, grad, key, delta) == expected


@given(st.lists(st.tuples(st.sampled_from([0.0, 5.0, 10.0, 10.0, 20.0, 30.0, 45.0, 1e6,
                                           math.inf]),
                          st.booleans()), max_size=40),
       st.sampled_from([0.0, 5.0, 10.0, 40.0]), st.sampled_from([0.0, 10.0, 20.0, 100.0]))
def test_ending_reads_the_calendar_in_end_time_groups(jobs, now, horizon):
    """``_ending``: the running jobs' (end, id) in (now, now + H], grouped by end time in id
    order, as sorting them would give, also after departures dropped the past slots."""
    sched = CAFGD(hold_window=horizon)
    sched.reset(ClusterState(1), [])
    for i, (end, running) in enumerate(jobs):
        sched._record_end(i, end)
        if not running:  # departed: only its calendar entry is left
            del sched._end_of[i]
    if jobs and jobs[0][1]:
        sched.on_departure(job(0, 1), ClusterState(1), now)  # drops the slots before now's
        jobs[0] = (jobs[0][0], False)
    kept = sorted((e, i) for i, (e, running) in enumerate(jobs)
                  if running and now < e <= now + horizon)
    expected = [(e, [i for _, i in group]) for e, group in groupby(kept, itemgetter(0))]
    assert list(sched._ending(now)) == expected


# -------------------------------------------------------------- MCG's queue rules (s. 4)
def test_mcg_starvation_guard_reverts_to_fifo_with_blocking():
    sched = MCG(distribution=P, backfill=True)
    state = state_s()
    a, b = job(0, 1, submit=0.0), job(1, 3, submit=1.0)
    sched.reset(state, [a, b])
    order, blocking = sched.admission_order([a, b], state, 3600.0)
    assert [j.job_id for j in order] == [1, 0] and not blocking
    order, blocking = sched.admission_order([a, b], state, 3600.5)
    assert [j.job_id for j in order] == [0, 1] and blocking


@pytest.mark.parametrize("name, params, small_start", [
    ("fgd", {}, 110.0),
    ("mcg", {}, 110.0),  # default: the blocked 8-GPU FIFO head blocks the queue
    ("mcg", {"backfill": True}, 2.0),  # skips the blocked 8-GPU job
    ("mcg", {"backfill": True, "starvation_s": 0.0}, 110.0),  # it starves: FIFO + blocking
])
def test_skip_versus_block_end_to_end(name, params, small_start):
    tr = trace((0, 0, 100, 1, 4), (1, 1, 10, 1, 8), (2, 2, 10, 1, 2))
    r = compass.simulate(tr, name, nodes=1, scheduler_params=params, debug_checks=True)
    starts = r.jobs.set_index("job_id")["start_time"]
    assert starts[1] == 100.0 and starts[2] == small_start


def reference_mcg_pass(sched, queue, state, now):
    """MCG's pass as the spec words it, one job at a time: dF_J of every queued job on the
    state (p from ``pass_distribution``), offered by (dF_J, submit, id); without backfill a
    FIFO head that does not fit admits nothing and the first refusal ends the pass; with
    backfill refusals are skipped, FIFO with blocking while the oldest job starves."""
    G = state.gpus_per_node
    grad = FragmentationGradient.of(sched.pass_distribution(queue, G), G)
    keys = {g: mcg_node_key(grad, g, sched.lb_weight) for g in range(1, G + 1)}

    def df(j):
        placed = gradient_gang(state, j, grad, keys[j.gpus_per_instance])
        return math.inf if placed is None else placed[1]

    blocking = not sched.backfill  # the queue is in arrival order: queue[0] is the head
    if sched.backfill and now - queue[0].submit_time > sched.starvation_s:
        order, blocking = queue, True
    elif not sched.backfill and df(queue[0]) == math.inf:
        return []
    else:
        order = sorted(queue, key=lambda j: (df(j), j.submit_time, j.job_id))
    admitted = []
    for j in order:
        nodes = greedy_gang(state, j, keys[j.gpus_per_instance])
        if nodes is None:
            if blocking:
                break
            continue
        state.place_job(j.job_id, j.gpus_per_instance, nodes)
        admitted.append((j.job_id, nodes))
    return admitted


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sampled_from([{}, {"backfill": True, "starvation_s": 100.0},
                                   {"lb_weight": 0.5}]))
def test_mcg_pass_equals_the_per_job_reference(data, params):
    """Shapes planned once per size, single-shape FIFO and the capacity cut-off decide
    every pass as ranking each job on its own would."""
    nodes = data.draw(st.integers(1, 5))
    state = ClusterState(nodes)
    for n in range(nodes):
        if used := data.draw(st.integers(0, 8)):
            state.place_job(1000 + n, used, [n])
    shapes = data.draw(st.lists(st.tuples(st.integers(1, 8), st.integers(1, 3)), min_size=1,
                                max_size=3))
    queue = [job(i, *data.draw(st.sampled_from(shapes)),
                 submit=float(data.draw(st.integers(0, 200))))
             for i in range(data.draw(st.integers(1, 8)))]
    if data.draw(st.booleans()):
        queue.sort(key=lambda j: (j.submit_time, j.job_id))  # the simulator's arrivals
    sched = MCG(**params)
    sched.reset(state, [])
    for g in data.draw(st.lists(st.integers(1, 8), max_size=6)):
        sched.on_arrival(job(-1 - g, g), state, 0.0)
        sched._pending.remove(job(-1 - g, g))  # arrived and started: recent only
    for j in queue:
        sched.on_arrival(j, state, 0.0)
    reference_state = state.copy()
    order, blocking = sched.admission_order(list(queue), state, 150.0)
    admitted = []
    for j in order:
        placement = sched.place(j, state, 150.0)
        if placement is None:
            if blocking:
                break
            continue
        state.place_job(j.job_id, j.gpus_per_instance, placement.nodes)
        admitted.append((j.job_id, placement.nodes))
    assert admitted == reference_mcg_pass(sched, queue, reference_state, 150.0)


def test_mcg_mixes_pending_and_recent_demand():
    sched = MCG()
    state = ClusterState(2)
    sched.reset(state, [])
    for j in (job(0, 1, w=3), job(1, 8)):
        sched.on_arrival(j, state, 0.0)
    assert sched.pass_distribution([job(1, 8)], 8) == pytest.approx({1: 0.375, 8: 0.625})
    assert sched.pass_distribution([], 8) == pytest.approx({1: 0.75, 8: 0.25})


# ----------------------------------------------------------- runs, invariants, resets
CONFIGS = [
    ("fgd", {}),
    ("fgd", {"quantize_scores": True}),
    ("cafgd", {"short_window": 3, "long_window": 6}),
    ("cafgd", {"short_window": 2, "long_window": 4, "quantize_scores": True,
               "integer_ramp": True, "clamp_lifecycle_weight": False}),
    ("mcg", {}),
    ("mcg", {"starvation_s": 50.0, "lb_weight": 0.5, "backfill": True}),
    ("mcg", {"lb_weight": 0.5}),
]


@st.composite
def small_traces(draw):
    nodes = draw(st.integers(1, 4))
    rows, t = [], 0
    for job_id in range(draw(st.integers(1, 20))):
        t += draw(st.integers(0, 60))
        g = draw(st.integers(1, 8))
        w = draw(st.integers(1, min(3, nodes * (8 // g))))
        rows.append((job_id, t, draw(st.integers(1, 600)), w, g))
    return nodes, trace(*rows)


@pytest.mark.parametrize("name, params", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in
                                                       enumerate(CONFIGS)])
@settings(max_examples=25, deadline=None)
@given(case=small_traces())
def test_runs_keep_the_invariants_and_are_deterministic(name, params, case):
    nodes, tr = case
    runs = [compass.simulate(tr, name, nodes=nodes, scheduler_params=params, debug_checks=True)
            for _ in range(2)]
    r = runs[0]
    assert r.jobs["end_time"].notna().all()
    assert (r.jobs["end_time"] == r.jobs["start_time"] + r.jobs["duration"]).all()
    assert (r.jobs["start_time"] >= r.jobs["submit_time"]).all()
    assert (r.timeline["used_gpus"] <= nodes * 8).all()
    assert (r.timeline["sif"] >= 0).all()
    assert r.migrations.empty
    pd.testing.assert_frame_equal(r.jobs, runs[1].jobs)
    pd.testing.assert_frame_equal(r.timeline, runs[1].timeline)
    assert r.metadata["scheduler_params"] == runs[1].metadata["scheduler_params"]


@pytest.mark.parametrize("name, params", [CONFIGS[0], CONFIGS[2], CONFIGS[5]])
def test_reset_leaks_nothing_between_runs(name, params):
    tr = demo_trace(num_jobs=80, seed=1, mean_interarrival=20.0)
    sched = create(name, **params)
    first = compass.simulate(tr, sched, nodes=4)
    again = compass.simulate(tr, sched, nodes=4)
    fresh = compass.simulate(tr, name, nodes=4, scheduler_params=params)
    pd.testing.assert_frame_equal(first.jobs, again.jobs)
    pd.testing.assert_frame_equal(fresh.jobs, again.jobs)
