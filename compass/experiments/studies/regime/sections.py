"""The regime study's lines in the report (paper/REPRODUCTION.md), registered with the
verdict wing (``registry.report_section``): its findings on the sensitivity regimes, the
section "The operating regime" (``operating``) and the section "On the paper's regime"
(``sensitivity``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from compass.experiments.studies.regime.config import claims_stem, regime_slug
from compass.experiments.studies.regime.operating import REGIME_TABLE
from compass.experiments.studies.regime.sensitivity import (
    NOT_REJUDGED,
    read_regime_claims,
    reading,
)
from compass.experiments.verdict.claims import DEFAULT_VARIANT
from compass.experiments.verdict.registry import ReportInputs, report_section
from compass.experiments.verdict.report import relative_link, table_cell


@report_section("beside the paper")
def regime_table_section(inputs: ReportInputs) -> list[str]:
    """The section "The operating regime": the baselines' quantities the paper states beside
    ours (regime.csv, ``operating``), so that a reader sees whether the comparisons above
    ran in the paper's world; nothing before the regime rule has run."""
    out = inputs.out
    path = inputs.tables / f"{REGIME_TABLE}.csv"
    if not path.is_file():
        return []
    table = pd.read_csv(path, keep_default_na=False)
    rows = [f"| {r.trace} | {table_cell(r.quantity)} | {r.role} | {r.paper} | {r.ours} | "
            f"{r.interval} | {r.samples} |" for r in table.itertuples()]
    return ["## The operating regime: the paper's baselines beside ours", "",
            "Each quantity the paper states for its baselines, measured on this run "
            f"([{REGIME_TABLE}.csv]({relative_link(path, out)}), with where the paper states it). "
            "Where ours lies outside the paper's band, the comparisons above ran in another "
            "regime than the paper's. COMPASS-ABS's own GFS AGU is shown as `held-out`: it is "
            "the claim, never a target of the traces' calibration.", "",
            "| trace | quantity | role | paper | ours | interval | n |", "|---" * 7 + "|",
            *rows, ""]


@report_section("findings")
def regime_findings(inputs: ReportInputs) -> list[str]:
    """Lines for "What we found": one per claim family and sensitivity regime."""
    return _on_the_papers_regime(inputs)[0]


@report_section("beside the paper")
def on_the_papers_regime(inputs: ReportInputs) -> list[str]:
    """The section "On the paper's regime"."""
    return _on_the_papers_regime(inputs)[1]


def _on_the_papers_regime(inputs: ReportInputs) -> tuple[list[str], list[str]]:
    """The profile's sensitivity regimes (profile key ``regimes``, ``sensitivity``): lines
    for "What we found", one per claim family and regime (``sensitivity.reading``: a gap
    that closes on the regime is the data's, one that stays is the scheduler's), and the
    section "On the paper's regime", each comparison claim's main verdict and value beside
    those on each regime. Sensitivity: no main verdict changes. Nothing without regimes, or
    before their claims rules ran."""
    res, tables, out, main = inputs.res, inputs.tables, inputs.out, inputs.claims
    mine = main[main["variant"] == DEFAULT_VARIANT].set_index("id")
    found: list[str] = []
    section: list[str] = []
    for name in res.config.regimes:
        theirs = read_regime_claims(tables, name)
        if theirs is None:
            continue
        changed = [(r.id, mine.at[r.id, "verdict"], r.verdict) for r in theirs.itertuples()
                   if r.id in mine.index and r.verdict != mine.at[r.id, "verdict"]
                   and r.verdict != NOT_REJUDGED]
        found.append(f"- On the paper's regime (`{name}`), {len(changed)} of "
                     f"{int((theirs['verdict'] != NOT_REJUDGED).sum())} re-judged verdicts "
                     "change" + (": " + ", ".join(f"`{i}` {a} -> {b}" for i, a, b in changed)
                                 if changed else "") + ". " + _regime_reached(tables, name))
        found += [f"- On the paper's regime, {r.line(name)}" for r in reading(main, theirs)]
        data = next((d for d in theirs["data"] if d not in ("", "-")), "-")
        path = tables / f"{claims_stem(name)}.csv"
        rows = [f"| {r.id} | {mine.at[r.id, 'verdict'] if r.id in mine.index else '-'} | "
                f"{table_cell(mine.at[r.id, 'ours_text']) if r.id in mine.index else '-'} | "
                f"{r.verdict}" + (f": {table_cell(r.detail)}" if r.detail else "")
                + f" | {table_cell(r.ours_text)} |" for r in theirs.itertuples()]
        section += [f"### `{name}`", "",
                    f"Data: {data}. Every value is in [{path.name}]({relative_link(path, out)}); "
                    f"regime.csv's columns `ours_{regime_slug(name)}` set the regime's "
                    "own quantities beside the paper's and ours.", "",
                    "| claim | main verdict | value | verdict on the paper's regime | value |",
                    "|---" * 5 + "|", *rows, ""]
    if not section:
        return [], []
    return found, ["## On the paper's regime", "",
                   "Sensitivity: the comparison experiments (overall, eta sweep, composition, "
                   "cost sweep) replayed on SYNTHETIC kinds whose baselines run in the paper's "
                   "operating regime, each claim judged as in the main table. A gap that "
                   "closes there is the data's, one that stays the scheduler's. This never "
                   "changes a main verdict; the case study, which replays one day's window, "
                   "is not re-judged.", "", *section]


def _regime_reached(tables: Path, name: str) -> str:
    """Whether a regime's baselines reached the paper's regime: of regime.csv's quantities
    with a paper band (role ``regime``), how many of the regime's values fall inside it."""
    path = tables / f"{REGIME_TABLE}.csv"
    column = f"ours_{regime_slug(name)}"
    if not path.is_file():
        return ""
    table = pd.read_csv(path, keep_default_na=False)
    if column not in table:
        return ""
    rows = table[table["role"] == "regime"]
    inside = [r.id for r in rows.itertuples() if _inside(getattr(r, column), r.paper)]
    return (f"Whether the regime was reached: {len(inside)} of {len(rows)} of the paper's "
            "stated baseline quantities overlap the paper's value there"
            + (f" ({', '.join(inside)})" if inside else "") + " (regime.csv).")


def _inside(ours: str, paper: str) -> bool:
    """Whether a regime.csv value ("[a, b]" or "a") overlaps the paper's ("[a, b]" or
    "a"); False where either is not a number."""
    def band(text: str) -> tuple[float, float] | None:
        try:
            values = [float(x) for x in str(text).strip("[] ").split(",")]
        except ValueError:
            return None
        return min(values), max(values)
    mine, theirs = band(ours), band(paper)
    return (mine is not None and theirs is not None and mine[0] <= theirs[1]
            and theirs[0] <= mine[1])
