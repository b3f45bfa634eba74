"""compass.experiments on tiny hand-made inputs: rankings, buckets, day and window choice,
blocking attribution, run batches, and the report's verdict rules."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.experiments import aggregate as A
from compass.experiments import blocking as B
from compass.experiments.case_study import (
    AbsentWindow,
    CaseWindow,
    busiest_window,
    case_head_blocking,
    case_summary,
    choose_windows,
    paper_window,
    read_windows,
    window_slice,
    write_windows,
)
from compass.experiments.composition import most_different
from compass.experiments.config import (
    CaseStudyConfig,
    ConfigError,
    RealTrace,
    ResolvedTrace,
    RunSettings,
    TraceSpec,
    check_schedulers,
)
from compass.experiments.coverage import rho_bucket, top1_table
from compass.experiments.data import select_days
from compass.experiments.grid import RunGroup, RunKey, SimJob
from compass.experiments.layout import Layout
from compass.experiments.results import Results
from compass.experiments.runs import RUN_COLUMNS, case_runs, fragmented_window, run_batch
from compass.experiments.stats import MIN_SAMPLES, Interval, direction
from compass.experiments.tables import markdown
from compass.experiments.verdict.claims import (
    Claim,
    Margin,
    Tally,
    Trend,
    check_tolerances,
    judge,
    load_margins,
)
from compass.experiments.verdict.judging import _judge_windows
from compass.experiments.verdict.measures import MEASURES, Evidence
from compass.experiments.verdict.verdicts import _attribute

# ------------------------------------------------------------------ rankings


def _values(rows: list[tuple[str, float, float, float]], day: int = 0) -> pd.DataFrame:
    return pd.DataFrame([{"day": day, "scheduler": s, "afr": a, "ajct": j, "agu": u}
                         for s, a, j, u in rows])


def test_top1_counts_ties_and_respects_direction():
    values = _values([("ref", 0.01, 100.0, 0.90), ("b1", 0.01, 90.0, 0.95),
                      ("b2", 0.02, 120.0, 0.80)])
    flags = A.top1(values, "ref", ["ref", "b1", "b2"], ["day"]).set_index("metric")
    assert flags.loc["afr", "top1"]  # tie with b1 counts as top-1
    assert not flags.loc["ajct", "top1"]  # b1 is faster
    assert not flags.loc["agu", "top1"]  # higher AGU is better: b1 wins
    assert flags["defined"].all()


def test_top1_leaves_out_undefined_values():
    values = _values([("ref", math.nan, 100.0, math.nan), ("b1", 0.1, 110.0, math.nan)])
    flags = A.top1(values, "ref", ["ref", "b1"], ["day"]).set_index("metric")
    assert not flags.loc["afr", "defined"] and not flags.loc["afr", "top1"]
    assert not flags.loc["agu", "defined"]
    assert flags.loc["ajct", "defined"] and flags.loc["ajct", "top1"]


def test_top1_ignores_schedulers_outside_the_competitors():
    values = _values([("ref", 0.05, 100.0, 0.9), ("oracle", 0.0, 50.0, 1.0)])
    flags = A.top1(values, "ref", ["ref"], ["day"])
    assert not flags["defined"].any()  # nobody to beat: undefined, not a win


def test_metric_means_average_days_and_skip_nan():
    runs = pd.concat([_values([("ref", 0.1, 100.0, math.nan)], day=0),
                      _values([("ref", 0.3, 300.0, 0.5)], day=1)])
    runs["trace"] = "gfs"
    means = A.metric_means(runs, ["trace"]).set_index("metric")
    assert means.loc["afr", "value"] == pytest.approx(0.2)
    assert means.loc["ajct", "value"] == pytest.approx(200.0)
    assert means.loc["agu", "value"] == pytest.approx(0.5) and means.loc["agu", "samples"] == 1


def test_metric_means_carry_each_means_bootstrap_interval_over_its_samples():
    """Fig. 1's dots: each mean with the 95 % bootstrap interval of stats.bootstrap_mean over
    its defined samples; no interval from one sample."""
    from compass.experiments.stats import bootstrap_mean

    runs = pd.concat([_values([("ref", a, j, u), ("b1", 0.5, 10.0 * d, math.nan)], day=d)
                      for d, (a, j, u) in enumerate([(0.1, 100.0, 0.9), (0.3, 300.0, 0.5),
                                                     (0.2, 250.0, math.nan)])])
    runs["trace"] = "gfs"
    plain = A.metric_means(runs, ["trace"])
    means = A.metric_means(runs, ["trace"], intervals=True)
    assert means.drop(columns=["ci_low", "ci_high"]).equals(plain)  # the means unchanged
    ref = means[means["scheduler"] == "ref"].set_index("metric")
    expected = bootstrap_mean(np.array([100.0, 300.0, 250.0]))
    assert (ref.loc["ajct", "ci_low"], ref.loc["ajct", "ci_high"]) == (expected.low,
                                                                        expected.high)
    assert ref.loc["ajct", "ci_low"] < ref.loc["ajct", "value"] < ref.loc["ajct", "ci_high"]
    agu = bootstrap_mean(np.array([0.9, 0.5]))  # the NaN sample left out
    assert ref.loc["agu", "ci_low"] == agu.low and ref.loc["agu", "samples"] == 2
    b1 = means[means["scheduler"] == "b1"].set_index("metric")
    assert b1.loc["afr", "ci_low"] == b1.loc["afr", "ci_high"] == 0.5  # equal samples
    assert b1.loc["agu", ["ci_low", "ci_high"]].isna().all()  # no sample at all


def test_a_figures_table_holds_the_intervals_it_draws():
    """wide(): a figure's CSV carries each mean's interval beside it, column for column with
    the long table; without intervals it is one column per metric, as before."""
    runs = pd.concat([_values([("ref", a, j, u), ("b1", 0.5, 10.0 * d, 0.7)], day=d)
                      for d, (a, j, u) in enumerate([(0.1, 100.0, 0.9), (0.3, 300.0, 0.5)])])
    runs["trace"] = "gfs"
    plain = A.wide(A.metric_means(runs, ["trace"]), ["trace"])
    assert list(plain.columns) == ["trace", "scheduler", "afr", "ajct", "agu"]
    long = A.metric_means(runs, ["trace"], intervals=True)
    table = A.wide(long, ["trace"])
    assert list(table.columns) == ["trace", "scheduler", *(f"{m}{end}" for m in A.METRICS
                                   for end in ("", "_ci_low", "_ci_high"))]
    assert table[["trace", "scheduler", *A.METRICS]].equals(plain)
    for row in long.itertuples():
        mine = table[table["scheduler"] == row.scheduler].iloc[0]
        assert (mine[f"{row.metric}_ci_low"], mine[f"{row.metric}_ci_high"]) == (
            row.ci_low, row.ci_high)


def test_leads_pick_the_strongest_baseline_per_metric():
    values = _values([("ref", 0.01, 100.0, 0.95), ("b1", 0.05, 130.0, 0.90),
                      ("b2", 0.03, 150.0, 0.93), ("oracle", 0.0, 10.0, 1.0)])
    values["trace"] = "gfs"
    means = A.metric_means(values, ["trace"])
    lead = A.leads(means, "ref", ["b1", "b2"], ["trace"]).set_index("metric")
    assert lead.loc["afr", "strongest_baseline"] == "b2"
    assert lead.loc["afr", "lead"] == pytest.approx(0.02)
    assert lead.loc["ajct", "strongest_baseline"] == "b1"
    assert lead.loc["ajct", "lead"] == pytest.approx(30.0)
    assert lead.loc["agu", "lead"] == pytest.approx(0.02)  # 0.95 - 0.93: positive is better


def test_ordered_sorts_by_the_given_order():
    frame = pd.DataFrame({"trace": ["gfs", "venus", "physmix", "gfs"], "x": [1, 2, 3, 4]})
    out = A.ordered(frame, "trace", ["venus", "gfs", "physmix"])
    assert list(out["trace"]) == ["venus", "gfs", "gfs", "physmix"]
    assert list(out["x"]) == [2, 1, 4, 3]


# ------------------------------------------------------------------ WCC coverage


@pytest.mark.parametrize(("rho", "bucket"), [
    (1.0, "1.0"), (1.0 - 1e-14, "1.0"), (0.995, "[0.99, 1)"), (0.99, "[0.99, 1)"),
    (0.95, "[0.9, 0.99)"), (0.9, "[0.9, 0.99)"), (0.8, "[0.7, 0.9)"), (0.5, "[0.1, 0.7)"),
    (0.05, "[0, 0.1)"), (0.0, "[0, 0.1)"),
])
def test_rho_buckets_follow_table3(rho, bucket):
    assert rho_bucket(rho) == bucket


def test_top1_table_counts_pairs_and_shares_per_bucket():
    rows = []
    for day, rho, wins in [(0, 1.0, True), (1, 1.0, False), (2, 0.95, True)]:
        for metric in ("afr", "ajct", "agu"):
            rows.append({"trace": "venus", "day": day, "eta": 0.9, "rho": rho,
                         "bucket": rho_bucket(rho), "metric": metric,
                         "defined": metric != "agu" or day != 1, "top1": wins})
    table = top1_table(pd.DataFrame(rows)).set_index("bucket")
    assert list(table.index) == ["1.0", "[0.9, 0.99)", "Total"]
    assert table.loc["1.0", "pairs"] == 2 and table.loc["Total", "pairs"] == 3
    assert table.loc["1.0", "afr top-1"] == 1 and table.loc["1.0", "afr top-1 share"] == 0.5
    assert table.loc["1.0", "agu top-1 share"] == 1.0  # the undefined pair is left out
    assert table.loc["Total", "share of pairs"] == 1.0


# ------------------------------------------------------------------ composition


def test_most_different_maximises_the_smallest_pairwise_distance():
    vectors = np.array([
        [0.70, 0.10, 0.20],   # 0
        [0.69, 0.11, 0.20],   # 1: a near copy of 0
        [0.20, 0.10, 0.70],   # 2
        [0.45, 0.10, 0.45],   # 3: between 0 and 2
        [0.30, 0.60, 0.10],   # 4
    ])
    assert most_different(vectors) == (0, 2, 4)


def test_most_different_needs_three_days():
    with pytest.raises(ValueError, match="at least 3"):
        most_different(np.zeros((2, 3)))


# ------------------------------------------------------------------ blocking


def _timeline(rows: list[tuple[float, int, int, int]]) -> pd.DataFrame:
    """(time, used_gpus, queue_len, head_demand) rows."""
    return pd.DataFrame(rows, columns=["time", "used_gpus", "queue_len", "head_demand"])


def test_blocking_is_fragmentation_induced_when_idle_gpus_cover_the_head():
    # 2 nodes x 8 GPUs. Rows hold until the next time.
    tl = _timeline([
        (0.0, 0, 0, 0),
        (10.0, 10, 1, 8),    # idle 6 < 8: blocked by capacity
        (20.0, 10, 1, 4),    # idle 6 >= 4: fragmentation-induced
        (25.0, 12, 1, 4),    # idle 4 == 4: counts too (>=)
        (30.0, 12, 0, 0),
        (40.0, 8, 0, 0),
    ])
    mask = B.fragmentation_blocked(tl, nodes=2)
    assert mask.tolist() == [False, False, True, True, False, False]
    b = B.blocking(tl, nodes=2)
    assert (b.seconds, b.blocked_s, b.fragmentation_s) == (40.0, 20.0, 10.0)
    assert b.episodes == 1 and b.longest_episode_s == 10.0
    assert b.blocked_share == 0.5 and b.fragmentation_share == 0.5


def test_blocking_inside_a_window_clips_intervals():
    tl = _timeline([(0.0, 0, 1, 4), (100.0, 16, 1, 4), (200.0, 0, 0, 0)])
    b = B.blocking(tl, nodes=2, start=50.0, end=150.0)
    assert (b.seconds, b.blocked_s, b.fragmentation_s) == (100.0, 100.0, 50.0)
    assert B.blocking(tl, nodes=2, start=250.0, end=300.0).blocked_s == 0.0


def test_episodes_are_maximal_runs():
    mask = np.array([True, True, False, True, False, True])
    dt = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    assert B.episode_lengths(mask, dt).tolist() == [3.0, 8.0, 32.0]
    assert B.episode_lengths(np.zeros(3, bool), np.ones(3)).size == 0


def test_weighted_quantile_is_time_weighted():
    values, weights = np.array([1.0, 5.0, 9.0]), np.array([1.0, 8.0, 1.0])
    assert B.weighted_quantile(values, weights, 0.1) == 1.0
    assert B.weighted_quantile(values, weights, 0.5) == 5.0
    assert B.weighted_quantile(values, weights, 0.95) == 9.0
    assert math.isnan(B.weighted_quantile(values, np.zeros(3), 0.5))


def test_queue_heads_are_the_oldest_waiting_job():
    jobs = pd.DataFrame({"job_id": [0, 1, 2], "submit_time": [0.0, 5.0, 5.0],
                         "start_time": [20.0, 30.0, 6.0]})
    tl = pd.DataFrame({"time": [0.0, 5.0, 6.0, 20.0, 30.0]})
    assert B.queue_heads(tl, jobs).tolist() == [0, 0, 0, 1, -1]


def _head_jobs(rows: list[tuple[int, float, float, int, int]]) -> pd.DataFrame:
    """(job_id, submit_time, start_time, w, g) rows."""
    return pd.DataFrame(rows, columns=["job_id", "submit_time", "start_time", "num_instances",
                                       "gpus_per_instance"])


def test_head_blocking_weighs_the_head_class_by_blocked_time():
    # 40 nodes x 8 GPUs = 320. Job 0, (g, w) = (8, 32), 256 GPUs, waits 0-100 s: 60 s behind
    # too few idle GPUs, then 40 s with 256 idle (fragmentation-induced). Job 1, (1, 2),
    # waits behind it and heads the queue 100-110 s with 0 idle GPUs.
    jobs = _head_jobs([(0, 0.0, 100.0, 32, 8), (1, 50.0, 110.0, 2, 1)])
    tl = _timeline([(0.0, 100, 1, 256), (50.0, 100, 2, 256), (60.0, 64, 2, 256),
                    (100.0, 320, 1, 2), (110.0, 318, 0, 0), (200.0, 318, 0, 0)])
    out = B.head_blocking(tl, jobs, nodes=40).set_index(["g", "w"])
    assert out.loc[(8, 32)].to_dict() == {"heads": 1, "blocked_s": 100.0,
                                          "frag_blocked_s": 40.0, "frag_share": 0.4}
    assert out.loc[(1, 2)].to_dict() == {"heads": 1, "blocked_s": 10.0,
                                         "frag_blocked_s": 0.0, "frag_share": 0.0}
    # clipped to a window [30, 105): 70 s behind job 0 (40 s fragmentation), 5 s behind job 1
    part = B.head_blocking(tl, jobs, nodes=40, start=30.0, end=105.0).set_index(["g", "w"])
    assert part["blocked_s"].to_dict() == {(1, 2): 5.0, (8, 32): 70.0}
    assert part["frag_blocked_s"].to_dict() == {(1, 2): 0.0, (8, 32): 40.0}


def test_head_blocking_refuses_a_timeline_of_other_jobs():
    tl = _timeline([(0.0, 0, 1, 8), (10.0, 0, 0, 0)])
    with pytest.raises(ValueError, match="not one replay"):
        B.head_blocking(tl, _head_jobs([(0, 5.0, 10.0, 1, 8)]), nodes=1)


@st.composite
def _fifo_replays(draw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A FIFO queue of jobs that start in submission order, and its timeline: one row per
    submit or start instant, with random used GPUs."""
    n = draw(st.integers(1, 6))
    submits = sorted(draw(st.lists(st.integers(0, 50), min_size=n, max_size=n)))
    waits = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    starts, last = [], 0
    for s, wait in zip(submits, waits):
        last = max(last, s + wait)
        starts.append(last)
    shapes = draw(st.lists(st.tuples(st.integers(1, 3), st.sampled_from([1, 2, 4, 8])),
                           min_size=n, max_size=n))
    jobs = _head_jobs([(i, float(s), float(t), w, g)
                       for i, (s, t, (w, g)) in enumerate(zip(submits, starts, shapes))])
    rows = []
    for t in sorted({*submits, *starts, max(starts) + 1}):
        waiting = jobs[(jobs["submit_time"] <= t) & (jobs["start_time"] > t)]
        head = waiting.iloc[0] if len(waiting) else None
        demand = 0 if head is None else int(head["num_instances"] * head["gpus_per_instance"])
        rows.append((float(t), draw(st.integers(0, 32)), len(waiting), demand))
    return _timeline(rows), jobs


