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

#: Verdicts, in the order the summary counts them. ``tie``: the interval of a comparison
#: settles no sign and lies wholly inside its practical-equivalence margin (``Margin``);
#: ``not applicable``: the data hold nothing the claim could be tested on (no window of the
#: case study shows the phenomenon, no event of the kind it is about), with the reason.
VERDICTS = ("holds", "tie", "differs", "inconclusive", "not applicable", "no data",
            "not measured")
#: Columns of paper/tables/claims.csv, in order.
CLAIM_COLUMNS = ["id", "section", "statement", "paper", "ours", "ci_low", "ci_high", "n",
                 "relative_pct", "unit", "verdict", "detail", "direction", "ours_text", "data",
                 "variant", "deviation", "explained_by", "shown_in",
                 # a comparison against the strongest baseline other than FFT
                 # (compass.experiments.verdict.by_baseline), on the default rows
                 "lead_without_fft", "ci_low_without_fft", "ci_high_without_fft",
                 "verdict_without_fft"]
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
    #: why the claim has nothing to test here ("": it has): the verdict is then
    #: "not applicable" with this reason, never a vacuous "holds"
    inapplicable: str = ""
    #: (who, value) of schedulers the claim sets its subjects against (e.g. COMPASS-ABS
    #: beside "the baselines block continuously"): a check they pass too is no test
    contrast: tuple[str, float] | None = None


@dataclass(frozen=True)
class Verdict:
    status: str
    detail: str = ""


@dataclass(frozen=True)
class Margin:
    """The practical-equivalence margin of a comparison on one metric (paper/claims.yaml,
    ``margins``): ``relative`` times the baseline's value plus ``absolute``, in the metric's
    own units (AGU and AFR as shares), capped so that it cannot swallow an effect: at most
    ``paper_lead_share`` of ``paper_lead``, the smallest lead the paper states for the
    metric, and at most ``level_share`` of the better scheduler's own level. A difference
    inside it whose sign the samples do not settle is a tie (``stats.classify``, ``judge``).
    ``reason`` says why this size."""

    reason: str
    relative: float = 0.0
    absolute: float = 0.0
    paper_lead: float | None = None
    paper_lead_share: float = 0.25
    level_share: float | None = None

    def size(self, baseline: float, reference: float | None = None,
             lower_is_better: bool = True) -> float:
        """The margin for a comparison whose baseline has the value ``baseline`` and the
        reference ``reference`` (the better of the two sets the level cap)."""
        size = self.absolute + self.relative * abs(baseline)
        if self.paper_lead is not None:
            size = min(size, self.paper_lead_share * abs(self.paper_lead))
        if self.level_share is not None:
            pair = [abs(baseline)] if reference is None or math.isnan(reference) else [
                abs(baseline), abs(reference)]
            level = min(pair) if lower_is_better else max(pair)
            size = min(size, self.level_share * level)
        return size


@dataclass(frozen=True)
class Trend:
    """A trend claim's evidence: the leads at each condition (in the claim's order) and the
    steps between them, each with its interval. A trend holds only where every lead is
    positive and every step is too (``judge``, check ``increasing``)."""

    leads: tuple[Interval, ...]
    steps: tuple[Interval, ...]


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
    interval over samples and a comparison's practical-equivalence ``margin``, the sign is
    decided first: an interval wholly below zero "differs" (a loss); one that spans zero is a
    "tie" if it lies inside +-margin. Then "holds" if the check accepts all of it,
    "differs" if it accepts none of it, else "inconclusive" (the interval admits both
    readings). With fewer than
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
        if margin is not None and interval.high < 0 and lo > -math.inf:
            return Verdict("differs", f"a loss: the whole {ci} is below zero")
        if margin is not None and -margin <= interval.low <= 0 <= interval.high <= margin:
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
        gaps = np.abs(np.atleast_1d(np.asarray(value, dtype=float)) - target)
        tols = np.broadcast_to(np.asarray(check["approx"]["tol"], dtype=float), gaps.shape)
        worst = int(np.argmax(gaps - tols))
        return Verdict("holds") if (gaps <= tols + 1e-12).all() else Verdict(
            "differs", f"off by {fmt(float(gaps[worst]))}{u} (tolerance "
            f"{fmt(float(tols[worst]))})")
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
    if "increasing" in check:
        return _judge_trend(value)
    if "same" in check:
        paper = sorted((str(t), int(d)) for t, d in check["same"])
        missing = [f"{t} {d}" for t, d in paper if (t, d) not in value]
        return Verdict("holds") if sorted(value) == paper else Verdict(
            "differs", "the paper's " + ", ".join(missing) + " not chosen")
    raise ValueError(f"unknown check {check}")


def _judge_trend(trend: Trend) -> Verdict:
    """A trend claim: "holds" when every lead's and every step's whole interval is above
    zero, "differs" when one lies wholly below zero (a lead the reference does not have
    cannot grow), else "inconclusive"; at most "inconclusive" under ``MIN_SAMPLES``."""
    parts = [*trend.leads, *trend.steps]
    n = min(s.n for s in parts)
    if n < MIN_SAMPLES or not all(s.defined for s in parts):
        return Verdict("inconclusive", f"{n} samples: fewer than {MIN_SAMPLES}, no "
                       "interval verdict")
    negative = [f"lead {i + 1}" for i, s in enumerate(trend.leads) if s.high < 0]
    negative += [f"step {i + 1}" for i, s in enumerate(trend.steps) if s.high < 0]
    if negative:
        return Verdict("differs", f"the whole interval of {', '.join(negative)} is below zero")
    if all(s.low > 0 for s in parts):
        return Verdict("holds", "every lead's and every step's whole interval is above zero")
    return Verdict("inconclusive", "a lead's or a step's interval spans zero")


def check_tolerances(claim: Claim) -> None:
    """Raise ``ValueError`` when an ``approx`` check's tolerance is not below the paper's
    value it is about (per element; a tolerance may be a list): a band wider than the value
    accepts zero, and a claim that holds on nothing is no evidence."""
    approx = claim.check.get("approx")
    if not approx:
        return
    values = np.atleast_1d(np.asarray(approx["value"], dtype=float))
    tols = np.broadcast_to(np.asarray(approx["tol"], dtype=float), values.shape)
    wide = [(v, t) for v, t in zip(values, tols) if v != 0 and t >= abs(v)]
    if wide:
        raise ValueError(f"{claim.id}: tolerance {fmt(wide[0][1])} is not below the paper's "
                         f"value {fmt(wide[0][0])}; it would accept zero")


def load_claims(path: str | Path | Sequence[str | Path]) -> list[Claim]:
    """The claims of one file, or of several in turn (paper/claims.yaml, then the others)."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    claims = []
    for one in paths:
        with open(one) as fh:
            claims += [Claim(**entry) for entry in yaml.safe_load(fh)["claims"]]
    for claim in claims:
        check_tolerances(claim)
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
            "shown_in", "unit", "verdict_without_fft"]
    frame[text] = frame[text].fillna("")
    return frame
