"""The sensitivity regimes' profiles (profile key ``regimes``): each regime replays the
comparison experiments of section 6 on other SYNTHETIC kinds, e.g. ``paper-regime: {venus:
venus-paper-regime, gfs: gfs-paper-regime}``, into ``results/<profile>/regimes/<name>/``.

``regime_profile`` derives the typed profile of one regime from the profile's with
``dataclasses.replace`` (overall, eta sweep, composition and cost sweep on the regime's kinds;
not the case study, which replays one day's window, nor the physical runs or openb);
``regime_plans`` their pipeline plans; ``regime_slug`` and ``claims_stem`` name their files.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from compass.experiments.config import ConfigError
from compass.experiments.pipeline import Plan, make_plan
from compass.experiments.profile import Profile, WccCoverageBlock
from compass.experiments.verdict.claims import CLAIMS_TABLE

#: The experiments a regime replays: the comparisons between schedulers.
COMPARISONS = ("overall", "eta_sweep", "composition", "cost_sweep")


def regime_slug(regime: str) -> str:
    """A regime's name as file stems and column suffixes write it (``paper_regime``)."""
    return regime.replace("-", "_")


def claims_stem(regime: str) -> str:
    """The stem of a regime's claims table under the tables folder (``claims_paper_regime``)."""
    return f"{CLAIMS_TABLE}_{regime_slug(regime)}"


def regime_results(results_dir: str | Path, regime: str) -> Path:
    """A regime's results folder under the profile's (``results/<profile>/regimes/<name>``)."""
    return Path(results_dir) / "regimes" / regime


def regime_profile(profile: Profile, regime: str) -> Profile:
    """The profile of one regime of ``profile``: the regime's traces alone, each on its
    SYNTHETIC kind (no real file); the comparison experiments on those traces (WCC coverage
    at the overall eta on them: no batch of its own; no FFT break-even); no variants,
    extension, physical runs, openb or regimes; results under ``regime_results``. Raises
    ``ConfigError`` where an experiment keeps no trace."""
    if regime not in profile.regimes:
        raise ConfigError(f"regimes: no regime {regime!r} in profile {profile.profile!r}")
    kinds, where, x = profile.regimes[regime], f"regimes.{regime}", profile.experiments

    def kept(block: str, traces: tuple[str, ...]) -> tuple[str, ...]:
        mine = tuple(t for t in traces if t in kinds)
        if not mine:
            raise ConfigError(f"{where}: maps none of experiments.{block}'s traces "
                              f"{list(traces)}")
        return mine

    if x.eta_sweep.trace not in kinds:
        raise ConfigError(f"{where}: maps not the eta sweep's trace {x.eta_sweep.trace}")
    overall, sweep, case = kept("overall", x.overall.traces), x.cost_sweep, x.case_study
    if case.trace not in kinds:  # required by a profile, never run in a regime
        case = replace(case, trace=x.eta_sweep.trace, candidate_days=None)
    experiments = replace(
        x, overall=replace(x.overall, traces=overall),
        composition=replace(x.composition, traces=kept("composition", x.composition.traces)),
        wcc_coverage=WccCoverageBlock(traces=overall, etas=(x.overall.eta,)),
        cost_sweep=replace(sweep, traces=kept("cost_sweep", sweep.traces),
                           days={t: d for t, d in sweep.days.items() if t in kinds}),
        fft_breakeven=None, case_study=case, physical=None)
    root = regime_results(Path(profile.outputs.results) / profile.profile, regime)
    return replace(
        profile, profile=regime, experiments=experiments,
        description=(f"the comparison experiments of profile {profile.profile} on the regime "
                     f"{regime} (SYNTHETIC {', '.join(kinds.values())})"),
        traces={t: replace(spec, synthetic=kinds[t], real=None, use_real="never")
                for t, spec in profile.traces.items() if t in kinds},
        variants={}, extension=(), extension_estimates=(), openb=None, regimes={},
        outputs=replace(profile.outputs, results=str(root.parent),  # same table format
                        figures=str(root / "figures"), tables=str(root / "tables"),
                        report=str(root / "REPRODUCTION.md")))


def regime_plans(plan: Plan) -> dict[str, Plan]:
    """The plan of each regime of a profile (``regime_profile``), by name, in the profile's
    order; ``ConfigError`` names the regime whose derived profile cannot run."""
    out = {}
    for name in plan.config.regimes:
        derived = regime_profile(plan.config.spec, name)
        try:
            out[name] = make_plan(derived)
        except ConfigError as err:
            raise ConfigError(f"regimes.{name}: {err}") from None
    return out

