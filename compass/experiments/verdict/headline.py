"""The first screen of the report: one row per section of the paper, read from claims.csv.

Each row names a section (6.1-6.6, Theorem 1, Tables 1-3; openb, the real-data comparison
beyond the paper, where the run has it), the paper's statement of the section's headline
claim, the paper's value, ours with its 95 % interval and n, the verdict, where the data of
that verdict comes from (REAL, SYNTHETIC, or by construction where the synthetic traces were
calibrated to that very number; read from the run's ``data`` column, never assumed), and the
verdicts of every claim of the section. Cells stay under ``MAX_CELL`` characters; the long
readings stay in claims.csv and the report's appendix.

REPRODUCTION.md (``compass.experiments.verdict.report``) and the HTML page
(``compass.experiments.verdict.html_report``) both open with it; ``TERMS`` explains each term of art
the table uses, once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from compass.experiments.verdict.claims import CLAIMS_TABLE, DEFAULT_VARIANT, VERDICTS, read_claims

#: The longest cell the headline table prints (longer texts end in an ellipsis).
MAX_CELL = 160
#: Where a verdict's data comes from.
REAL, SYNTHETIC, CONSTRUCTION, NOWHERE = "REAL", "SYNTHETIC", "by construction", "not tested"
#: The phrase claims.csv's ``data`` column carries for a number the traces are fitted to.
_CALIBRATED = "agreement by construction"
#: A number with thousands separators inside an interval's brackets.
_SEPARATED = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\d])")
#: A bracketed span without nested brackets.
_BRACKETS = re.compile(r"\[[^\[\]]*\]")


@dataclass(frozen=True)
class Section:
    """A row of the headline table: the paper's section, the claims that make it (by id
    prefix) and the claim whose verdict the row shows."""

    label: str
    headline: str
    prefixes: tuple[str, ...]


#: The rows, section 6 first; openb (REAL, like Venus) is no paper section.
SECTIONS = (
    Section("6.1 Overall (Fig. 1)", "overall-best", ("overall-",)),
    Section("6.2 eta sweep (Fig. 2)", "eta-best", ("eta-",)),
    Section("6.3 Composition (Fig. 3)", "comp-best",
            ("comp-best", "comp-afr-", "comp-agu-", "comp-ajct-")),
    Section("6.4 WCC coverage", "wcc-venus-full", ("wcc-",)),
    Section("6.5 Migration cost (Fig. 4)", "mig-best", ("mig-",)),
    Section("6.6 Case study (Figs. 5-7)", "case-continuous-blocking", ("case-",)),
    Section("Theorem 1 (4.4)", "thm1-sif-bound", ("thm1-",)),
    Section("Table 1 (classes)", "table1-gfs", ("table1-",)),
    Section("Table 2 (compositions)", "comp-days",
            ("comp-days", "comp-venus92", "comp-gfs58", "comp-gfs26")),
    Section("Table 3 (top-1 shares)", "top1-venus-afr", ("top1-",)),
    Section("openb (REAL; beyond the paper)", "openb-replay-ajct-lead", ("openb-",)),
)

#: Columns of the headline table, in order.
COLUMNS = ("section", "the paper says", "paper", "ours [95 % interval]", "verdict",
           "data", "all claims of the section")

#: Every term of art the headline table uses, explained once (term, meaning).
TERMS = (
    ("sample", "one replay of a (day, seed) pair under every scheduler: all schedulers see "
               "the same jobs, so differences are paired"),
    ("95 % interval", "the paired bootstrap interval of our value over the samples; n is the "
                      "number of samples. Numbers inside brackets carry no thousands "
                      "separators: [-228784, 11.5] is minus 228,784 to 11.5"),
    ("strongest baseline", "the best of the six baselines on that metric, re-chosen in each "
                           "bootstrap resample (so the interval includes the uncertainty of "
                           "which baseline is strongest)"),
    ("lead", "COMPASS-ABS's advantage over the strongest baseline, signed: positive means "
             "COMPASS-ABS is better; AGU and AFR leads in percentage points (pp)"),
    ("W / T / L / U", "a win-count claim's cells (trace x metric, etc.): W won (the whole "
                      "interval favours COMPASS-ABS), T tie (inside the margin), L lost (the "
                      "whole interval favours the baseline), U undecided (the interval spans "
                      "both)"),
    ("holds", "the whole interval satisfies the paper's claim"),
    ("tie", "the whole interval lies inside the comparison's practical-equivalence margin "
            "(paper/claims.yaml, `margins`)"),
    ("differs", "no part of the interval satisfies the claim"),
    ("inconclusive", "the interval admits both readings, or rests on fewer than 5 samples"),
    ("not applicable", "no window of the case study shows fragmentation-induced blocking"),
    ("no data / not measured", "the profile ran nothing that measures it / the pipeline does "
                               "not measure it (tests or benchmarks do)"),
    ("REAL / SYNTHETIC", "the verdict was measured on real job traces / on synthetic "
                         "stand-ins calibrated to the real traces' published statistics"),
    ("by construction", "the synthetic traces were fitted to this very number: agreement is "
                        "evidence of calibration, not of the scheduler"),
    ("stalled samples", "samples whose queue under some scheduler still waits at the end of "
                        "the day by more than the stall limit; they are named in the "
                        "reading and left out of the interval"),
)


def plain_intervals(text: str) -> str:
    """``text`` with the thousands separators of numbers inside brackets removed:
    ``[-228,784, 11.5]`` -> ``[-228784, 11.5]`` (outside brackets numbers keep them)."""
    return _BRACKETS.sub(lambda m: _SEPARATED.sub(lambda n: n[0].replace(",", ""), m[0]), text)


def short(text: str, limit: int = MAX_CELL) -> str:
    """``text`` on one line, at most ``limit`` characters (an ellipsis where cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def origin(row: Mapping[str, Any]) -> str:
    """Where a claim's verdict comes from, read from its ``data`` and ``ours_text``:
    by construction, REAL, SYNTHETIC (both where both), or not tested."""
    if row["verdict"] in ("no data", "not measured"):
        return NOWHERE
    data = f"{row['data']} {row['ours_text']}"
    if _CALIBRATED in data:
        return CONSTRUCTION
    found = [name for name in (REAL, SYNTHETIC) if re.search(rf"\b{name}\b", data)]
    return " + ".join(found) or NOWHERE


def _number(x: float) -> str:
    """A number as the headline prints it: three significant digits, no separators."""
    if abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.3g}" if abs(x) < 10 else f"{x:.1f}"