@settings(max_examples=150, deadline=None)
@given(_fifo_replays(), st.integers(0, 40), st.integers(1, 60))
def test_head_blocking_splits_blocking_exactly(replay, start, length):
    """Per-class blocked and fragmentation-blocked seconds add up to the run's (``blocking``),
    and a class's distinct heads are the jobs it held the queue with."""
    tl, jobs = replay
    b = B.blocking(tl, nodes=4, start=float(start), end=float(start + length))
    out = B.head_blocking(tl, jobs, nodes=4, start=float(start), end=float(start + length))
    assert out["blocked_s"].sum() == pytest.approx(b.blocked_s)
    assert out["frag_blocked_s"].sum() == pytest.approx(b.fragmentation_s)
    assert ((out["frag_share"] >= 0) & (out["frag_share"] <= 1)).all()
    assert (out["heads"] >= 1).all() and (out["blocked_s"] > 0).all()


# ------------------------------------------------------------------ case study


def _trace(hours=(0.0, 24.0), origin="synthetic") -> ResolvedTrace:
    real = RealTrace("data/raw/gfs/job_info_df.csv", "alibaba-spot")
    spec = TraceSpec("gfs", "gfs-synth", real, "auto", [0, 1], hours, None)
    return ResolvedTrace(spec, origin, (0, 1))


