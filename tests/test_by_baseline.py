"""Which baseline decides each verdict (compass.experiments.verdict.by_baseline): a lead over the
strongest of six that FFT alone decides, judged again without FFT and per baseline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments.config import parse_config
from compass.experiments.layout import Layout
from compass.experiments.results import Results
from compass.experiments.verdict.by_baseline import (
    SET_ASIDE,
    by_baseline,
    with_baselines,
    without_fft,
)
from compass.experiments.verdict.claims import Claim, load_margins

ROOT = Path(__file__).resolve().parents[1]
FIVE = ("gfs", "fgd", "cafgd", "mcg", "drr")


def _results(fft_gap: float, gaps: dict[str, float], samples: int = 6) -> Results:
    """Venus overall runs (eta 0.9, c 8): each baseline ``gaps[name]`` s behind COMPASS-ABS
    on AJCT on every sample (FFT ``fft_gap``), on days whose levels differ widely."""
    cfg = parse_config(yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text()))
    rows = []
    for seed in range(samples):
        level = 2_000.0 + 700.0 * seed
        for name, gap in (("compass-abs", 0.0), ("fft", fft_gap), *gaps.items()):
            rows.append({"trace": "venus", "day": 92, "seed": seed, "eta": 0.9, "cost": 8.0,
                         "scheduler": name, "status": "ok", "ajct": level + gap,
                         "agu": 0.9, "afr": 0.01, "mean_queue_time": 100.0})
    return Results(Layout(Path(".")), cfg, {}, pd.DataFrame(rows))


CLAIM = Claim("overall-ajct-lead-venus", "6.1", "", "212 s",
              {"kind": "lead", "experiment": "overall", "metric": "ajct",
               "where": {"trace": "venus"}}, {"at_least": 212}, "s", [], "")


def test_a_lead_that_fft_alone_decides_is_judged_again_without_it():
    """FFT 50 s ahead of COMPASS-ABS, the other five 300-700 s behind it: against all six
    the lead is -50 s (a loss), against the five +300 s (holds: at least 212 s); the
    per-baseline table shows FFT alone deciding the verdict."""
    res = _results(-50.0, {b: 300.0 + 100 * i for i, b in enumerate(FIVE)})
    margins = load_margins(ROOT / "paper" / "claims.yaml")
    five = without_fft([CLAIM], res, Path("."), margins).set_index("id").loc[CLAIM.id]
    assert five["lead_without_fft"] == pytest.approx(300.0)
    assert (five["ci_low_without_fft"], five["ci_high_without_fft"]) == pytest.approx(
        (300.0, 300.0))
    assert five["verdict_without_fft"] == "holds"
    table = by_baseline([CLAIM], res, Path("."), margins).set_index("baseline")
    assert table.loc["fft", "lead"] == pytest.approx(-50.0)
    assert table.loc["fft", "verdict"] == "differs"
    assert table.loc["gfs", "verdict"] == "holds" and table.loc["drr", "lead"] == pytest.approx(
        700.0)
    assert set(table.index) == {*FIVE, SET_ASIDE} and (table["n"] == 6).all()


def test_narrowing_the_baselines_leaves_the_runs_alone():
    res = _results(10.0, {b: 20.0 for b in FIVE})
    narrow = with_baselines(res, FIVE)
    assert narrow.config.baselines == FIVE and narrow.runs is res.runs
    assert res.config.baselines == ("gfs", "fgd", "cafgd", "mcg", "fft", "drr")
