"""A pipeline profile (``config/*.yaml``) as typed dataclasses: the one place where each key
is written, with its type, default, constraints and description.

Each block of the YAML is a frozen dataclass whose fields are its keys; ``key`` gives a field
its description, its JSON Schema constraints (``Schema``: minimum, minItems, ...) and an
earlier name still read. ``Profile`` is the whole file. ``read_profile`` builds one from the
YAML's dict (a profile the Snakefile validated, the ``profile`` of a config.json of any
version, a test's dict); ``profile_dict`` writes one back as the YAML would give it (config.json
holds it). ``compass.experiments.config_schema`` generates config/schema.yaml from these
classes, ``compass.experiments.config`` turns a profile into the pipeline's view of it, and
the sensitivity regimes derive their profiles from one with ``dataclasses.replace``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from functools import cache
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from compass.schedulers import names_with_role
from compass.schedulers.estimates import ESTIMATES
from compass.sim.simulator import PauseRule
from compass.sim.table_files import DEFAULT_FORMAT, TableFormat
from compass.sweeping import OnError
from compass.traces.formats.alibaba_openb import Fractional
from compass.traces.synthetic import KINDS as SYNTHETIC_KINDS


class ConfigError(ValueError):
    """A profile that cannot be run; the message says which key and why."""


class Schema:
    """JSON Schema constraints of a type, ``Annotated[int, Schema(minimum=0)]``. With a
    ``name`` the type is an entry of the schema's ``$defs``, referred to where it is used;
    ``exact``: the constraints are its whole schema (for a type looser in Python than in the
    profile)."""

    def __init__(self, name: str | None = None, *, exact: bool = False, **rules: Any) -> None:
        self.name, self.exact, self.rules = name, exact, rules


#: Field metadata: a key's description and schema (``key``), or the role of a field that is
#: no key of its block (``named``, ``set_elsewhere``).
KEY, ROLE = "profile key", "profile role"


def key(default: Any = MISSING, *, doc: str = "", required: bool = False,
        old: str | None = None, null: bool = True, **rules: Any) -> Any:
    """A field that is a key of its block: its default (``{}`` for an empty map), its
    description and JSON Schema ``rules``. ``required``: the schema requires a profile to
    write the key although the reader defaults it (a dict read without the schema may leave
    it out); ``old``: the key's earlier name, still read (not both); ``null=False``: None
    stands for an absent key (the schema refuses null, the writer leaves it out)."""
    meta = {KEY: {"doc": doc, "required": required, "old": old, "null": null, "rules": rules}}
    if default == {}:
        return field(default_factory=dict, metadata=meta)
    return field(default=default, metadata=meta)


def named() -> Any:
    """The field holding a block's name, which is its key in the map it sits in."""
    return field(metadata={ROLE: "name"})


def set_elsewhere(default: Any) -> Any:
    """A field that is no key of its block: ``compass.experiments.config`` sets it from other
    keys."""
    return field(default=default, metadata={ROLE: "set elsewhere"})


#: The runtime estimates (``compass.schedulers.estimates``) beyond the trace's own durations
#: (``exact``, the extension's default) that the profile key ``extension_estimates`` may
#: name: each extension scheduler then also runs under each of them.
LANE_ESTIMATES = tuple(e for e in ESTIMATES if e != "exact")
#: Our extension's schedulers, beyond the paper (docs/theory.md section 8): the profile key
#: ``extension`` may name these only, and they never take part in a paper experiment.
#: ``gfs-backfill`` (role reference: best-fit under the same EASY backfill) tells how
#: much of COMPASS-ABS+'s lead its queue policy alone gives.
EXTENSION_SCHEDULERS = names_with_role("extension", "reference")
#: Physical scenarios a profile may name as ``experiments.physical.trace`` without a
#: ``traces`` entry: fixed job lists (``physmix-migrate``: ``compass.traces.physmix_migrate``,
#: designed so that COMPASS-ABS migrates).
PHYSICAL_SCENARIOS = ("physmix-migrate",)