def _case(candidates=None) -> CaseStudyConfig:
    return CaseStudyConfig("gfs", 0.95, 1, 21.0, 22.5, 90.0, 15.0, candidates)


def _jobs(day: int, bursts: list[tuple[float, int]]) -> pd.DataFrame:
    """Per (hour, n) burst, n one-hour 1-GPU jobs; plus a day-long 40-GPU background job,
    so that N(0.95) is 5 nodes on every day (a burst is under 5 % of the day)."""
    rows = [(day * 86400.0, 86400.0, 40, 1)]
    rows += [(day * 86400.0 + h * 3600.0, 3600.0, 1, 1) for h, n in bursts for _ in range(n)]
    frame = pd.DataFrame(rows, columns=["submit_time", "duration", "num_instances",
                                        "gpus_per_instance"]).sort_values("submit_time")
    frame.insert(0, "job_id", range(len(frame)))
    return frame.reset_index(drop=True)


def test_busiest_window_on_synthetic_data_is_the_busiest_comparable_one():
    days = {0: _jobs(0, [(3.0, 30)]), 1: _jobs(1, [(14.0, 200)])}
    win = busiest_window(_trace(), days, _case(), "window")
    assert win.window == "busiest" and win.day == 1
    # the 200-GPU burst runs 14:00-15:00; a 90-minute window covering it starts 13:30..14:00
    assert 86400 + 13.5 * 3600 <= win.start <= 86400 + 14.0 * 3600
    assert win.end - win.start == 90 * 60
    assert "busiest comparable window, chosen by code" in win.label
    assert "GFS day 113, 21:00-22:30" in win.label


def test_busiest_window_stays_inside_the_replayed_hours():
    days = {0: _jobs(0, [(3.0, 200), (10.0, 30)]), 1: _jobs(1, [(10.0, 20)])}
    win = busiest_window(_trace(hours=(8.0, 12.0)), days, _case(), "window")
    assert 8.0 <= (win.start % 86400) / 3600 and (win.end % 86400) / 3600 <= 12.0


def test_busiest_window_candidates_restrict_the_search():
    days = {0: _jobs(0, [(3.0, 30)]), 1: _jobs(1, [(14.0, 200)])}
    assert busiest_window(_trace(), days, _case(candidates=(0,)), "window").day == 0


@pytest.mark.parametrize("origin", ["real", "synthetic"])
def test_paper_window_is_the_papers_clock_window_on_either_data(origin):
    days = {0: _jobs(0, [(3.0, 200)]), 1: _jobs(1, [(21.0, 20)])}
    win = paper_window(_trace(origin=origin), days, _case(), "window")
    assert isinstance(win, CaseWindow) and win.window == "paper" and win.day == 1
    assert (win.start, win.end) == (86400 + 21 * 3600.0, 86400 + 22.5 * 3600.0)
    assert win.score > 0 and win.nodes == 5
    assert ("(the paper's window)" in win.label) == (origin == "real")
    assert ("the paper's clock window on SYNTHETIC" in win.label) == (origin == "synthetic")


@pytest.mark.parametrize(("trace", "reason"), [
    (_trace(), "day 1 is not among the replayed days [0]"),
    (_trace(hours=(8.0, 12.0)), "the replayed hours 8-12 do not cover 21-22.5"),
])
def test_paper_window_is_absent_with_the_reason(trace, reason):
    days = {0: _jobs(0, [(3.0, 200)]), 1: _jobs(1, [(21.0, 20)])}
    if "not among" in reason:  # the profile replays day 0 only
        trace = ResolvedTrace(trace.spec, trace.origin, (0,))
        days = {0: days[0]}
    win = paper_window(trace, days, _case(), "window")
    assert win == AbsentWindow("gfs", trace.label, "paper", reason)
    assert "GFS day 113, 21:00-22:30" in win.label and reason in win.label


def test_both_windows_are_chosen_and_written(tmp_path):
    days = {0: _jobs(0, [(3.0, 30)]), 1: _jobs(1, [(14.0, 200)])}
    windows = choose_windows(_trace(), days, _case(), "window")
    assert [w.window for w in windows] == ["paper", "busiest"]
    write_windows(windows, tmp_path / "windows.json")
    assert read_windows(tmp_path / "windows.json") == windows
    absent = [AbsentWindow("gfs", "SYNTHETIC gfs-synth", "paper", "why"), windows[1]]
    write_windows(absent, tmp_path / "absent.json")
    assert read_windows(tmp_path / "absent.json") == absent


def test_window_slice_keeps_the_row_in_effect_at_the_start():
    tl = pd.DataFrame({"time": [0.0, 10.0, 20.0, 30.0], "v": [1, 2, 3, 4]})
    part = window_slice(tl, 15.0, 30.0)
    assert part["time"].tolist() == [15.0, 20.0] and part["v"].tolist() == [2, 3]


def _case_window(name: str, start: float, end: float) -> CaseWindow:
    return CaseWindow("gfs", "SYNTHETIC gfs-synth", "synthetic", name, 0, start, end, 0.95, 2,
                      1.0)


def test_case_summary_attributes_blocking_and_blocked_jobs_per_window():
    windows = [_case_window("paper", 0.0, 40.0), _case_window("busiest", 20.0, 40.0)]
    tl = _timeline([(0.0, 10, 1, 8), (20.0, 10, 1, 4), (30.0, 12, 0, 0)])
    tl["scheduler"] = "gfs"
    tl["partial_nodes"], tl["empty_nodes"], tl["gpu_util"] = 2, 0, tl["used_gpus"] / 16
    tl["nsif"] = 1
    jobs = pd.DataFrame({"scheduler": "gfs", "job_id": [0, 1],
                         "submit_time": [0.0, 0.0], "start_time": [20.0, 30.0],
                         "num_instances": [40, 1], "gpus_per_instance": [8, 4]})
    timelines = pd.concat([tl.assign(window="paper"),
                           window_slice(tl, 20.0, 40.0).assign(window="busiest")])
    both = pd.concat([jobs.assign(window="paper"), jobs.assign(window="busiest")])
    summary = case_summary(timelines, both, windows).set_index("window")
    row = summary.loc["paper"]
    assert row["blocked_s"] == 30.0 and row["frag_blocked_s"] == 10.0
    assert row["blocked_share"] == 0.75 and row["frag_share"] == pytest.approx(1 / 3)
    # by count one of two heads is wide (g = 8, w = 40); by time 20 of the 30 blocked seconds
    assert row["blocked_jobs"] == 2 and row["blocked_g8_w31_share"] == 0.5
    assert row["blocked_g8_w31_time_share"] == pytest.approx(2 / 3)
    busiest = summary.loc["busiest"]
    assert busiest["blocked_s"] == 10.0 and busiest["blocked_g8_w31_time_share"] == 0.0
    heads = case_head_blocking(timelines, both, windows)
    assert heads[["window", "g", "w", "blocked_s", "frag_blocked_s"]].values.tolist() == [
        ["paper", 4, 1, 10.0, 10.0], ["paper", 8, 40, 20.0, 0.0], ["busiest", 4, 1, 10.0, 10.0]]


