"""Loaders map each upstream format to the canonical schema and account for every row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compass.traces import LoadReport, TraceError, detect_format, load_trace
from compass.traces.paths import data_dir, repo_root

FIXTURES = Path(__file__).parent / "data" / "traces"
HELIOS = FIXTURES / "helios_cluster_log.csv"
SPOT = FIXTURES / "alibaba_spot_job_info_df.csv"
OPENB = FIXTURES / "openb_pod_list_default.csv"
CANONICAL = FIXTURES / "canonical.csv"
DATA = data_dir()
MIDNIGHT_TO_1840 = 18 * 3600 + 40 * 60


def _rows(frame: pd.DataFrame) -> list[tuple]:
    cols = ["source_id", "submit_time", "duration", "num_instances", "gpus_per_instance"]
    return [tuple(r) for r in frame[cols].itertuples(index=False)]


# ------------------------------------------------------------------ helios (Venus)
def test_helios_maps_nodes_to_instances_in_fifo_order():
    frame, report = load_trace(HELIOS, "helios", return_report=True)
    t = MIDNIGHT_TO_1840
    assert _rows(frame) == [
        ("1425521", t, 100.0, 1, 2),
        ("1425511", t + 61, 36848.0, 1, 1),
        ("1425522", t + 61, 50.0, 1, 1),  # same second: file order breaks the tie
        ("1425512", t + 87, 249.0, 1, 4),
        ("1425513", t + 88, 675233.0, 1, 1),
        ("1425515", t + 190, 7200.0, 2, 8),  # 16 GPUs on 2 nodes
        ("1425517", t + 240, 200.0, 2, 6),  # 12 GPUs on 2 nodes
    ]
    assert list(frame["job_id"]) == list(range(7))
    assert set(frame["source"]) == {"venus"}
    assert report.dropped == {"cpu_only": 1, "no_nodes": 1, "non_homogeneous": 1,
                              "instance_exceeds_node": 1, "zero_duration": 1}
    assert (report.rows_read, report.rows_kept, report.rows_dropped) == (12, 7, 5)
    assert report.options["origin"] == "2020-06-09 00:00:00"


def test_helios_state_filter_and_origin_are_options():
    frame, report = load_trace(HELIOS, "helios", return_report=True, states={"COMPLETED"},
                               origin="2020-06-09 18:41:00", cluster="Earth")
    assert list(frame["source_id"]) == ["1425511", "1425522", "1425515", "1425517"]
    assert frame["submit_time"].iloc[0] == 1.0 and set(frame["source"]) == {"earth"}
    # 1425518 is CANCELLED and zero-length: the state rule, earlier in the order, counts it
    assert report.dropped["state_filtered"] == 3 and report.dropped["zero_duration"] == 0
    assert report.dropped["before_origin"] == 1  # 1425521 at 18:40:00


# ------------------------------------------------------------------ alibaba spot (GFS)
def test_alibaba_spot_drops_backlog_and_fractional_requests():
    frame, report = load_trace(SPOT, "alibaba-spot", return_report=True)
    assert _rows(frame) == [
        ("300005", 100.0, 900.0, 2, 3),
        ("300001", 120.0, 3600.0, 4, 8),
        ("437260", 9589663.0, 41060.0, 16, 1),
        ("437261", 9589663.0, 71718.0, 94, 1),
    ]
    assert set(frame["source"]) == {"gfs"}
    assert report.dropped == {"no_gpu": 1, "fractional_gpu": 1, "gpu_exceeds_node": 1,
                              "backlog_at_time_0": 2, "zero_duration": 1}


def test_alibaba_spot_backlog_keep_and_job_type_filter():
    kept = load_trace(SPOT, "alibaba-spot", backlog="keep")
    assert list(kept["source_id"][:2]) == ["239255", "253689"]
    assert kept["submit_time"].iloc[0] == 0.0 and kept["duration"].iloc[1] == 15897599.0
    spot, report = load_trace(SPOT, "alibaba-spot", return_report=True, job_types=["Spot"])
    assert list(spot["source_id"]) == ["300005", "437260", "437261"]
    # the HP rows not dropped by an earlier rule: both backlog jobs, 300001, 300006
    assert report.dropped["job_type_filtered"] == 4 and report.dropped["backlog_at_time_0"] == 0


def test_alibaba_spot_rejects_unknown_backlog_rule():
    with pytest.raises(ValueError, match="backlog"):
        load_trace(SPOT, "alibaba-spot", backlog="warmup")


# ------------------------------------------------------------------ alibaba openb (FGD)
def test_openb_keeps_whole_gpu_pods_with_run_time_from_scheduling():
    frame, report = load_trace(OPENB, "alibaba-openb", return_report=True)
    assert _rows(frame) == [
        ("openb-pod-0000", 0.0, 12537496.0, 1, 1),
        ("openb-pod-0003", 9437497.0, 1332357.0, 1, 8),
        ("openb-pod-0005", 9600000.0, 600.0, 1, 4),
    ]
    assert set(frame["source"]) == {"openb"}
    assert report.dropped == {"no_gpu": 1, "shared_gpu": 1, "gpu_exceeds_node": 0,
                              "never_scheduled": 1, "zero_duration": 1}


def test_openb_run_time_from_creation_keeps_pending_pods():
    frame, report = load_trace(OPENB, "alibaba-openb", return_report=True, run_time="creation",
                               phases={"Pending", "Failed"})
    assert _rows(frame) == [("openb-pod-0004", 9500000.0, 100000.0, 1, 2),
                            ("openb-pod-0005", 9600000.0, 900.0, 1, 4)]
    assert report.dropped["phase_filtered"] == 3 and "never_scheduled" not in report.dropped


def test_openb_snapshot_lists_are_refused():
    with pytest.raises(TraceError, match="snapshot workload"):
        load_trace(FIXTURES / "openb_pod_list_multigpu20.csv", "alibaba-openb")


# ------------------------------------------------------------------ canonical and detection
def test_canonical_gets_provenance_columns():
    frame, report = load_trace(CANONICAL, return_report=True)
    assert list(frame["source_id"]) == ["0", "1", "2"] and set(frame["source"]) == {"canonical"}
    assert report == LoadReport(str(CANONICAL), "canonical", 3, 3, {}, {})


@pytest.mark.parametrize("path, fmt", [(HELIOS, "helios"), (SPOT, "alibaba-spot"),
                                       (OPENB, "alibaba-openb"), (CANONICAL, "canonical")])
def test_detection_by_header(path, fmt):
    assert detect_format(path) == fmt
    assert load_trace(path).equals(load_trace(path, fmt))


def test_detection_refuses_unknown_and_ambiguous_headers(tmp_path):
    unknown = tmp_path / "u.csv"
    unknown.write_text("a,b\n1,2\n")
    with pytest.raises(TraceError, match="matches no format"):
        load_trace(unknown)
    both = tmp_path / "b.csv"
    both.write_text("job_id,submit_time,duration,num_instances,gpus_per_instance,gpu_num,"
                    "node_num\n0,0,1,1,1,1,1\n")
    with pytest.raises(TraceError, match="several formats"):
        load_trace(both)
    with pytest.raises(ValueError, match="unknown trace format"):
        load_trace(CANONICAL, "philly")


def test_report_must_account_for_every_row():
    with pytest.raises(ValueError, match="rows read"):
        LoadReport("x", "helios", 10, 7, {"cpu_only": 2})
    report = LoadReport("x", "helios", 10, 7, {"cpu_only": 3}, {"states": None})
    assert "dropped 3 (cpu_only)" in str(report)
    assert report.to_frame().to_dict("list") == {"outcome": ["kept", "cpu_only"],
                                                 "rows": [7, 3]}


# ------------------------------------------------------------------ malformed input
def _edit(tmp_path: Path, source: Path, row: int, column: str, value: str) -> Path:
    frame = pd.read_csv(source, dtype=str, keep_default_na=False)
    frame.loc[row - 1, column] = value
    out = tmp_path / source.name
    frame.to_csv(out, index=False)
    return out


@pytest.mark.parametrize("source, fmt, row, column, value, problem", [
    (HELIOS, "helios", 3, "gpu_num", "two", "non-numeric value 'two'"),
    (HELIOS, "helios", 4, "node_num", "1.5", "whole number"),
    (HELIOS, "helios", 5, "duration", "-3", "must be >= 0"),
    (HELIOS, "helios", 6, "duration", "", "missing value"),
    (HELIOS, "helios", 7, "submit_time", "yesterday", "unparsable time 'yesterday'"),
    (HELIOS, "helios", 8, "job_id", "1425511", "duplicate id '1425511'"),
    (SPOT, "alibaba-spot", 2, "worker_num", "0", "must be >= 1"),
    (SPOT, "alibaba-spot", 3, "worker_num", "2.5", "whole number"),
    (SPOT, "alibaba-spot", 4, "gpu_request", "-1.0", "must be >= 0"),
    (SPOT, "alibaba-spot", 5, "submit_time", "noon", "non-numeric"),
    (SPOT, "alibaba-spot", 6, "duration", "", "missing value"),
    (OPENB, "alibaba-openb", 2, "num_gpu", "1.5", "whole number"),
    (OPENB, "alibaba-openb", 4, "deletion_time", "9000000", "precedes scheduled_time"),
    (OPENB, "alibaba-openb", 5, "creation_time", "", "missing value"),
])
def test_malformed_rows_name_file_row_line_and_column(tmp_path, source, fmt, row, column,
                                                      value, problem):
    path = _edit(tmp_path, source, row, column, value)
    with pytest.raises(TraceError) as err:
        load_trace(path, fmt)
    e = err.value
    assert (e.row, e.line, e.column) == (row, row + 1, column)
    assert str(path) in str(e) and problem in str(e)


@pytest.mark.parametrize("source, fmt, column", [(HELIOS, "helios", "node_num"),
                                                 (SPOT, "alibaba-spot", "worker_num"),
                                                 (OPENB, "alibaba-openb", "gpu_milli")])
def test_missing_column_is_named(tmp_path, source, fmt, column):
    path = tmp_path / source.name
    pd.read_csv(source, dtype=str).drop(columns=column).to_csv(path, index=False)
    with pytest.raises(TraceError, match=f"missing column.*'{column}'"):
        load_trace(path, fmt)


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(TraceError, match="file not found"):
        load_trace(tmp_path / "nope.csv", "helios")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(TraceError, match="file is empty"):
        load_trace(empty)


# ------------------------------------------------------------------ real files
GFS_ROWS = "sultanul-ovi_GPU-Cluster-Spot-Resource-Dataset-Analysis"
GFS_ROW_TABLES = ["outputs/tables/heaviest_gpu_jobs_top200.csv",
                  "outputs/tables/longest_jobs_top200.csv",
                  "outputs_extra/tables/outliers_high_cpu_per_gpu.csv",
                  "outputs_extra/tables/outliers_short_heavy.csv"]


@pytest.mark.parametrize("table", GFS_ROW_TABLES)
def test_real_gfs_rows_load_and_reconcile(table):
    path = DATA / GFS_ROWS / table
    assert detect_format(path) == "alibaba-spot"
    frame, report = load_trace(path, return_report=True)
    raw = pd.read_csv(path)
    whole = (raw["gpu_request"] % 1 == 0) & (raw["gpu_request"] >= 1) & (raw["gpu_request"] <= 8)
    expected = raw[whole & (raw["submit_time"] > 0) & (raw["duration"] > 0)]
    assert report.rows_read == len(raw) and report.rows_kept == len(expected)
    assert report.dropped["fractional_gpu"] == int((raw["gpu_request"] % 1 != 0).sum())
    merged = frame.merge(expected.assign(source_id=expected["job_name"].astype(str)),
                         on="source_id")
    assert len(merged) == len(expected)
    assert (merged["num_instances"] == merged["worker_num"]).all()
    assert (merged["gpus_per_instance"] == merged["gpu_request"]).all()
    assert (merged["submit_time_x"] == merged["submit_time_y"]).all()


def test_real_openb_pod_list_reconciles_with_its_summary():
    path = DATA / "alibaba_clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv"
    frame, report = load_trace(path, return_report=True)
    raw = pd.read_csv(path)
    whole = (raw["num_gpu"] >= 2) | ((raw["num_gpu"] == 1) & (raw["gpu_milli"] == 1000))
    ran = whole & raw["scheduled_time"].notna()
    # data/README.md: 1,088 CPU-only pods and 3,078 GPU-sharing pods of 8,152
    assert report.rows_read == 8152
    assert report.dropped["no_gpu"] == 1088 and report.dropped["shared_gpu"] == 3078
    assert report.dropped["never_scheduled"] == int((whole & ~ran).sum())
    assert report.rows_kept == int(ran.sum()) == len(frame)
    assert frame["gpus_per_instance"].value_counts().to_dict() == (
        raw.loc[ran, "num_gpu"].value_counts().to_dict())
    assert (frame["num_instances"] == 1).all() and frame["submit_time"].is_monotonic_increasing


def test_real_openb_snapshot_is_refused():
    path = DATA / "alibaba_clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_multigpu20.csv"
    with pytest.raises(TraceError, match="snapshot"):
        load_trace(path)


RAW = repo_root() / "data" / "raw"


@pytest.mark.skipif(not (RAW / "venus" / "cluster_log.csv").is_file(),
                    reason="real Venus log not fetched (compass trace fetch venus)")
def test_fetched_venus_log_loads():
    frame, report = load_trace(RAW / "venus" / "cluster_log.csv", return_report=True)
    assert report.format == "helios" and report.rows_read == 246708
    assert report.dropped["cpu_only"] == 121405 and np.all(frame["num_instances"] >= 1)


@pytest.mark.skipif(not (RAW / "gfs" / "job_info_df.csv").is_file(),
                    reason="real GFS job table not fetched (compass trace fetch gfs)")
def test_fetched_gfs_table_loads():
    frame, report = load_trace(RAW / "gfs" / "job_info_df.csv", return_report=True)
    assert report.format == "alibaba-spot" and report.rows_read == 466867
    assert report.dropped["fractional_gpu"] == 49238 and len(frame) == report.rows_kept
