"""The REAL openb replay's leads are comparisons too: judged again without FFT (the claims
table's ``*_without_fft`` columns), their strongest baseline is then picked among the study's
baselines that the comparison keeps."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from compass.experiments.studies.openb import measures
from compass.experiments.studies.openb.config import REPLAY_METRICS, OpenbConfig
from compass.experiments.studies.openb.results import OpenbResults
from compass.experiments.verdict.registry import compared_kinds, register_measures

#: AJCT per busy day: FFT the strongest baseline, GFS the strongest of the others.
AJCT = {"compass-abs": [100.0, 110.0, 120.0], "fft": [90.0, 100.0, 105.0],
        "gfs": [150.0, 170.0, 160.0], "fgd": [200.0, 210.0, 220.0]}


def _results() -> OpenbResults:
    rows = [{"day": d, "scheduler": s, **{m: v[d] if m == "ajct" else 0.5
                                          for m in REPLAY_METRICS}}
            for s, v in AJCT.items() for d in range(3)]
    config = OpenbConfig("compass-abs", ("fft", "gfs", "fgd"), tuple(AJCT), (), None, None)
    return OpenbResults(config, pd.DataFrame(), pd.DataFrame(rows), {}, pd.DataFrame(), {})


def _evidence(baselines: tuple[str, ...]) -> SimpleNamespace:
    return SimpleNamespace(res=SimpleNamespace(config=SimpleNamespace(baselines=baselines)))


def test_the_replay_lead_is_a_compared_kind():
    assert "openb_replay_lead" in compared_kinds()
    assert compared_kinds()[:4] == ("lead", "wins", "leads_grow", "leads_ordered")


def test_a_compared_kind_must_be_registered_with_it():
    with pytest.raises(ValueError, match="not among the kinds"):
        register_measures({}, compared=("no-such-kind",))


def test_the_replay_lead_is_over_the_strongest_baseline_the_comparison_keeps(monkeypatch):
    res = _results()
    monkeypatch.setattr(measures, "_results", lambda ev: res)
    six = measures._replay_lead(_evidence(("gfs", "fgd", "cafgd", "mcg", "fft", "drr")), "ajct")
    five = measures._replay_lead(_evidence(("gfs", "fgd", "cafgd", "mcg", "drr")), "ajct")
    # by hand: FFT - COMPASS-ABS = -10, -10, -15; GFS - COMPASS-ABS = 50, 60, 40
    assert six.value == pytest.approx(-35 / 3) and "vs fft" in six.text
    assert five.value == pytest.approx(50.0) and "vs gfs" in five.text
    none = measures._replay_lead(_evidence(("cafgd",)), "ajct")
    assert none.value is None and "none of the study's baselines" in none.text
