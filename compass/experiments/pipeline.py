"""What the Snakemake rules call: the plan of a profile, and one function per rule.

The Snakefile builds a ``Plan`` once (parse the profile, check scheduler names against the
registry, resolve each trace to real or SYNTHETIC data, list the run batches). Rules pass
their functions only what the step depends on, as JSON-ready records, so that Snakemake's
parameter trigger redoes a step exactly when its inputs change (docs/pipeline.md).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stderr
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from compass.experiments.case_study import CaseWindow, choose_windows, write_windows
from compass.experiments.classes import table1
from compass.experiments.config import (
    CaseStudyConfig,
    ConfigError,
    PhysicalConfig,
    PipelineConfig,
    ResolvedTrace,
    RunSettings,
    check_schedulers,
    config_record,
    pipeline_config,
)
from compass.experiments.data import load_days, resolve_trace
from compass.experiments.failed_schedulers import warn_dead
from compass.experiments.grid import (
    RunGroup,
    RunKey,
    SimJob,
    check_data_needs,
    etas_of,
    group_grid,
    job_grid,
    job_size,
    run_grid,
)
from compass.experiments.layout import (
    NOTEBOOKS,
    PHYSICAL_TABLE,
    TABLE1,
    Layout,
    caption,
    figure_files,
    table_files,
)
from compass.experiments.profile import Profile, read_profile
from compass.experiments.runs import case_runs, cpu_seconds, fragmented_window, run_batch
from compass.experiments.tables import write_table
from compass.schedulers import available, load_plugins
from compass.sim.table_files import read_frame, table_format, write_frame
from compass.traces.formats import formats

#: What the physical runs import (the ``runtime`` extra).
RUNTIME_MODULES = ("ray", "torch")
#: The line of a simulate log that gives the job's start-up, CPU-seconds of its process
#: before its first sample: Python, Snakemake's preamble, imports.
STARTUP = re.compile(r"start-up (\d+\.\d+) CPU-s")


@dataclass(frozen=True)
class Plan:
    """A profile ready to run: config, resolved traces, run batches and product paths."""

    config: PipelineConfig
    traces: dict[str, ResolvedTrace]
    grid: list[RunKey]
    #: Whether the runtime extra (Ray, PyTorch) is installed: without it the physical runs
    #: are skipped.
    runtime: bool = True
    #: The samples of the whole run this plan is one part of (``sized_together``: a profile
    #: and its regimes), which set its jobs' size; None: its own samples alone.
    run_samples: int | None = None

    @property
    def layout(self) -> Layout:
        return Layout(self.config.results_dir, self.config.outputs.table_format)

    @property
    def figures(self) -> Path:
        return Path(self.config.outputs.figures)

    @property
    def tables(self) -> Path:
        return Path(self.config.outputs.tables)

    @property
    def report(self) -> Path:
        return Path(self.config.outputs.report)

    @property
    def physical(self) -> PhysicalConfig | None:
        """The physical runs to do: the profile's, none where the runtime is missing."""
        return self.config.experiments.physical if self.runtime else None

    @property
    def notes(self) -> list[str]:
        """Loud notes to print: traces that fell back to SYNTHETIC data, and physical runs
        skipped without the runtime extra."""
        notes = [t.note for t in self.traces.values() if t.note]
        if self.config.experiments.physical and not self.runtime:
            notes.append("SKIPPED: the physical step (experiments.physical, section 5.1) needs "
                         "Ray and PyTorch, which are not installed; notebook 01 and the report "
                         "go without it. To run it: pip install torch==2.13.0 -e '.[runtime]' "
                         "(docs/runtime.md)")
        return notes

    def record(self) -> dict[str, Any]:
        """What ``config.json`` holds."""
        return config_record(self.config, self.traces)

    @cached_property
    def groups(self) -> dict[RunGroup, list[RunKey]]:
        """The grid's batches by group (sample)."""
        return group_grid(self.grid)

    @cached_property
    def jobs(self) -> dict[SimJob, list[RunGroup]]:
        """The groups of each ``simulate`` job, ``job_size`` of the run's samples each."""
        return job_grid(self.groups, job_size(self.run_samples or len(self.groups)))

    def job_samples(self, wildcards: Mapping[str, str]) -> str:
        """Each group of a job with the (eta, c) of its batches, as rule ``simulate`` takes
        them (JSON, a parameter: another eta, c or sample redoes the job, and only it)."""
        job = SimJob(wildcards["trace"], int(wildcards["part"]))
        return dump([{"day": g.day, "seed": g.seed,
                      "batches": [[key.eta, key.cost] for key in self.groups[g]]}
                     for g in self.jobs[job]])

    def etas(self, trace: str) -> list[float]:
        return list(etas_of(self.config, trace))

    def products(self, notebook: str) -> list[Path]:
        """Figure and table files a notebook writes."""
        return [*self.figure_products(notebook), *self.table_products(notebook)]

    def figure_products(self, notebook: str) -> list[Path]:
        """The figure files (PNG + PDF) a notebook writes."""
        return [f for s in NOTEBOOKS[notebook].figures for f in figure_files(self.figures, s)]

    def table_products(self, notebook: str) -> list[Path]:
        """The table files (CSV + Markdown) a notebook writes."""
        extra = [PHYSICAL_TABLE] if self.physical_inputs(notebook) else []
        return [f for s in [*NOTEBOOKS[notebook].tables, *extra]
                for f in table_files(self.tables, s)]

    def physical_inputs(self, notebook: str) -> list[Path]:
        """The physical runs' summary, for notebook 01 when the plan runs them."""
        on = notebook == "01_overall" and self.physical is not None
        return [self.layout.physical_summary] if on else []

    @property
    def table1_files(self) -> list[Path]:
        return table_files(self.tables, TABLE1)

    def case_record(self) -> dict[str, Any]:
        """The case-study settings as the ``case_study`` rule takes them, with the baselines
        (the fragmented window is chosen on their replays)."""
        record = {**asdict(self.config.experiments.case),
                  "baselines": list(self.config.baselines)}
        if record["candidate_days"] is not None:
            record["candidate_days"] = list(record["candidate_days"])
        return record

    def physical_record(self) -> dict[str, Any]:
        """The physical runs' settings as the ``physical`` rule takes them."""
        physical = self.physical
        return {} if physical is None else {**asdict(physical),
                                            "schedulers": list(physical.schedulers)}

    def trace_records(self) -> dict[str, dict[str, Any]]:
        return {name: t.record() for name, t in self.traces.items()}

    def trace_json(self, trace: str) -> str:
        """One trace's record as the rules on it take it (a parameter: JSON text)."""
        return dump(self.traces[trace].record())

    def raw_file(self, trace: str) -> list[Path]:
        """The real file a trace's canonical CSV is made from (none for synthetic traces)."""
        source = self.traces[trace].source
        return [Path(source.path)] if source is not None else []

    def physical_canonical(self) -> list[Path]:
        """The canonical CSV the physical runs read (none for a scenario or synthetic trace)."""
        physical = self.physical
        return [] if physical is None or physical.scenario else self.canonical(physical.trace)

    def physical_trace_json(self) -> str:
        """The physical runs' trace record (empty for a scenario)."""
        physical = self.physical
        return dump({}) if physical is None or physical.scenario else self.trace_json(
            physical.trace)

    def canonical(self, trace: str) -> list[Path]:
        """The canonical CSV a step on ``trace`` reads (real traces only)."""
        return [self.layout.canonical(trace)] if self.traces[trace].origin == "real" else []


