"""The paper's stated numbers beside ours, paper/tables/paper_vs_ours.csv (``write_paper_vs_ours``).

Every number the paper's text and Tables 1-3 state about its Figs. 1-7 (paper/paper_values.yaml,
``stated_values``) becomes one row: the stated value and where it is stated, our value measured
by the claim of paper/claims.yaml it names (with the claim's paired-bootstrap interval and n
where it is a lead over samples), how far ours lies outside the stated value or range
(``difference``), and the claim's verdict. A row whose claim measured nothing says
``not measured: why``. The table reads the claims table (claims.csv) for each claim's scalar
value and interval, and measures again only the claims whose value is a list or a range (the
tables' shares, the stated bands), which claims.csv keeps as text. A value the paper states
per trace but no claim measures per trace (Fig. 1's lowest AFR on each trace) takes ours
from the figure's own leads frame (``PaperValue.leads``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from compass.experiments.comparisons import overall_leads
from compass.experiments.paper_values import DEFAULT_PATH, PaperValue, stated_values
from compass.experiments.results import Results
from compass.experiments.stats import MIN_SAMPLES, Interval, direction
from compass.experiments.tables import write_table
from compass.experiments.verdict.claims import (
    DEFAULT_VARIANT,
    SENSITIVE_KINDS,
    load_claims,
    load_margins,
    read_claims,
)
from compass.experiments.verdict.judging import assess
from compass.experiments.verdict.measures import Evidence

PAPER_VS_OURS_TABLE = "paper_vs_ours"
COLUMNS = ["figure", "group", "metric", "who", "paper", "paper_low", "paper_high", "where",
           "claim", "ours", "ours_low", "ours_high", "ci_low", "ci_high", "n", "difference",
           "verdict", "note",
           # the case window ours was measured on ("" outside the case study), the claim's
           # verdict against the strongest baseline other than FFT, and whether the
           # SYNTHETIC traces are calibrated to the paper's number (agreement by
           # construction where it holds)
           "window", "verdict_without_fft", "calibrated"]
#: Verdicts under which a claim has measured nothing to set beside the paper's number.
UNMEASURED = ("not measured", "no data")


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _span(value: Any, part: int | None) -> tuple[float, float] | None:
    """Our value as a (low, high) span: (x, x) for a number, (a, b) for a measured range;
    ``part`` picks one entry of a measured list. None: no number there."""
    if part is not None:
        if not isinstance(value, Sequence) or len(value) <= part:
            return None
        value = value[part]
    if _finite(value):
        return float(value), float(value)
    if (isinstance(value, tuple) and len(value) == 2 and all(_finite(v) for v in value)):
        return float(min(value)), float(max(value))
    return None


def difference(low: float, high: float, paper_low: float, paper_high: float) -> float:
    """How far our span [low, high] (a number: low == high) reaches outside the paper's
    [paper_low, paper_high] (NaN: unbounded on that side): the larger excursion, negative
    below the paper's range and positive above it; 0 when ours lies inside it."""
    below = low - paper_low if not math.isnan(paper_low) and low < paper_low else 0.0
    above = high - paper_high if not math.isnan(paper_high) and high > paper_high else 0.0
    return below if -below > above else above


def _lead(leads: pd.DataFrame | None, v: PaperValue) -> pd.Series | None:
    """The row of a leads frame (columns group, metric, lead, ci_low, ci_high, n,
    strongest_baseline) for this value's group and metric; None without one."""
    if leads is None or leads.empty:
        return None
    hit = leads[(leads["group"].astype(str) == str(v.group)) & (leads["metric"] == v.metric)
                & leads["lead"].notna()]
    return hit.iloc[0] if len(hit) else None