def ours(row: Mapping[str, Any]) -> str:
    """Our value with its interval and n where claims.csv has one; else the reading's first
    clause."""
    low, high = row.get("ci_low"), row.get("ci_high")
    value = pd.to_numeric(pd.Series([row.get("ours")]), errors="coerce").iloc[0]
    if pd.notna(low) and pd.notna(high) and pd.notna(value):
        unit = f" {row['unit']}" if row.get("unit") else ""
        n = f", n = {int(row['n'])}" if pd.notna(row.get("n")) else ""
        return f"{_number(value)} [{_number(low)}, {_number(high)}]{unit}{n}"
    return short(plain_intervals(str(row["ours_text"]).split(";")[0]) or "-", 70)


def _tally(part: pd.DataFrame) -> str:
    """The section's verdicts, with where its holds come from: ``8: 2 holds (1 REAL, 1 by
    construction), 6 differs``."""
    counts = part["verdict"].value_counts()
    holds = part[part["verdict"] == "holds"].apply(origin, axis=1).value_counts()
    where = " (" + ", ".join(f"{int(n)} {o}" for o, n in holds.items()) + ")" if len(
        holds) else ""
    return f"{len(part)}: " + ", ".join(f"{int(counts[v])} {v}" + (where if v == "holds" else "")
                                        for v in VERDICTS if v in counts)


def headline_rows(table: pd.DataFrame) -> list[dict[str, str]]:
    """The headline table's rows from claims.csv (its default variant): one per section
    of ``SECTIONS`` whose claims the run has, every cell at most ``MAX_CELL`` long."""
    frame = table[table["variant"] == DEFAULT_VARIANT].fillna(
        {c: "" for c in ("data", "ours_text", "unit", "detail")})
    rows = []
    for section in SECTIONS:
        part = frame[frame["id"].str.startswith(section.prefixes)]
        head = part[part["id"] == section.headline]
        if head.empty:
            continue
        r = head.iloc[0].to_dict()
        verdict = r["verdict"] + (f": {r['detail']}" if r["detail"] and r["verdict"] not in (
            "holds", "no data", "not measured") else "")
        rows.append({"section": section.label, "the paper says": short(r["statement"]),
                     "paper": short(r["paper"], 60), "ours [95 % interval]": ours(r),
                     "verdict": short(plain_intervals(verdict), 70), "data": origin(r),
                     "all claims of the section": short(_tally(part)),
                     "id": r["id"], "verdict_word": r["verdict"]})
    return rows


def verdict_counts(table: pd.DataFrame) -> dict[str, int]:
    """Claims per verdict (the default variant), in ``VERDICTS`` order."""
    counts = table.loc[table["variant"] == DEFAULT_VARIANT, "verdict"].value_counts()
    return {v: int(counts.get(v, 0)) for v in VERDICTS}


def verdict_text(counts: Mapping[str, int]) -> str:
    """How the docs print a run's verdict counts: ``19 holds, 3 tie, ... (81 claims)``."""
    return ", ".join(f"{n} {v}" for v, n in counts.items()) + f" ({sum(counts.values())} claims)"


def run_verdicts(tables: str | Path) -> dict[str, int] | None:
    """A run's verdict counts from its claims table (None where it wrote none)."""
    path = Path(tables) / f"{CLAIMS_TABLE}.csv"
    return verdict_counts(read_claims(tables)) if path.is_file() else None


def markdown_headline(rows: Sequence[Mapping[str, str]]) -> list[str]:
    """The headline table and the terms it uses, as Markdown lines."""
    if not rows:
        return []
    cell = [[str(row[c]).replace("|", "\\|") for c in COLUMNS] for row in rows]
    return ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS),
            *["| " + " | ".join(c) + " |" for c in cell], "",
            "Terms: " + " ".join(f"**{term}**: {meaning}." for term, meaning in TERMS), ""]
