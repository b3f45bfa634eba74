"""Sensitivity regimes' verdicts: the comparison claims of section 6 judged on a regime's
results (``config.regime_profile``: the same experiments on SYNTHETIC kinds whose baselines
run in the paper's operating regime, paper/regime.yaml) by the same machinery as the main
table (``verdicts.claims_table``) into ``claims_<name>.csv``; ``reading`` says per claim
family whether a gap of the main verdicts closes there (the data account for it) or stays
(the scheduler does). A sensitivity analysis: it never changes a main verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from compass.experiments.results import Results
from compass.experiments.studies.regime.config import COMPARISONS, claims_stem
from compass.experiments.tables import write_table
from compass.experiments.verdict.claims import (
    CLAIM_COLUMNS,
    DEFAULT_VARIANT,
    SENSITIVE_KINDS,
    Claim,
    load_claims,
    load_deviations,
    load_margins,
)
from compass.experiments.verdict.measures import Evidence
from compass.experiments.verdict.verdicts import claims_table

#: The section prefix of the case-study claims, listed in a regime's table but not judged.
CASE_SECTION = "6.6"
#: Their verdict there, and why.
NOT_REJUDGED = "not re-judged"
NOT_REJUDGED_WHY = "the case study replays one day's window"
#: Verdicts that leave a decided gap between the paper's claim and the value: our value
#: falls short of it over its whole interval (``differs``) or sits inside the margin of no
#: difference where the paper claims one (``tie``). ``inconclusive`` decides nothing.
GAP = ("tie", "differs")
#: The verdict that closes a gap.
CLOSED = "holds"
Status = Literal["no gap", "undecided", "closes", "stays", "partly closes", "no data"]


def is_comparison(claim: Claim) -> bool:
    """Whether a regime re-judges ``claim``: a comparison between schedulers on one of the
    experiments it replays."""
    return (claim.measure["kind"] in SENSITIVE_KINDS
            and claim.measure.get("experiment") in COMPARISONS)


def regime_claims(claims: list[Claim], ev: Evidence,
                  deviations: list[dict[str, Any]]) -> pd.DataFrame:
    """A regime's claims table: its comparison claims measured and judged by
    ``verdicts.claims_table`` on the regime's results, then the case-study claims listed as
    ``NOT_REJUDGED``; the other claims (levels, theorems, Table 1) are not in it."""
    judged = claims_table([c for c in claims if is_comparison(c)], ev, deviations)
    case = pd.DataFrame(
        [{"id": c.id, "section": c.section, "statement": c.statement, "paper": c.paper,
          "ours": math.nan, "ci_low": math.nan, "ci_high": math.nan, "n": math.nan,
          "relative_pct": math.nan, "unit": c.unit, "verdict": NOT_REJUDGED,
          "detail": NOT_REJUDGED_WHY, "direction": "", "ours_text": "-", "data": "-",
          "variant": DEFAULT_VARIANT, "deviation": "", "explained_by": "",
          "shown_in": ";".join(c.evidence)}
         for c in claims if c.section.startswith(CASE_SECTION)], columns=CLAIM_COLUMNS)
    return pd.concat([judged, case], ignore_index=True)


def write_regime_claims(results: str | Path, claims_path: str | Path,
                        deviations_path: str | Path, tables: str | Path,
                        regime: str) -> list[Path]:
    """Rule ``claims_<regime>``: ``regime_claims`` on a regime's results folder, written as
    ``claims_<regime>.csv`` (and .md) beside the main claims table."""
    res = Results.load(results)
    margins = load_margins(claims_path)
    frame = regime_claims(load_claims(claims_path), Evidence(res, Path(tables), margins),
                          load_deviations(deviations_path))
    return write_table(frame, tables, claims_stem(regime),
                       f"The comparison claims on the regime {regime} ({res.label()}); "
                       "sensitivity: the main verdicts are claims.csv's")


def read_regime_claims(tables: str | Path, regime: str) -> pd.DataFrame | None:
    """A regime's claims table as ``write_regime_claims`` wrote it; None before it ran."""
    path = Path(tables) / f"{claims_stem(regime)}.csv"
    if not path.is_file():
        return None
    frame = pd.read_csv(path)
    text = ["detail", "ours_text", "data"]
    frame[text] = frame[text].fillna("")
    return frame


