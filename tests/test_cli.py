"""The `compass` command: simulate, sif and demo write what they promise."""

import json
from pathlib import Path

import pandas as pd
import pytest

from compass.cli import main

GOLDEN = Path(__file__).parent / "data" / "golden_bestfit.csv"


def test_simulate_writes_tables_and_summary(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--trace", str(GOLDEN), "--scheduler", "gfs", "--nodes", "2",
                 "--out", str(out), "--quiet"]) == 0
    jobs = pd.read_csv(out / "jobs.csv")
    assert len(jobs) == 20 and jobs["end_time"].max() == 230
    assert {"time", "sif", "phi_star"} <= set(pd.read_csv(out / "timeline.csv").columns)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scheduler"] == "gfs" and summary["nodes"] == 2
    assert {"afr", "ajct", "agu", "migrations"} <= set(summary)
    assert "AJCT=" in capsys.readouterr().out


def test_sif_prints_phi_wcc_and_witness(capsys):
    assert main(["sif", "1=3", "5=1", "8=2"]) == 0
    out = capsys.readouterr().out
    # T = 3 + 5 + 16 = 24, the WCC holds (3 >= 3): Phi* = 1[T mod 8 != 0] = 0
    assert "Phi* (minimum partial nodes): 0" in out and "WCC holds: True" in out
    assert "node 0: [8]" in out and "[5, 1, 1, 1]" in out


def test_sif_rejects_bad_pairs(capsys):
    assert main(["sif", "8:2"]) == 2
    assert "SIZE=COUNT" in capsys.readouterr().err


def test_bad_trace_is_reported_not_raised(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("job_id,submit_time,duration,num_instances,gpus_per_instance\n0,0,-5,1,1\n")
    assert main(["simulate", "--trace", str(bad), "--nodes", "2", "--out", str(tmp_path)]) == 2
    assert "row 1 (line 2), column 'duration'" in capsys.readouterr().err


def test_demo_runs_every_scheduler(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--jobs", "40", "--nodes", "6", "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "summary.csv")
    from compass.schedulers import available
    assert sorted(table["scheduler"]) == available()
    assert "SYNTHETIC" in capsys.readouterr().out


def test_trace_stats_takes_the_paper_etas_by_default_and_says_so(capsys):
    from compass.cli import build_parser
    from compass.model import PAPER_ETAS

    args = build_parser().parse_args(["trace", "stats", "some.csv"])
    assert tuple(args.eta) == PAPER_ETAS
    with pytest.raises(SystemExit):
        main(["trace", "stats", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert f"(default: the paper's, {' '.join(f'{e:.2f}' for e in PAPER_ETAS)})" in shown
