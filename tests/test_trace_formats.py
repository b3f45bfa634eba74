"""Every registered trace format through ``compass simulate``, ``compass.simulate`` and
``load_trace``; ``columns`` renaming; the canonical schema named when nothing matches; a
format registered by one module."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compass
from compass.cli import main
from compass.traces import TraceError, demo_trace, detect_format, load_trace
from compass.traces.formats import TraceFormat, formats, register_format, trace_format
from compass.traces.loading import parse_columns, read_run_trace
from compass.traces.schema import CANONICAL_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
OPENB = ROOT / "data/alibaba_clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv"


def test_the_four_formats_are_registered_by_their_modules() -> None:
    assert set(formats()) >= {"canonical", "helios", "alibaba-spot", "alibaba-openb"}
    assert trace_format("canonical").signature == frozenset(CANONICAL_COLUMNS)
    with pytest.raises(ValueError, match="unknown trace format"):
        trace_format("parquet-of-dreams")


def test_simulate_runs_the_openb_pod_list_from_the_cli_and_python(tmp_path: Path, capsys) -> None:
    loaded = load_trace(OPENB)
    assert main(["simulate", "--trace", str(OPENB), "--nodes", "40", "--out",
                 str(tmp_path / "o"), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("gfs: AFR=")
    jobs = pd.read_csv(tmp_path / "o" / "jobs.csv")
    assert len(jobs) == len(loaded) > 1000
    python = compass.simulate(OPENB, "gfs", nodes=40, format="alibaba-openb")
    assert python.summary["trace_source"] == "openb"
    assert python.summary["ajct"] == pytest.approx(jobs["jct"].mean())


def _canonical_csv(path: Path, names: dict[str, str]) -> Path:
    demo_trace(num_jobs=30).rename(columns=names).to_csv(path, index=False)
    return path


@settings(max_examples=15, deadline=None)
@given(st.permutations(list(CANONICAL_COLUMNS)))
def test_columns_renaming_reads_a_renamed_file_as_the_original(tmp_path_factory, order) -> None:
    """Renaming the canonical columns to other (permuted, prefixed) names and mapping them
    back reproduces the run of the original file."""
    folder = tmp_path_factory.mktemp("renamed")
    to_other = {c: f"x_{o}" for c, o in zip(CANONICAL_COLUMNS, order)}
    original = _canonical_csv(folder / "a.csv", {})
    renamed = _canonical_csv(folder / "b.csv", to_other)
    back = {v: k for k, v in to_other.items()}
    pd.testing.assert_frame_equal(read_run_trace(renamed, columns=back),
                                  load_trace(original)[list(read_run_trace(renamed,
                                                                           columns=back))])


def test_columns_text_and_its_errors(tmp_path: Path, capsys) -> None:
    assert parse_columns("a=job_id, b = duration,") == {"a": "job_id", "b": "duration"}
    with pytest.raises(ValueError, match="old=new"):
        parse_columns("a:job_id")
    path = _canonical_csv(tmp_path / "t.csv", {"duration": "runtime"})
    with pytest.raises(TraceError, match="not in the header"):
        load_trace(path, columns={"nope": "duration"})
    assert main(["simulate", "--trace", str(path), "--nodes", "8", "--out", str(tmp_path / "o"),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--columns" in err and "the canonical schema: job_id, submit_time" in err
    assert "alibaba-openb: gpu_milli, name, num_gpu" in err
    assert main(["simulate", "--trace", str(path), "--columns", "runtime=duration", "--nodes",
                 "8", "--out", str(tmp_path / "o"), "--quiet"]) == 0


def test_nothing_matching_names_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(TraceError, match="matches no format.*the canonical schema"):
        detect_format(path)


def test_a_format_is_one_registration(tmp_path: Path) -> None:
    """A format registered by a module (here a test) is detected and replayed."""
    def load_minutes(path, *, gpus_per_node: int = 8):
        raw = pd.read_csv(path)
        frame = pd.DataFrame({"job_id": raw["id"], "submit_time": raw["minute"] * 60.0,
                              "duration": raw["minutes"] * 60.0, "num_instances": 1,
                              "gpus_per_instance": raw["gpus"]})
        return compass.traces.validate_trace(frame), None

    fmt = TraceFormat("test-minutes", frozenset({"id", "minute", "minutes", "gpus"}),
                      load_minutes, "a test format in minutes")
    try:
        register_format(fmt)
        register_format(TraceFormat(fmt.name, fmt.signature, load_minutes, "again"))
        with pytest.raises(ValueError, match="already registered"):
            register_format(TraceFormat(fmt.name, frozenset({"id"}), load_minutes, "other"))
        path = tmp_path / "m.csv"
        path.write_text("id,minute,minutes,gpus\n1,0,2,4\n2,1,3,8\n")
        assert detect_format(path) == "test-minutes"
        result = compass.simulate(path, "gfs", nodes=2)
        assert list(result.jobs["duration"]) == [120.0, 180.0]
    finally:
        compass.traces.formats._FORMATS.pop("test-minutes", None)


def test_a_profile_with_an_unknown_format_is_refused() -> None:
    import yaml

    from compass.experiments.config import ConfigError
    from compass.experiments.pipeline import make_plan

    raw = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    name = next(iter(raw["traces"]))
    raw["traces"][name]["real"] = {"path": "nowhere.csv", "format": "no-such-format"}
    with pytest.raises(ConfigError, match="no-such-format"):
        make_plan(raw, ROOT)
