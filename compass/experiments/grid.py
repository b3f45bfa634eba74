"""The run grid: every (trace, day, seed, eta, c) batch that the experiments of section 6 need.

One batch replays one sample (a day window; on a SYNTHETIC trace, drawn with one seed) at
one eta and one migration cost c under every configured scheduler (one row per scheduler).
Experiments share batches:
Fig. 1's GFS days at eta 0.90 are also Fig. 2's middle point and Table 3's (day, 0.90) pairs.
The batches of one sample form a group: the day is drawn (or read) once for all its etas and
costs. Consecutive groups of a trace form a simulate job (``SimJob``), one Snakemake job and
one CSV: Python's start-up is paid once for several samples.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from compass.experiments.config import ConfigError, DaySelection, PipelineConfig, ResolvedTrace
from compass.experiments.data import select_days
from compass.experiments.layout import Layout


@dataclass(frozen=True, order=True)
class RunKey:
    """One batch: a trace's day window drawn with ``seed`` at one eta and one migration cost
    (seconds); the seed also seeds the schedulers of the batch."""

    trace: str
    day: int
    eta: float
    cost: float
    seed: int = 0

    @property
    def group(self) -> RunGroup:
        """The group this batch runs in: its sample."""
        return RunGroup(self.trace, self.day, self.seed)


@dataclass(frozen=True, order=True)
class RunGroup:
    """Every batch of one sample (a trace's day window drawn with ``seed``), each eta and
    migration cost the experiments replay it at; a ``SimJob`` runs several."""

    trace: str
    day: int
    seed: int


def group_grid(grid: Iterable[RunKey]) -> dict[RunGroup, list[RunKey]]:
    """The batches of each group, groups and their batches in the order of the sorted keys
    (a group's batches by eta, then cost)."""
    groups: dict[RunGroup, list[RunKey]] = {}
    for key in sorted(grid, key=lambda k: (k.group, k)):
        groups.setdefault(key.group, []).append(key)
    return groups


#: At most this many samples (groups) per simulate job: enough that a process's start-up
#: (Python, Snakemake's preamble, imports) is small beside its simulations (the full
#: profile's SYNTHETIC grid: 1,860 samples in 187 jobs instead of 1,860).
SAMPLES_PER_JOB = 10
#: ... and jobs enough to keep 8 cores busy to the end where a run has few samples (smoke
#: keeps one sample per job).
MIN_JOBS = 32


@dataclass(frozen=True, order=True)
class SimJob:
    """One Snakemake job of rule ``simulate``: part ``part`` of a trace's groups, in order."""

    trace: str
    part: int

    @property
    def wildcards(self) -> dict[str, str]:
        """The Snakemake wildcards of this job."""
        return {"trace": self.trace, "part": str(self.part)}

    def path(self, layout: Layout) -> Path:
        """The job's table (the rows of all its groups' batches) in a results folder."""
        return layout.run_part(self.trace, self.part)


def job_size(samples: int) -> int:
    """Samples per job for a grid of ``samples``: SAMPLES_PER_JOB, fewer where that would
    leave under MIN_JOBS jobs."""
    return max(1, min(SAMPLES_PER_JOB, samples // MIN_JOBS))


def job_grid(groups: Iterable[RunGroup], size: int | None = None,
             ) -> dict[SimJob, list[RunGroup]]:
    """The groups of each job: each trace's sorted groups cut into runs of ``size``
    (default: ``job_size`` of all groups)."""
    ordered = sorted(groups)
    size = job_size(len(ordered)) if size is None else size
    by_trace: dict[str, list[RunGroup]] = {}
    for group in ordered:
        by_trace.setdefault(group.trace, []).append(group)
    return {SimJob(trace, i // size): members[i:i + size]
            for trace, members in by_trace.items() for i in range(0, len(members), size)}


def subset_days(selection: DaySelection | None, trace: ResolvedTrace) -> tuple[int, ...]:
    """The replayed days of ``trace`` that a sweep's selection names (None: all of them)."""
    if selection is None:
        return trace.days
    return tuple(d for d in select_days(selection, trace.days) if d in set(trace.days))


def migration_days(cfg: PipelineConfig, trace: ResolvedTrace) -> tuple[int, ...]:
    """Days of the migration-cost sweep: the profile's subset, else every day of the trace."""
    return subset_days(cfg.experiments.migration_days.get(trace.name), trace)


def eta_days(cfg: PipelineConfig, trace: ResolvedTrace) -> tuple[int, ...]:
    """Days of the eta sweep: the profile's subset, else every day of the trace."""
    return subset_days(cfg.experiments.eta_days, trace)


#: Section 6.3 picks three days (``composition.most_different``).
COMPOSITION_DAYS = 3


def check_data_needs(cfg: PipelineConfig, traces: Mapping[str, ResolvedTrace]) -> None:
    """Raise ``ConfigError`` when the resolved traces cannot feed an experiment, so that the
    profile is refused when it is read (``pipeline.make_plan``, ``snakemake -n``) and not
    mid-run: every experiment needs a replayed day of each of its traces, the composition
    experiment three candidate days, and the case study a window that fits the replayed
    hours of its trace and candidate days that the trace replays."""
    x = cfg.experiments
    needs = [*((t, "overall", traces[t].days) for t in x.overall_traces),
             (x.eta_trace, "eta_sweep", eta_days(cfg, traces[x.eta_trace])),
             *((t, "composition", traces[t].days) for t in x.composition_traces),
             *((t, "wcc_coverage", traces[t].days) for t in x.wcc_traces),
             *((t, "cost_sweep", migration_days(cfg, traces[t])) for t in x.migration_traces),
             (x.case.trace, "case_study", traces[x.case.trace].days)]
    for trace, experiment, days in needs:
        if not days:
            raise ConfigError(f"experiments.{experiment}: trace {trace} replays no day of "
                              f"its selection; widen traces.{trace}.days (or the "
                              "experiment's days)")
    have = sum(len(traces[t].days) for t in x.composition_traces)
    if have < COMPOSITION_DAYS:
        raise ConfigError(f"experiments.composition needs at least {COMPOSITION_DAYS} "
                          f"candidate days over its traces {list(x.composition_traces)}, "
                          f"which replay {have}; add days or traces")
    case, spec = x.case, traces[x.case.trace].spec
    hours = spec.hours[1] - spec.hours[0]
    if case.window_minutes > 60 * hours:
        raise ConfigError(f"experiments.case_study: a {case.window_minutes:g}-minute window "
                          f"does not fit the {hours:g} replayed hours of {spec.name} "
                          f"(traces.{spec.name}.hours)")
    absent = sorted(set(case.candidate_days or ()) - set(traces[x.case.trace].days))
    if absent:
        raise ConfigError(f"experiments.case_study.candidate_days {absent} are not replayed "
                          f"days of {spec.name}; pick among its days, or null for all")


def run_grid(cfg: PipelineConfig, traces: Mapping[str, ResolvedTrace]) -> list[RunKey]:
    """Every batch the experiments need, each once, sorted. The comparisons run every sample
    seed; the WCC coverage table reads the base seed's replays alone (its rho is a property
    of the day as the day table draws it), so its extra eta values run that seed only."""
    x, c0 = cfg.experiments, cfg.migration_cost
    keys: set[RunKey] = set()

    def add(trace: str, etas: tuple[float, ...], costs: tuple[float, ...],
            days: tuple[int, ...] | None = None, all_seeds: bool = True) -> None:
        seeds = cfg.sample_seeds(traces[trace]) if all_seeds else (cfg.seed,)
        for day in traces[trace].days if days is None else days:
            keys.update(RunKey(trace, day, eta, c, s) for eta in etas for c in costs
                        for s in seeds)

    for t in x.overall_traces:
        add(t, (x.overall_eta,), (c0,))
    add(x.eta_trace, x.etas, (c0,), eta_days(cfg, traces[x.eta_trace]))
    for t in x.composition_traces:
        add(t, (x.composition_eta,), (c0,))
    for t in x.wcc_traces:
        add(t, x.wcc_etas, (c0,), all_seeds=False)
    for t in x.migration_traces:
        add(t, (x.migration_eta,), x.migration_costs, migration_days(cfg, traces[t]))
    return sorted(keys)


def etas_of(cfg: PipelineConfig, trace: str) -> tuple[float, ...]:
    """Every eta any experiment uses on ``trace`` (the day table sizes the cluster at each)."""
    x = cfg.experiments
    etas = {x.overall_eta, x.composition_eta, x.migration_eta, *x.etas, *x.wcc_etas}
    if trace == x.case.trace:
        etas.add(x.case.eta)
    return tuple(sorted(etas))