def test_case_runs_replay_a_day_once_for_both_its_windows():
    day = _tiny_day()
    windows = [_case_window("paper", 0.0, 60.0), _case_window("busiest", 30.0, 90.0)]
    timelines, jobs, status = case_runs({0: day}, windows, _settings(["gfs"]), 8.0)
    assert status[["window", "scheduler", "status"]].values.tolist() == [
        ["paper", "gfs", "ok"], ["busiest", "gfs", "ok"]]
    assert list(timelines["window"].unique()) == ["paper", "busiest"]
    assert timelines.groupby("window")["time"].min().to_dict() == {"busiest": 30.0,
                                                                    "paper": 0.0}
    assert (jobs.groupby("window").size() == len(day)).all()


# ------------------------------------------------------------------ config, days, batches


def test_unknown_schedulers_are_named_with_a_fix():
    with pytest.raises(ConfigError, match=r"\['fft'\].*--config 'schedulers=\[\"gfs\"\]'"):
        check_schedulers(["gfs", "fft"], ["gfs", "fgd"])
    check_schedulers(["gfs"], ["gfs", "fgd"])


def test_day_selection_forms():
    present = [0, 1, 2, 3, 4, 5, 6]
    assert select_days("all", present) == tuple(present)
    assert select_days([5, 9], present) == (5, 9)
    assert select_days({"start": 1, "stop": None, "step": 3}, present) == (1, 4)
    assert select_days({"start": 0, "stop": 3}, present) == (0, 1, 2)


def _settings(schedulers, params=None) -> RunSettings:
    return RunSettings(tuple(schedulers), 0, params or {}, "per-event", "record", "window")


def _tiny_day() -> pd.DataFrame:
    rows = [(0, 0.0, 100.0, 1, 8), (1, 10.0, 50.0, 2, 4), (2, 20.0, 30.0, 3, 1),
            (3, 30.0, 80.0, 1, 8)]
    frame = pd.DataFrame(rows, columns=["job_id", "submit_time", "duration",
                                        "num_instances", "gpus_per_instance"])
    frame["source"] = "synthetic:gfs-synth"
    return frame


def test_run_batch_gives_one_tidy_row_per_scheduler():
    key = RunKey("gfs", 0, 0.9, 8.0)
    rows = run_batch(_tiny_day(), key, _trace(), _settings(["gfs", "first-fit"]),
                     log=lambda line: None)
    assert list(rows.columns) == RUN_COLUMNS
    assert rows["scheduler"].tolist() == ["gfs", "first-fit"]
    assert (rows["status"] == "ok").all() and (rows["jobs"] == 4).all()
    assert (rows["nodes"] >= rows["maxjob_nodes"]).all()
    assert rows["trace_source"].eq("synthetic:gfs-synth").all()
    assert (rows["max_nsif"] >= 0).all() and (rows["wall_s"] > 0).all()


def test_a_variant_runs_beside_its_base_under_its_own_label():
    """mcg with backfill is a variant of mcg: its row is labelled by the variant, it runs
    with the base's profile parameters updated by its own, and the base run is unchanged."""
    settings = replace(_settings(["gfs", "mcg"], {"mcg": {"beta": 0.25}}),
                       variants={"mcg-backfill": {"scheduler": "mcg",
                                                  "params": {"backfill": True}}})
    assert settings.runs()[-1] == ("mcg-backfill", "mcg", {"beta": 0.25, "backfill": True})
    rows = run_batch(_tiny_day(), RunKey("gfs", 0, 0.9, 8.0, 3), _trace(), settings,
                     log=lambda line: None)
    assert rows["scheduler"].tolist() == ["gfs", "mcg", "mcg-backfill"]
    assert (rows["status"] == "ok").all() and (rows["seed"] == 3).all()
    plain = run_batch(_tiny_day(), RunKey("gfs", 0, 0.9, 8.0, 3), _trace(),
                      _settings(["gfs", "mcg"], {"mcg": {"beta": 0.25}}), log=lambda line: None)
    same = ["afr", "ajct", "agu", "migrations"]
    assert rows[same].iloc[:2].equals(plain[same])


def test_results_keep_variant_runs_apart_and_swap_them_in_on_request(tmp_path):
    """Experiments never see a variant's rows; with_variant replaces its base's runs by the
    variant's under the base's name, so every experiment measures the comparison under it."""
    import yaml

    raw = yaml.safe_load((Path(__file__).parents[1] / "config" / "quick.yaml").read_text())
    runs = pd.DataFrame({"trace": "gfs", "day": 26, "seed": 0, "eta": 0.9, "cost": 8.0,
                         "status": "ok", "error": "",
                         "scheduler": ["compass-abs", "mcg", "mcg-backfill", "fft"],
                         "ajct": [100.0, 120.0, 90.0, 110.0]})
    layout = Layout(tmp_path)
    layout.config.parent.mkdir(parents=True, exist_ok=True)
    layout.config.write_text(json.dumps({"profile": raw, "resolved": {}}))
    runs.to_csv(layout.runs, index=False)
    res = Results.load(tmp_path)
    assert res.runs["scheduler"].tolist() == ["compass-abs", "mcg", "fft"]
    assert res.variant_runs["scheduler"].tolist() == ["mcg-backfill"]
    swapped = res.with_variant("mcg-backfill").runs.set_index("scheduler")["ajct"]
    assert swapped.to_dict() == {"compass-abs": 100.0, "fft": 110.0, "mcg": 90.0}


def test_run_batch_records_a_failing_scheduler_and_goes_on():
    settings = _settings(["gfs", "first-fit"], {"gfs": {"no_such_parameter": 1}})
    rows = run_batch(_tiny_day(), RunKey("gfs", 0, 0.9, 8.0), _trace(), settings,
                     log=lambda line: None).set_index("scheduler")
    assert rows.loc["gfs", "status"] == "error"
    assert "no_such_parameter" in rows.loc["gfs", "error"]
    assert rows.loc["first-fit", "status"] == "ok"
    with pytest.raises(ValueError, match="gfs has no parameter 'no_such_parameter'"):
        run_batch(_tiny_day(), RunKey("gfs", 0, 0.9, 8.0), _trace(),
                  RunSettings(("gfs",), 0, {"gfs": {"no_such_parameter": 1}}, "per-event",
                              "raise", "window"), log=lambda line: None)


def test_run_groups_and_jobs_format_wildcards_and_paths(tmp_path):
    group = RunKey("gfs", 26, 0.9, 8.0, 2).group
    assert group == RunGroup("gfs", 26, 2)
    job = SimJob("gfs", 3)
    assert job.wildcards == {"trace": "gfs", "part": "3"}
    assert job.path(Layout(tmp_path)) == tmp_path / "runs" / "gfs" / "part3.csv"
    assert job.path(Layout(tmp_path, "parquet")) == tmp_path / "runs" / "gfs" / "part3.parquet"


# ------------------------------------------------------------------ report


_POS = Interval(50, 40, 60, 5)


