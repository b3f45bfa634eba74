"""The real Venus jobs data/ ships (``helios-jobs``): the split rule against a brute force,
the file against the Venus aggregates data/ already holds (GPU jobs and GPUs per calendar
day), Table 1, the paper's day numbering, bad input, verification, and ``venus-unclamped``."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compass.experiments.config import RealTrace, TraceSpec
from compass.experiments.data import resolve_trace
from compass.traces import TraceError, load_trace
from compass.traces import calibration as cal
from compass.traces.fetch import UnverifiedTrace, verify_trace
from compass.traces.formats.helios_jobs import (
    CLAMP_S,
    DERIVED,
    FIRST_SUBMIT,
    PAPER_ORIGIN,
    load_helios_jobs,
    split_jobs,
)
from compass.traces.synthetic import day_plans, synthesize
from compass.traces.unclamped import VENUS_GPU_TIME_S, real_jobs, tail_mean_s, unclamp
from compass.traces.windows import DAY_SECONDS, class_shares, composition

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "data/mystous_gpu_scheduler/helios_trace.csv.gz"
RAW = pd.read_csv(TABLE)


def _split_brute(total: int) -> tuple[int, int] | None:
    """Every (w, g) of identical instances with w g = total that fit 8-GPU nodes, narrowed
    by the rule: one node's worth or less stays one instance; else whole nodes only."""
    shapes = [(w, total // w) for w in range(1, total + 1)
              if total % w == 0 and total // w <= 8]
    if total <= 8:
        return (1, total)
    whole = [(w, g) for w, g in shapes if g == 8]
    return whole[0] if whole else None


@given(st.lists(st.integers(1, 400), min_size=1, max_size=50))
def test_the_split_rule_matches_the_brute_force(totals: list[int]) -> None:
    w, g, rule = split_jobs(np.array(totals))
    for k, total in enumerate(totals):
        expected = _split_brute(total)
        if expected is None:
            assert rule[k] == "split_unknown" and w[k] == g[k] == 0
        else:
            assert (w[k], g[k]) == expected and w[k] * g[k] == total
            assert rule[k] == ("single_node" if total <= 8 else "whole_nodes")


def test_the_shipped_table_loads_with_every_job_counted() -> None:
    frame, report = load_helios_jobs(TABLE)
    assert report.rows_read == len(RAW) == 125_303
    assert dict(report.dropped) == {"cpu_only": 0, "split_unknown": 10, "before_origin": 0,
                                    "zero_duration": 0}
    assert sorted(RAW["gpu_count"][~RAW["gpu_count"].isin(range(9)) &
                                   (RAW["gpu_count"] % 8 != 0)].unique()) == [12, 14]
    assert report.rules["single_node"] == int((RAW["gpu_count"] <= 8).sum())
    assert report.rules["single_node"] + report.rules["whole_nodes"] == report.rows_kept
    assert report.rules["clamped_at_48h"] == int((RAW["service_sec"] >= CLAMP_S).sum()) == 2379
    assert "2020-03-18" in report.calendar and "day 1" in report.calendar
    gpus = frame["num_instances"] * frame["gpus_per_instance"]
    kept = RAW[RAW["gpu_count"].isin(range(1, 9)) | (RAW["gpu_count"] % 8 == 0)]
    assert int(gpus.sum()) == int(kept["gpu_count"].sum())
    assert frame["duration"].sum() == pytest.approx(kept["service_sec"].sum())
    assert load_trace(TABLE).equals(frame)  # detected from the header


def test_gpu_jobs_and_gpus_per_calendar_day_equal_the_throughput_aggregates() -> None:
    """Lucid's daily sums (data/calibration/venus_arrivals_by_day.csv, 2020-04-01 ..) per
    calendar day of the recovered clock; the 89 earlier jobs are the whole difference."""
    daily = pd.read_csv(ROOT / "data/calibration/venus_arrivals_by_day.csv")
    when = FIRST_SUBMIT + pd.to_timedelta(RAW["arrival_s"], unit="s")
    date = when.dt.strftime("%Y-%m-%d")
    jobs = date.value_counts()
    gpus = RAW.groupby(date)["gpu_count"].sum()
    assert [int(jobs.get(d, 0)) for d in daily["date"]] == list(daily["submit_gpu_job"])
    assert [int(gpus.get(d, 0)) for d in daily["date"]] == list(daily["submit_gpu_num"])
    assert tuple(daily["submit_gpu_job"]) == cal.VENUS_GPU_JOBS_BY_DAY
    assert int((date < "2020-04-01").sum()) == 89 == len(RAW) - daily["submit_gpu_job"].sum()


def test_table1_shares_are_measured_on_the_real_jobs() -> None:
    shares = class_shares(real_jobs())
    got = [round(100 * shares[k], 2) for k in ("I=1", "I_FF", "I_FUF", "I=8")]
    assert got == [37.69, 9.31, 0.44, 52.56]
    paper = cal.TABLE1_SHARE_PCT["venus"]
    assert all(abs(a - b) < 0.2 for a, b in zip(got, paper.values(), strict=True))


def test_the_paper_numbers_days_from_one() -> None:
    """Paper day 92's Table 2 row (.73/.06/.21) is the 92nd calendar day of the trace,
    2020-06-17; day 0 would put it on 2020-06-18 (.64/.08/.28)."""
    jobs = real_jobs()
    day = jobs["submit_time"] // DAY_SECONDS
    assert int(day.min()) == 1 and PAPER_ORIGIN + pd.Timedelta(days=92) == pd.Timestamp(
        "2020-06-17")
    mix = composition(jobs[day == 92])
    assert [round(v, 2) for v in mix.values()] == [0.73, 0.06, 0.21]
    assert list(mix.values()) == pytest.approx(list(cal.TABLE2_COMPOSITION[("venus", 92)]
                                                    .values()), abs=0.005)
    zero_based = composition(jobs[day == 93])
    assert abs(list(zero_based.values())[0] - 0.73) > 0.05


@pytest.mark.parametrize("row, column, problem", [
    ("1#0,-5,10,1", "arrival_s", ">= 0"),
    ("1#0,5,10,1.5", "gpu_count", "whole number"),
    ("1#0,5,abc,1", "service_sec", ""),
    (",5,10,1", "job_id", "missing"),
])
def test_bad_rows_are_named_by_file_row_and_column(tmp_path: Path, row: str, column: str,
                                                   problem: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text("job_id,arrival_s,service_sec,gpu_count\n2#1,0,10,8\n" + row + "\n")
    with pytest.raises(TraceError) as err:
        load_helios_jobs(path)
    assert err.value.column == column and err.value.row == 2 and problem in str(err.value)


def test_the_shipped_table_verifies_and_a_changed_copy_does_not(tmp_path: Path) -> None:
    assert verify_trace("venus-jobs").verified
    copy = tmp_path / "t.csv.gz"
    with gzip.open(TABLE, "rb") as src:
        body = src.read()
    with gzip.open(copy, "wb") as out:
        out.write(body)  # recompressed: the same content
    assert verify_trace("venus-jobs", copy).verified
    with gzip.open(copy, "wb") as out:
        out.write(body.replace(b",172800.0,", b",172801.0,", 1))
    with pytest.raises(UnverifiedTrace, match="expected bc2495db"):
        verify_trace("venus-jobs", copy)
    assert verify_trace("venus-jobs", copy, trust_local=True).problem is not None


def _spec(root: Path) -> TraceSpec:
    full = RealTrace("data/raw/venus/cluster_log.csv", "helios", options={"origin": "2020-03-17"})
    table = RealTrace("data/mystous_gpu_scheduler/helios_trace.csv.gz", "helios-jobs")
    return TraceSpec("venus", "venus-synth", (full, table), "auto", [92])


def test_the_shipped_table_is_replayed_unless_the_full_log_is_present(tmp_path: Path) -> None:
    (tmp_path / "data/mystous_gpu_scheduler").mkdir(parents=True)
    (tmp_path / "data/mystous_gpu_scheduler/helios_trace.csv.gz").symlink_to(TABLE)
    shipped = resolve_trace(_spec(tmp_path), tmp_path)
    assert shipped.origin == "real" and shipped.source_index == 1 and shipped.note is None
    assert shipped.label.endswith(f"helios_trace.csv.gz; {DERIVED})")
    log = tmp_path / "data/raw/venus/cluster_log.csv"
    log.parent.mkdir(parents=True)
    log.write_text("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,"
                   "end_time,duration,queue\n1,u,v,8,8,1,COMPLETED,2020-06-17 10:00:00,"
                   "2020-06-17 10:00:00,2020-06-17 11:00:00,3600,0\n")
    with pytest.raises(UnverifiedTrace):  # present, not the published log: never silently
        resolve_trace(_spec(tmp_path), tmp_path)
    spec = _spec(tmp_path)
    trusted = TraceSpec(spec.name, spec.synthetic, tuple(
        RealTrace(s.path, s.format, True, s.options) for s in spec.sources), "auto", [92])
    full = resolve_trace(trusted, tmp_path)
    assert full.source_index == 0 and full.days == (92,)  # the same calendar day numbers
    assert "unverified local file" in full.label and "derived" not in full.label
    record = type(full).from_record(full.record())
    assert record == full


def test_the_tail_restores_the_summary_gpu_time_by_hand() -> None:
    """Two clamped jobs (1 and 8 GPUs) and one short: m = missing / clamped GPUs."""
    frame = pd.DataFrame({"num_instances": [1, 1, 2], "gpus_per_instance": [1, 8, 4],
                          "duration": [CLAMP_S, CLAMP_S, 100.0]})
    have = 9 * CLAMP_S + 800.0
    assert tail_mean_s(frame, have + 9 * 1000.0) == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="no GPU-time to restore"):
        tail_mean_s(frame, have)


def test_venus_unclamped_changes_only_the_clamped_durations_and_is_seeded() -> None:
    jobs = real_jobs()
    mean = tail_mean_s(jobs)
    assert 172_800 + mean == pytest.approx(368_600, rel=0.001)
    a, b = unclamp(jobs, 0, mean), unclamp(jobs, 1, mean)
    cut = jobs["duration"].to_numpy() >= CLAMP_S
    assert a.equals(unclamp(jobs, 0, mean)) and not a.equals(b)
    assert (a["duration"].to_numpy()[~cut] == jobs["duration"].to_numpy()[~cut]).all()
    assert (a["duration"].to_numpy()[cut] >= CLAMP_S).all()
    gpu_time = float((a["num_instances"] * a["gpus_per_instance"] * a["duration"]).sum())
    # the kept jobs (10 of 12 or 14 GPUs dropped) against the summary's all jobs
    assert gpu_time == pytest.approx(VENUS_GPU_TIME_S, rel=0.03)
    day = synthesize("venus-unclamped", days=1, start_day=92, seed=3)
    whole = synthesize("venus-unclamped", seed=3)
    inside = whole[(whole["submit_time"] // DAY_SECONDS) == 92].reset_index(drop=True)
    assert day.drop(columns="job_id").equals(inside.drop(columns="job_id"))
    assert (day["source"] == "synthetic:venus-unclamped").all()
    assert [p.day for p in day_plans("venus-unclamped")][:3] == [1, 8, 9]


def test_venus_summary_gpu_time_is_the_csv_sum() -> None:
    summary = pd.read_csv(ROOT / "data/calibration/venus_summary.csv").set_index("metric")
    parts = ("complete_gpu_time", "cancel_gpu_time", "fail_gpu_time")
    assert sum(int(summary.loc[p, "value"]) for p in parts) == VENUS_GPU_TIME_S


def test_the_numbers_docs_traces_md_states() -> None:
    """docs/traces.md, "The real Venus": the split counts, the day counts under both
    readings, the sizing of every day at eta 0.9, the WCC days and the clamp's figures."""
    from compass.traces import windows as W

    frame, report = load_helios_jobs(TABLE)
    assert (report.rules["single_node"], report.rules["whole_nodes"]) == (112_743, 12_550)
    assert len(set((RAW["arrival_s"] // DAY_SECONDS).astype(int))) == 188  # 24 h from 04:01
    assert len(days := sorted(set((frame["submit_time"] // DAY_SECONDS).astype(int)))) == 187
    assert set(range(1, 195)) - set(days) == {2, 3, 4, 5, 6, 7, 10}
    sizes, full = [], 0
    for w in W.day_windows(frame):
        jobs = W.jobs_in_window(frame, w)
        if len(jobs):
            sizes.append(W.cluster_size(jobs, 0.9, within=w))
            full += W.wcc_coverage(jobs, w) >= 1.0
    nodes = [s.nodes for s in sizes]
    assert (min(nodes), int(np.median(nodes)), max(nodes)) == (1, 50, 114)
    assert max(s.maxjob_nodes for s in sizes) == 25
    assert sum(s.maxjob_nodes > s.demand_nodes for s in sizes) == 2
    assert full == 165
    have = float((RAW["gpu_count"] * RAW["service_sec"]).sum())
    assert round(100 * (1 - have / VENUS_GPU_TIME_S), 1) == 29.3
    assert round(RAW["service_sec"].mean()) == 9088
    mean = tail_mean_s(frame)
    assert (round(mean), round(CLAMP_S + mean)) == (195_808, 368_608)
