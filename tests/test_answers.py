"""The report's answers first (compass.experiments.verdict.answers): three sentences computed from
claims.csv and the break-even table, never typed by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from compass.experiments.studies.regime.sections import _inside
from compass.experiments.verdict.answers import answers
from compass.experiments.verdict.claims import CLAIM_COLUMNS

REAL_VENUS = "REAL venus (data/mystous_gpu_scheduler/helios_trace.csv.gz)"


def _claims() -> pd.DataFrame:
    base = {c: "" for c in CLAIM_COLUMNS}
    rows = [
        {**base, "id": "overall-ajct-lead-venus", "variant": "default", "verdict": "differs",
         "direction": "behind", "ours": -386.0, "ci_low": -740.0, "ci_high": -89.0,
         "unit": "s", "paper": "212 s", "lead_without_fft": 600.0,
         "ci_low_without_fft": 500.0, "ci_high_without_fft": 770.0,
         "verdict_without_fft": "holds", "data": REAL_VENUS},
        {**base, "id": "overall-best", "variant": "default", "verdict": "differs",
         "direction": "", "ours": math.nan, "ci_low": math.nan, "ci_high": math.nan,
         "lead_without_fft": math.nan, "ci_low_without_fft": math.nan,
         "ci_high_without_fft": math.nan,
         "verdict_without_fft": "inconclusive (W 5 / T 0 / L 0 / U 4 of 9)",
         "data": f"{REAL_VENUS}; SYNTHETIC gfs-synth"},
        {**base, "id": "openb-replay-ajct-lead", "variant": "default", "verdict": "differs",
         "direction": "", "ours": -2825.0, "ci_low": -5368.0, "ci_high": -283.0,
         "unit": "s", "lead_without_fft": math.nan, "ci_low_without_fft": math.nan,
         "ci_high_without_fft": math.nan, "verdict_without_fft": "",
         "ours_text": "REAL openb (pod lists): lead -2,825"},
    ]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def test_the_answer_is_given_without_fft_against_fft_and_on_real_data(tmp_path: Path):
    pd.DataFrame([{"trace": "venus", "metric": "ajct", "round_s": r, "lead": v,
                   "ci_low": v - 50, "ci_high": v + 50, "n": 5, "unit": "s",
                   "source": "sweep"} for r, v in ((360, -300.0), (3600, 100.0))]
                 ).to_csv(tmp_path / "fft_breakeven.csv", index=False)
    lines = answers(_claims(), tmp_path)
    text = "\n".join(lines)
    assert "1. *Against the five baselines other than FFT*" in text
    assert "the 2 comparison claims are: 1 holds, 1 inconclusive" in text
    assert "`overall-ajct-lead-venus` +600 [+500, +770] s (holds, paper 212 s)" in text
    assert "the same claims are: 2 differs" in text
    assert "`overall-ajct-lead-venus` -386 [-740, -89] s" in text
    assert "AJCT on venus: crosses zero at about" in text
    real = next(line for line in lines if line.startswith("3. *On the real data*"))
    # the claims on REAL data alone (not overall-best: partly SYNTHETIC), then openb's
    assert real.startswith(f"3. *On the real data*, on {REAL_VENUS}: `overall-ajct-lead-venus` "
                           "differs -386 [-740, -89] s (without FFT: holds +600 [+500, +770] s)")
    assert "overall-best" not in real
    assert real.endswith("; and on REAL openb (pod lists): `openb-replay-ajct-lead` differs "
                         "-2.82e+03 [-5.37e+03, -283] s.")


def test_without_real_data_the_third_answer_says_so(tmp_path: Path):
    synthetic = _claims().assign(data="SYNTHETIC gfs-synth")
    lines = answers(synthetic[~synthetic["id"].str.startswith("openb-")], tmp_path)
    assert "3. *On the real data*: no comparison on real data in this run." in lines


def test_a_regime_value_overlaps_the_papers_band():
    assert _inside("[1, 24]", "[60, 80]") is False
    assert _inside("[55, 65]", "[60, 80]") is True
    assert _inside("0.9", "[0.8, 0.9]") is True
    assert _inside("not measured", "[0.8, 0.9]") is False
