"""The figures' readings (compass.experiments.narrative) and the paper's stated values
(paper/paper_values.yaml): computed from the frames, checked against hand counts and an
independent brute force."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER, TIE_TOLERANCE
from compass.experiments.narrative import (
    Story,
    compare,
    lead_story,
    number,
    series_story,
    top1_story,
)
from compass.experiments.paper_values import DEFAULT_PATH, LEAD, PaperValue, paper_values

ROOT = Path(__file__).resolve().parents[1]
BASELINES = ("gfs", "fft")


def _means(values: dict[tuple[str, str, str], float]) -> pd.DataFrame:
    return pd.DataFrame([{"trace": t, "scheduler": s, "metric": m, "value": v}
                         for (t, s, m), v in values.items()])


def test_compare_reads_leads_ranks_and_the_paper_ranges_from_the_frame():
    means = _means({
        ("venus", "compass-abs", "ajct"): 900.0, ("venus", "gfs", "ajct"): 1000.0,
        ("venus", "fft", "ajct"): 950.0,
        ("gfs", "compass-abs", "ajct"): 1200.0, ("gfs", "gfs", "ajct"): 1100.0,
        ("gfs", "fft", "ajct"): 1150.0,
        ("venus", "compass-abs", "agu"): 0.80, ("venus", "gfs", "agu"): 0.70,
        ("venus", "fft", "agu"): 0.85,
        ("gfs", "compass-abs", "agu"): 0.60, ("gfs", "gfs", "agu"): 0.50,
        ("gfs", "fft", "agu"): 0.55,
    })
    paper = [PaperValue("f", "ajct", LEAD, low=212.0, group="venus", where="6.1: x"),
             PaperValue("f", "agu", "compass-abs", low=0.957, where="6.2: y")]
    story = compare(means, ["trace"], "compass-abs", BASELINES, paper, "Fig",
                    names={"venus": "Venus", "gfs": "GFS"})
    ajct, agu = story.ours
    assert ajct.startswith("AJCT: COMPASS-ABS first on 1 of 2")
    assert "Venus +50 s (vs fft)" in ajct and "GFS -100 s (vs gfs)" in ajct
    assert agu.startswith("AGU: COMPASS-ABS first on 1 of 2")
    assert "Venus -0.05 (vs fft)" in agu and "GFS +0.05 (vs fft)" in agu
    assert "COMPASS-ABS 0.6-0.8, outside the paper's >= 0.957" in agu
    assert story.paper == ["AJCT: COMPASS-ABS's lead >= 212 s on Venus (section 6.1: x)",
                           "AGU: COMPASS-ABS >= 0.957 (section 6.2: y)"]
    text = story._repr_markdown_()
    assert text.startswith("**Fig**") and "On this run:" in text and "The paper:" in text


def test_another_reference_is_named_as_itself_and_one_value_is_not_a_range():
    means = _means({("k1", "compass-abs-hier", "sif_gpu"): 0.05, ("k1", "gfs", "sif_gpu"): 0.2,
                    ("k2", "compass-abs-hier", "sif_gpu"): 0.05, ("k2", "gfs", "sif_gpu"): 0.1})
    paper = [PaperValue("f", "sif_gpu", "compass-abs", high=0.1, where="D")]
    (line,) = compare(means, ["trace"], "compass-abs-hier", ["gfs"], paper).ours
    assert line.startswith("SIF (GPU): compass-abs-hier first on 2 of 2; ")
    assert line.endswith("compass-abs-hier 0.05, inside the paper's <= 0.1")


def test_a_figure_the_paper_states_nothing_about_says_so_or_gives_the_reason():
    means = _means({("venus", "compass-abs", "afr"): 0.1, ("venus", "gfs", "afr"): 0.2})
    assert compare(means, ["trace"], "compass-abs", BASELINES).paper == []
    assert "states no value" in compare(means, ["trace"], "compass-abs", BASELINES).markdown()
    noted = compare(means, ["trace"], "compass-abs", BASELINES, note="not in the paper")
    assert noted.paper == ["not in the paper"]


@settings(deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10, allow_nan=False), st.floats(0, 10, allow_nan=False),
                          st.floats(0, 10, allow_nan=False)), min_size=1, max_size=6),
       st.sampled_from(["afr", "agu", "partial_nodes", "allocated_share"]))
def test_the_count_of_groups_won_matches_a_brute_force_count(triples, metric):
    rows = {}
    for g, (ours, a, b) in enumerate(triples):
        rows |= {(f"d{g}", "compass-abs", metric): ours, (f"d{g}", "gfs", metric): a,
                 (f"d{g}", "fft", metric): b}
    story = compare(_means(rows), ["trace"], "compass-abs", BASELINES)
    lower = MEASURE_LOWER_IS_BETTER[metric]
    won = 0
    for ours, a, b in triples:  # as aggregate.top1 ranks: a tie within the tolerance wins
        best = min(a, b) if lower else max(a, b)
        slack = TIE_TOLERANCE * max(abs(best), abs(ours), 1.0)
        won += ours <= best + slack if lower else ours >= best - slack
    assert re.search(rf"first on {won} of {len(triples)};", story.ours[0]), story.ours[0]


def test_empty_frames_give_a_story_that_says_no_data():
    empty = pd.DataFrame(columns=["trace", "scheduler", "metric", "value"])
    assert "- no data" in compare(empty, ["trace"], "compass-abs", BASELINES).markdown()
    timelines = pd.DataFrame(columns=["window", "scheduler", "hour", "nsif"])
    assert series_story(timelines, "nsif", "compass-abs", BASELINES).ours == []
    missing = _means({("venus", "gfs", "afr"): 0.2, ("venus", "fft", "afr"): 0.1})
    assert compare(missing, ["trace"], "compass-abs", BASELINES).ours == []  # no reference


def test_the_lead_story_reads_each_interval():
    table = pd.DataFrame([
        {"trace": "venus", "metric": "ajct", "lead": 50.0, "ci_low": 10.0, "ci_high": 90.0,
         "n": 6, "strongest_baseline": "fft"},
        {"trace": "gfs", "metric": "ajct", "lead": -9.7, "ci_low": -200.0, "ci_high": 20.0,
         "n": 9, "strongest_baseline": "fft"},
        {"trace": "physmix", "metric": "ajct", "lead": -54.7, "ci_low": -122.0,
         "ci_high": -13.8, "n": 3, "strongest_baseline": "gfs"},
        {"trace": "x", "metric": "ajct", "lead": math.nan, "ci_low": math.nan,
         "ci_high": math.nan, "n": 0, "strongest_baseline": None},
    ])
    paper = [PaperValue("f", "ajct", LEAD, low=135.0, group="gfs", where="6.1: z")]
    story = lead_story(table, "trace", paper, names={"gfs": "GFS"})
    (line,) = story.ours
    assert line.startswith("AJCT: ahead on 1, behind on 1 of 4: ")
    assert "venus +50 s [10 s, 90 s], n = 6 vs fft: ahead" in line
    assert "GFS -9.7 s [-200 s, 20 s], n = 9 vs fft: not told apart" in line
    assert "physmix -54.7 s [-122 s, -13.8 s], n = 3 vs gfs: behind" in line
    assert "x no data" in line
    assert story.paper == ["AJCT: COMPASS-ABS's lead >= 135 s on GFS (section 6.1: z)"]


def test_the_series_story_weighs_time_and_names_the_schedulers_the_paper_names():
    rows = [("paper", "compass-abs", h, v) for h, v in ((0.0, 1), (1.0, 3), (3.0, 1))]
    rows += [("paper", "gfs", h, v) for h, v in ((0.0, 5), (3.0, 7))]
    rows += [("paper", "fft", h, v) for h, v in ((0.0, 2), (3.0, 4))]
    timelines = pd.DataFrame(rows, columns=["window", "scheduler", "hour", "nsif"])
    paper = [PaperValue("f", "nsif", "fft", low=25.0, high=50.0, group="paper", where="6.6")]
    story = series_story(timelines, "nsif", "compass-abs", BASELINES, paper, bound=2)
    assert story.ours == ["paper window: COMPASS-ABS 1-3, the baselines 2-7, FFT 2-4; "
                          "COMPASS-ABS within 2 for 33% of the time"]  # 1 h of 3 h
    assert story.paper == ["N x SIF: FFT 25-50 (paper window) (section 6.6)"]


def test_the_top1_story_reads_the_total_row_and_the_fullest_bucket():
    table = pd.DataFrame([
        {"trace": "venus", "bucket": "1.0", "pairs": 3, "afr top-1 share": 1.0,
         "ajct top-1 share": 0.0, "agu top-1 share": 0.0},
        {"trace": "venus", "bucket": "[0.99, 1)", "pairs": 1, "afr top-1 share": 1.0,
         "ajct top-1 share": 1.0, "agu top-1 share": 1.0},
        {"trace": "venus", "bucket": "Total", "pairs": 4, "afr top-1 share": 1.0,
         "ajct top-1 share": 0.25, "agu top-1 share": 0.25},
    ])
    paper = [PaperValue("t", "afr", "compass-abs", 0.941, 0.941, "venus", "6.4"),
             PaperValue("t", "ajct", "compass-abs", 0.803, 0.803, "venus", "6.4")]
    story = top1_story(table, paper)
    assert story.ours == ["venus: top-1 over 4 pairs: AFR 100%, AJCT 25%, AGU 25%; most "
                          "pairs in the rho bucket 1.0 (3)"]
    assert story.paper == ["venus: COMPASS-ABS top-1 on AFR 94.1 %, AJCT 80.3 % (section 6.4)"]


def test_numbers_carry_units_and_never_read_minus_zero():
    assert number(-0.0) == "0" and number(1234.5, "ajct") == "1,234 s"
    assert number(10_920.0, "ajct") == "10,920 s" and number(0.0023456) == "0.002346"
    assert number(math.nan) == "n/a" and str(Story("t")) == Story("t").markdown()


# ---------------------------------------------------------------- paper/paper_values.yaml
def _figure_stems() -> set[str]:
    """Every figure a notebook saves (plotting.save(fig, figures, "<stem>"))."""
    stems = set()
    for path in (ROOT / "notebooks").glob("0*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            stems |= set(re.findall(r'save\(fig, figures, "([\w]+)"\)', "".join(cell["source"])))
    return stems


def test_every_stated_value_names_a_figure_a_metric_and_where_the_paper_states_it():
    values = paper_values()
    assert DEFAULT_PATH == ROOT / "paper" / "paper_values.yaml"
    assert len(values) >= 30
    stems = _figure_stems()
    for v in values:
        assert v.figure in stems, v
        assert v.metric in MEASURE_LOWER_IS_BETTER, v
        assert v.who in (LEAD, "compass-abs", "baselines", "fft"), v
        assert not (math.isnan(v.low) and math.isnan(v.high)), v
        assert math.isnan(v.low) or math.isnan(v.high) or v.low <= v.high, v
        assert re.match(r"\d\.\d", v.where), v  # a section of the paper first
    assert {v.figure for v in values} >= {"fig1_overall", "fig2_eta_sweep", "fig3_composition",
                                          "fig5_nsif"}


def test_a_stated_value_applies_to_its_own_column_only():
    value = PaperValue("fig2_eta_sweep", "ajct", LEAD, 135.0, 135.0, 0.9)
    assert value.applies_to(0.90) and value.applies_to("0.9") and not value.applies_to(0.85)
    assert PaperValue("f", "afr", LEAD, 0.0).applies_to("anything")
    assert PaperValue("f", "afr", "x", 1.0, 2.0).text() == "1-2"
    assert PaperValue("f", "afr", "x", high=2.0).text(unit=" s") == "<= 2 s"
    assert [v.low for v in paper_values("fig2_eta_sweep") if v.who == LEAD] == [74, 135, 201]


def test_every_figure_of_notebooks_01_to_08_is_followed_by_its_reading():
    """The cell after each figure's save is a reading computed by this module (tagged
    ``narrative``), not text typed by hand."""
    readers = ("compare(", "lead_story(", "series_story(", "top1_story(")
    for path in sorted((ROOT / "notebooks").glob("0[1-8]_*.ipynb")):
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        saves = [i for i, c in enumerate(cells) if "save(fig, figures" in "".join(c["source"])]
        assert saves, path.name
        for i in saves:
            after = cells[i + 1]
            assert "narrative" in after["metadata"].get("tags", []), (path.name, i)
            assert any(r in "".join(after["source"]) for r in readers), (path.name, i)
