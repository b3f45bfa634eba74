"""Every claim measured and judged into one tidy table, paper/tables/claims.csv
(``write_claims``): the single source that the report (``report.write_report``) and the
notebooks (``claims_shown``) read. Comparisons are measured again under each baseline
variant of the profile (rows with that ``variant``), and each default row that does not hold
names the baseline variants under which its verdict changes (``explained_by``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compass.experiments.gap import write_gap
from compass.experiments.layout import notebook_products
from compass.experiments.results import Results
from compass.experiments.stats import MIN_SAMPLES, Interval, direction
from compass.experiments.tables import write_table
from compass.experiments.verdict.by_baseline import (
    BY_BASELINE_TABLE,
    WITHOUT_FFT_COLUMNS,
    by_baseline,
    without_fft,
)
from compass.experiments.verdict.claims import (
    CLAIM_COLUMNS,
    CLAIMS_TABLE,
    DEFAULT_VARIANT,
    SENSITIVE_KINDS,
    Claim,
    Measured,
    load_claims,
    load_deviations,
    load_margins,
    read_claims,
)
from compass.experiments.verdict.judging import assess
from compass.experiments.verdict.measures import Evidence

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("claims_shown",)


def _data_label(res: Results, measured: Measured, claim: Claim, status: str) -> str:
    if not measured.traces:
        return "-"
    labels = [res.traces[t].label for t in measured.traces if t in res.traces]
    text = "; ".join(labels)
    synthetic = any(res.traces[t].origin == "synthetic" for t in measured.traces
                    if t in res.traces)
    if claim.calibrated and synthetic:
        text += (" (calibrated to this number: agreement by construction)"
                 if status == "holds" else
                 f" (calibrated to this number, yet: {status})")
    return text


def _direction(interval: Interval | None) -> str:
    """``stats.direction`` of a lead, "undecided" with fewer than ``MIN_SAMPLES`` samples."""
    if interval is not None and interval.n < MIN_SAMPLES:
        return f"undecided (range of {interval.n} samples)"
    return direction(interval)


def _number(value: Any) -> float:
    """A scalar measured value as a float for the claims table; NaN for anything else."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return math.nan
    return float(value)


def _attribute(frame: pd.DataFrame) -> pd.DataFrame:
    """``explained_by`` of every default row that does not hold: each baseline variant under
    which its verdict changes, with that verdict. An experiment that changes no verdict is
    not named (it is shown in its own section of the report)."""
    variants = frame[frame["variant"] != DEFAULT_VARIANT]
    frame = frame.copy()
    for i, row in frame[frame["variant"] == DEFAULT_VARIANT].iterrows():
        if row["verdict"] not in ("differs", "inconclusive"):
            continue
        flips = variants[(variants["id"] == row["id"]) & (variants["verdict"] != row["verdict"])]
        parts = [f"{v.variant}: {v.verdict}" for v in flips.itertuples()]
        frame.at[i, "explained_by"] = "; ".join(parts)
    return frame