@pytest.mark.parametrize(("check", "value", "status"), [
    ({"at_least": 135}, 200.0, "holds"), ({"at_least": 135}, 100.0, "differs"),
    ({"at_most": 2}, 2.0, "holds"), ({"at_most": 2}, 3.0, "differs"),
    ({"within": [0.1, 0.2]}, (0.1, 0.2), "holds"), ({"within": [0.1, 0.2]}, 0.25, "differs"),
    ({"approx": {"value": [1.0, 2.0], "tol": 0.5}}, [1.4, 1.6], "holds"),
    ({"approx": {"value": 0.5, "tol": 0.05}}, 0.6, "differs"),
    ({"all": True}, (3, 3), "holds"), ({"all": True}, (2, 3), "differs"),
    ({"all": True}, (0, 0), "differs"),
    ({"increasing": True}, Trend((_POS, _POS), (Interval(5, 1, 9, 5),)), "holds"),
    ({"increasing": True}, Trend((_POS, _POS), (Interval(-4, -6, -2, 5),)), "differs"),
    ({"increasing": True}, Trend((_POS, _POS), (Interval(1, -1, 3, 5),)), "inconclusive"),
    ({"increasing": True}, Trend((_POS, _POS), (Interval(4, 2, 6, 4),)), "inconclusive"),
    # the case: steps that grow between leads that are all losses
    ({"increasing": True}, Trend((Interval(-90, -120, -60, 5), Interval(-40, -60, -20, 5)),
                                 (Interval(50, 30, 70, 5),)), "differs"),
    ({"increasing": True}, Trend((Interval(-1, -9, 7, 5), _POS), (Interval(5, 1, 9, 5),)),
     "inconclusive"),
    ({"same": [["gfs", 26], ["venus", 92]]}, [("gfs", 26), ("venus", 92)], "holds"),
    ({"same": [["gfs", 26], ["venus", 92]]}, [("gfs", 27), ("venus", 92)], "differs"),
])
def test_verdict_rules(check, value, status):
    assert judge(check, value).status == status


@pytest.mark.parametrize(("check", "low", "high", "status"), [
    ({"at_least": 135}, 140.0, 300.0, "holds"), ({"at_least": 135}, 135.0, 135.0, "holds"),
    ({"at_least": 135}, -20.0, 134.0, "differs"), ({"at_least": 135}, 100.0, 200.0,
                                                   "inconclusive"),
    ({"at_most": 2}, 0.0, 2.0, "holds"), ({"at_most": 2}, 2.5, 3.0, "differs"),
    ({"at_most": 2}, 1.0, 3.0, "inconclusive"),
    ({"within": [0.1, 0.2]}, 0.12, 0.18, "holds"), ({"within": [0.1, 0.2]}, 0.21, 0.3,
                                                    "differs"),
    ({"within": [0.1, 0.2]}, 0.05, 0.15, "inconclusive"),
    ({"approx": {"value": 0.5, "tol": 0.05}}, 0.46, 0.54, "holds"),
    ({"approx": {"value": 0.5, "tol": 0.05}}, 0.56, 0.6, "differs"),
    ({"approx": {"value": 0.5, "tol": 0.05}}, 0.5, 0.6, "inconclusive"),
])
def test_verdict_rules_with_an_interval(check, low, high, status):
    """With an interval the check must accept all of it (holds) or none of it (differs);
    the point value alone does not decide (it is deliberately inside the interval)."""
    interval = Interval((low + high) / 2, low, high, 5)
    assert judge(check, interval.value, "", interval).status == status


@pytest.mark.parametrize(("interval", "expected"), [
    (Interval(5.0, 1.0, 9.0, 4), "ahead"), (Interval(-5.0, -9.0, -1.0, 4), "behind"),
    (Interval(1.0, -2.0, 4.0, 4), "undecided"), (Interval(0.0, 0.0, 0.0, 4), "undecided"),
    (Interval(3.0, math.nan, math.nan, 1), "ahead (one sample)"), (None, ""),
])
def test_a_leads_direction_is_read_from_its_interval(interval, expected):
    assert direction(interval) == expected


def test_explained_by_names_only_the_variants_that_change_a_verdict():
    """A default row that does not hold names each variant under which its verdict changes;
    one whose verdict no variant changes names nothing (``o``), nor does a row that holds."""
    frame = pd.DataFrame({"id": ["l", "c", "o", "l", "l", "o"],
                          "variant": ["default", "default", "default", "mcg-backfill",
                                      "fft-3600", "fft-3600"],
                          "verdict": ["differs", "holds", "differs", "differs", "inconclusive",
                                      "differs"],
                          "explained_by": ""})
    out = _attribute(frame).set_index(["id", "variant"])["explained_by"]
    assert out[("l", "default")] == "fft-3600: inconclusive"
    assert out[("o", "default")] == "" and out[("c", "default")] == ""
    assert out[("l", "fft-3600")] == ""


def test_fewer_than_five_samples_give_at_most_inconclusive():
    """With n < MIN_SAMPLES the percentile interval is about the samples' range: a lead is
    "inconclusive" and says so, even where the range lies wholly inside or outside the
    check; from MIN_SAMPLES on the interval decides."""
    one = Interval(200.0, math.nan, math.nan, 1)
    verdict = judge({"at_least": 135}, 200.0, "s", one)
    assert verdict.status == "inconclusive" and "1 sample" in verdict.detail
    for low, high in ((140.0, 300.0), (-20.0, 100.0)):
        few = Interval((low + high) / 2, low, high, MIN_SAMPLES - 1)
        verdict = judge({"at_least": 135}, few.value, "s", few)
        assert verdict.status == "inconclusive"
        assert verdict.detail.startswith(f"range of {MIN_SAMPLES - 1} samples")
    enough = Interval(200.0, 140.0, 300.0, MIN_SAMPLES)
    assert judge({"at_least": 135}, 200.0, "s", enough).status == "holds"
    assert judge({"all": True}, (2, 3), "", Interval(1.0, 0.0, 2.0, 3)).status == "differs"


@pytest.mark.parametrize(("low", "high", "margin", "status"), [
    (-0.4, 0.3, 0.5, "tie"), (-0.6, 0.3, 0.5, "differs"), (-0.4, 0.3, None, "differs"),
    (0.8, 2.5, 0.5, "holds"), (0.2, 0.9, 0.5, "inconclusive"),
])
def test_a_lead_inside_its_margin_is_a_tie(low, high, margin, status):
    """A lead claim (AGU at least 0.7 points) whose whole interval lies inside +-margin is a
    tie, not "differs": the gap is practically zero; without a margin it is judged as before."""
    interval = Interval((low + high) / 2, low, high, MIN_SAMPLES)
    assert judge({"at_least": 0.7}, interval.value, "pp", interval, margin).status == status


@pytest.mark.parametrize(("tally", "status"), [
    (Tally(6, 3, 0, 0), "holds"), (Tally(9, 0, 0, 0), "holds"), (Tally(8, 0, 1, 0), "differs"),
    (Tally(7, 1, 0, 1), "inconclusive"), (Tally(0, 0, 1, 8), "differs"),
    (Tally(0, 0, 0, 0), "differs"),
])
def test_win_count_claims_hold_with_no_loss_and_no_undecided_cell(tally, status):
    """"Best on every cell" read with margins: ties count for the claim, a loss refutes it,
    an undecided cell (and no loss) leaves it open."""
    verdict = judge({"all": True}, tally)
    assert verdict.status == status
    assert tally.text() == (f"W {tally.win} / T {tally.tie} / L {tally.loss} / "
                            f"U {tally.undecided} of {tally.cells}")


def test_win_cells_are_classed_on_paired_intervals_against_the_margins():
    """``wins``: per (trace, metric) cell, the paired lead's interval, sign first: an AJCT
    lead of +-1 s that settles no sign is a tie (margin 0.5 %), a clear AGU gain a win, an
    AFR deficit a loss."""
    rows = []
    for seed in range(6):
        for name, ajct, agu, afr in (("compass-abs", 1000.0, 0.80 + seed / 1000, 0.03),
                                     ("gfs", 999.0 + seed % 2 * 2.5, 0.70, 0.01)):
            rows.append({"trace": "t", "day": 0, "seed": seed, "scheduler": name,
                         "ajct": ajct, "agu": agu, "afr": afr})
    leads = A.lead_intervals(pd.DataFrame(rows), "compass-abs", ["gfs"], ["trace"])

    class _Ev(Evidence):
        def lead_table(self, name):
            return leads, ("t",)

    margins = {"ajct": Margin("r", relative=0.005), "agu": Margin("a", absolute=0.005),
               "afr": Margin("a", absolute=0.005)}
    measured = MEASURES["wins"](_Ev(None, Path("."), margins), experiment="overall",
                                by=["trace"])
    assert measured.value == Tally(1, 1, 1, 0)
    assert measured.text == "W 1 / T 1 / L 1 / U 0 of 3; loss on t afr"
    assert judge({"all": True}, measured.value).status == "differs"


