"""What the platform told its researcher wrongly or not at all: each case ran
before without a word, and is checked here against what the run really did."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compass
from compass.cli import main
from compass.schedulers.params import ParameterError
from compass.sim import metrics
from compass.sim.result_schema import METRIC_NAMES, RUN_NAMES
from compass.traces import demo_trace
from compass.traces.formats.alibaba_openb import load_alibaba_openb
from compass.traces.paths import data_file
from compass.traces.windows import busy_window, cluster_size, day_window

ROOT = Path(__file__).resolve().parents[1]
OPENB = "alibaba_clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv"


def test_simulate_records_the_eta_the_cli_sized_by(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["simulate", "--trace", "demo", "--eta", "0.9", "--out", str(out),
                 "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["eta"] == 0.9
    assert summary["nodes"] == cluster_size(demo_trace(), 0.9).nodes
    assert summary["trace"] == "demo"


def test_gpus_per_node_reaches_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["simulate", "--trace", "demo", "--nodes", "10", "--gpus-per-node", "16",
                 "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["gpus_per_node"] == 16
    api = compass.simulate("demo", "gfs", nodes=10, gpus_per_node=16)
    assert summary["ajct"] == pytest.approx(api.summary["ajct"])


def test_the_api_takes_the_demo_by_name() -> None:
    by_name = compass.simulate("demo", "gfs", nodes=8)
    by_frame = compass.simulate(demo_trace(), "gfs", nodes=8)
    assert by_name.summary["trace"] == "demo"
    assert by_name.summary["ajct"] == by_frame.summary["ajct"]


def test_summary_json_sweep_and_api_share_the_schema(tmp_path: Path) -> None:
    result = compass.simulate("demo", "gfs", nodes=8)
    assert list(result.summary) == [*RUN_NAMES, *METRIC_NAMES]
    assert list(metrics.summarize(result.jobs, result.timeline)) == list(METRIC_NAMES)
    table = compass.sweep("demo", ["gfs"], nodes=8, grid={"cost": [0.0]}, cache=None)
    assert "cost" in table and "migration_cost" not in table
    assert set(METRIC_NAMES) <= set(table.columns)
    assert {*RUN_NAMES} - {"scheduler_params"} <= set(table.columns)
    from compass.experiments.runs import RUN_COLUMNS

    assert [c for c in RUN_COLUMNS if c in METRIC_NAMES] == list(METRIC_NAMES)  # runs.csv
    assert "cost" in RUN_COLUMNS and "migration_cost" not in RUN_COLUMNS


def test_the_schema_is_documented() -> None:
    text = (ROOT / "docs" / "simulator.md").read_text()
    from compass.sim.result_schema import ALL

    for column in ALL:
        assert f"| `{column.name}` | {column.unit} | {column.meaning} |" in text, column.name


@settings(max_examples=20, deadline=None)
@given(jct=st.lists(st.floats(1, 1e5), min_size=1, max_size=40),
       share=st.floats(0.01, 1.0))
def test_percentiles_and_bounded_slowdown_against_a_direct_reading(jct, share) -> None:
    durations = [max(0.5, j * share) for j in jct]
    jobs = pd.DataFrame({"jct": jct, "queue_time": [j - d for j, d in zip(jct, durations)],
                         "duration": durations, "migrations": 0, "instance_moves": 0,
                         "pause_time": 0.0})
    timeline = pd.DataFrame({"time": [0.0, 1.0], "partial_nodes": [0, 0], "phi_star": [0, 0],
                             "sif": [0.0, 0.0], "gpu_util": [0.0, 0.0], "queue_len": [0, 0]})
    s = metrics.summarize(jobs, timeline)
    assert s["jct_p50"] == pytest.approx(statistics.median(jct))
    ranked = sorted(jct)
    assert ranked[0] <= s["jct_p50"] <= s["jct_p95"] <= s["jct_p99"] <= ranked[-1]
    cut = statistics.quantiles(jct, n=100, method="inclusive") if len(jct) > 1 else jct * 99
    assert s["jct_p95"] == pytest.approx(cut[94]) and s["jct_p99"] == pytest.approx(cut[98])
    slow = [max(1.0, j / max(d, 10.0)) for j, d in zip(jct, durations)]
    assert s["mean_bounded_slowdown"] == pytest.approx(sum(slow) / len(slow))


def test_api_parameters_are_checked_as_on_the_command_line(capsys) -> None:
    with pytest.raises(ParameterError,
                       match="cafgd parameter 'water': expected a number, got 'high'"):
        compass.simulate("demo", "cafgd", nodes=8, scheduler_params={"water": "high"})
    with pytest.raises(ParameterError, match="cafgd has no parameter 'wter'"):
        compass.simulate("demo", "cafgd", nodes=8, scheduler_params={"wter": 0.9})
    with pytest.raises(ParameterError, match="expected a number, got True"):
        compass.simulate("demo", "cafgd", nodes=8, scheduler_params={"water": True})
    assert main(["simulate", "--trace", "demo", "--nodes", "8", "--scheduler", "cafgd",
                 "--param", "water=high", "--out", "/nonexistent/x"]) == 2
    assert "cafgd parameter 'water': expected a number, got 'high'" in capsys.readouterr().err


BROKEN = '''
from compass.schedulers import register
from compass.schedulers.gfs import GFS

@register
class Broken(GFS):
    name = "broken-plugin"

    def place(self, job, state, now):
        raise ZeroDivisionError("the rule divides by zero")
'''


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "broken_plugin.py").write_text(BROKEN)
    (tmp_path / "unimportable_plugin.py").write_text("raise RuntimeError('half-written')\n")
    env = {"PYTHONPATH": f"{ROOT}:{tmp_path}", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "compass.cli", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)


def test_a_broken_scheduler_is_one_line_and_a_traceback_with_debug(tmp_path: Path) -> None:
    run = ["--plugin", "broken_plugin", "simulate", "--trace", "demo", "--nodes", "8",
           "--scheduler", "broken-plugin", "--out", "out", "--quiet"]
    short = _cli(tmp_path, *run)
    assert short.returncode == 1
    assert short.stderr.strip().splitlines() == [
        "compass: error: ZeroDivisionError: the rule divides by zero (run again with "
        "--debug for the traceback)"]
    full = _cli(tmp_path, *run, "--debug")
    assert full.returncode == 1 and "Traceback" in full.stderr and "def place" not in ""
    unimportable = _cli(tmp_path, "--plugin", "unimportable_plugin", "schedulers")
    assert unimportable.returncode == 2
    assert len(unimportable.stderr.strip().splitlines()) == 1
    assert "unimportable_plugin" in unimportable.stderr and "half-written" in unimportable.stderr


def test_openb_days_window_and_every_dropped_pod_counted(tmp_path: Path, capsys) -> None:
    """The openb pod list sized over its busy days, as the pipeline sizes it (N(0.90) = 6,
    not 4 over the whole span), and the 4,522 of 8,152 pods dropped said on the console
    and in summary.json."""
    path = data_file(OPENB)
    out = tmp_path / "openb"
    assert main(["simulate", "--trace", str(path), "--eta", "0.9", "--days", "busy",
                 "--out", str(out), "--quiet", "--no-timeline"]) == 0
    err = capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    pods = len(pd.read_csv(path))
    assert summary["jobs"] + summary["dropped_jobs"] == pods
    assert f"{summary['dropped_jobs']} of {pods} rows of the trace were dropped" in err
    assert "shared_gpu" in err and "no_gpu" in err
    frame = load_alibaba_openb(path)[0]
    assert summary["nodes"] == cluster_size(frame, 0.9, within=busy_window(frame)).nodes == 6
    whole = compass.simulate(path, "gfs", eta=0.9)
    assert whole.summary["nodes"] == 4 and whole.summary["dropped_jobs"] == 4522
    assert summary["dropped_jobs"] - 4522 == int(
        (frame["submit_time"] >= busy_window(frame).end).sum())  # after the busy days


def test_a_day_window_drops_the_later_jobs_and_sizes_over_itself() -> None:
    trace = demo_trace(num_jobs=1200, seed=2)
    day = (trace["submit_time"] // 86_400).astype(int)
    assert day.max() >= 2
    result = compass.simulate(trace, "gfs", eta=0.9, days=(1, 1))
    assert result.summary["jobs"] == int((day <= 1).sum())
    assert result.summary["dropped_jobs"] == int((day > 1).sum())
    assert result.load_report.dropped == {"after_days": int((day > 1).sum())}
    kept = trace[day <= 1]
    assert result.summary["nodes"] == cluster_size(kept, 0.9, within=day_window(1)).nodes
    with pytest.raises(ValueError, match="first <= last"):
        compass.simulate(trace, "gfs", nodes=4, days=(3, 1))
