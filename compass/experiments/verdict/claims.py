"""Claims of the paper and their verdicts, as data: the claim types of paper/claims*.yaml,
our measured value, the check that turns it into a verdict, and the claims table
paper/tables/claims.csv that ``verdicts.write_claims`` writes and everything else reads.

A check on a value with an interval over samples says "holds" when the whole interval
satisfies it, "differs" when none of it does, and "inconclusive" when it admits both
readings (``judge``). The measures live in ``measures``, the writing of the table in
``verdicts``, the Markdown in ``report`` (all of ``compass.experiments.verdict``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compass.experiments.stats import MIN_SAMPLES, Interval

#: The ``margins`` entry that caps a lead claim's margin at a share of the paper's lead.
PAPER_LEAD = "paper_lead"
#: Verdicts, in the order the summary counts them. ``tie``: the whole interval of a
#: comparison lies inside its practical-equivalence margin (``Margin``); ``not applicable``:
#: no window of the case study shows the phenomenon the claim is about.
VERDICTS = ("holds", "tie", "differs", "inconclusive", "not applicable", "no data",
            "not measured")
#: Columns of paper/tables/claims.csv, in order.
CLAIM_COLUMNS = ["id", "section", "statement", "paper", "ours", "ci_low", "ci_high", "n",
                 "relative_pct", "unit", "verdict", "detail", "direction", "ours_text", "data",
                 "variant", "deviation", "explained_by", "shown_in"]
#: The claims table's stem under the tables folder.
CLAIMS_TABLE = "claims"
#: The variant of the profile's own parameters (the paper-faithful baselines).
DEFAULT_VARIANT = "default"
#: Measures re-taken under each sensitivity variant: the comparisons between schedulers.
SENSITIVE_KINDS = ("lead", "wins", "leads_grow", "leads_ordered")


@dataclass(frozen=True)
class Claim:
    """One entry of paper/claims.yaml."""

    id: str
    section: str
    statement: str
    paper: str
    measure: dict[str, Any]
    check: dict[str, Any]
    unit: str
    evidence: list[str]
    how: str
    calibrated: bool = False


@dataclass(frozen=True)
class Measured:
    """Our value: ``value`` for the check, ``text`` for people, ``traces`` it came from, and
    for a statistic over samples its ``interval`` and size relative to the baseline (%), and
    for a comparison its ``margin``."""

    value: Any
    text: str
    traces: tuple[str, ...] = ()
    interval: Interval | None = None
    relative_pct: float = math.nan
    #: a comparison's practical-equivalence margin, in the claim's unit (``Margin.size``)
    margin: float | None = None
    #: a case-study measure: (window, its value) of each window that shows the phenomenon
    #: (None: not a case-study measure; empty: no window shows it)
    windows: tuple[tuple[str, Measured], ...] | None = None


@dataclass(frozen=True)
class Verdict:
    status: str
    detail: str = ""


@dataclass(frozen=True)
class Margin:
    """The practical-equivalence margin of a comparison on one metric (paper/claims.yaml,
    ``margins``): ``relative`` times the baseline's value plus ``absolute``, in the metric's
    own units (AGU and AFR as shares); a difference inside it is a tie, not a win or a loss.
    ``reason`` says why this size."""

    reason: str
    relative: float = 0.0
    absolute: float = 0.0

    def size(self, baseline: float) -> float:
        """The margin for a comparison whose baseline has the value ``baseline``."""
        return self.absolute + self.relative * abs(baseline)


@dataclass(frozen=True)
class Tally:
    """A win-count claim's cells by class (``stats.CLASSES``): wins, ties, losses and
    undecided comparisons."""

    win: int
    tie: int
    loss: int
    undecided: int

    @property
    def cells(self) -> int:
        return self.win + self.tie + self.loss + self.undecided

    def text(self) -> str:
        return (f"W {self.win} / T {self.tie} / L {self.loss} / U {self.undecided} "
                f"of {self.cells}")


def fmt(x: Any) -> str:
    """A number as the report prints it."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    ax = abs(float(x))
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def _band(check: dict[str, Any]) -> tuple[float, float] | None:
    """The values a check accepts, as a closed band, for the checks that have one."""
    if "at_least" in check:
        return float(check["at_least"]), math.inf
    if "at_most" in check:
        return -math.inf, float(check["at_most"])
    if "within" in check:
        lo, hi = (float(b) for b in check["within"])
        return lo, hi
    if "approx" in check and np.isscalar(check["approx"]["value"]):
        value, tol = float(check["approx"]["value"]), float(check["approx"]["tol"])
        return value - tol, value + tol
    return None