def test_lead_intervals_pair_the_samples_and_pick_the_strongest_baseline():
    """Two days x two seeds: the reference beats gfs by 10 s and fft by 4 s on every sample
    (AJCT), so the lead over the strongest (fft) is exactly 4 s with a zero-width interval;
    AGU is undefined on one sample for fft, which drops that sample only."""
    rows = []
    for day, seed, base in [(1, 0, 1000.0), (1, 1, 5000.0), (2, 0, 300.0), (2, 1, 9000.0)]:
        for name, delta, agu in [("compass-abs", 0.0, 0.8), ("gfs", 10.0, 0.7),
                                 ("fft", 4.0, math.nan if (day, seed) == (2, 1) else 0.75)]:
            rows.append({"trace": "gfs", "day": day, "seed": seed, "scheduler": name,
                         "afr": 0.1, "ajct": base + delta, "agu": agu})
    table = A.lead_intervals(pd.DataFrame(rows), "compass-abs", ["gfs", "fft"], ["trace"])
    ajct = table[table["metric"] == "ajct"].iloc[0]
    assert ajct["strongest_baseline"] == "fft" and ajct["n"] == 4
    assert (ajct["lead"], ajct["ci_low"], ajct["ci_high"]) == pytest.approx((4.0, 4.0, 4.0))
    assert ajct["relative_pct"] == pytest.approx(100 * 4.0 / (15300.0 / 4 + 4.0))
    agu = table[table["metric"] == "agu"].iloc[0]
    assert agu["n"] == 3 and agu["lead"] == pytest.approx(0.05)
    afr = table[table["metric"] == "afr"].iloc[0]
    assert afr["lead"] == 0.0 and afr["ci_low"] == 0.0 and afr["ci_high"] == 0.0


def test_verdict_states_the_size_of_the_difference():
    assert judge({"at_least": 135}, 100.0, "s").detail == "ours is lower by 35.0 s"
    assert judge({"within": [60, 80]}, (50.0, 90.0)).detail == (
        "reaches 10.0 below the band; reaches 10.0 above the band")


def test_markdown_table_with_caption():
    text = markdown(pd.DataFrame({"a": [1.0, math.nan], "b": ["x", "y"],
                                  "c": [123456.7, 0.000123]}), caption="SYNTHETIC")
    assert text.splitlines() == ["*SYNTHETIC*", "", "| a | b | c |", "|---|---|---|",
                                 "| 1 | x | 123,457 |", "| n/a | y | 0.000123 |"]


# ------------------------------------------------------------------ case claims in the report


class _CaseEvidence:
    """What the report's case measures read from ``Evidence``: the study and its summary."""

    def __init__(self, windows: list, summary: pd.DataFrame) -> None:
        from compass.experiments.case_study import CaseStudy

        empty = pd.DataFrame()
        self.case = (CaseStudy(tuple(windows), empty, empty, empty), summary)
        self.cfg = SimpleNamespace(baselines=("gfs", "fgd"))
        # the same jobs head the queue under both baselines: each is one distinct job
        self.blocked_jobs = pd.DataFrame(
            [{"window": r["window"], "scheduler": r["scheduler"], "job_id": j,
              "wide": j < round(r["blocked_g8_w31_share"] * r["blocked_jobs"])}
             for r in summary.to_dict("records") for j in range(int(r["blocked_jobs"]))],
            columns=["window", "scheduler", "job_id", "wide"])

    def schedulers(self, names):
        return ["gfs", "fgd"] if names == "baselines" else list(names)


def _case_rows(window: str, shares: tuple[float, float], jobs: int, seconds: float,
               frag_s: float = 1.0) -> list[dict]:
    return [{"window": window, "scheduler": s, "blocked_share": 1.0, "blocked_jobs": jobs,
             "blocked_s": seconds, "blocked_g8_w31_share": shares[0],
             "blocked_g8_w31_time_share": shares[1], "frag_blocked_s": frag_s}
            for s in ("gfs", "fgd")]


def _case_claim(check: dict) -> Claim:
    return Claim("c", "6.6", "", "", {"kind": "case_wide_blocked"}, check, "", [], "")


def test_case_claims_are_judged_on_each_window_that_shows_the_phenomenon():
    """Every window's value is in the text; both windows show fragmentation-induced blocking,
    so both are judged: they disagree on "at least 0.4" (0.5 vs 0), which is inconclusive,
    and agree on "at most 0.6"."""
    windows = [_case_window("paper", 0.0, 5400.0), _case_window("busiest", 3600.0, 9000.0)]
    summary = pd.DataFrame(_case_rows("paper", (0.5, 0.9), 4, 100.0)
                           + _case_rows("busiest", (0.0, 0.0), 10, 50.0))
    ev = _CaseEvidence(windows, summary)
    by_count = MEASURES["case_wide_blocked"](ev)
    assert by_count.value == 0.5 and by_count.traces == ("gfs",)
    assert by_count.text == ("paper window (day 0, 00:00-01:30): 0.5 of 4 distinct blocked "
                             "jobs (by time: 0.9 of 200.0 s blocked); busiest window (day 0, "
                             "01:00-02:30): 0 of 10 distinct blocked jobs (by time: 0 of "
                             "100.0 s blocked)")
    assert [name for name, _ in by_count.windows] == ["paper", "busiest"]
    assert MEASURES["case_wide_blocked"](ev, by="time").value == pytest.approx(0.9)
    verdict = _judge_windows(_case_claim({"at_least": 0.4}), by_count)
    assert verdict.status == "inconclusive"
    assert verdict.detail.startswith("the windows disagree: paper: holds; busiest: differs")
    assert _judge_windows(_case_claim({"at_most": 0.6}), by_count).status == "holds"


def test_a_degenerate_window_is_not_applicable():
    """A window without fragmentation-induced blocking under the baselines (the paper's,
    blocked on capacity alone) is shown but not judged; with no window left the claim is
    "not applicable"; an absent window is named with its reason."""
    windows = [_case_window("paper", 0.0, 5400.0),
               AbsentWindow("gfs", "SYNTHETIC gfs-synth", "busiest", "no reason"),
               _case_window("fragmented", 3600.0, 9000.0)]
    summary = pd.DataFrame(_case_rows("paper", (1.0, 1.0), 1, 5400.0, frag_s=0.0)
                           + _case_rows("fragmented", (0.2, 0.3), 10, 50.0))
    measured = MEASURES["case_wide_blocked"](_CaseEvidence(windows, summary))
    assert [name for name, _ in measured.windows] == ["fragmented"] and measured.value == 0.2
    assert "paper window (day 0, 00:00-01:30): not applicable, no fragmentation-induced " \
           "blocking under the baselines" in measured.text
    assert "busiest window absent (no reason)" in measured.text
    assert _judge_windows(_case_claim({"at_least": 0.9}), measured).status == "differs"
    only_paper = MEASURES["case_wide_blocked"](_CaseEvidence(windows[:1], summary))
    verdict = _judge_windows(_case_claim({"at_least": 0.9}), only_paper)
    assert only_paper.windows == () and verdict.status == "not applicable"


class _LeadEvidence(Evidence):
    """Evidence over a hand-made runs table (one trace "t"), grouped by trace."""

    def __init__(self, runs: pd.DataFrame, chosen: bool = True) -> None:
        cfg = SimpleNamespace(reference="compass-abs", baselines=("gfs", "fft"))
        super().__init__(SimpleNamespace(config=cfg), Path("."))
        self._runs, self._chosen = runs, chosen

    def experiment(self, name):
        return None, ["trace", "day"] if name == "composition" else ["trace"], ("t",)

    def runs(self, name):
        return self._runs

    def lead_table(self, name):
        _, by, traces = self.experiment(name)
        table = A.lead_intervals(self._runs, "compass-abs", ["gfs", "fft"], by)
        return (table if self._chosen else table.iloc[0:0]), traces


