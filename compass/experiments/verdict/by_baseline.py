"""Which baseline decides each verdict (section 6): every comparison claim measured again
against the strongest of the baselines without FFT, and against each baseline alone.

The paper's leads are over "the strongest baseline" of six. Ours is FFT in most groups, and
our FFT is a reconstruction from an abstract (docs/baselines.md), so a verdict resting on it
alone says less than one that holds against the other five too. ``without_fft`` gives the
claims table's ``*_without_fft`` columns: each lead and win-count claim judged with the same
rule against the strongest of the five others, with its paired interval; ``by_baseline``
gives paper/tables/leads_by_baseline.csv: COMPASS-ABS against each baseline alone, per lead
claim and per cell of a win-count claim, each with its paired interval and verdict or class.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from compass.experiments.results import Results
from compass.experiments.stats import Interval, classify
from compass.experiments.verdict.claims import Claim, Margin, Tally, Verdict
from compass.experiments.verdict.judging import assess
from compass.experiments.verdict.measures import Evidence
from compass.experiments.verdict.registry import compared_kinds

#: The baseline set aside in the ``*_without_fft`` columns: the one we rebuilt from an
#: abstract, and the strongest in most groups.
SET_ASIDE = "fft"
#: Columns the claims table gains (``without_fft``).
WITHOUT_FFT_COLUMNS = ["lead_without_fft", "ci_low_without_fft", "ci_high_without_fft",
                       "verdict_without_fft"]
#: The stem of the per-baseline table under the tables folder.
BY_BASELINE_TABLE = "leads_by_baseline"
BY_BASELINE_COLUMNS = ["id", "cell", "baseline", "lead", "ci_low", "ci_high", "n", "verdict",
                       "unit"]
#: The unit of a win-count cell's lead, by metric (AFR and AGU as shares).
CELL_UNITS = {"afr": "share", "agu": "share", "ajct": "s"}


def with_baselines(res: Results, baselines: Sequence[str]) -> Results:
    """These results with the comparisons' baselines narrowed to ``baselines`` (the runs are
    unchanged: every experiment then picks its strongest among these only)."""
    return replace(res, config=replace(res.config, baselines=tuple(baselines)))


def _evidence(res: Results, baselines: Sequence[str], tables: Path,
              margins: Mapping[str, Margin]) -> Evidence:
    return Evidence(with_baselines(res, baselines), tables, margins)


def without_fft(claims: Sequence[Claim], res: Results, tables: Path,
                margins: Mapping[str, Margin]) -> pd.DataFrame:
    """Per comparison claim (``registry.compared_kinds``): its lead and interval against the
    strongest baseline other than ``SET_ASIDE`` (lead claims; NaN for the others) and its
    verdict under the same rule (``verdicts.assess``). Empty when the profile's baselines
    do not include ``SET_ASIDE`` or it is the only one."""
    others = [b for b in res.config.baselines if b != SET_ASIDE]
    rows = []
    if SET_ASIDE in res.config.baselines and others:
        ev = _evidence(res, others, tables, margins)
        compared = compared_kinds()
        for claim in claims:
            if claim.measure["kind"] not in compared:
                continue
            measured, verdict = assess(claim, ev)
            iv = measured.interval
            rows.append({"id": claim.id,
                         "lead_without_fft": _scalar(measured.value) if iv else math.nan,
                         "ci_low_without_fft": iv.low if iv else math.nan,
                         "ci_high_without_fft": iv.high if iv else math.nan,
                         "verdict_without_fft": _status(verdict, measured.value)})
    return pd.DataFrame(rows, columns=["id", *WITHOUT_FFT_COLUMNS])


def _scalar(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else math.nan


def _status(verdict: Verdict, value: object) -> str:
    """A verdict with a win-count claim's tally beside it (what it rests on)."""
    return f"{verdict.status} ({value.text()})" if isinstance(value, Tally) else verdict.status


def by_baseline(claims: Sequence[Claim], res: Results, tables: Path,
                margins: Mapping[str, Margin]) -> pd.DataFrame:
    """COMPASS-ABS against each baseline alone (``BY_BASELINE_COLUMNS``): per lead claim its
    paired lead, interval and verdict; per cell of a win-count claim (group x metric) its
    paired lead, interval and class (``stats.classify`` against the metric's margin)."""
    rows = []
    for baseline in res.config.baselines:
        ev = _evidence(res, [baseline], tables, margins)
        for claim in claims:
            kind = claim.measure["kind"]
            if kind == "lead":
                measured, verdict = assess(claim, ev)
                iv = measured.interval
                rows.append(_row(claim, "", baseline, iv, verdict.status))
            elif kind == "wins":
                rows += _cells(claim, ev, baseline)
    return pd.DataFrame(rows, columns=BY_BASELINE_COLUMNS)


def _row(claim: Claim, cell: str, baseline: str, iv: Interval | None, verdict: str,
         unit: str | None = None) -> dict[str, object]:
    return {"id": claim.id, "cell": cell, "baseline": baseline,
            "lead": iv.value if iv else math.nan, "ci_low": iv.low if iv else math.nan,
            "ci_high": iv.high if iv else math.nan, "n": iv.n if iv else 0,
            "verdict": verdict, "unit": claim.unit if unit is None else unit}


def _cells(claim: Claim, ev: Evidence, baseline: str) -> list[dict[str, object]]:
    """A win-count claim's cells against one baseline, each with its class."""
    experiment, by = claim.measure["experiment"], list(claim.measure["by"])
    table, _ = ev.lead_table(experiment)
    out = []
    for r in table[table["lead"].notna()].itertuples(index=False):
        iv = Interval(r.lead, r.ci_low, r.ci_high, int(r.n))
        cell = " ".join(str(getattr(r, k)) for k in [*by, "metric"])
        margin = ev.margin(r.metric, r.baseline_mean, r.reference_mean) or 0.0
        out.append(_row(claim, cell, baseline, iv, classify(iv, margin),
                        CELL_UNITS[r.metric]))
    return out
