"""Honest output: an undefined metric comes with a warning that says why; the cluster sized
by eta; no timeline file when asked; a SYNTHETIC trace at a scaled arrival rate."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import compass
from compass.api import UndefinedMetric
from compass.cli import main
from compass.traces import demo_trace, synthesize
from compass.traces.scaling import SEED_STRIDE, load_scaled
from compass.traces.windows import cluster_size

TRACE = demo_trace(num_jobs=80, seed=5)


def test_no_queue_leaves_afr_and_agu_undefined_with_a_warning() -> None:
    with pytest.warns(UndefinedMetric, match="T_peak"):
        roomy = compass.simulate(TRACE, "gfs", nodes=500)
    assert math.isnan(roomy.summary["afr"]) and math.isnan(roomy.summary["agu"])
    assert roomy.summary["ajct"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetric)
        tight = compass.simulate(TRACE, "gfs", eta=0.8)
    assert not math.isnan(tight.summary["afr"])


def test_eta_sizes_the_cluster_by_eq_13() -> None:
    nodes = cluster_size(TRACE, 0.9).nodes
    by_eta = compass.simulate(TRACE, "gfs", eta=0.9)
    by_nodes = compass.simulate(TRACE, "gfs", nodes=nodes)
    assert by_eta.summary["nodes"] == nodes and by_eta.summary["eta"] == 0.9
    assert by_eta.summary["afr"] == by_nodes.summary["afr"]
    with pytest.raises(ValueError, match="exactly one of nodes= or eta="):
        compass.simulate(TRACE, "gfs", nodes=4, eta=0.9)


def test_the_cli_sizes_by_eta_skips_the_timeline_and_says_why_afr_is_missing(
        tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["simulate", "--trace", "demo", "--eta", "0.9", "--out", str(out),
                 "--no-timeline", "--quiet"]) == 0
    nodes = cluster_size(demo_trace(), 0.9).nodes
    assert f"on {nodes} nodes (N(0.9))" in capsys.readouterr().out
    assert (out / "jobs.csv").exists() and not (out / "timeline.csv").exists()
    assert main(["simulate", "--trace", "demo", "--nodes", "5000", "--out", str(out),
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "AFR=n/a" in captured.out and "T_peak" in captured.err
    assert (out / "timeline.csv").exists()


def test_load_scale_multiplies_the_arrivals() -> None:
    base = synthesize("venus-synth", days=1, seed=2)
    assert load_scaled("venus-synth", 1, days=1, seed=2).equals(base)
    other = synthesize("venus-synth", days=1, seed=2 + SEED_STRIDE)
    double = load_scaled("venus-synth", 2, days=1, seed=2)
    assert len(double) == len(base) + len(other)  # two draws, nothing thinned
    assert list(double["job_id"]) == list(range(len(double)))
    assert double["submit_time"].is_monotonic_increasing
    half = load_scaled("venus-synth", 0.5, days=1, seed=2)
    assert set(half["source_id"]) <= set(base["source_id"])  # a thinning of the one draw
    n = len(base)
    assert abs(len(half) - n / 2) < 4 * math.sqrt(n / 4)  # binomial(n, 1/2), 4 sigma
    assert (half["source"] == "synthetic:venus-synth").all()
    with pytest.raises(ValueError, match="load_scale"):
        load_scaled("venus-synth", 0, days=1)


def test_trace_synth_takes_load_scale(tmp_path: Path, capsys) -> None:
    out = tmp_path / "t.csv"
    assert main(["trace", "synth", "--kind", "venus-synth", "--days", "1", "--load-scale",
                 "2", "--out", str(out)]) == 0
    assert "arrivals x2" in capsys.readouterr().out
    assert len(compass.load_trace(out)) == len(load_scaled("venus-synth", 2, days=1))