def _stall_runs() -> pd.DataFrame:
    """Six samples: fft 20 s behind COMPASS-ABS on each, gfs 10 s behind except on day 5,
    where gfs stalls (mean queue 200,000 s) and is 499,000 s behind."""
    rows = []
    for day in range(6):
        stall = day == 5
        for name, ajct, queue in (("compass-abs", 1000.0, 100.0), ("fft", 1020.0, 100.0),
                                  ("gfs", 500_000.0 if stall else 1010.0,
                                   200_000.0 if stall else 100.0)):
            rows.append({"trace": "t", "day": day, "seed": 0, "scheduler": name,
                         "ajct": ajct, "agu": 0.5, "afr": 0.1, "mean_queue_time": queue})
    return pd.DataFrame(rows)


def test_a_lead_names_its_rechosen_baseline_the_fixed_one_and_the_stalled_samples():
    """The lead over the strongest baseline (fft on the point estimate) is given with the lead
    over fft alone, and the stalled sample (day 5) named with the lead without it, where gfs
    becomes the strongest (10 s)."""
    measured = MEASURES["lead"](_LeadEvidence(_stall_runs()), experiment="overall",
                                metric="ajct", where={"trace": "t"})
    assert measured.value == pytest.approx(20.0)
    assert "re-chosen in each resample (fft in the point estimate), n = 6" in measured.text
    assert "vs fft alone: 20.0 [20.0, 20.0] (n = 6)" in measured.text
    assert measured.text.endswith("stalled samples (a mean queue over a day): day 5 seed 0 "
                                  "(2.31 d); without them: 10.0 [10.0, 10.0] (n = 5)")
    agu = MEASURES["lead"](_LeadEvidence(_stall_runs()), experiment="overall", metric="agu",
                           where={"trace": "t"})
    assert "stalled" not in agu.text  # the stall line is for AJCT


def test_a_composition_day_not_chosen_is_measured_on_its_replays():
    """A composition lead claim on a day outside the chosen three reads that day's replays
    at the experiment's eta and c, and says so, instead of "no data"."""
    ev = _LeadEvidence(_stall_runs()[lambda r: r["day"] == 2], chosen=False)
    measured = MEASURES["lead"](ev, experiment="composition", metric="ajct",
                                where={"trace": "t", "day": 2})
    assert measured.value == pytest.approx(10.0)
    assert "not a chosen day: its replays at the experiment's eta and c" in measured.text


def _fragmenting_day(day: int, hour: float) -> pd.DataFrame:
    """On 2 nodes: two 2-hour 4-GPU jobs and a 60 s 4-GPU job at ``hour``; when the short one
    ends, 8 GPUs are idle on two nodes and the 8-GPU job that came a minute later waits on
    fragmentation alone until a long one ends."""
    t = day * 86400.0 + hour * 3600.0
    rows = [(0, day * 86400.0 + 12 * 3600.0, 60.0, 1, 1),  # opens the replayed hours
            (1, t, 7200.0, 1, 4), (2, t, 60.0, 1, 4), (3, t, 7200.0, 1, 4),
            (4, t + 60.0, 600.0, 1, 8)]
    frame = pd.DataFrame(rows, columns=["job_id", "submit_time", "duration",
                                        "num_instances", "gpus_per_instance"])
    frame["source"] = "synthetic:gfs-synth"
    return frame


def test_the_fragmented_window_has_the_most_fragmentation_induced_blocking():
    """``fragmented_window`` against an independent reference: every window of the grid
    replayed by ``case_runs`` and attributed by ``case_summary`` (``blocking.blocking``);
    the chosen window's fragmentation-induced blocking under the baselines is the largest."""
    spec = TraceSpec("gfs", "gfs-synth", None, "never", [0, 1], (12.0, 18.0), 2)
    trace = ResolvedTrace(spec, "synthetic", (0, 1))
    days = {0: _fragmenting_day(0, 16.5), 1: _fragmenting_day(1, 13.0)}
    days[1].loc[2, "duration"] = 7200.0  # day 1: no fragmentation, the cluster is full
    case, settings = _case(), _settings(["gfs"])
    chosen = fragmented_window(trace, days, case, settings, 8.0, ["gfs"])
    assert chosen.window == "fragmented" and chosen.day == 0
    assert "most fragmentation-induced blocking under the baselines" in chosen.label
    grid = [CaseWindow("gfs", trace.label, "synthetic", f"w{d}-{s}", d, s, s + 5400.0, 0.95,
                       2, 0.0)
            for d in (0, 1) for s in np.arange(d * 86400 + 12 * 3600, d * 86400 + 16.5 * 3600
                                                + 1, 900.0)]
    timelines, jobs, _ = case_runs(days, grid, settings, 8.0)
    summary = case_summary(timelines, jobs, grid).set_index("window")["frag_blocked_s"]
    mine = case_summary(*case_runs(days, [chosen], settings, 8.0)[:2], [chosen])
    assert mine["frag_blocked_s"].iloc[0] == pytest.approx(summary.max()) and summary.max() > 0


def test_a_margin_is_capped_below_the_papers_smallest_lead_and_afr_level():
    """0.5 % of a stall-inflated GFS AJCT (1.4 million s) would be +-7,000 s; the cap is a
    quarter of the paper's smallest AJCT lead, 18.5 s. AGU: a quarter of 0.7 points. AFR:
    0.005 would be twice COMPASS-ABS's own AFR (0.0025); the cap is a quarter of the better
    scheduler's level. The claims file states exactly these."""
    margins = load_margins(Path(__file__).resolve().parents[1] / "paper" / "claims.yaml")
    assert margins["ajct"].size(1_400_000.0) == pytest.approx(18.5)
    assert margins["ajct"].size(2_000.0) == pytest.approx(10.0)
    assert margins["agu"].size(0.9) == pytest.approx(0.00175)
    assert margins["afr"].size(0.02, 0.0025, lower_is_better=True) == pytest.approx(0.000625)
    assert margins["afr"].size(0.5, 0.4) == pytest.approx(0.005)


def test_a_lead_claim_decides_its_sign_before_any_tie():
    """The issue's cases: eta-ajct-lead-085 (paper 201 s) with an interval wholly below zero
    is a loss, not a tie, however wide the metric's margin; an interval across zero inside
    the 18.5 s margin is a tie, one that reaches past it is judged against the paper's
    lead."""
    check = {"at_least": 201}
    loss = judge(check, -2_000.0, "s", Interval(-2_000.0, -5_783.0, -2.84, MIN_SAMPLES), 7_000.0)
    assert loss.status == "differs" and loss.detail.startswith("a loss")
    tie = judge(check, 1.0, "s", Interval(1.0, -10.0, 12.0, MIN_SAMPLES), 18.5)
    assert tie.status == "tie"
    wide = judge(check, 40.0, "s", Interval(40.0, -10.0, 90.0, MIN_SAMPLES), 18.5)
    assert wide.status == "differs"
    small_win = judge(check, 5.0, "s", Interval(5.0, 2.0, 8.0, MIN_SAMPLES), 18.5)
    assert small_win.status == "differs"  # a win, but far from the paper's 201 s
    assert judge(check, 300.0, "s", Interval(300.0, 250.0, 350.0, MIN_SAMPLES),
                 18.5).status == "holds"


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e4, 1e4), st.floats(0, 1e4), st.floats(0, 1e4), st.floats(1, 1e3))
def test_no_lead_claim_is_a_tie_once_its_sign_is_settled(low, width, margin, paper):
    """Whatever the margin, a lead interval wholly below zero differs, and a tie's interval
    always contains zero and lies inside the margin."""
    iv = Interval(low + width / 2, low, low + width, MIN_SAMPLES)
    v = judge({"at_least": paper}, iv.value, "s", iv, margin)
    if iv.high < 0:
        assert v.status == "differs"
    if v.status == "tie":
        assert -margin <= iv.low <= 0 <= iv.high <= margin