def sized_together(plans: Sequence[Plan]) -> list[Plan]:
    """``plans`` that one Snakemake run runs side by side (a profile and its regimes), their
    jobs sized over all their samples: the jobs of all of them keep the cores busy, so a
    small plan's samples share a process's start-up rather than each paying it."""
    total = sum(len(p.groups) for p in plans)
    return [replace(p, run_samples=total) for p in plans]


def make_plan(profile: Mapping[str, Any] | Profile, root: Path = Path(".")) -> Plan:
    """Parse (a dict: ``read_profile``), check and resolve a profile (raises
    ``ConfigError`` with the reason).

    The profile's ``plugins`` are imported before it is checked (and, through the
    environment, in every process the run starts), so that their schedulers are registered.
    """
    spec = profile if isinstance(profile, Profile) else read_profile(profile)
    try:
        load_plugins(spec.plugins)
    except ImportError as err:
        raise ConfigError(f"plugins: {err}") from None
    cfg = pipeline_config(spec)
    for name, spec in cfg.traces.items():
        for real in spec.sources:
            if real.format != "auto" and real.format not in formats():
                raise ConfigError(f"traces.{name}.real.format: unknown trace format "
                                  f"{real.format!r}; 'auto' or one of {sorted(formats())}")
    physical = cfg.experiments.physical
    check_schedulers([*cfg.schedulers, *(physical.schedulers if physical else ())], available())
    traces = {name: resolve_trace(spec, root) for name, spec in cfg.traces.items()}
    check_data_needs(cfg, traces)
    runtime = all(importlib.util.find_spec(m) for m in RUNTIME_MODULES)
    return Plan(cfg, traces, run_grid(cfg, traces), runtime)


