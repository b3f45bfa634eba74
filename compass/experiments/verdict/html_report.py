"""The report to open: one self-contained HTML page beside REPRODUCTION.md.

It opens with the headline table (``compass.experiments.verdict.headline``: each section of the
paper, its verdict and where the data comes from), the terms it uses, then links to every
table the run wrote (CSV and Markdown, relative to the page) and to REPRODUCTION.md, and a
contact sheet of every figure, inline (PNG as data URIs: the page needs no other file to
show them). tests/test_html_report.py opens it in headless Chromium and looks at the
screenshot.
"""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from compass.experiments.layout import NOTEBOOKS, OPENB_PRODUCTS, caption
from compass.experiments.verdict.headline import (
    COLUMNS,
    TERMS,
    headline_rows,
    verdict_counts,
    verdict_text,
)

#: Background of a verdict's cell (the HTML page's and the screenshot test's).
VERDICT_COLOURS = {"holds": "#c8e6c9", "tie": "#e0e0e0", "differs": "#ffcdd2",
                   "inconclusive": "#fff3c4", "not applicable": "#e1f5fe",
                   "no data": "#eeeeee", "not measured": "#eeeeee"}
#: The headline table's header background and bottom rule, which the screenshot test looks
#: for (both on the first screen: the whole table is).
HEADER_COLOUR = "#1f3b5c"
#: The headline columns' widths, per cent, in ``COLUMNS`` order.
_WIDTHS = (9, 25, 9, 16, 16, 9, 16)

_STYLE = f"""
body {{ font-family: system-ui, sans-serif; margin: .8em 1.2em; color: #111; }}
h1 {{ font-size: 1.3em; margin: 0 0 .2em 0; }}
p.lead {{ margin: .2em 0 .5em 0; font-size: 13px; }}
table.headline {{ border-collapse: collapse; font-size: 12px; line-height: 1.25;
  width: 100%; table-layout: fixed; border-bottom: 4px solid {HEADER_COLOUR}; }}
table.headline th {{ background: {HEADER_COLOUR}; color: #fff; text-align: left;
  padding: 3px 5px; }}
table.headline td {{ border-bottom: 1px solid #ccc; padding: 2px 5px; vertical-align: top;
  overflow-wrap: anywhere; }}
{"".join(f"table.headline col.c{i} {{ width: {w}%; }} " for i, w in enumerate(_WIDTHS))}
dl.terms {{ font-size: 12px; columns: 2; }}
dl.terms dt {{ font-weight: bold; }} dl.terms dd {{ margin: 0 0 .4em 1em; }}
.sheet {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
  gap: 12px; }}
.sheet figure {{ margin: 0; border: 1px solid #ddd; padding: 4px; }}
.sheet img {{ width: 100%; }} .sheet figcaption {{ font-size: 11px; }}
"""


def _link(target: Path, page: Path) -> str:
    return html.escape(Path(os.path.relpath(target, page.parent)).as_posix())


def headline_html(rows: Sequence[Mapping[str, str]]) -> str:
    """The headline table as an HTML table, each verdict cell coloured by its verdict."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = []
    for row in rows:
        cells = []
        for c in COLUMNS:
            style = (f' style="background:{VERDICT_COLOURS.get(row["verdict_word"], "#fff")}"'
                     if c == "verdict" else "")
            cells.append(f"<td{style}>{html.escape(str(row[c]))}</td>")
        body.append(f'<tr id="{html.escape(row["id"])}">' + "".join(cells) + "</tr>")
    widths = "".join(f'<col class="c{i}">' for i in range(len(COLUMNS)))
    return (f'<table class="headline" id="headline"><colgroup>{widths}</colgroup>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def _figures(figures: Path) -> list[str]:
    """The contact sheet's figures: every registered figure the run drew (the notebooks'
    and openb's), inline."""
    out = []
    for stem in dict.fromkeys(s for p in (*NOTEBOOKS.values(), OPENB_PRODUCTS)
                              for s in p.figures):
        png = figures / f"{stem}.png"
        if png.is_file():
            data = base64.b64encode(png.read_bytes()).decode()
            out.append(f'<figure id="fig-{stem}"><img alt="{stem}" '
                       f'src="data:image/png;base64,{data}"><figcaption><b>{stem}</b>: '
                       f"{html.escape(caption(stem))}</figcaption></figure>")
    return out


def write_html(table: pd.DataFrame, out: Path, report: Path, figures: Path, tables: Path,
               title: str, data: str) -> None:
    """Write the page to ``out``: ``title``, the ``data`` line (what every number is
    measured on), the headline table from claims.csv (``table``), the terms, links to
    ``report`` and every table in ``tables``, and the contact sheet of ``figures``."""
    rows = headline_rows(table)
    terms = "".join(f"<dt>{html.escape(t)}</dt><dd>{html.escape(m)}</dd>" for t, m in TERMS)
    links = "".join(f'<li><a href="{_link(p, out)}">{html.escape(p.name)}</a></li>'
                    for p in sorted(tables.glob("*")) if p.suffix in (".csv", ".md"))
    sheet = _figures(figures)
    page = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="lead">{html.escape(data)} Verdicts: '
        f"{html.escape(verdict_text(verdict_counts(table)))}. "
        f'Every claim with its whole reading: <a href="{_link(report, out)}">'
        f"{html.escape(report.name)}</a>.</p>",
        headline_html(rows),
        "<h2>Terms</h2>", f'<dl class="terms">{terms}</dl>',
        "<h2>Every table</h2>", f"<ul>{links}</ul>",
        f"<h2>Every figure ({len(sheet)})</h2>", f'<div class="sheet">{"".join(sheet)}</div>',
        "</body></html>"]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(page) + "\n")