def test_a_tolerance_must_be_below_the_papers_value():
    """wcc-venus-low's old tolerance (0.03) exceeded every paper value and held on 0/0/0;
    such a check is refused, per element."""
    wide = Claim("w", "6.4", "", "", {"kind": "rho_shares"},
                 {"approx": {"value": [0.0195, 0.0177, 0.0089], "tol": 0.03}}, "", [], "")
    with pytest.raises(ValueError, match="not below the paper's value"):
        check_tolerances(wide)
    check_tolerances(Claim("w", "6.4", "", "", {"kind": "rho_shares"},
                           {"approx": {"value": [0.0195, 0.0177, 0.0089],
                                       "tol": [0.0097, 0.0088, 0.0044]}}, "", [], ""))
    assert judge({"approx": {"value": [0.0195, 0.0177, 0.0089],
                             "tol": [0.0097, 0.0088, 0.0044]}}, [0, 0, 0]).status == "differs"


def _eta_runs(gaps: dict[float, float]) -> pd.DataFrame:
    """Six samples at each eta: gfs ``gaps[eta]`` s and fft that plus 50 s behind
    COMPASS-ABS on AJCT, on days whose AJCT levels differ by hundreds of seconds."""
    rows = []
    for day in range(6):
        for eta, gap in gaps.items():
            level = 1000.0 + 300 * day + 1000 * eta
            for name, ajct in (("compass-abs", level), ("gfs", level + gap),
                               ("fft", level + gap + 50)):
                rows.append({"trace": "t", "day": day, "seed": 0, "eta": eta,
                             "scheduler": name, "ajct": ajct})
    return pd.DataFrame(rows)


def test_eta_lead_grows_is_judged_on_the_steps_intervals():
    """Leads of 10, 25, 45 s from eta 0.95 to 0.85 on every sample: steps of 15 and 20 s
    with zero-width intervals, the claim holds; leads that shrink differ; leads that grow
    from -60 s to -20 s (all losses) differ too: a trend needs its sign."""
    claim = {"increasing": True}
    grows = MEASURES["leads_grow"](_LeadEvidence(_eta_runs({0.95: 10.0, 0.9: 25.0,
                                                             0.85: 45.0})),
                                   experiment="eta_sweep", metric="ajct")
    assert [(s.value, s.low, s.high) for s in grows.value.steps] == [
        pytest.approx((15.0, 15.0, 15.0)), pytest.approx((20.0, 20.0, 20.0))]
    assert [s.value for s in grows.value.leads] == pytest.approx([10.0, 25.0, 45.0])
    assert grows.text.startswith("10.0 [10.0, 10.0] (eta 0.95) -> 25.0 [25.0, 25.0] (eta 0.9)")
    assert judge(claim, grows.value).status == "holds"
    shrinks = MEASURES["leads_grow"](_LeadEvidence(_eta_runs({0.95: 45.0, 0.9: 25.0,
                                                               0.85: 10.0})),
                                     experiment="eta_sweep", metric="ajct")
    assert judge(claim, shrinks.value).status == "differs"
    losses = MEASURES["leads_grow"](_LeadEvidence(_eta_runs({0.95: -60.0, 0.9: -40.0,
                                                              0.85: -20.0})),
                                    experiment="eta_sweep", metric="ajct")
    assert all(s.low > 0 for s in losses.value.steps)
    verdict = judge(claim, losses.value)
    assert verdict.status == "differs" and "lead 1" in verdict.detail


def test_the_order_of_three_days_leads_is_judged_on_their_falls():
    """Days 0, 1, 2 with leads 45, 25, 10 s (``_eta_runs`` at one eta per day): ordered
    as 0 > 1 > 2 the falls are 20 and 15 s and the claim holds; as 2 > 1 > 0 it differs."""
    runs = _eta_runs({0.9: 0.0})
    for day, gap in ((0, 45.0), (1, 25.0), (2, 10.0)):
        rows = (runs["day"] == day) & (runs["scheduler"] != "compass-abs")
        runs.loc[rows, "ajct"] += gap
    runs = runs[runs["day"] <= 2]
    runs = pd.concat([runs.assign(seed=s) for s in range(5)], ignore_index=True)
    ev = _LeadEvidence(runs)
    order = [{"trace": "t", "day": d} for d in (0, 1, 2)]
    measured = MEASURES["leads_ordered"](ev, experiment="composition", metric="ajct",
                                         order=order)
    assert measured.text.startswith("45.0 [45.0, 45.0] (t 0) > 25.0 [25.0, 25.0] (t 1) > "
                                    "10.0 [10.0, 10.0] (t 2); falls 20.0")
    assert judge({"increasing": True}, measured.value).status == "holds"
    back = MEASURES["leads_ordered"](ev, experiment="composition", metric="ajct",
                                     order=order[::-1])
    assert judge({"increasing": True}, back.value).status == "differs"


def test_top1_share_over_a_tables_buckets():
    """Table 3's columns: the share of pairs ranked first over every pair, or over the pairs
    of given rho buckets; no pair in them is no data."""
    pairs = pd.DataFrame({"trace": "venus", "metric": "afr", "defined": True,
                          "bucket": ["1.0", "1.0", "1.0", "[0, 0.1)"],
                          "top1": [True, True, False, True]})
    ev = SimpleNamespace(pairs=pairs)
    assert MEASURES["top1_share"](ev, trace="venus", metric="afr").value == 0.75
    rho1 = MEASURES["top1_share"](ev, trace="venus", metric="afr", buckets=["1.0"])
    assert rho1.value == pytest.approx(2 / 3) and rho1.text == "0.667 (2 of 3)"
    none = MEASURES["top1_share"](ev, trace="venus", metric="afr", buckets=["[0.7, 0.9)"])
    assert none.value is None and none.text == "no pair with a defined value in [0.7, 0.9)"


def test_a_case_claim_with_nothing_to_test_is_not_applicable():
    """The issue's vacuous holds: case-compass-clears "held" with 0 fragmentation episodes
    while COMPASS-ABS was blocked the whole 5,400 s; case-continuous-blocking "held" while
    COMPASS-ABS was blocked 100 % too. Both are now not applicable, with the reason."""
    windows = [_case_window("paper", 0.0, 5400.0)]
    rows = _case_rows("paper", (1.0, 1.0), 3, 5400.0) + [
        {"window": "paper", "scheduler": "compass-abs", "blocked_share": 1.0,
         "blocked_jobs": 2, "blocked_s": 5400.0, "frag_blocked_s": 0.0, "frag_episodes": 0,
         "longest_frag_episode_s": 0.0, "blocked_g8_w31_share": 0.0,
         "blocked_g8_w31_time_share": 0.0}]
    ev = _CaseEvidence(windows, pd.DataFrame(rows))
    clears = Claim("case-compass-clears", "6.6", "", "",
                   {"kind": "case_max", "column": "longest_frag_episode_s",
                    "schedulers": ["compass-abs"], "needs": "frag_episodes"},
                   {"at_most": 60}, "s", [], "")
    measured = MEASURES["case_max"](ev, **{k: v for k, v in clears.measure.items()
                                           if k != "kind"})
    verdict = _judge_windows(clears, measured)
    assert verdict.status == "not applicable" and "no frag episodes" in verdict.detail
    assert "compass-abs 5,400" in verdict.detail
    blocking = Claim("case-continuous-blocking", "6.6", "", "",
                     {"kind": "case_min", "column": "blocked_share",
                      "schedulers": "baselines", "contrast": ["compass-abs"]},
                     {"at_least": 0.99}, "", [], "")
    measured = MEASURES["case_min"](ev, column="blocked_share", schedulers="baselines",
                                    contrast=["compass-abs"])
    verdict = _judge_windows(blocking, measured)
    assert verdict.status == "not applicable" and "compass-abs pass it too" in verdict.detail
    # with COMPASS-ABS blocked a tenth of the window, the same data are a test, and hold
    rows[-1].update(blocked_share=0.1, blocked_s=540.0, frag_episodes=2,
                    longest_frag_episode_s=20.0)
    ev = _CaseEvidence(windows, pd.DataFrame(rows))
    assert _judge_windows(blocking, MEASURES["case_min"](
        ev, column="blocked_share", schedulers="baselines",
        contrast=["compass-abs"])).status == "holds"
    assert _judge_windows(clears, MEASURES["case_max"](
        ev, column="longest_frag_episode_s", schedulers=["compass-abs"],
        needs="frag_episodes")).status == "holds"