def simulate_job(trace_name: str, samples: Sequence[Mapping[str, Any]],
                 trace: Mapping[str, Any], run: Mapping[str, Any],
                 canonical: Sequence[str], out: str) -> None:
    """Rule ``simulate``: every (eta, c) batch of each sample (day, seed) of one job under
    every scheduler -> one table (``out``'s suffix: CSV or Parquet). Each sample's day is
    drawn (or read) once for all its batches; the log gets the job's start-up and a line per
    batch. The table is written once all samples are done."""
    _say(f"{trace_name}: {len(samples)} samples, start-up {time.process_time():.2f} CPU-s")
    resolved, settings = ResolvedTrace.from_record(trace), RunSettings.from_record(run)
    frames = [simulate_group(RunGroup(trace_name, int(s["day"]), int(s["seed"])),
                             s["batches"], resolved, settings, canonical)
              for s in samples]
    write_frame(pd.concat(frames, ignore_index=True), out)


def simulate_group(sample: RunGroup, batches: Sequence[Sequence[float]],
                   resolved: ResolvedTrace, run: RunSettings,
                   canonical: Sequence[str]) -> pd.DataFrame:
    """Every (eta, c) batch of one sample under every scheduler, the day drawn (or read)
    once; a log line per batch."""
    settings = replace(run, seed=sample.seed)
    jobs = load_days(resolved, sample.seed, [sample.day], _one(canonical))[sample.day]
    head = f"{sample.trace} day {sample.day} seed {sample.seed}"
    frames = []
    for i, (eta, cost) in enumerate(batches, 1):
        started = cpu_seconds()
        key = RunKey(sample.trace, sample.day, float(eta), float(cost), sample.seed)
        frames.append(run_batch(jobs, key, resolved, settings))
        _say(f"{head}: batch {i} of {len(batches)} (eta {key.eta:g}, c {key.cost:g}) done in "
             f"{cpu_seconds() - started:.1f} CPU-s")
    return pd.concat(frames, ignore_index=True)


def collect_runs(paths: Sequence[str], out: str, borrowed: Sequence[str] = (),
                 keep: Mapping[str, Any] | None = None) -> None:
    """Rule ``collect``: every batch in one tidy table, rows in batch order (trace, day, eta,
    c, seed; a batch's schedulers in the profile's order), whatever the groups; a scheduler
    that failed on every run is a warning on the terminal (``failed_schedulers.warn_dead``).
    ``borrowed``: another run's parts, of which the rows ``keep`` names are added
    (``kept_rows``; a sensitivity regime's batches the main run has run already)."""
    frames = [read_frame(p) for p in paths]
    if borrowed:
        frames.append(kept_rows(pd.concat([read_frame(p) for p in borrowed]), keep or {}))
    frame = pd.concat(frames, ignore_index=True)
    write_frame(frame.sort_values(["trace", "day", "eta", "cost", "seed"], kind="stable"), out)
    warn_dead(frame)  # a scheduler that failed on every run, on the terminal too


