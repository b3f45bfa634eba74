"""The one figure style (compass.plotting): reproducible files, labelled axes, the lead panel."""

from __future__ import annotations

import math

import pandas as pd
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")

from compass import plotting as P  # noqa: E402


def _means() -> pd.DataFrame:
    rows = [{"trace": t, "scheduler": s, "metric": m, "value": v}
            for t in ("venus", "gfs") for s, v in (("compass-abs", 1.0), ("gfs", 1.2))
            for m in ("afr", "ajct", "agu")]
    return pd.DataFrame(rows)


def test_two_saves_of_the_same_figure_are_byte_identical(tmp_path):
    """PDFs carry no creation date, so a rerun of the pipeline rewrites the same bytes."""
    first = P.save(P.dot_grid(_means(), "trace", "T", "SYNTHETIC"), tmp_path / "a", "f")
    second = P.save(P.dot_grid(_means(), "trace", "T", "SYNTHETIC"), tmp_path / "b", "f")
    for one, two in zip(first, second):
        assert one.read_bytes() == two.read_bytes(), one.name
    assert b"CreationDate" not in first[1].read_bytes()  # else reruns a second apart differ


def test_every_metric_axis_says_which_way_is_better():
    for metric in ("afr", "ajct", "agu", "nsif", "sif_gpu", "sif_panel", "pause_per_job"):
        assert "is better" in P.LABELS[metric], metric
    assert P.LABELS["eta"].startswith("\u03b7")


def test_the_lead_panel_draws_each_group_with_its_interval():
    leads = pd.DataFrame([
        {"trace": "gfs", "metric": "ajct", "lead": 10.0, "ci_low": 5.0, "ci_high": 15.0,
         "n": 9, "baseline_mean": 1000.0, "strongest_baseline": "fft"},
        {"trace": "venus", "metric": "ajct", "lead": -4.0, "ci_low": math.nan,
         "ci_high": math.nan, "n": 1, "baseline_mean": 400.0, "strongest_baseline": "mcg"},
    ])
    fig = P.lead_panels(leads, "trace", "leads", "SYNTHETIC", metrics=("ajct",))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["GFS", "Venus"]
    bars = [c for c in ax.containers]  # the errorbar of the sample with an interval
    assert len(bars) == 1
    lines = bars[0].lines[2][0].get_segments()[0]  # the horizontal bar, in seconds
    assert [round(x, 6) for x, _ in lines] == [5.0, 15.0]
    assert "right: COMPASS-ABS better" in ax.get_xlabel()  # two lines: no overlap
