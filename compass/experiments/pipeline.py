"""What the Snakemake rules call: the plan of a profile, and one function per rule.

The Snakefile builds a ``Plan`` once (parse the profile, check scheduler names against the
registry, resolve each trace to real or SYNTHETIC data, list the run batches). Rules pass
their functions only what the step depends on, as JSON-ready records, so that Snakemake's
parameter trigger redoes a step exactly when its inputs change (docs/pipeline.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from compass.experiments.case_study import choose_window
from compass.experiments.classes import table1
from compass.experiments.config import (
    CaseStudyConfig,
    PipelineConfig,
    ResolvedTrace,
    RunSettings,
    check_schedulers,
    config_record,
    parse_config,
)
from compass.experiments.data import load_days, resolve_trace
from compass.experiments.grid import RunKey, etas_of, run_grid
from compass.experiments.layout import NOTEBOOKS, TABLE1, Layout, figure_files, table_files
from compass.experiments.runs import case_runs, run_batch
from compass.experiments.tables import write_table
from compass.schedulers import available


@dataclass(frozen=True)
class Plan:
    """A profile ready to run: config, resolved traces, run batches and product paths."""

    config: PipelineConfig
    traces: dict[str, ResolvedTrace]
    grid: list[RunKey]

    @property
    def layout(self) -> Layout:
        return Layout(self.config.results_dir)

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
    def notes(self) -> list[str]:
        """Loud notes to print: traces that fell back to SYNTHETIC data."""
        return [t.note for t in self.traces.values() if t.note]

    def record(self) -> dict[str, Any]:
        """What ``config.json`` holds."""
        return config_record(self.config, self.traces)

    def etas(self, trace: str) -> list[float]:
        return list(etas_of(self.config, trace))

    def products(self, notebook: str) -> list[Path]:
        """Figure and table files a notebook writes."""
        p = NOTEBOOKS[notebook]
        return [*(f for s in p.figures for f in figure_files(self.figures, s)),
                *(f for s in p.tables for f in table_files(self.tables, s))]

    @property
    def table1_files(self) -> list[Path]:
        return table_files(self.tables, TABLE1)

    def case_record(self) -> dict[str, Any]:
        """The case-study settings as the ``case_study`` rule takes them."""
        record = asdict(self.config.experiments.case)
        if record["candidate_days"] is not None:
            record["candidate_days"] = list(record["candidate_days"])
        return record

    def trace_records(self) -> dict[str, dict[str, Any]]:
        return {name: t.record() for name, t in self.traces.items()}

    def canonical(self, trace: str) -> list[Path]:
        """The canonical CSV a step on ``trace`` reads (real traces only)."""
        return [self.layout.canonical(trace)] if self.traces[trace].origin == "real" else []


def make_plan(raw: Mapping[str, Any], root: Path = Path(".")) -> Plan:
    """Parse, check and resolve a profile (raises ``ConfigError`` with the reason)."""
    cfg = parse_config(raw)
    check_schedulers(cfg.schedulers, available())
    traces = {name: resolve_trace(spec, root) for name, spec in cfg.traces.items()}
    return Plan(cfg, traces, run_grid(cfg, traces))


def simulate_batch(key: Mapping[str, Any], trace: Mapping[str, Any],
                   run: Mapping[str, Any], canonical: Sequence[str], out: str) -> None:
    """Rule ``simulate``: one (trace, day, eta, c) batch under every scheduler -> CSV."""
    rk = RunKey(key["trace"], int(key["day"]), float(key["eta"]), float(key["cost"]))
    resolved = ResolvedTrace.from_record(trace)
    settings = RunSettings.from_record(run)
    jobs = load_days(resolved, settings.seed, [rk.day], _one(canonical))[rk.day]
    run_batch(jobs, rk, resolved, settings).to_csv(out, index=False)


def collect_runs(paths: Sequence[str], out: str) -> None:
    """Rule ``collect``: every batch in one tidy table."""
    frames = [pd.read_csv(p) for p in paths]
    pd.concat(frames, ignore_index=True).to_csv(out, index=False)


def case_study(case: Mapping[str, Any], trace: Mapping[str, Any], run: Mapping[str, Any],
               cost: float, canonical: Sequence[str], outputs: Mapping[str, str]) -> None:
    """Rule ``case_study``: choose the window, replay its day under every scheduler."""
    spec = dict(case)
    if spec.get("candidate_days") is not None:
        spec["candidate_days"] = tuple(spec["candidate_days"])
    config = CaseStudyConfig(**spec)
    resolved = ResolvedTrace.from_record(trace)
    settings = RunSettings.from_record(run)
    days = load_days(resolved, settings.seed, config.candidate_days or resolved.days,
                     _one(canonical))
    win = choose_window(resolved, days, config, settings.demand)
    win.write(Path(outputs["window"]))
    timelines, jobs, status = case_runs(days[win.day], win, settings, cost)
    timelines.to_csv(outputs["timelines"], index=False)
    jobs.to_csv(outputs["jobs"], index=False)
    status.to_csv(outputs["runs"], index=False)


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


def _one(paths: Sequence[str]) -> Path | None:
    return Path(paths[0]) if paths else None