@dataclass(frozen=True)
class FamilyReading:
    """One claim family (a section of the paper, e.g. "6.2, Fig. 2") on a regime. Of its
    comparison claims (``claims``), the gaps of the main table (verdict in ``GAP``) that
    hold on the regime (``closed``), that fall short there too (``stayed``, with the
    regime's verdict) and that have no decided verdict there (``unsettled``: inconclusive
    or no data); and the claims whose main verdict is ``inconclusive`` (``undecided``)."""

    family: str
    claims: tuple[str, ...]
    closed: tuple[str, ...]
    stayed: tuple[tuple[str, str], ...]
    unsettled: tuple[tuple[str, str], ...]
    undecided: tuple[str, ...] = ()

    @property
    def status(self) -> Status:
        """``closes`` (the data account for the gap), ``stays`` (the scheduler does), both
        (``partly closes``), ``no data`` (no gap decided on the regime), ``undecided`` (no
        decided gap in the main table, some claim inconclusive there) or ``no gap``."""
        if not (self.closed or self.stayed or self.unsettled):
            return "undecided" if self.undecided else "no gap"
        if not (self.closed or self.stayed):
            return "no data"
        if not self.stayed:
            return "closes"
        return "partly closes" if self.closed else "stays"

    def line(self, regime: str) -> str:
        """The finding as one Markdown line."""
        n = len(self.claims)
        head = (f"**{self.family}** ({n} comparison claim{'s' if n != 1 else ''}) on "
                f"`{regime}`: ")
        closed = ", ".join(f"`{i}`" for i in self.closed)
        stayed = ", ".join(f"`{i}` {v}" for i, v in self.stayed)
        unsettled = ", ".join(f"`{i}` {v}" for i, v in self.unsettled)
        text = {
            "no gap": "no gap on our data (no claim differs or ties); nothing to attribute",
            "undecided": "our verdicts are undecided (" + ", ".join(
                f"`{i}`" for i in self.undecided) + " inconclusive), no gap to attribute",
            "no data": f"no decided verdict on the regime for its gaps ({unsettled})",
            "closes": f"the gap closes ({closed} hold there): the data account for it",
            "stays": f"the gap stays ({stayed}): the scheduler, not the data",
            "partly closes": f"the gap partly closes ({closed} hold there: the data) and "
                             f"partly stays ({stayed}: the scheduler)",
        }[self.status]
        rest = (f"; undecided there: {unsettled}"
                if self.unsettled and self.status != "no data" else "")
        return head + text + rest + "."


def reading(main: pd.DataFrame, regime: pd.DataFrame) -> list[FamilyReading]:
    """Per claim family of the regime's judged claims (its ``section``), in the table's
    order: which gaps of the main table (default variant, verdict in ``GAP``) hold on the
    regime, which fall short there too and which have no decided verdict there. Pure: the
    two claims tables in, the readings out."""
    judged = regime[regime["verdict"] != NOT_REJUDGED]
    there = judged.set_index("id")["verdict"]
    ours = main[main["variant"] == DEFAULT_VARIANT].set_index("id")["verdict"]
    out = []
    for family, part in judged.groupby("section", sort=False):
        ids = tuple(part["id"])
        gaps = [i for i in ids if ours.get(i) in GAP]
        out.append(FamilyReading(
            str(family), ids,
            closed=tuple(i for i in gaps if there[i] == CLOSED),
            stayed=tuple((i, there[i]) for i in gaps if there[i] in GAP),
            unsettled=tuple((i, there[i]) for i in gaps
                            if there[i] != CLOSED and there[i] not in GAP),
            undecided=tuple(i for i in ids if ours.get(i) == "inconclusive")))
    return out
