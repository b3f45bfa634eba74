"""Sensitivity regimes (profile key ``regimes``): the comparison experiments of section 6
replayed on other SYNTHETIC kinds, e.g. ``paper-regime: {venus: venus-paper-regime, gfs:
gfs-paper-regime}``, kinds whose baselines run in the paper's operating regime
(paper/regime.yaml).

``regime_profile`` derives the profile of one regime (overall, eta sweep, composition and
cost sweep on the regime's kinds, into ``results/<profile>/regimes/<name>/``; not the case
study, which replays one day's window, nor the physical runs or openb). Its comparison
claims are judged by the same machinery as the main table (``verdicts.claims_table``) into
``claims_<name>.csv``; ``reading`` says per claim family whether a gap of the main verdicts
closes there (the data account for it) or stays (the scheduler does). A sensitivity
analysis: it never changes a main verdict.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from compass.experiments.claims import (
    CLAIM_COLUMNS,
    CLAIMS_TABLE,
    DEFAULT_VARIANT,
    SENSITIVE_KINDS,
    Claim,
    load_claims,
    load_deviations,
    load_margins,
)
from compass.experiments.config import COST_SWEEP, COST_SWEEP_OLD, ConfigError
from compass.experiments.measures import Evidence
from compass.experiments.pipeline import Plan, make_plan
from compass.experiments.results import Results
from compass.experiments.tables import write_table
from compass.experiments.verdicts import claims_table

#: The experiments a regime replays: the comparisons between schedulers.
COMPARISONS = ("overall", "eta_sweep", "composition", COST_SWEEP)
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


def regime_slug(regime: str) -> str:
    """A regime's name as file stems and column suffixes write it (``paper_regime``)."""
    return regime.replace("-", "_")


def claims_stem(regime: str) -> str:
    """The stem of a regime's claims table under the tables folder (``claims_paper_regime``)."""
    return f"{CLAIMS_TABLE}_{regime_slug(regime)}"


def regime_results(results_dir: str | Path, regime: str) -> Path:
    """A regime's results folder under the profile's (``results/<profile>/regimes/<name>``)."""
    return Path(results_dir) / "regimes" / regime


def regime_profile(config: Mapping[str, Any], regime: str) -> dict[str, Any]:
    """The profile of one regime of ``config`` (a raw profile, as the YAML gives it): the
    regime's traces alone, each on its SYNTHETIC kind (no real file); the comparison
    experiments on those traces (WCC coverage at the overall eta on them: no batch of its
    own); no variants, extension, physical runs, openb or regimes; results under
    ``regime_results``. Raises ``ConfigError`` where an experiment keeps no trace."""
    raw = copy.deepcopy(dict(config))
    if regime not in (raw.get("regimes") or {}):
        raise ConfigError(f"regimes: no regime {regime!r} in profile {raw['profile']!r}")
    kinds = raw["regimes"][regime]
    where = f"regimes.{regime}"
    x = raw["experiments"]
    sweep = x.pop(COST_SWEEP) if COST_SWEEP in x else x.pop(COST_SWEEP_OLD)

    def kept(block: str, traces: list[str]) -> list[str]:
        mine = [t for t in traces if t in kinds]
        if not mine:
            raise ConfigError(f"{where}: maps none of experiments.{block}'s traces {traces}")
        return mine

    if x["eta_sweep"]["trace"] not in kinds:
        raise ConfigError(f"{where}: maps not the eta sweep's trace {x['eta_sweep']['trace']}")
    overall = kept("overall", list(x["overall"]["traces"]))
    case = dict(x["case_study"])
    if case["trace"] not in kinds:  # required by a profile, never run in a regime
        case.update(trace=x["eta_sweep"]["trace"], candidate_days=None)
    raw["experiments"] = {
        "overall": {**x["overall"], "traces": overall},
        "eta_sweep": x["eta_sweep"],
        "composition": {**x["composition"],
                        "traces": kept("composition", list(x["composition"]["traces"]))},
        "wcc_coverage": {"traces": overall, "etas": [x["overall"]["eta"]]},
        COST_SWEEP: {**sweep, "traces": kept(COST_SWEEP, list(sweep["traces"])),
                     "days": {t: d for t, d in (sweep.get("days") or {}).items()
                              if t in kinds}},
        "case_study": case,
        "physical": None,
    }
    raw["traces"] = {t: {**spec, "synthetic": kinds[t], "real": None, "use_real": "never"}
                     for t, spec in raw["traces"].items() if t in kinds}
    for key in ("variants", "extension", "extension_estimates", "openb", "regimes"):
        raw.pop(key, None)
    root = regime_results(Path(raw["outputs"]["results"]) / raw["profile"], regime)
    raw["description"] = (f"the comparison experiments of profile {raw['profile']} on the "
                          f"regime {regime} (SYNTHETIC {', '.join(kinds.values())})")
    raw["outputs"] = {**raw["outputs"], "results": str(root.parent),  # same table format
                      "figures": str(root / "figures"), "tables": str(root / "tables"),
                      "report": str(root / "REPRODUCTION.md")}
    raw["profile"] = regime
    return raw


def regime_plans(plan: Plan) -> dict[str, Plan]:
    """The plan of each regime of a profile (``regime_profile``), by name, in the profile's
    order; ``ConfigError`` names the regime whose derived profile cannot run."""
    out = {}
    for name in plan.config.regimes:
        derived = regime_profile(plan.config.raw, name)
        try:
            out[name] = make_plan(derived)
        except ConfigError as err:
            raise ConfigError(f"regimes.{name}: {err}") from None
    return out


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