def kept_rows(frame: pd.DataFrame, keep: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of ``frame`` whose scheduler is one of ``keep["labels"]`` and whose (day,
    seed, eta, c) is one of ``keep["batches"][trace]``; ``ValueError`` where a batch named
    lacks a label's row (the parts read are not the runs the regime was told they hold)."""
    wanted = pd.DataFrame([(t, *b) for t, batches in keep["batches"].items() for b in batches],
                          columns=["trace", "day", "seed", "eta", "cost"])
    labels = list(keep["labels"])
    key = list(wanted.columns)
    rows = frame[frame["scheduler"].isin(labels)].merge(
        wanted.astype(frame[key].dtypes.to_dict()), on=key)
    if len(rows) != len(wanted) * len(labels):
        raise ValueError(f"the borrowed parts hold {len(rows)} of the {len(wanted) * len(labels)}"
                         f" rows of {len(wanted)} batches x {labels}")
    return rows


def case_study(case: Mapping[str, Any], trace: Mapping[str, Any], run: Mapping[str, Any],
               cost: float, canonical: Sequence[str], outputs: Mapping[str, str]) -> None:
    """Rule ``case_study``: choose the windows (section 6.6: the paper's, maybe absent, the
    busiest, and the one with the most fragmentation-induced blocking under the
    ``baselines`` of the case record), replay their days under every scheduler."""
    spec = dict(case)
    baselines = spec.pop("baselines")
    if spec.get("candidate_days") is not None:
        spec["candidate_days"] = tuple(spec["candidate_days"])
    config = CaseStudyConfig(**spec)
    resolved = ResolvedTrace.from_record(trace)
    settings = RunSettings.from_record(run)
    wanted = [*(config.candidate_days or resolved.days),
              *([config.paper_day] if config.paper_day in resolved.days else [])]
    days = load_days(resolved, settings.seed, list(dict.fromkeys(wanted)), _one(canonical))
    windows = [*choose_windows(resolved, days, config, settings.demand),
               fragmented_window(resolved, days, config, settings, cost, baselines)]
    write_windows(windows, Path(outputs["windows"]))
    present = [w for w in windows if isinstance(w, CaseWindow)]
    timelines, jobs, status = case_runs(days, present, settings, cost)
    for name, frame in (("timelines", timelines), ("jobs", jobs), ("runs", status)):
        write_frame(frame, outputs[name])


def write_table1(traces: Mapping[str, Mapping[str, Any]], seed: int,
                 canonical: Mapping[str, str], folder: str, caption: str) -> None:
    """Rule ``table1``: per-class instance shares of each trace (paper Table 1)."""
    resolved = {k: ResolvedTrace.from_record(v) for k, v in traces.items()}
    frame = table1(resolved, seed, {k: Path(v) for k, v in canonical.items()})
    write_table(frame, folder, TABLE1, caption)


def dump(record: Any) -> str:
    """JSON of a record, keys in the profile's order (Snakemake compares params as text;
    the order is the same on every parse of the same profile)."""
    return json.dumps(record)


def caption_file(folder: str | Path, stem: str) -> str:
    """The product ``stem``'s caption (``layout.caption``, the one place it is written) as
    ``folder``/<stem>.rst, rewritten only when it changed: ``snakemake --report`` reads
    captions from files. Absolute, as Snakemake takes it from any rule file."""
    path = Path(folder).resolve() / f"{stem}.rst"
    text = caption(stem) + "\n"
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(path)


def folder(path: str | Path) -> str:
    """The folder of one of a rule's files: a parameter taken from the rule's own inputs or
    outputs rather than hard-coded (``snakemake --lint``)."""
    return str(Path(path).parent)


def relative(path: str | Path, start: str | Path) -> str:
    """``path`` relative to the folder ``start`` (POSIX form): an executed notebook's
    parameters, so that the copy runs again wherever its results folder is moved."""
    return Path(os.path.relpath(Path(path).resolve(), Path(start).resolve())).as_posix()


@contextmanager
def logged(path: str | Path) -> Iterator[None]:
    """Send a step's stderr (progress, warnings and, if it fails, its traceback) to the
    rule's log file; the traceback still reaches Snakemake's terminal as well."""
    with open(path, "w") as log, redirect_stderr(log):
        try:
            yield
        except BaseException:
            traceback.print_exc()
            raise


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _one(paths: Sequence[str]) -> Path | None:
    return Path(paths[0]) if paths else None


def physical_runs(physical: Mapping[str, Any], trace: Mapping[str, Any], seed: int,
                  canonical: Sequence[str], out: str) -> None:
    """Rule ``physical``: Phys-Mix under each scheduler on Ray, one after the other (each
    run owns the machine's cores); every run's records in its folder, the summary table
    ``out`` beside (both in ``out``'s format)."""
    from compass.runtime import run_physical  # needs the runtime extra (torch, ray)

    spec = PhysicalConfig(**{**physical, "schedulers": tuple(physical["schedulers"])})
    if spec.scenario:
        from compass.traces.physmix_migrate import physmix_migrate

        jobs, name_of, label = physmix_migrate(), spec.trace, "SYNTHETIC"
    else:
        resolved = ResolvedTrace.from_record(trace)
        jobs = load_days(resolved, seed, [spec.day], _one(canonical))[spec.day]
        name_of, label = resolved.name, resolved.label
    jobs = jobs.head(spec.max_jobs).reset_index(drop=True)
    folder = Path(out).parent
    rows = []
    for name in spec.schedulers:
        shutil.rmtree(folder / name, ignore_errors=True)  # a rerun starts afresh
        result = run_physical(jobs, name, nodes=spec.nodes, time_scale=spec.time_scale,
                              seed=seed, workdir=folder / name / "work", progress=True)
        result.write(folder / name, table_format(out))
        rows.append({"scheduler": name, "trace": name_of, "day": spec.day,
                     "label": label, **result.summary})
    write_frame(pd.DataFrame(rows), out)
