"""The pipeline's configuration: a profile (``config/*.yaml``) parsed into dataclasses.

A profile names the schedulers, the traces with their days, and what each paper experiment
of section 6 needs (eta values, migration costs, the case-study window). The Snakefile
validates the YAML against ``config/schema.yaml`` first; this module turns it into typed
objects, checks that its references hold and that its scheduler names are registered, and
records how each trace was resolved (``data.resolve_trace``: real file or SYNTHETIC
stand-in). docs/pipeline.md documents every key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from compass.schedulers import names_with_role
from compass.schedulers.estimates import ESTIMATES
from compass.sim.table_files import DEFAULT_FORMAT
from compass.sweeping import OnError
from compass.traces.synthetic import KINDS as SYNTHETIC_KINDS

#: The paper's seven schedulers (section 5.4) and the SIFOpt oracle (appendix C), read
#: from the schedulers' cards (roles paper, baseline, oracle).
PAPER_SCHEDULERS = names_with_role("paper", "baseline", "oracle")
#: Our extension's schedulers, beyond the paper (docs/theory.md section 8): the profile key
#: ``extension`` may name these only, and they never take part in a paper experiment.
#: ``gfs-backfill`` (role reference: best-fit under the same EASY backfill) tells how
#: much of COMPASS-ABS+'s lead its queue policy alone gives.
EXTENSION_SCHEDULERS = names_with_role("extension", "reference")
#: The runtime estimates (``compass.schedulers.estimates``) beyond the trace's own durations
#: (``exact``, the extension's default) that the profile key ``extension_estimates`` may
#: name: each extension scheduler then also runs under each of them.
LANE_ESTIMATES = tuple(e for e in ESTIMATES if e != "exact")


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

Demand = Literal["window", "support"]
#: Days of a trace: a list of indices, "all", or {start, stop, step}.
DaySelection = list[int] | str | dict[str, int | None]


class ConfigError(ValueError):
    """A profile that cannot be run; the message says which key and why."""


@dataclass(frozen=True)
class RealTrace:
    """A real trace file (fetched by ``compass trace fetch``, or shipped in data/), its
    loader format and the loader's ``options`` (e.g. helios ``origin``).

    ``trust_local`` (the profile's top-level key): replay the file even when it is not the
    published one (``compass trace verify``), labelled "unverified local file".
    """

    path: str
    format: str = "auto"
    trust_local: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def derived(self) -> str:
        """How the format's file departs from the upstream log ("" for none or auto)."""
        from compass.traces.formats import formats
        fmt = formats().get(self.format)
        return fmt.derived if fmt is not None else ""


@dataclass(frozen=True)
class TraceSpec:
    """One of the paper's traces as a profile asks for it.

    ``real``: the real source, or several tried in order (the first present one is
    replayed). ``days``: a list of day indices, ``"all"``, or ``{start, stop, step}`` (stop
    exclusive, None for the trace's end). ``hours``: the part of each day replayed, [h0, h1)
    hours (0-24: the whole day). ``nodes``: a fixed cluster size instead of N(eta) (eq. 13).
    """

    name: str
    synthetic: str
    real: RealTrace | tuple[RealTrace, ...] | None = None
    use_real: Literal["auto", "never"] = "auto"
    days: DaySelection = "all"
    hours: tuple[float, float] = (0.0, 24.0)
    nodes: int | None = None

    @property
    def sources(self) -> tuple[RealTrace, ...]:
        """The real sources in the order they are tried (none: SYNTHETIC only)."""
        if self.real is None:
            return ()
        return self.real if isinstance(self.real, tuple) else (self.real,)


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


#: Physical scenarios a profile may name as ``experiments.physical.trace`` without a
#: ``traces`` entry: fixed job lists (``physmix-migrate``: ``compass.traces.physmix_migrate``,
#: designed so that COMPASS-ABS migrates).
PHYSICAL_SCENARIOS = ("physmix-migrate",)


@dataclass(frozen=True)
class PhysicalConfig:
    """Section 5.1: Phys-Mix run as real training jobs on Ray (``compass.runtime``).

    The first ``max_jobs`` jobs of ``day`` of ``trace`` (a trace under ``traces``, or one of
    ``PHYSICAL_SCENARIOS``, whose ``day`` is ignored), on ``nodes`` emulated 8-GPU nodes, at
    ``time_scale`` trace seconds per wall second, under each of ``schedulers`` in turn.
    Needs the ``runtime`` extra (torch, ray); docs/runtime.md.
    """

    trace: str
    day: int
    schedulers: tuple[str, ...]
    nodes: int
    max_jobs: int
    time_scale: float

    @property
    def scenario(self) -> bool:
        """Whether ``trace`` names a fixed scenario rather than a configured trace."""
        return self.trace in PHYSICAL_SCENARIOS


@dataclass(frozen=True)
class BreakEvenConfig:
    """FFT's break-even (``compass.experiments.breakeven``): the overall experiment's samples
    of ``days`` (per trace; absent: every day) of ``traces`` replayed under FFT at each of
    ``rounds_s`` (seconds), at the overall eta and the profile's c."""

    traces: tuple[str, ...]
    rounds_s: tuple[float, ...]
    days: Mapping[str, DaySelection] = field(default_factory=dict)


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
    physical: PhysicalConfig | None = None
    #: None: no FFT round-length sweep
    fft_breakeven: BreakEvenConfig | None = None


@dataclass(frozen=True)
class Outputs:
    """Where the products go (relative to the working directory)."""

    results: str
    figures: str
    tables: str
    report: str
    #: the file format of the per-run tables under ``results`` (runs, parts, case study,
    #: NVL72, physical): csv or parquet (``compass.sim.table_files``)
    table_format: str = DEFAULT_FORMAT


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
    """A parsed profile."""

    profile: str
    run: RunSettings
    reference: str
    baselines: tuple[str, ...]
    migration_cost: float
    traces: Mapping[str, TraceSpec]
    experiments: Experiments
    outputs: Outputs
    #: seeds per day of a SYNTHETIC trace; each (day, seed) pair is one sample
    samples: int = 1
    #: sensitivity regimes: name -> {trace -> synthetic kind} on which the comparison
    #: experiments are replayed apart (``compass.experiments.studies.regime``); empty: none
    regimes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: outside (plugin) schedulers of ``schedulers`` that the report compares against the
    #: reference and the strongest baseline (``compass.experiments.plugin_leads``)
    compare_plugins: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

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


def _tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _given(raw: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The keys of ``raw`` that a profile gives: the others take the dataclass's default, the
    one place each default is written."""
    return {k: raw[k] for k in keys if k in raw}


def _trace(name: str, raw: Mapping[str, Any], trust_local: bool = False) -> TraceSpec:
    real = raw.get("real")
    optional = _given(raw, ("use_real", "days", "nodes", "hours"))
    if "hours" in optional:
        hours = tuple(float(h) for h in optional["hours"])
        if not (len(hours) == 2 and 0 <= hours[0] < hours[1] <= 24):
            raise ConfigError(f"traces.{name}.hours must be [h0, h1] with 0 <= h0 < h1 <= 24")
        optional["hours"] = hours
    sources = tuple(RealTrace(r["path"], trust_local=trust_local,
                              **_given(r, ("format", "options")))
                    for r in (real if isinstance(real, list) else [real] if real else []))
    return TraceSpec(
        name=name, synthetic=raw["synthetic"],
        real=sources if len(sources) > 1 else sources[0] if sources else None,
        **optional,
    )


#: The c-sweep block of ``experiments`` (section 6.5), and its earlier spelling, still read.
COST_SWEEP, COST_SWEEP_OLD = "cost_sweep", "migration_cost"


def cost_sweep_block(experiments: Mapping[str, Any]) -> Mapping[str, Any]:
    """The c-sweep block of a profile's ``experiments``: the one place that reads it under
    its earlier name too (``COST_SWEEP_OLD``); both names at once are refused."""
    if COST_SWEEP in experiments and COST_SWEEP_OLD in experiments:
        raise ConfigError(f"experiments.{COST_SWEEP} and experiments.{COST_SWEEP_OLD} are the "
                          f"same block (the old name); give it once, as {COST_SWEEP}")
    return experiments[COST_SWEEP] if COST_SWEEP in experiments else experiments[COST_SWEEP_OLD]


def _experiments(raw: Mapping[str, Any]) -> Experiments:
    m = cost_sweep_block(raw)
    o, e, c, w, k = (raw[x] for x in ("overall", "eta_sweep", "composition", "wcc_coverage",
                                      "case_study"))
    case = CaseStudyConfig(
        trace=k["trace"], eta=float(k["eta"]), paper_day=int(k["paper_window"]["day"]),
        paper_start_h=float(k["paper_window"]["start_h"]),
        paper_end_h=float(k["paper_window"]["end_h"]),
        window_minutes=float(k["window_minutes"]), step_minutes=float(k["step_minutes"]),
        candidate_days=None if k.get("candidate_days") is None else _tuple(k["candidate_days"]),
    )
    return Experiments(
        overall_traces=_tuple(o["traces"]), overall_eta=float(o["eta"]),
        eta_trace=e["trace"], etas=tuple(float(x) for x in e["etas"]),
        eta_days=e.get("days"),
        composition_traces=_tuple(c["traces"]), composition_eta=float(c["eta"]),
        composition_min_jobs=int(c["min_jobs"]),
        wcc_traces=_tuple(w["traces"]), wcc_etas=tuple(float(x) for x in w["etas"]),
        migration_traces=_tuple(m["traces"]), migration_eta=float(m["eta"]),
        migration_costs=tuple(float(x) for x in m["costs"]),
        migration_days=dict(m.get("days") or {}),
        case=case,
        physical=_physical(raw.get("physical")),
        fft_breakeven=None if raw.get("fft_breakeven") is None else BreakEvenConfig(
            _tuple(raw["fft_breakeven"]["traces"]),
            tuple(float(r) for r in raw["fft_breakeven"]["rounds_s"]),
            dict(raw["fft_breakeven"].get("days") or {})),
    )


def _physical(raw: Mapping[str, Any] | None) -> PhysicalConfig | None:
    if raw is None:
        return None
    return PhysicalConfig(
        trace=raw["trace"], day=int(raw["day"]), schedulers=_tuple(raw["schedulers"]),
        nodes=int(raw["nodes"]), max_jobs=int(raw["max_jobs"]),
        time_scale=float(raw["time_scale"]),
    )


def parse_config(raw: Mapping[str, Any]) -> PipelineConfig:
    """A ``PipelineConfig`` from a profile dict (already schema-checked by the Snakefile).

    Raises ``ConfigError`` on references to traces that are not configured, or a reference
    scheduler missing from ``schedulers``.
    """
    trust_local = bool(raw.get("trust_local", False))
    traces = {name: _trace(name, spec, trust_local) for name, spec in raw["traces"].items()}
    experiments = _experiments(raw["experiments"])
    run = RunSettings(
        schedulers=_tuple(raw["schedulers"]), seed=int(raw["seed"]),
        scheduler_params={k: dict(v) for k, v in (raw.get("scheduler_params") or {}).items()},
        pause_rule=raw["pause_rule"], on_error=raw["on_error"], demand=raw["sizing"]["demand"],
        **_given(raw, ("progress",)),
        variants={k: {"scheduler": v["scheduler"], "params": dict(v["params"])}
                  for k, v in (raw.get("variants") or {}).items()},
        extension=_tuple(raw.get("extension") or ()),
        # estimates without an extension scheduler run nothing (and change no batch)
        extension_estimates=_tuple(raw.get("extension_estimates") or ()
                                   if raw.get("extension") else ()),
    )
    cfg = PipelineConfig(
        profile=raw["profile"], run=run, reference=raw["reference"],
        baselines=_tuple(raw["baselines"]), migration_cost=float(raw["migration_cost"]),
        traces=traces, experiments=experiments, outputs=Outputs(**raw["outputs"]),
        **{k: int(v) for k, v in _given(raw, ("samples",)).items()},
        regimes={name: dict(kinds) for name, kinds in (raw.get("regimes") or {}).items()},
        compare_plugins=_tuple(raw.get("compare_plugins") or ()),
        raw=dict(raw),
    )
    _check_references(cfg)
    return cfg


def _check_references(cfg: PipelineConfig) -> None:
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
    """The JSON the pipeline writes beside its results: the profile plus resolved traces."""
    return {"profile": dict(cfg.raw),
            "resolved": {name: r.record() for name, r in resolved.items()}}


def read_config_record(record: Mapping[str, Any]
                       ) -> tuple[PipelineConfig, dict[str, ResolvedTrace]]:
    """The parsed profile and resolved traces of a ``config_record``."""
    return (parse_config(record["profile"]),
            {k: ResolvedTrace.from_record(v) for k, v in record["resolved"].items()})