def _from_leads(v: PaperValue, lead: pd.Series | None, text: str) -> dict[str, Any]:
    """The row's measured fields from its leads frame's row (``text``: the claim's reading),
    with the row's own verdict: the paper states COMPASS-ABS best, so the lead's whole
    interval above zero holds, below zero differs, else inconclusive (always with fewer than
    ``MIN_SAMPLES`` samples); the claim's own verdict is in the note."""
    if lead is None:
        return {"note": f"not measured: no {v.leads} lead of {v.metric} on {v.group}"}
    sign = direction(Interval(lead["lead"], lead["ci_low"], lead["ci_high"], int(lead["n"])))
    own = ("inconclusive" if int(lead["n"]) < MIN_SAMPLES else
           {"ahead": "holds", "behind": "differs"}.get(sign, "inconclusive"))
    return {"ours": lead["lead"], "ci_low": lead["ci_low"], "ci_high": lead["ci_high"],
            "n": lead["n"], "difference": difference(lead["lead"], lead["lead"], v.low, v.high),
            "verdict": own,
            "note": f"lead over the strongest baseline, re-chosen in each resample "
                    f"({lead['strongest_baseline']} in the point estimate; {v.leads} leads); "
                    f"this row's own verdict (sign of the lead); the claim {v.claim}: "
                    f"{text}"}


def _calibrated(claim: pd.Series, calibrated: bool) -> str:
    """Whether a calibrated claim agrees by construction ("" for one that is not)."""
    if not calibrated or "SYNTHETIC" not in str(claim["data"]):
        return ""
    return ("by construction" if claim["verdict"] == "holds" else
            f"calibrated to it, yet {claim['verdict']}")


def _row(v: PaperValue, claim: pd.Series | None, value: Any,
         lead: pd.Series | None = None, window: str = "", calibrated: bool = False
         ) -> dict[str, Any]:
    row = {"figure": v.figure, "group": "" if v.group is None else str(v.group),
           "metric": v.metric, "who": v.who, "paper": v.text(), "paper_low": v.low,
           "paper_high": v.high, "where": v.where, "claim": v.claim, "ours": math.nan,
           "ours_low": math.nan, "ours_high": math.nan, "ci_low": math.nan,
           "ci_high": math.nan, "n": math.nan, "difference": math.nan, "verdict": "",
           "note": "", "window": window, "verdict_without_fft": "", "calibrated": ""}
    if claim is not None:
        row["verdict_without_fft"] = claim.get("verdict_without_fft", "") or ""
        row["calibrated"] = _calibrated(claim, calibrated)
    if claim is None:
        row["note"] = ("not measured: no claim of paper/claims.yaml measures it" if not v.claim
                       else f"not measured: claim {v.claim} is not in the claims table")
        return row
    text = claim["ours_text"] if claim["ours_text"] not in ("", "-") else claim["detail"]
    row["verdict"], text = claim["verdict"], text or "nothing measured in this run"
    if v.leads:
        return {**row, **_from_leads(v, lead, text)}
    scalar = v.part is None and _finite(claim["ours"])
    span = (claim["ours"], claim["ours"]) if scalar else _span(value, v.part)
    if span is None:
        why = text if claim["verdict"] in UNMEASURED else f"no single number ({text})"
        row["note"] = f"not measured: {why}"
        return row
    low, high = span[0] / v.scale, span[1] / v.scale
    if low == high:
        row["ours"] = low
    else:
        row["ours_low"], row["ours_high"] = low, high
    if scalar:
        row["ci_low"], row["ci_high"] = claim["ci_low"] / v.scale, claim["ci_high"] / v.scale
        row["n"] = claim["n"]
    row["difference"] = difference(low, high, v.low, v.high)
    row["note"] = text
    return row


def paper_vs_ours(stated: Sequence[PaperValue], claims: pd.DataFrame,
                  values: Mapping[str, Any],
                  leads: Mapping[str, pd.DataFrame] | None = None,
                  windows: Mapping[str, str] | None = None,
                  calibrated: Sequence[str] = ()) -> pd.DataFrame:
    """One row per stated value (``COLUMNS``): ``claims`` is claims.csv (its default rows give
    each claim's verdict, scalar value, interval and n); ``values`` holds, per claim id, the
    measured value where claims.csv has no scalar (a list, indexed by ``PaperValue.part``, or
    a (low, high) range). Ours is in the paper's unit (the claim's value divided by
    ``PaperValue.scale``). ``leads`` holds, per name, the leads frame that measures the
    values naming it (``PaperValue.leads``), with its grouping column named ``group``;
    ``windows`` the case window each case claim's value was measured on; ``calibrated`` the
    claims whose number the SYNTHETIC traces are fitted to."""
    default = claims[claims["variant"] == DEFAULT_VARIANT].set_index("id")
    leads, windows = leads or {}, windows or {}
    rows = [_row(v, default.loc[v.claim] if v.claim in default.index else None,
                 values.get(v.claim), _lead(leads.get(v.leads), v) if v.leads else None,
                 windows.get(v.claim, ""), v.claim in calibrated)
            for v in stated]
    return pd.DataFrame(rows, columns=COLUMNS)