def judge(check: dict[str, Any], value: Any, unit: str = "",
          interval: Interval | None = None, margin: float | None = None) -> Verdict:
    """The verdict of a check on our value (see paper/claims.yaml for the rules). With an
    interval over samples: "tie" if it lies inside the comparison's practical-equivalence
    ``margin`` (+-margin), "holds" if the check accepts all of it, "differs" if it accepts
    none of it, else "inconclusive" (the interval admits both readings). With fewer than
    ``MIN_SAMPLES`` samples the interval is about the samples' range: at most
    "inconclusive". A ``Tally`` (win-count claims) holds with no loss and no undecided cell."""
    u = f" {unit}" if unit else ""
    band = _band(check)
    if interval is not None and band is not None and interval.n < MIN_SAMPLES:
        span = (f"range of {interval.n} samples [{fmt(interval.low)}, {fmt(interval.high)}]"
                if interval.defined else f"{interval.n} sample, {fmt(interval.value)}")
        return Verdict("inconclusive", f"{span}{u}: fewer than {MIN_SAMPLES} samples, no "
                       "interval verdict")
    if interval is not None and interval.defined and band is not None:
        lo, hi = band
        ci = f"interval [{fmt(interval.low)}, {fmt(interval.high)}]{u}"
        if margin is not None and -margin <= interval.low and interval.high <= margin:
            return Verdict("tie", f"the whole {ci} lies inside the margin +-{fmt(margin)}{u}")
        if interval.low >= lo - 1e-12 and interval.high <= hi + 1e-12:
            return Verdict("holds", f"the whole {ci} satisfies it")
        if interval.high < lo - 1e-12 or interval.low > hi + 1e-12:
            return Verdict("differs", f"the whole {ci} is outside; " +
                           judge(check, value, unit).detail)
        return Verdict("inconclusive", f"the {ci} admits both readings")
    if "at_least" in check:
        x, v = float(check["at_least"]), float(value)
        return Verdict("holds") if v >= x - 1e-12 else Verdict(
            "differs", f"ours is lower by {fmt(x - v)}{u}")
    if "at_most" in check:
        x, v = float(check["at_most"]), float(value)
        return Verdict("holds") if v <= x + 1e-12 else Verdict(
            "differs", f"ours is higher by {fmt(v - x)}{u}")
    if "within" in check:
        lo, hi = (float(b) for b in check["within"])
        a, b = (value, value) if np.isscalar(value) else value
        if a >= lo - 1e-12 and b <= hi + 1e-12:
            return Verdict("holds")
        gaps = ([f"reaches {fmt(lo - a)}{u} below the band"] if a < lo else []) + (
            [f"reaches {fmt(b - hi)}{u} above the band"] if b > hi else [])
        return Verdict("differs", "; ".join(gaps))
    if "approx" in check:
        target = np.atleast_1d(np.asarray(check["approx"]["value"], dtype=float))
        gap = float(np.max(np.abs(np.atleast_1d(np.asarray(value, dtype=float)) - target)))
        tol = float(check["approx"]["tol"])
        return Verdict("holds") if gap <= tol + 1e-12 else Verdict(
            "differs", f"off by {fmt(gap)}{u} (tolerance {fmt(tol)})")
    if "all" in check and isinstance(value, Tally):
        if not value.cells:
            return Verdict("differs", "no cell")
        if value.loss:
            return Verdict("differs", f"{value.loss} of {value.cells} cells lost")
        if value.undecided:
            return Verdict("inconclusive", f"{value.undecided} of {value.cells} cells "
                           "undecided, none lost")
        return Verdict("holds", f"{value.win} won, {value.tie} tied, none lost")
    if "all" in check:
        won, n = value
        return Verdict("holds") if n and won == n else Verdict(
            "differs", f"{n - won} of {n} not won")
    if "increasing" in check:  # the steps between leads, with their intervals
        n = min(s.n for s in value)
        if n < MIN_SAMPLES or not all(s.defined for s in value):
            return Verdict("inconclusive", f"{n} samples: fewer than {MIN_SAMPLES}, no "
                           "interval verdict")
        if all(s.low > 0 for s in value):
            return Verdict("holds", "every step's whole interval is above zero")
        if any(s.high < 0 for s in value):
            return Verdict("differs", "a step's whole interval is below zero")
        return Verdict("inconclusive", "a step's interval spans zero")
    if "same" in check:
        paper = sorted((str(t), int(d)) for t, d in check["same"])
        missing = [f"{t} {d}" for t, d in paper if (t, d) not in value]
        return Verdict("holds") if sorted(value) == paper else Verdict(
            "differs", "the paper's " + ", ".join(missing) + " not chosen")
    raise ValueError(f"unknown check {check}")


def load_claims(path: str | Path | Sequence[str | Path]) -> list[Claim]:
    """The claims of one file, or of several in turn (paper/claims.yaml, then the others)."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    claims = []
    for one in paths:
        with open(one) as fh:
            claims += [Claim(**entry) for entry in yaml.safe_load(fh)["claims"]]
    return claims


def load_margins(path: str | Path | Sequence[str | Path]) -> dict[str, Margin]:
    """The ``margins`` block of the claims files (metric -> ``Margin``), later files adding."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    margins: dict[str, Margin] = {}
    for one in paths:
        with open(one) as fh:
            margins.update({metric: Margin(**spec) for metric, spec in
                            (yaml.safe_load(fh).get("margins") or {}).items()})
    return margins


def load_deviations(path: str | Path) -> list[dict[str, Any]]:
    with open(path) as fh:
        return list((yaml.safe_load(fh) or {}).get("deviations") or [])


def read_claims(tables: str | Path) -> pd.DataFrame:
    """paper/tables/claims.csv as ``write_claims`` wrote it (empty texts as "")."""
    frame = pd.read_csv(Path(tables) / f"{CLAIMS_TABLE}.csv")
    text = ["detail", "direction", "ours_text", "data", "deviation", "explained_by",
            "shown_in", "unit"]
    frame[text] = frame[text].fillna("")
    return frame
