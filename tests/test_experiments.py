"""compass.experiments on tiny hand-made inputs: rankings, buckets, day and window choice,
blocking attribution, run batches, and the report's verdict rules."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

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
from compass.experiments.report import Claim, _attribute, direction, experiments_behind, judge
from compass.experiments.results import Results
from compass.experiments.runs import RUN_COLUMNS, case_runs, run_batch
from compass.experiments.stats import Interval
from compass.experiments.tables import markdown

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
    with pytest.raises(TypeError):
        run_batch(_tiny_day(), RunKey("gfs", 0, 0.9, 8.0), _trace(),
                  RunSettings(("gfs",), 0, {"gfs": {"no_such_parameter": 1}}, "per-event",
                              "raise", "window"), log=lambda line: None)


def test_run_groups_and_jobs_format_wildcards_and_paths(tmp_path):
    group = RunKey("gfs", 26, 0.9, 8.0, 2).group
    assert group == RunGroup("gfs", 26, 2)
    job = SimJob("gfs", 3)
    assert job.wildcards == {"trace": "gfs", "part": "3"}
    assert job.path(tmp_path) == tmp_path / "runs" / "gfs" / "part3.csv"


# ------------------------------------------------------------------ report


@pytest.mark.parametrize(("check", "value", "status"), [
    ({"at_least": 135}, 200.0, "holds"), ({"at_least": 135}, 100.0, "differs"),
    ({"at_most": 2}, 2.0, "holds"), ({"at_most": 2}, 3.0, "differs"),
    ({"within": [0.1, 0.2]}, (0.1, 0.2), "holds"), ({"within": [0.1, 0.2]}, 0.25, "differs"),
    ({"approx": {"value": [1.0, 2.0], "tol": 0.5}}, [1.4, 1.6], "holds"),
    ({"approx": {"value": 0.5, "tol": 0.05}}, 0.6, "differs"),
    ({"all": True}, (3, 3), "holds"), ({"all": True}, (2, 3), "differs"),
    ({"all": True}, (0, 0), "differs"),
    ({"increasing": True}, True, "holds"), ({"increasing": True}, False, "differs"),
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


def test_a_claim_that_does_not_hold_names_the_experiments_and_variants_behind_it():
    lead = Claim("l", "6.1", "", "135 s", {"kind": "lead", "metric": "agu"}, {"at_least": 2},
                 "pp", [], "")
    case = Claim("c", "6.6", "", "", {"kind": "case_min", "column": "x"}, {}, "", [], "")
    assert experiments_behind(lead) == ["sensitivity", "metric_windows"]
    assert experiments_behind(case) == ["case_blocking", "case_head_blocking"]
    frame = pd.DataFrame({"id": ["l", "c", "l", "l"],
                          "variant": ["default", "default", "mcg-backfill", "fft-3600"],
                          "verdict": ["differs", "holds", "differs", "inconclusive"],
                          "explained_by": ""})
    out = _attribute(frame, [lead, case]).set_index(["id", "variant"])["explained_by"]
    assert out[("l", "default")] == "sensitivity; metric_windows; fft-3600: inconclusive"
    assert out[("c", "default")] == "" and out[("l", "fft-3600")] == ""


def test_an_interval_of_one_sample_is_judged_by_its_value():
    one = Interval(200.0, math.nan, math.nan, 1)
    assert judge({"at_least": 135}, 200.0, "s", one).status == "holds"
    assert judge({"all": True}, (2, 3), "", Interval(1.0, 0.0, 2.0, 3)).status == "differs"


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

    def schedulers(self, names):
        return ["gfs", "fgd"] if names == "baselines" else list(names)


def _case_rows(window: str, shares: tuple[float, float], jobs: int, seconds: float
               ) -> list[dict]:
    return [{"window": window, "scheduler": s, "blocked_share": 1.0, "blocked_jobs": jobs,
             "blocked_s": seconds, "blocked_g8_w31_share": shares[0],
             "blocked_g8_w31_time_share": shares[1]} for s in ("gfs", "fgd")]


def test_case_claims_are_judged_on_the_paper_window_with_the_busiest_beside():
    from compass.experiments.report import MEASURES

    windows = [_case_window("paper", 0.0, 5400.0), _case_window("busiest", 3600.0, 9000.0)]
    summary = pd.DataFrame(_case_rows("paper", (0.5, 0.9), 4, 100.0)
                           + _case_rows("busiest", (0.0, 0.0), 10, 50.0))
    ev = _CaseEvidence(windows, summary)
    by_count = MEASURES["case_wide_blocked"](ev)
    assert by_count.value == 0.5 and by_count.traces == ("gfs",)
    assert by_count.text == ("paper window (day 0, 00:00-01:30): 0.5 of 8 blocked jobs (by "
                             "time: 0.9 of 200.0 s blocked); busiest window (day 0, 01:00-02:30): "
                             "0 of 20 blocked jobs (by time: 0 of 100.0 s blocked)")
    assert MEASURES["case_wide_blocked"](ev, by="time").value == pytest.approx(0.9)
    assert MEASURES["case_min"](ev, column="blocked_share", schedulers="baselines").value == 1.0


def test_case_claims_have_no_data_when_the_paper_window_is_absent():
    from compass.experiments.report import MEASURES

    windows = [AbsentWindow("gfs", "SYNTHETIC gfs-synth", "paper", "day 113 is not replayed"),
               _case_window("busiest", 3600.0, 9000.0)]
    ev = _CaseEvidence(windows, pd.DataFrame(_case_rows("busiest", (0.0, 0.0), 10, 50.0)))
    measured = MEASURES["case_min"](ev, column="blocked_share", schedulers="baselines")
    assert measured.value is None
    assert measured.text.startswith("the paper's window is absent (day 113 is not replayed); "
                                    "busiest window (day 0, 01:00-02:30): min 1.00")