def write_paper_vs_ours(results: str | Path, claims_path: str | Path, tables: str | Path,
                        path: str | Path = DEFAULT_PATH) -> list[Path]:
    """paper/tables/paper_vs_ours.csv (and .md) of a results folder whose claims.csv is
    written: the claims that a stated value names and that claims.csv holds only as text are
    measured again (never the comparisons over samples, ``SENSITIVE_KINDS``, whose scalar
    and interval claims.csv has)."""
    res, stated = Results.load(results), stated_values(path)
    frame = read_claims(tables)
    default = frame[frame["variant"] == DEFAULT_VARIANT].set_index("id")
    named = {v.claim for v in stated if v.claim in default.index
             and (v.part is not None or not _finite(default.loc[v.claim, "ours"]))}
    ev = Evidence(res, Path(tables), load_margins(claims_path))
    claims = load_claims(claims_path)
    values = {c.id: assess(c, ev)[0].value for c in claims
              if c.id in named and c.measure["kind"] not in (*SENSITIVE_KINDS, "not_measured")}
    windows = {}
    for c in claims:
        if c.measure["kind"].startswith("case_") and c.id in {v.claim for v in stated}:
            shown = assess(c, ev)[0].windows
            windows[c.id] = shown[0][0] if shown else "none shows the phenomenon"
    leads = ({"overall": overall_leads(res).rename(columns={"trace": "group"})}
             if any(v.leads == "overall" for v in stated) else {})
    table = paper_vs_ours(stated, frame, values, leads, windows,
                          [c.id for c in claims if c.calibrated])
    return write_table(table, tables, PAPER_VS_OURS_TABLE, "Every number the paper states for "
                       f"Figs. 1-7 and Tables 1-3 beside ours ({res.label()})")


def _bounded(frame: pd.DataFrame) -> pd.Series:
    """Rows whose paper value is a range or a bound, not one exact number."""
    return ~(frame["paper_low"] == frame["paper_high"])


def summary(frame: pd.DataFrame) -> list[str]:
    """A few sentences computed from the table (``paper_vs_ours``): how many stated numbers
    we measured, how many of the stated ranges and bounds ours meets, how far our leads sit
    from the paper's, and the largest gaps relative to the paper's value."""
    measured = frame["difference"].notna()
    lines = [f"The paper states {len(frame)} numbers for Figs. 1-7 and Tables 1-3; this run "
             f"measured {int(measured.sum())} of them ({int((~measured).sum())} not "
             "measured, each with the reason in the table)."]
    bounded = frame[measured & _bounded(frame)]
    if len(bounded):
        inside = int((bounded["difference"] == 0).sum())
        lines.append(f"Of the {len(bounded)} stated ranges and bounds we measured, ours lies "
                     f"inside {inside} and outside {len(bounded) - inside}.")
    leads = frame[measured & (frame["who"] == "lead") & frame["paper_low"].gt(0)]
    for metric, group in leads.groupby("metric", sort=False):
        below = int((group["difference"] < 0).sum())
        lines.append(f"COMPASS-ABS's {metric.upper()} lead over the strongest baseline falls "
                     f"short of the paper's stated lead on {below} of {len(group)} (median "
                     "of ours minus the paper's "
                     f"{(group['ours'] - group['paper_low']).median():,.4g}).")
    exact = frame[frame["ours"].notna() & ~_bounded(frame) & (frame["paper_low"] != 0)]
    if len(exact):
        gap = (exact["difference"] / exact["paper_low"].abs()).abs()
        worst = exact.assign(gap=gap).nlargest(3, "gap")
        lines.append("Largest gaps against an exact stated value: " + "; ".join(
            f"{r.claim} ({r.group or r.figure}, {r.metric}): paper {r.paper}, ours "
            f"{r.ours:,.4g}" for r in worst.itertuples()) + ".")
    return lines
