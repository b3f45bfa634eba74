"""The pipeline's configuration: its view of a profile (``config/*.yaml``).

A profile names the schedulers, the traces with their days, and what each paper experiment
of section 6 needs (eta values, migration costs, the case-study window). Its keys are typed
in ``compass.experiments.profile`` (from which config/schema.yaml, which the Snakefile
validates the YAML against, is generated); this module turns a profile into what the
pipeline's steps take (``PipelineConfig``, ``RunSettings``), checks that its references hold
and that its scheduler names are registered, and records how each trace was resolved
(``data.resolve_trace``: real file or SYNTHETIC stand-in). docs/pipeline.md documents every
key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from compass.experiments.profile import (
    EXTENSION_SCHEDULERS,
    LANE_ESTIMATES,
    BreakEvenConfig,
    ConfigError,
    DaySelection,
    Demand,
    Outputs,
    PhysicalConfig,
    Profile,
    RealTrace,
    TraceSpec,
    profile_dict,
    read_profile,
)
from compass.schedulers import names_with_role
from compass.sweeping import OnError
from compass.traces.synthetic import KINDS as SYNTHETIC_KINDS

#: The paper's seven schedulers (section 5.4) and the SIFOpt oracle (appendix C), read
#: from the schedulers' cards (roles paper, baseline, oracle).
PAPER_SCHEDULERS = names_with_role("paper", "baseline", "oracle")


def lane_label(scheduler: str, estimate: str) -> str:
    """The label of an extension scheduler's run under a runtime estimate, as batches and
    tables name it: ``compass-abs-plus@user``; under ``exact`` (its default) its name."""
    return scheduler if estimate == "exact" else f"{scheduler}@{estimate}"


def lane_runs(extension: Sequence[str], estimates: Sequence[str],
              scheduler_params: Mapping[str, Mapping[str, Any]] | None = None
              ) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, registered scheduler, parameters) of the extension's lane: each extension
    scheduler with its ``scheduler_params`` (its own runtime estimate, by default the
    trace's durations), then each one again under each of ``estimates`` (label
    ``lane_label``; docs/theory.md, section 8, "Runtime estimates")."""
    params = scheduler_params or {}
    out = [(s, s, dict(params.get(s, {}))) for s in extension]
    out += [(lane_label(s, e), s, {**params.get(s, {}), "runtime_estimate": e})
            for e in estimates for s in extension]
    return out


@dataclass(frozen=True)
class ResolvedTrace:
    """A trace after resolution: real file or synthetic kind, and its concrete days."""

    spec: TraceSpec
    origin: Literal["real", "synthetic"]
    days: tuple[int, ...]
    note: str | None = None
    #: a real file that is not the published one, replayed because the profile trusts it
    unverified: bool = False
    #: the real source replayed (index into ``spec.sources``)
    source_index: int = 0

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def source(self) -> RealTrace | None:
        """The real source replayed (None for a SYNTHETIC trace)."""
        return self.spec.sources[self.source_index] if self.origin == "real" else None

    @property
    def label(self) -> str:
        """What every figure, table and the report say about the data (SYNTHETIC or REAL,
        and how a derived real table departs from the upstream log)."""
        source = self.source
        if source is not None:
            derived = f"; {source.derived}" if source.derived else ""
            trust = ", unverified local file" if self.unverified else ""
            return f"REAL {self.spec.name} ({source.path}{derived}{trust})"
        return f"SYNTHETIC {self.spec.synthetic}"

    def record(self) -> dict[str, Any]:
        """JSON-ready form (``from_record`` reads it back)."""
        spec = asdict(self.spec)
        spec["real"] = [asdict(s) for s in self.spec.sources] or None
        return {"origin": self.origin, "days": list(self.days), "note": self.note,
                "label": self.label, "spec": spec, "unverified": self.unverified,
                "source_index": self.source_index}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ResolvedTrace:
        spec = dict(record["spec"])
        real = spec.get("real")
        sources = tuple(RealTrace(**r) for r in (real if isinstance(real, list)
                                                  else [real] if real else []))
        spec["real"] = sources if len(sources) > 1 else sources[0] if sources else None
        spec["hours"] = tuple(spec["hours"])
        return cls(TraceSpec(**spec), record["origin"], tuple(record["days"]),
                   record.get("note"), bool(record.get("unverified", False)),
                   int(record.get("source_index", 0)))


@dataclass(frozen=True)
class CaseStudyConfig:
    """Section 6.6: the paper's window, and how to pick a comparable one on other data."""

    trace: str
    eta: float
    paper_day: int
    paper_start_h: float
    paper_end_h: float
    window_minutes: float
    step_minutes: float
    candidate_days: tuple[int, ...] | None


