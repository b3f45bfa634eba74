"""`compass trace synth|stats|fetch` do what they promise."""

from __future__ import annotations

from pathlib import Path
from urllib.error import URLError

import pandas as pd

from compass.cli import main
from compass.traces import fetch, load_trace
from compass.traces.synthetic import synthesize

FIXTURES = Path(__file__).parent / "data" / "traces"


def test_synth_writes_a_canonical_synthetic_trace(tmp_path, capsys):
    out = tmp_path / "gfs.csv"
    assert main(["trace", "synth", "--kind", "gfs-synth", "--days", "3", "--seed", "0",
                 "--out", str(out)]) == 0
    frame = load_trace(out)
    expected = synthesize("gfs-synth", days=3, seed=0)
    assert len(frame) == len(expected) and set(frame["source"]) == {"synthetic:gfs-synth"}
    assert (frame["submit_time"].to_numpy() == expected["submit_time"].to_numpy()).all()
    assert "SYNTHETIC" in capsys.readouterr().out


def test_stats_of_a_synthetic_trace(tmp_path, capsys):
    trace, table = tmp_path / "v.csv", tmp_path / "days.csv"
    main(["trace", "synth", "--kind", "venus-synth", "--days", "2", "--start-day", "91",
          "--out", str(trace)])
    assert main(["trace", "stats", str(trace), "--eta", "0.9", "--out", str(table)]) == 0
    out = capsys.readouterr().out
    assert "SYNTHETIC trace: synthetic:venus-synth" in out and "instance shares (Table 1)" in out
    assert "calibration targets vs this SYNTHETIC trace" in out and "day 92 share 1 GPU" in out
    days = pd.read_csv(table)
    assert list(days["day"]) == [91, 92] and {"p_0.9", "N_0.9", "rho"} <= set(days.columns)


def test_stats_show_the_gfs_joints_targets(tmp_path, capsys):
    trace = tmp_path / "g.csv"
    main(["trace", "synth", "--kind", "gfs-synth", "--days", "2", "--out", str(trace)])
    assert main(["trace", "stats", str(trace), "--eta", "0.9"]) == 0
    out = capsys.readouterr().out
    for row in ("share of w > 30 jobs at g = 8", "widest 1-GPU gang", "job share with w 9 to 32",
                "GPU-time share of jobs with w 33 to 128",
                "GPU-time share of jobs with 5 to 8 GPUs",
                "largest |day GPU-seconds / real day's - 1|", "share of jobs with >= 129 GPUs"):
        assert row in out, row
    main(["trace", "synth", "--kind", "gfs-synth-indep", "--days", "2", "--out", str(trace)])
    assert main(["trace", "stats", str(trace), "--eta", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "synthetic:gfs-synth-indep" in out and "share of w > 30 jobs" not in out


def test_stats_of_a_real_format_reports_drops(capsys):
    assert main(["trace", "stats", str(FIXTURES / "helios_cluster_log.csv")]) == 0
    out = capsys.readouterr().out
    assert "(helios): read 12, kept 7" in out and "dropped 1 (non_homogeneous)" in out
    assert "trace source: venus" in out and "SYNTHETIC" not in out


def test_stats_of_a_bad_file_is_an_error(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert main(["trace", "stats", str(bad)]) == 2
    assert "matches no format" in capsys.readouterr().err


def test_fetch_offline_fails_clearly(tmp_path, capsys, monkeypatch):
    def refuse(url, timeout):
        raise URLError("Network is unreachable")
    monkeypatch.setattr(fetch, "urlopen", refuse)
    assert main(["trace", "fetch", "gfs", "--dest", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "could not fetch the gfs trace" in err and "may be offline" in err


def test_fetch_reports_a_present_file(tmp_path, capsys):
    target = tmp_path / "venus" / "cluster_log.csv"
    target.parent.mkdir()
    target.write_text("x")
    assert main(["trace", "fetch", "venus", "--dest", str(tmp_path)]) == 0
    assert "format='helios'" in capsys.readouterr().out