def claims_table(claims: list[Claim], ev: Evidence, deviations: list[dict[str, Any]],
                 variant: str = DEFAULT_VARIANT) -> pd.DataFrame:
    """One row per claim (``CLAIM_COLUMNS``): the paper's value, ours with its interval and
    sample count where it is a statistic over samples, the verdict and its detail, the data
    it came from, the scheduler ``variant`` it was measured under (``default``: the
    profile's parameters) and the figures and tables that show it (stems, ``;``-separated)."""
    marked = {c: d["id"] for d in deviations for c in d.get("claims") or []}
    rows = []
    for claim in claims:
        measured, verdict = assess(claim, ev)
        iv = measured.interval
        shown = measured.value is not None or verdict.status == "not measured"
        rows.append({
            "id": claim.id, "section": claim.section, "statement": claim.statement,
            "paper": claim.paper, "ours": _number(measured.value),
            "ci_low": iv.low if iv else math.nan, "ci_high": iv.high if iv else math.nan,
            "n": iv.n if iv else math.nan, "relative_pct": measured.relative_pct,
            "unit": claim.unit, "verdict": verdict.status, "detail": verdict.detail,
            "direction": _direction(iv) if claim.measure["kind"] == "lead" else "",
            "ours_text": measured.text if shown else "-",
            "data": _data_label(ev.res, measured, claim, verdict.status), "variant": variant,
            "deviation": marked.get(claim.id, ""), "explained_by": "",
            "shown_in": ";".join(claim.evidence),
        })
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def write_claims(results: str | Path, claims_path: str | Path | Sequence[str | Path],
                 deviations_path: str | Path, tables: str | Path) -> list[Path]:
    """Measure every claim on a results folder into paper/tables/claims.csv (and .md), then
    the comparisons (``SENSITIVE_KINDS``) again under each sensitivity variant: the same
    samples with one baseline's runs replaced by its variant's (rows with that
    ``variant``; they never change a default row's verdict). The comparisons are judged
    again against the strongest baseline other than FFT (the ``*_without_fft`` columns)
    and against each baseline alone (paper/tables/leads_by_baseline.csv); where the AJCT
    gap comes from is paper/tables/gap_decomposition.csv (``gap``)."""
    res, claims = Results.load(results), load_claims(claims_path)
    deviations, margins = load_deviations(deviations_path), load_margins(claims_path)
    sensitive = [c for c in claims if c.measure["kind"] in SENSITIVE_KINDS]
    frame = pd.concat([claims_table(claims, Evidence(res, Path(tables), margins), deviations),
                       *(claims_table(sensitive, Evidence(res.with_variant(v), Path(tables),
                                                          margins), deviations, v)
                         for v in res.config.variants)],
                      ignore_index=True)
    frame = _with_without_fft(_attribute(frame),
                              without_fft(claims, res, Path(tables), margins))
    written = write_table(frame, tables, CLAIMS_TABLE, "Every claim of the paper beside our "
                          f"value and its verdict ({res.label()})")
    return written + write_gap(res, tables) + write_table(
        by_baseline(claims, res, Path(tables), margins), tables, BY_BASELINE_TABLE,
        "COMPASS-ABS against each baseline alone: per lead claim its paired lead and "
        "verdict, per cell of a win-count claim its paired lead and class (sign first, then "
        f"the margin; paper/claims.yaml). {res.label()}")


def _with_without_fft(frame: pd.DataFrame, others: pd.DataFrame) -> pd.DataFrame:
    """The claims table with ``WITHOUT_FFT_COLUMNS`` filled on the default rows."""
    frame = frame.copy()
    default = frame["variant"] == DEFAULT_VARIANT
    by_id = others.set_index("id")
    frame["verdict_without_fft"] = ""
    for column in WITHOUT_FFT_COLUMNS:
        frame.loc[default, column] = frame.loc[default, "id"].map(by_id[column])
    frame["verdict_without_fft"] = frame["verdict_without_fft"].fillna("")
    return frame


def claims_shown(tables: str | Path, notebook: str) -> pd.DataFrame:
    """The claims (default variant) that a notebook's figures and tables show, from
    claims.csv: what each notebook renders under its figures, so no number is typed by
    hand. Empty, with a note, before the pipeline's ``claims`` rule has run."""
    products = notebook_products(notebook)
    if not (Path(tables) / f"{CLAIMS_TABLE}.csv").is_file():
        print(f"{Path(tables) / CLAIMS_TABLE}.csv not found: run the pipeline's claims rule")
        return pd.DataFrame(columns=["id", "paper", "ours", "verdict", "detail"])
    stems = {*products.figures, *products.tables}
    frame = read_claims(tables)
    shown = frame[(frame["variant"] == DEFAULT_VARIANT) & frame["shown_in"].map(
        lambda s: bool(stems & set(s.split(";"))))]
    return shown[["id", "paper", "ours_text", "verdict", "detail"]].rename(
        columns={"ours_text": "ours"}).reset_index(drop=True)