Demand = Literal["window", "support"]
#: Days of a trace: a list of indices, "all", or {start, stop, step}.
DaySelection = Annotated[list[int] | str | dict[str, int | None], Schema(
    "days", exact=True,
    description='a list of day indices, "all", or a range {start, stop (exclusive, null = '
                'end), step}',
    oneOf=[{"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
           {"const": "all"},
           {"type": "object", "additionalProperties": False,
            "properties": {"start": {"type": "integer", "minimum": 0},
                           "stop": {"type": ["integer", "null"], "minimum": 1},
                           "step": {"type": "integer", "minimum": 1}}}])]
Eta = Annotated[float, Schema("eta", exclusiveMinimum=0, maximum=1)]
TraceName = Annotated[str, Schema("trace_name", pattern="^[a-z0-9-]+$")]
SyntheticKind = Annotated[str, Schema("synthetic_kind", enum=list(SYNTHETIC_KINDS))]
Label = Annotated[str, Schema(pattern="^[a-z0-9-]+$")]
Hour = Annotated[float, Schema(minimum=0, maximum=24)]
DayIndex = Annotated[int, Schema(minimum=0)]
Positive = Annotated[float, Schema(exclusiveMinimum=0)]
TraceNames = Annotated[tuple[TraceName, ...], Schema(minItems=1)]
Etas = Annotated[tuple[Eta, ...], Schema(minItems=1)]


@dataclass(frozen=True)
class RealTrace:
    """A real trace file (fetched by ``compass trace fetch``, or shipped in data/), its loader
    format and the loader's ``options``; ``trust_local``: the profile's top-level key."""

    path: str = key(doc="the file, relative to the working directory")
    format: str = key("auto", required=True, doc=(
        "auto (detected from the header) or a registered trace format (compass.traces.formats, "
        "plugins' included); checked when the plan is made"))
    trust_local: bool = set_elsewhere(False)
    options: Mapping[str, Any] = key({}, doc=(
        "the format loader's options (e.g. helios origin), passed as given"))

    @property
    def derived(self) -> str:
        """How the format's file departs from the upstream log ("" for none or auto)."""
        from compass.traces.formats import formats
        fmt = formats().get(self.format)
        return fmt.derived if fmt is not None else ""


@dataclass(frozen=True)
class TraceSpec:
    """One of the paper's traces as a profile asks for it (an entry of ``traces``)."""

    name: str = named()
    synthetic: SyntheticKind = key(doc=(
        "the SYNTHETIC kind (compass.traces.synthetic) replayed when no real source is"))
    real: RealTrace | Annotated[tuple[RealTrace, ...], Schema(minItems=1)] | None = key(
        None, required=True, doc=(
            "a real source, or a list of them tried in order (the first present one is "
            "replayed; Venus: the fetched full log, else the derived table data/ ships)"))
    use_real: Literal["auto", "never"] = key("auto", required=True, doc=(
        "auto: the first present real source, else the SYNTHETIC kind; never: SYNTHETIC only"))
    days: DaySelection = key("all", required=True, doc="the days replayed")
    hours: tuple[Hour, Hour] = key((0.0, 24.0), required=True, doc=(
        "the part of each day replayed, [h0, h1) hours (0-24: the whole day)"))
    nodes: int | None = key(None, required=True, minimum=1, doc=(
        "a fixed cluster size instead of N(eta) of eq. 13 (null)"))

    @property
    def sources(self) -> tuple[RealTrace, ...]:
        """The real sources in the order they are tried (none: SYNTHETIC only)."""
        if self.real is None:
            return ()
        return self.real if isinstance(self.real, tuple) else (self.real,)


@dataclass(frozen=True, kw_only=True)
class SizingBlock:
    """How the cluster of a window is sized (docs/pipeline.md, "Sizing")."""

    demand: Demand = key(doc=(
        "where p_eta of eq. 13 is measured: window (inside the replayed window) or support"))


@dataclass(frozen=True, kw_only=True)
class VariantBlock:
    """A sensitivity variant: a baseline under other parameters."""

    scheduler: str = key(doc="the baseline it varies")
    params: Mapping[str, Any] = key(doc="its parameters, over the baseline's scheduler_params")


@dataclass(frozen=True, kw_only=True)
class OverallBlock:
    """Section 6.1 (Fig. 1)."""

    traces: TraceNames = key(doc="the traces compared")
    eta: Eta = key(doc="the load level eta of eq. 13")


@dataclass(frozen=True, kw_only=True)
class EtaSweepBlock:
    """Section 6.2 (Fig. 2)."""

    trace: TraceName = key(doc="the trace swept")
    etas: Etas = key(doc="the eta values")
    days: DaySelection | None = key(None, null=False, doc=(
        "optional, the days of the sweep (default every day of the trace)"))


@dataclass(frozen=True, kw_only=True)
class CompositionBlock:
    """Section 6.3 (Table 2, Fig. 3)."""

    traces: TraceNames = key(doc="the traces whose days are classed")
    eta: Eta = key(doc="the load level")
    min_jobs: int = key(minimum=0, doc="the fewest jobs of a candidate day")


@dataclass(frozen=True, kw_only=True)
class WccCoverageBlock:
    """Section 6.4 (Table 3)."""

    traces: TraceNames = key(doc="the traces measured")
    etas: Etas = key(doc="the eta values")


@dataclass(frozen=True, kw_only=True)
class CostSweepBlock:
    """Section 6.5 (Fig. 4): the c sweep."""

    traces: TraceNames = key(doc="the traces swept")
    eta: Eta = key(doc="the load level")
    costs: Annotated[tuple[Annotated[float, Schema(minimum=0)], ...], Schema(minItems=1)] = key(
        doc="the values of c, in seconds")
    days: Mapping[str, DaySelection] = key({}, required=True, doc=(
        "per trace, the days of the sweep (default every day of the trace)"))


@dataclass(frozen=True)
class BreakEvenConfig:
    """FFT's break-even (``compass.experiments.breakeven``): the overall experiment's samples
    of ``days`` (per trace; absent: every day) of ``traces`` replayed under FFT at each of
    ``rounds_s`` (seconds), at the overall eta and the profile's c."""

    traces: TraceNames = key(doc="traces of experiments.overall")
    rounds_s: Annotated[tuple[Positive, ...], Schema(minItems=2)] = key(
        doc="FFT's round lengths, in seconds")
    days: Mapping[str, DaySelection] = key({}, doc=(
        "per trace, the days of the sweep (default every day of the trace)"))


@dataclass(frozen=True, kw_only=True)
class PaperWindow:
    """The paper's case-study window."""

    day: DayIndex = key(doc="its day")
    start_h: Hour = key(doc="its start, in hours of the day")
    end_h: Hour = key(doc="its end, in hours of the day")


@dataclass(frozen=True, kw_only=True)
class CaseStudyBlock:
    """Section 6.6 (Figs. 5-7): the paper's window, and how to pick comparable ones."""

    trace: TraceName = key(doc="the trace of the windows")
    eta: Eta = key(doc="the load level")
    paper_window: PaperWindow = key(doc="the paper's window")
    window_minutes: Positive = key(doc="the length of a window, in minutes")
    step_minutes: Positive = key(doc="the step between candidate windows, in minutes")
    candidate_days: Annotated[tuple[DayIndex, ...], Schema(minItems=1)] | None = key(
        None, required=True, doc="the days searched for windows; null: every replayed day")


@dataclass(frozen=True)
class PhysicalConfig:
    """Section 5.1: Phys-Mix run as real training jobs on Ray (``compass.runtime``); needs
    the ``runtime`` extra (torch, ray); docs/runtime.md."""

    trace: TraceName = key(doc=(
        "a trace under traces, or a fixed scenario (PHYSICAL_SCENARIOS: physmix-migrate), whose "
        "day is ignored"))
    day: DayIndex = key(doc="the day replayed")
    schedulers: Annotated[tuple[str, ...], Schema(minItems=1)] = key(doc="run in turn")
    nodes: int = key(minimum=1, doc="emulated 8-GPU nodes")
    max_jobs: int = key(minimum=1, doc="the day's first jobs replayed")
    time_scale: Positive = key(doc="trace seconds per wall second")

    @property
    def scenario(self) -> bool:
        """Whether ``trace`` names a fixed scenario rather than a configured trace."""
        return self.trace in PHYSICAL_SCENARIOS


@dataclass(frozen=True, kw_only=True)
class ExperimentsBlock:
    """What each experiment of section 6 runs (trace names are keys of ``traces``)."""

    overall: OverallBlock = key(doc="the overall comparison")
    eta_sweep: EtaSweepBlock = key(doc="eta swept on one trace")
    composition: CompositionBlock = key(doc="the days classed by composition")
    wcc_coverage: WccCoverageBlock = key(doc="how often the WCC holds, per eta")
    cost_sweep: CostSweepBlock = key(old="migration_cost", doc=(
        "c swept; its earlier name migration_cost is still read (not both)"))
    fft_breakeven: BreakEvenConfig | None = key(None, doc=(
        "optional: FFT's break-even (compass.experiments.breakeven): the overall experiment's "
        "samples of these traces (each one of experiments.overall.traces) and days replayed "
        "under FFT at each round length, at the overall eta and migration_cost; absent or "
        "null: no sweep"))
    case_study: CaseStudyBlock = key(doc="the case study's windows")
    physical: PhysicalConfig | None = key(None, doc=(
        "Phys-Mix as real training jobs on Ray (section 5.1; docs/runtime.md); null: off. "
        "Needs the runtime extra (pip install torch==2.13.0 -e '.[runtime]')."))


@dataclass(frozen=True)
class ReplayConfig:
    """The openb replay: pod list, sizing level, busy-day threshold, GPU-sharing pods, c."""

    path: str = key(doc="the default pod list, relative to the repository")
    eta: Eta = key(0.9, required=True, doc="the load level")
    min_pods: int = key(50, required=True, minimum=1, doc=(
        "busy days: from the first to the last with at least this many submissions"))
    fractional: Fractional = key("drop", required=True, doc=(
        "GPU-sharing pods: drop (counted) or round-up to one whole GPU"))
    migration_cost: float = key(8.0, required=True, minimum=0, doc="c of the replay")


@dataclass(frozen=True)
class PackingConfig:
    """The openb packing: variants (name -> pod list), node list, seeds, GPU-sharing pods."""

    variants: Annotated[Mapping[str, str], Schema(minProperties=1)] = key(
        doc="name -> pod list")
    node_list: str = key(doc="the node list")
    seeds: int = key(minimum=2, doc="seeded arrival orders per variant")
    fractional: Fractional = key("drop", required=True, doc=(
        "GPU-sharing pods: drop (counted) or round-up to one whole GPU"))


@dataclass(frozen=True, kw_only=True)
class OpenbBlock:
    """The REAL openb experiments (``compass.experiments.studies.openb``)."""

    schedulers: Annotated[tuple[str, ...], Schema(minItems=1)] = key(
        uniqueItems=True, doc="the replay's schedulers")
    packing_schedulers: Annotated[tuple[str, ...], Schema(minItems=1)] = key(
        uniqueItems=True, doc="the packing's schedulers")
    replay: ReplayConfig = key(doc="the default pod list replayed in time")
    packing: PackingConfig = key(doc="the multi-GPU variants packed statically")


@dataclass(frozen=True)
class Outputs:
    """Where the products go (relative to the working directory)."""

    results: str = key(doc="the results root: a profile's go under <results>/<profile>/")
    figures: str = key(doc="the figures' folder")
    tables: str = key(doc="the tables' folder")
    report: str = key(doc="the claims report (Markdown)")
    table_format: TableFormat = key(DEFAULT_FORMAT, doc=(
        "optional: file format of the per-run tables under results (runs, each simulate job's "
        "part, the case study's, NVL72's, the physical runs'): csv or parquet (typed, smaller "
        "and faster to read for large runs)"))


Names = Annotated[tuple[Annotated[str, Schema(minLength=1)], ...], Schema(uniqueItems=True)]


@dataclass(frozen=True, kw_only=True)
class Profile:
    """A pipeline profile, key by key as config/*.yaml writes it (docs/pipeline.md)."""

    profile: str = key(pattern="^[A-Za-z0-9_-]+$", doc=(
        "the profile's name: its results go to <outputs.results>/<profile>/"))
    description: str = key(doc="what the profile runs (the report quotes it)")
    seed: int = key(minimum=0, doc="the base seed")
    samples: int = key(1, minimum=1, doc=(
        "seeds per day of a SYNTHETIC trace (seed, seed + 1, ...): each (day, seed) pair is "
        "one sample of the comparisons; a real trace has one sample per day."))
    plugins: Names = key((), doc=(
        "optional: modules imported before the schedulers are checked, in every job and "
        "notebook of the run: outside schedulers, named then under schedulers "
        "(docs/extending.md). Installed packages with a compass.schedulers entry point need "
        "no entry here."))
    compare_plugins: Names = key((), doc=(
        "optional: outside schedulers (from plugins) of schedulers that the report compares "
        "against the reference and the strongest baseline, with the paired-bootstrap leads "
        "of the claims, in its section \"Outside schedulers\" (docs/extending.md)."))
    schedulers: Annotated[tuple[str, ...], Schema(minItems=1)] = key(uniqueItems=True, doc=(
        "every scheduler to run, checked against the registry when the plan is made"))
    reference: str = key(doc="the scheduler the claims are about (one of schedulers)")
    baselines: tuple[str, ...] = key(uniqueItems=True, doc=(
        "the paper's baselines (section 5.4), each one of schedulers: the strongest "
        "baseline and the top-1 rankings use these"))
    scheduler_params: Mapping[str, Mapping[str, Any]] = key({}, required=True, doc=(
        "per-scheduler keyword arguments (compass.simulate(..., scheduler_params=))"))
    variants: Mapping[Label, VariantBlock] = key({}, doc=(
        "optional: baseline variants for the sensitivity section, each run beside its base "
        "in every batch; label -> {scheduler: a baseline, params: its parameters}"))
    extension: tuple[Annotated[str, Schema(enum=list(EXTENSION_SCHEDULERS))], ...] = key(
        (), uniqueItems=True, doc=(
            "optional: our extension's schedulers beyond the paper (compass.experiments."
            "profile.EXTENSION_SCHEDULERS), run beside the paper's in every batch and "
            "reported apart, in the report's section \"Beyond the paper\""))
    extension_estimates: tuple[Annotated[str, Schema(enum=list(LANE_ESTIMATES))], ...] = key(
        (), uniqueItems=True, doc=(
            "optional: runtime estimates beyond the trace's durations (compass.schedulers."
            "estimates; docs/theory.md section 8) under which each of the extension's "
            "schedulers also runs in every batch, labelled <scheduler>@<estimate> and "
            "reported apart"))
    regimes: Mapping[Label, Annotated[Mapping[TraceName, SyntheticKind],
                                      Schema(minProperties=1)]] = key({}, doc=(
        "optional: sensitivity regimes, each name -> {trace: synthetic kind}; the comparison "
        "experiments (overall, eta_sweep, composition, cost_sweep) are replayed on each "
        "regime's kinds into results/<profile>/regimes/<name>/ and judged apart (the "
        "regime study; docs/pipeline.md, \"Regimes\"); absent or empty: none"))
    migration_cost: float = key(minimum=0, doc="c outside the sweep, in seconds (section 6.5)")
    trust_local: bool = key(False, doc=(
        "replay a real file that is not the published one (compass trace verify), labelled "
        "\"unverified local file\""))
    pause_rule: PauseRule = key(doc=(
        "per-event (c once per job per instant with moves) or per-migration"))
    on_error: OnError = key(doc=(
        "record: a scheduler that raises is a failed run, reported; raise: the batch stops"))
    progress: bool = key(False, required=True, doc="a progress bar per simulator run")
    sizing: SizingBlock = key(doc="how each window's cluster is sized")
    traces: Annotated[Mapping[TraceName, TraceSpec], Schema(minProperties=1)] = key(
        doc="the traces, by name")
    experiments: ExperimentsBlock = key(doc="what each experiment of section 6 runs")
    openb: OpenbBlock | None = key(None, null=False, doc=(
        "REAL openb experiments (notebook 08, the openb study; docs/pipeline.md, "
        "\"openb\"); absent: off."))
    outputs: Outputs = key(doc="where the products go, relative to the working directory")


@cache
def hints(cls: type) -> dict[str, Any]:
    """The resolved field types of a block (``Annotated`` kept)."""
    return get_type_hints(cls, include_extras=True)


def role(f: Field) -> str | None:
    """What a field that is no key holds (``named``, ``set_elsewhere``); None for a key."""
    return f.metadata.get(ROLE)


def key_info(f: Field) -> dict[str, Any]:
    """A key's metadata (``key``'s arguments)."""
    return f.metadata.get(KEY) or {"doc": "", "required": False, "old": None, "null": True,
                                   "rules": {}}


def default(f: Field) -> Any:
    """A field's default (MISSING: none)."""
    return f.default_factory() if f.default_factory is not MISSING else f.default


def required(f: Field) -> bool:
    """Whether the schema requires a profile to write a key: it has no default, or says so."""
    return default(f) is MISSING or key_info(f)["required"]


def bare(tp: Any) -> Any:
    """A type without its ``Annotated`` constraints."""
    return get_args(tp)[0] if get_origin(tp) is Annotated else tp


def read_profile(raw: Mapping[str, Any]) -> Profile:
    """A ``Profile`` from a profile dict. Numbers take their key's type, lists become tuples;
    a missing key without a default, a value of the wrong shape and a block given under both
    its names raise ``ConfigError``. Keys it does not know are the schema's to refuse."""
    return _block(Profile, raw, "", None)


def profile_dict(value: Any) -> Any:
    """A profile (or a block or value of one) as its YAML gives it, which ``read_profile``
    reads back equal: every required key, the optional ones that differ from their default;
    lists for tuples."""
    if is_dataclass(value):
        return {f.name: profile_dict(getattr(value, f.name)) for f in fields(value)
                if role(f) is None and (required(f) or getattr(value, f.name) != default(f))}
    if isinstance(value, Mapping):
        return {k: profile_dict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [profile_dict(v) for v in value]
    return value


def _path(where: str, name: str) -> str:
    """A key's path for messages (``traces.gfs.hours``)."""
    return f"{where}.{name}" if where else name


def _block(cls: type, raw: Any, where: str, name: str | None) -> Any:
    """A block (dataclass ``cls``) from its dict at ``where``, named ``name`` in its map."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where or 'the profile'}: a map of keys, not {raw!r}")
    values: dict[str, Any] = {}
    for f in fields(cls):
        if role(f) == "name":
            values[f.name] = name
        if role(f) is not None:
            continue
        old = key_info(f)["old"]
        given = [k for k in (f.name, old) if k is not None and k in raw]
        if len(given) == 2:
            what = "block" if is_dataclass(bare(hints(cls)[f.name])) else "key"
            raise ConfigError(f"{_path(where, f.name)} and {_path(where, old)} are the same "
                              f"{what} (the old name); give it once, as {f.name}")
        if given:
            values[f.name] = _value(hints(cls)[f.name], raw[given[0]], _path(where, f.name))
        elif default(f) is MISSING:
            raise ConfigError(f"{where or 'the profile'}: no key {f.name!r}")
    return cls(**values)


def _value(tp: Any, value: Any, where: str, name: str | None = None) -> Any:
    """A key's value as its type ``tp`` holds it (blocks, tuples, maps, numbers)."""
    tp = bare(tp)
    origin, args = get_origin(tp), get_args(tp)
    if is_dataclass(tp):
        return _block(tp, value, where, name)
    if origin in (Union, UnionType):
        member = next((a for a in args if _fits(bare(a), value)), None)
        return value if member is None else _value(member, value, where, name)
    if origin in (tuple, list):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: a list, not {value!r}")
        items = [_value(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin in (Mapping, dict):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: a map, not {value!r}")
        return {k: _value(args[1], v, _path(where, k), k) for k, v in value.items()}
    if tp in (int, float):
        try:
            return tp(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: a number, not {value!r}") from None
    return value


def _fits(tp: Any, value: Any) -> bool:
    """Whether a value has the shape of one member of a union."""
    origin = get_origin(tp) or tp
    if value is None or tp is NoneType:
        return value is None and tp is NoneType
    if isinstance(value, Mapping):
        return is_dataclass(tp) or origin in (Mapping, dict)
    if isinstance(value, (list, tuple)):
        return origin in (tuple, list)
    if isinstance(value, str):
        return tp is str or origin is Literal
    return tp in (int, float)
