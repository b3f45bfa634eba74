"""The report's first screen (compass.experiments.verdict.headline) and the HTML page
(compass.experiments.verdict.html_report), on a claims table made from paper/claims.yaml's ids."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from claims_rows import claims_table

from compass.experiments.config import parse_config
from compass.experiments.data import resolve_trace
from compass.experiments.verdict.claims import VERDICTS
from compass.experiments.verdict.headline import (
    COLUMNS,
    MAX_CELL,
    SECTIONS,
    headline_rows,
    markdown_headline,
    origin,
    plain_intervals,
    verdict_counts,
    verdict_text,
)
from compass.experiments.verdict.html_report import write_html

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "config" / "quick.yaml"


@pytest.mark.parametrize("text, plain", [
    ("-121.9 [-328.3, 83.8] s", "-121.9 [-328.3, 83.8] s"),
    ("lead -2,825 [-228,784, 11.5], 1,643 s", "lead -2,825 [-228784, 11.5], 1,643 s"),
    ("[1,643, 2,000,000]", "[1643, 2000000]"),
])
def test_numbers_inside_intervals_print_without_separators(text, plain):
    assert plain_intervals(text) == plain


@pytest.mark.parametrize("extra", [False, True])
def test_one_short_row_per_section_with_section_6_first(extra):
    rows = headline_rows(claims_table(extra))
    assert [r["section"] for r in rows] == [s.label for s in SECTIONS]
    assert [r["section"][:3] for r in rows[:6]] == ["6.1", "6.2", "6.3", "6.4", "6.5", "6.6"]
    assert all(len(str(r[c])) <= MAX_CELL for r in rows for c in COLUMNS)
    assert not any(re.search(r"\[[^\]]*\d,\d{3}", str(r[c])) for r in rows for c in COLUMNS)
    overall = rows[0]["all claims of the section"]
    assert overall.startswith("8: ")  # the eight overall-* claims


def test_the_data_column_reads_the_origin_from_the_run():
    frame = claims_table()
    by_id = {r["id"]: origin(r) for r in frame.to_dict("records")}
    verdicts = frame.set_index("id")["verdict"]
    tested = verdicts[~verdicts.isin(["no data", "not measured"])].index
    assert {by_id[i] for i in tested if i.startswith("openb-")} == {"REAL"}
    assert by_id[next(i for i in tested if i.startswith("table1-"))] == "by construction"
    assert {by_id[i] for i in verdicts.index if i not in tested} == {"not tested"}
    # venus from the real trace, under the label the run writes: read, not assumed
    venus = resolve_trace(parse_config(yaml.safe_load(QUICK.read_text())).traces["venus"], ROOT)
    real_venus = {**frame.iloc[10].to_dict(), "data": venus.label, "verdict": "holds"}
    assert venus.origin == "real" and origin(real_venus) == "REAL"


def test_the_markdown_headline_explains_every_term_once():
    frame = claims_table()
    lines = markdown_headline(headline_rows(frame))
    assert lines[0] == "| " + " | ".join(COLUMNS) + " |"
    terms = lines[-2]
    for term in ("W / T / L / U", "strongest baseline", "stalled samples", "by construction",
                 *[v for v in VERDICTS if v not in ("no data", "not measured")]):
        assert terms.count(f"**{term}**") == 1, term
    assert verdict_text(verdict_counts(frame)).endswith(f"({len(frame)} claims)")


def test_the_html_page_is_self_contained_and_opens_with_the_headline(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures, tables = tmp_path / "figures", tmp_path / "tables"
    figures.mkdir()
    tables.mkdir()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    fig.savefig(figures / "fig1_overall.png")
    plt.close(fig)
    (tables / "claims.csv").write_text("id\n")
    page = tmp_path / "REPRODUCTION.html"
    write_html(claims_table(), page, tmp_path / "REPRODUCTION.md", figures, tables,
               "Reproduction report", "Data: SYNTHETIC.")
    text = page.read_text()
    assert text.index('id="headline"') < text.index("<h2>Terms</h2>") < text.index(
        "Every figure (1)")
    assert 'href="tables/claims.csv"' in text and 'href="REPRODUCTION.md"' in text
    assert [s[:22] for s in re.findall(r'src="([^"]*)', text)] == ["data:image/png;base64,"]
