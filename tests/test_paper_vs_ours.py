"""The paper beside ours (compass.experiments.verdict.paper_vs_ours): every number the paper states,
linked to the claim that measures it, with ours, its interval and the difference; checked on
small frames with known answers and, for ``difference``, against a brute-force reading."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from compass.experiments.paper_values import DEFAULT_PATH, PaperValue, paper_values, stated_values
from compass.experiments.tables import write_table
from compass.experiments.verdict.claims import DEFAULT_VARIANT
from compass.experiments.verdict.paper_vs_ours import (
    COLUMNS,
    PAPER_VS_OURS_TABLE,
    difference,
    paper_vs_ours,
    summary,
)
from compass.experiments.verdict.report import _paper_beside_ours

NAN = math.nan


def _claims(*rows: dict) -> pd.DataFrame:
    base = {"ours": NAN, "ci_low": NAN, "ci_high": NAN, "n": NAN, "verdict": "holds",
            "detail": "", "ours_text": "", "variant": DEFAULT_VARIANT}
    return pd.DataFrame([{**base, **r} for r in rows])


# ---------------------------------------------------------------- difference
def test_difference_known_answers():
    assert difference(5.0, 5.0, 1.0, 2.0) == 3.0          # above the range
    assert difference(0.5, 0.5, 1.0, 2.0) == -0.5         # below it
    assert difference(1.5, 1.5, 1.0, 2.0) == 0.0          # inside
    assert difference(-10.0, -10.0, 212.0, NAN) == -222.0  # short of "at least 212"
    assert difference(300.0, 300.0, 212.0, NAN) == 0.0
    assert difference(5.6, 5.6, NAN, 1.0) == pytest.approx(4.6)  # over "at most 1"
    assert difference(0.012, 0.413, 0.058, 0.324) == pytest.approx(0.089)  # wider both ways
    assert difference(0.0, 0.33, 0.058, 0.324) == pytest.approx(-0.058)


finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(finite, finite, finite, finite)
def test_difference_is_the_largest_excursion_outside_the_paper_range(a, b, c, d):
    low, high = sorted((a, b))
    p_low, p_high = sorted((c, d))
    got = difference(low, high, p_low, p_high)
    # brute force: the signed distance of each end to the range, the larger in size
    ends = [x - p_low if x < p_low else x - p_high if x > p_high else 0.0 for x in (low, high)]
    assert abs(got) == max(abs(e) for e in ends)
    assert (got == 0) == (p_low <= low and high <= p_high)
    assert got <= 0 or high > p_high
    assert got >= 0 or low < p_low


# ---------------------------------------------------------------- the builder
def test_the_builder_on_small_frames():
    stated = [
        PaperValue("fig1_overall", "ajct", "lead", low=212.0, group="venus", where="6.1",
                   claim="lead-a"),
        PaperValue("fig1_overall", "agu", "lead", low=0.007, group="venus", where="6.1",
                   claim="lead-b", scale=100.0),
        PaperValue("table1_classes", "share_i8", "trace", 29.73, 29.73, "gfs", "T1",
                   claim="vec", part=1),
        PaperValue("fig2_eta_sweep", "afr", "compass-abs", 0.0023, 0.0026, where="6.2",
                   claim="band"),
        PaperValue("fig4_migration_cost", "latency", "compass-abs", 8.0, 8.0, where="6.5",
                   claim="none"),
        PaperValue("fig1_overall", "afr", "lead", low=0.0, where="6.1", claim="wins"),
        PaperValue("fig1_overall", "afr", "lead", low=0.0, where="6.1", claim="absent"),
    ]
    claims = _claims(
        {"id": "lead-a", "ours": -385.0, "ci_low": -741.0, "ci_high": -89.0, "n": 10,
         "verdict": "differs", "ours_text": "-385 [-741, -89]"},
        {"id": "lead-a", "ours": 999.0, "variant": "other"},  # never a variant's row
        {"id": "lead-b", "ours": 0.5, "ci_low": 0.2, "ci_high": 0.8, "n": 5},
        {"id": "vec", "ours_text": "64 / 30"},
        {"id": "band", "verdict": "differs", "ours_text": "0.00239-0.00274"},
        {"id": "none", "verdict": "no data", "ours_text": "-", "detail": "no physical runs"},
        {"id": "wins", "verdict": "differs", "ours_text": "W 1 / T 1 / L 3 / U 4 of 9"},
    )
    values = {"vec": [64.0, 30.0], "band": (0.00274, 0.00239)}
    t = paper_vs_ours(stated, claims, values)
    assert list(t.columns) == COLUMNS and len(t) == len(stated)
    a, b, v, band, none, wins, absent = (r for _, r in t.iterrows())
    assert (a["ours"], a["ci_low"], a["ci_high"], a["n"]) == (-385.0, -741.0, -89.0, 10)
    assert a["difference"] == -597.0 and a["verdict"] == "differs"
    assert a["paper"] == ">= 212" and a["claim"] == "lead-a"
    assert b["ours"] == pytest.approx(0.005) and b["ci_low"] == pytest.approx(0.002)
    assert b["difference"] == pytest.approx(-0.002)
    assert v["ours"] == 30.0 and v["difference"] == pytest.approx(0.27) and math.isnan(v["n"])
    assert math.isnan(band["ours"])
    assert (band["ours_low"], band["ours_high"]) == (0.00239, 0.00274)
    assert band["difference"] == pytest.approx(0.00014)
    assert none["note"] == "not measured: no physical runs" and math.isnan(none["difference"])
    assert wins["note"].startswith("not measured: no single number (W 1")
    assert absent["note"] == "not measured: claim absent is not in the claims table"
    assert absent["verdict"] == ""


def test_a_value_measured_by_a_figures_leads_frame():
    """A row read from a figure's leads frame carries its own verdict, the sign of its lead
    (the issue's rows 34-35: AFR leads wholly above zero showed the win-count claim's
    "differs"); the claim's verdict stays in the note."""
    stated = [PaperValue("fig1_overall", "afr", "lead", low=0.0, group=g, where="6.1",
                         claim="wins", leads="overall") for g in ("venus", "physmix", "gfs")]
    claims = _claims({"id": "wins", "verdict": "differs", "ours_text": "W 1 / L 2"})
    leads = pd.DataFrame([
        {"group": "venus", "metric": "afr", "lead": 0.015, "ci_low": 0.01, "ci_high": 0.02,
         "n": 10, "strongest_baseline": "fft"},
        {"group": "venus", "metric": "agu", "lead": 9.0, "ci_low": 8.0, "ci_high": 10.0,
         "n": 10, "strongest_baseline": "fft"},
        {"group": "physmix", "metric": "afr", "lead": -0.017, "ci_low": -0.03,
         "ci_high": -0.006, "n": 5, "strongest_baseline": "gfs"}])
    venus, physmix, gfs = (r for _, r in paper_vs_ours(stated, claims, {},
                                                       {"overall": leads}).iterrows())
    assert (venus["ours"], venus["n"], venus["difference"]) == (0.015, 10, 0.0)
    assert "fft in the point estimate" in venus["note"] and venus["verdict"] == "holds"
    assert "the claim wins: W 1 / L 2" in venus["note"]
    assert physmix["difference"] == -0.017 and "gfs in the point estimate" in physmix["note"]
    assert physmix["verdict"] == "differs"
    assert gfs["note"] == "not measured: no overall lead of afr on gfs"
    assert math.isnan(gfs["ours"])


