"""The sensitivity regimes' profiles (profile key ``regimes``): each regime replays the
comparison experiments of section 6 on other SYNTHETIC kinds, e.g. ``paper-regime: {venus:
venus-paper-regime, gfs: gfs-paper-regime}``, into ``results/<profile>/regimes/<name>/``.

``regime_profile`` derives the profile of one regime (overall, eta sweep, composition and
cost sweep on the regime's kinds; not the case study, which replays one day's window, nor
the physical runs or openb); ``regime_plans`` their pipeline plans; ``regime_slug`` and
``claims_stem`` name their files.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compass.experiments.config import COST_SWEEP, ConfigError, cost_sweep_block
from compass.experiments.pipeline import Plan, make_plan
from compass.experiments.verdict.claims import CLAIMS_TABLE

#: The experiments a regime replays: the comparisons between schedulers.
COMPARISONS = ("overall", "eta_sweep", "composition", COST_SWEEP)


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
    sweep = cost_sweep_block(x)

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