@dataclass(frozen=True)
class Experiments:
    """What each experiment of section 6 runs (trace names refer to ``traces``)."""

    overall_traces: tuple[str, ...]
    overall_eta: float
    eta_trace: str
    etas: tuple[float, ...]
    #: the sweep's days; None: every day of its trace
    eta_days: DaySelection | None
    composition_traces: tuple[str, ...]
    composition_eta: float
    composition_min_jobs: int
    wcc_traces: tuple[str, ...]
    wcc_etas: tuple[float, ...]
    migration_traces: tuple[str, ...]
    migration_eta: float
    migration_costs: tuple[float, ...]
    migration_days: Mapping[str, DaySelection]
    case: CaseStudyConfig
    #: None: the physical runs are off (they need the runtime extra and wall-clock time)
    physical: PhysicalConfig | None
    #: None: no FFT round-length sweep
    fft_breakeven: BreakEvenConfig | None


@dataclass(frozen=True)
class RunSettings:
    """What a simulator run depends on besides its trace window, eta and c (the Snakemake
    rules pass exactly this, so that other config changes do not redo the runs)."""

    schedulers: tuple[str, ...]
    seed: int
    scheduler_params: Mapping[str, Mapping[str, Any]]
    pause_rule: str
    on_error: OnError
    demand: Demand
    progress: bool = False
    #: sensitivity variants: label -> {"scheduler": base, "params": its parameters}
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: our extension's schedulers (``EXTENSION_SCHEDULERS``), run beside the paper's
    extension: tuple[str, ...] = ()
    #: runtime estimates (``LANE_ESTIMATES``) under which each extension scheduler also runs
    extension_estimates: tuple[str, ...] = ()

    def record(self) -> dict[str, Any]:
        """JSON-ready form (``from_record`` reads it back); without the extension's keys when
        they are empty, so that a profile without the lane keeps its batches' parameters."""
        out = {**asdict(self), "schedulers": list(self.schedulers),
               "extension": list(self.extension),
               "extension_estimates": list(self.extension_estimates),
               "scheduler_params": {k: dict(v) for k, v in self.scheduler_params.items()},
               "variants": {k: {"scheduler": v["scheduler"], "params": dict(v["params"])}
                            for k, v in self.variants.items()}}
        for key in ("extension", "extension_estimates"):
            if not out[key]:
                del out[key]
        return out

    def extension_runs(self) -> list[tuple[str, str, dict[str, Any]]]:
        """The extension's lane (``lane_runs``) with the profile's ``scheduler_params``."""
        return lane_runs(self.extension, self.extension_estimates, self.scheduler_params)

    def runs(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(label, registered scheduler, parameters) of every run of a batch: each scheduler
        with its ``scheduler_params``, then each variant (its base's parameters updated by
        the variant's), then the extension's lane (``extension_runs``)."""
        out = [(s, s, dict(self.scheduler_params.get(s, {}))) for s in self.schedulers]
        for label, v in self.variants.items():
            base = v["scheduler"]
            out.append((label, base, {**self.scheduler_params.get(base, {}), **v["params"]}))
        return out + self.extension_runs()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RunSettings:
        return cls(**{**record, "schedulers": tuple(record["schedulers"]),
                      "extension": tuple(record.get("extension", ())),
                      "extension_estimates": tuple(record.get("extension_estimates", ()))})


@dataclass(frozen=True)
class PipelineConfig:
    """A parsed profile: the pipeline's view of ``spec`` (``pipeline_config``), whose keys of
    the same names these fields hold (traces with the profile's ``trust_local``)."""

    profile: str
    run: RunSettings
    reference: str
    baselines: tuple[str, ...]
    migration_cost: float
    traces: Mapping[str, TraceSpec]
    experiments: Experiments
    outputs: Outputs
    samples: int
    regimes: Mapping[str, Mapping[str, str]]
    compare_plugins: tuple[str, ...]
    #: the typed profile (config.json writes it, the regimes derive theirs from it)
    spec: Profile = field(compare=False, repr=False)

    @property
    def schedulers(self) -> tuple[str, ...]:
        return self.run.schedulers

    @property
    def seed(self) -> int:
        return self.run.seed

    @property
    def variants(self) -> Mapping[str, Mapping[str, Any]]:
        return self.run.variants

    @property
    def extension(self) -> tuple[str, ...]:
        """Our extension's schedulers that every batch also runs (none: the lane is off)."""
        return self.run.extension

    @property
    def extension_labels(self) -> tuple[str, ...]:
        """The labels of every run of the extension's lane (``RunSettings.extension_runs``):
        its schedulers, then each under each of ``extension_estimates``."""
        return tuple(label for label, _, _ in self.run.extension_runs())

    def sample_seeds(self, trace: ResolvedTrace) -> tuple[int, ...]:
        """Seeds of a trace's samples: ``samples`` consecutive seeds from ``seed`` for a
        SYNTHETIC trace (each draws the same day anew), the base seed alone for a real one
        (its days are its samples)."""
        count = self.samples if trace.origin == "synthetic" else 1
        return tuple(range(self.seed, self.seed + count))

    @property
    def ranked(self) -> tuple[str, ...]:
        """Schedulers ranked against each other: the reference and the baselines (the paper's
        seven; the oracle is run and plotted but not ranked)."""
        return tuple(s for s in self.schedulers if s == self.reference or s in self.baselines)

    @property
    def results_dir(self) -> Path:
        return Path(self.outputs.results) / self.profile


def parse_config(raw: Mapping[str, Any]) -> PipelineConfig:
    """A ``PipelineConfig`` from a profile dict (``read_profile``; the Snakefile has checked
    it against the schema, a config.json's or a test's dict has not).

    Raises ``ConfigError`` on a key missing or of the wrong shape, references to traces
    that are not configured, or a reference scheduler missing from ``schedulers``.
    """
    return pipeline_config(read_profile(raw))


def pipeline_config(profile: Profile) -> PipelineConfig:
    """The pipeline's view of a typed profile (checked as ``parse_config`` says)."""
    x, case = profile.experiments, profile.experiments.case_study
    window = case.paper_window
    experiments = Experiments(
        overall_traces=x.overall.traces, overall_eta=x.overall.eta,
        eta_trace=x.eta_sweep.trace, etas=x.eta_sweep.etas, eta_days=x.eta_sweep.days,
        composition_traces=x.composition.traces, composition_eta=x.composition.eta,
        composition_min_jobs=x.composition.min_jobs,
        wcc_traces=x.wcc_coverage.traces, wcc_etas=x.wcc_coverage.etas,
        migration_traces=x.cost_sweep.traces, migration_eta=x.cost_sweep.eta,
        migration_costs=x.cost_sweep.costs, migration_days=x.cost_sweep.days,
        case=CaseStudyConfig(case.trace, case.eta, window.day, window.start_h, window.end_h,
                             case.window_minutes, case.step_minutes, case.candidate_days),
        physical=x.physical, fft_breakeven=x.fft_breakeven)
    run = RunSettings(
        schedulers=profile.schedulers, seed=profile.seed,
        scheduler_params=profile.scheduler_params, pause_rule=profile.pause_rule,
        on_error=profile.on_error, demand=profile.sizing.demand, progress=profile.progress,
        variants={k: {"scheduler": v.scheduler, "params": v.params}
                  for k, v in profile.variants.items()},
        extension=profile.extension,
        # estimates without an extension scheduler run nothing (and change no batch)
        extension_estimates=profile.extension_estimates if profile.extension else ())
    cfg = PipelineConfig(
        profile=profile.profile, run=run, reference=profile.reference,
        baselines=profile.baselines, migration_cost=profile.migration_cost,
        traces={name: _trusted(spec, profile.trust_local)
                for name, spec in profile.traces.items()},
        experiments=experiments, outputs=profile.outputs, samples=profile.samples,
        regimes=profile.regimes, compare_plugins=profile.compare_plugins, spec=profile)
    _check_references(cfg)
    return cfg


def _trusted(spec: TraceSpec, trust_local: bool) -> TraceSpec:
    """A trace whose real sources carry the profile's ``trust_local``."""
    sources = tuple(replace(s, trust_local=trust_local) for s in spec.sources)
    return replace(spec, real=sources if len(sources) > 1 else sources[0] if sources else None)


def _check_references(cfg: PipelineConfig) -> None:
    for name, spec in cfg.traces.items():
        if len(spec.hours) != 2 or not 0 <= spec.hours[0] < spec.hours[1] <= 24:
            raise ConfigError(f"traces.{name}.hours must be [h0, h1] with 0 <= h0 < h1 <= 24")
    x = cfg.experiments
    used = {*x.overall_traces, x.eta_trace, *x.composition_traces, *x.wcc_traces,
            *x.migration_traces, x.case.trace, *x.migration_days,
            *([x.physical.trace] if x.physical and not x.physical.scenario else []),
            *(x.fft_breakeven.traces if x.fft_breakeven else ()),
            *(x.fft_breakeven.days if x.fft_breakeven else ())}
    missing = sorted(used - set(cfg.traces))
    if missing:
        raise ConfigError(f"experiments refer to traces not under 'traces': {missing}")
    sweep = x.fft_breakeven
    if sweep is not None and not set(sweep.traces) <= set(x.overall_traces):
        raise ConfigError(f"experiments.fft_breakeven.traces {list(sweep.traces)}: each must "
                          f"be a trace of experiments.overall {list(x.overall_traces)} (the "
                          "sweep pairs FFT with COMPASS-ABS's runs there)")
    if cfg.reference not in cfg.schedulers:
        raise ConfigError(f"reference scheduler {cfg.reference!r} is not in schedulers")
    outside = [b for b in cfg.baselines if b not in cfg.schedulers]
    if outside or cfg.reference in cfg.baselines:
        kept = [b for b in cfg.baselines if b in cfg.schedulers and b != cfg.reference]
        raise ConfigError(f"baselines {outside or [cfg.reference]} "
                          + ("are not in schedulers " if outside else "name the reference ")
                          + f"{list(cfg.schedulers)}: every baseline must be a scheduler "
                          "this profile runs (a misspelt one would drop out of every "
                          f"ranking). Fix the name, or --config 'baselines={json.dumps(kept)}'")
    if len(set(cfg.schedulers)) != len(cfg.schedulers):
        raise ConfigError(f"schedulers lists a name twice: {list(cfg.schedulers)}")
    wrong = [s for s in cfg.compare_plugins
             if s not in cfg.schedulers or s in cfg.ranked]
    if wrong:
        raise ConfigError(f"compare_plugins {wrong}: each must be a scheduler this profile "
                          f"runs ({list(cfg.schedulers)}) and neither the reference nor a "
                          "baseline: add it under schedulers (and its module under plugins)")
    for label, v in cfg.run.variants.items():
        if v["scheduler"] not in cfg.baselines or v["scheduler"] not in cfg.schedulers:
            raise ConfigError(f"variants.{label}: {v['scheduler']!r} is not a baseline that "
                              f"this profile runs ({list(cfg.baselines)}); run it, or drop "
                              "the variants with --config 'variants={}'")
        if label in (*cfg.schedulers, *cfg.extension_labels):
            raise ConfigError(f"variants.{label}: the label is a scheduler of the profile; "
                              "give the variant its own name")
    beyond = [s for s in cfg.extension if s not in EXTENSION_SCHEDULERS]
    if beyond:
        raise ConfigError(f"extension names {beyond}, not our extension's schedulers "
                          f"{list(EXTENSION_SCHEDULERS)}; the paper's go under schedulers")
    if len(set(cfg.extension)) != len(cfg.extension):
        raise ConfigError(f"extension lists a name twice: {list(cfg.extension)}")
    estimates = cfg.run.extension_estimates
    beyond = [e for e in estimates if e not in LANE_ESTIMATES]
    if beyond or len(set(estimates)) != len(estimates):
        raise ConfigError(f"extension_estimates {list(estimates)}: each of "
                          f"{list(LANE_ESTIMATES)} at most once (the extension runs under "
                          "the trace's own durations, 'exact', anyway)")
    _check_regimes(cfg)


def _check_regimes(cfg: PipelineConfig) -> None:
    """Each regime (profile key ``regimes``) maps traces of the profile to known SYNTHETIC
    kinds: config/schema.yaml says so too, and a profile parsed without the schema (a
    config.json read back, a test's dict) is checked here."""
    for name, kinds in cfg.regimes.items():
        if not kinds:
            raise ConfigError(f"regimes.{name}: maps no trace; give trace: synthetic kind")
        unknown = sorted(set(kinds) - set(cfg.traces))
        if unknown:
            raise ConfigError(f"regimes.{name}: traces {unknown} are not under 'traces'")
        for trace, kind in kinds.items():
            if kind not in SYNTHETIC_KINDS:
                raise ConfigError(f"regimes.{name}.{trace}: unknown synthetic kind {kind!r}; "
                                  f"one of {list(SYNTHETIC_KINDS)}")


def check_schedulers(names: Sequence[str], available: Sequence[str]) -> None:
    """Raise ``ConfigError`` naming every scheduler the registry does not know."""
    unknown = [s for s in names if s not in available]
    if unknown:
        raise ConfigError(
            f"schedulers not registered in compass.schedulers: {unknown}; registered: "
            f"{sorted(available)}. Run a subset with, e.g., "
            f"--config 'schedulers={json.dumps([s for s in names if s in available])}'"
        )


def config_record(cfg: PipelineConfig, resolved: Mapping[str, ResolvedTrace]) -> dict[str, Any]:
    """The JSON the pipeline writes beside its results: the profile (``profile_dict``) plus
    resolved traces."""
    return {"profile": profile_dict(cfg.spec),
            "resolved": {name: r.record() for name, r in resolved.items()}}


def read_config_record(record: Mapping[str, Any]
                       ) -> tuple[PipelineConfig, dict[str, ResolvedTrace]]:
    """The parsed profile and resolved traces of a ``config_record`` (of any version: each
    holds the profile's dict)."""
    return (parse_config(record["profile"]),
            {k: ResolvedTrace.from_record(v) for k, v in record["resolved"].items()})