def test_the_summary_counts_from_the_table():
    stated = [PaperValue("f", "ajct", "lead", low=100.0, claim="a"),
              PaperValue("f", "ajct", "lead", low=100.0, claim="b"),
              PaperValue("f", "agu", "compass-abs", low=0.9, high=1.0, claim="c"),
              PaperValue("t", "share", "trace", 50.0, 50.0, claim="d"),
              PaperValue("t", "share", "trace", 8.0, 8.0, claim="e")]
    claims = _claims({"id": "a", "ours": 50.0}, {"id": "b", "ours": 150.0},
                     {"id": "c", "ours": 0.95}, {"id": "d", "ours": 75.0},
                     {"id": "e", "verdict": "not measured", "ours_text": "why"})
    lines = summary(paper_vs_ours(stated, claims, {}))
    assert lines[0].startswith("The paper states 5 numbers")
    assert "measured 4 of them (1 not" in lines[0]
    assert "ranges and bounds we measured, ours lies inside 2 and outside 1" in lines[1]
    assert "AJCT lead" in lines[2] and "on 1 of 2 (median of ours minus the paper's 0)" in lines[2]
    assert lines[3].startswith("Largest gaps") and "d (t, share): paper 50, ours 75" in lines[3]


def test_the_report_section_points_to_the_table_and_lists_its_summary(tmp_path):
    tables, out = tmp_path / "paper" / "tables", tmp_path / "paper" / "REPRODUCTION.md"
    assert _paper_beside_ours(tables, out) == []  # before the claims rule wrote it
    frame = paper_vs_ours([PaperValue("f", "ajct", "lead", low=100.0, claim="a")],
                          _claims({"id": "a", "ours": 40.0}), {})
    write_table(frame, tables, PAPER_VS_OURS_TABLE)
    lines = _paper_beside_ours(tables, out)
    assert lines[0] == "## The paper beside ours"
    assert "(tables/paper_vs_ours.csv)" in lines[2]
    assert [line for line in lines if line.startswith("- ")] == [
        f"- {line}" for line in summary(frame)]


# ---------------------------------------------------------------- paper/paper_values.yaml
def test_every_stated_value_names_a_claim_that_exists_and_a_valid_part():
    claims = {c["id"]: c for c in yaml.safe_load(
        (DEFAULT_PATH.parent / "claims.yaml").read_text())["claims"]}
    stated = stated_values()
    assert len(stated) >= 30
    assert stated[:len(paper_values())] == paper_values()  # the figures' values first
    assert {"table1_classes", "table2_composition", "table3_wcc_top1"} <= {
        v.figure for v in stated}
    for v in stated:
        assert v.claim in claims, v
        assert v.where, v
        if v.part is not None:
            listed = claims[v.claim]["check"]["approx"]["value"]
            assert 0 <= v.part < len(listed), v
            assert listed[v.part] == pytest.approx(v.low * v.scale), v  # the same number
