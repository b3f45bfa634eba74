"""A profile's results folder, loaded: the config, the resolved traces and every run's row.

Notebooks and the report start from ``Results.load("results/<profile>")``; the experiment
functions take it and return tidy DataFrames. The runs of the sensitivity variants (profile
key ``variants``) are kept apart, in ``variant_runs``: no experiment sees them unless it asks
for ``with_variant``, the same results with one baseline's runs replaced by a variant's. So
are the runs of our extension's schedulers (profile key ``extension``), in
``extension_runs``: ``with_extension`` adds them to the paper's, for the figures that show
them beside the paper's schedulers and the report's section "Beyond the paper".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from compass.experiments.config import PipelineConfig, ResolvedTrace, read_config_record
from compass.experiments.layout import Layout
from compass.sim.table_files import read_frame

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("Results",)


@dataclass
class Results:
    """Everything the simulation rules wrote for one profile."""

    layout: Layout
    config: PipelineConfig
    traces: dict[str, ResolvedTrace]
    runs: pd.DataFrame
    #: the sensitivity variants' runs (``scheduler`` is the variant's label)
    variant_runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: our extension's runs (``scheduler`` is one of ``PipelineConfig.extension_labels``)
    extension_runs: pd.DataFrame = field(default_factory=pd.DataFrame)

    @classmethod
    def load(cls, root: str | Path) -> Results:
        """Read ``config.json`` and the runs table (CSV or Parquet) of a results folder."""
        layout = Layout.of(root)
        cfg, traces = read_config_record(json.loads(layout.config.read_text()))
        runs = read_frame(layout.runs, dtype={"error": str})
        runs["error"] = runs["error"].fillna("")
        variant = runs["scheduler"].isin(list(cfg.variants))
        extension = runs["scheduler"].isin(list(cfg.extension_labels))
        return cls(layout, cfg, traces, runs[~variant & ~extension].reset_index(drop=True),
                   runs[variant].reset_index(drop=True), runs[extension].reset_index(drop=True))

    def with_variant(self, label: str) -> Results:
        """These results with the variant's base scheduler's runs replaced by the variant's,
        under the base's name: every experiment then measures the comparison under it."""
        base = self.config.variants[label]["scheduler"]
        swapped = self.variant_runs[self.variant_runs["scheduler"] == label].assign(
            scheduler=base)
        runs = pd.concat([self.runs[self.runs["scheduler"] != base], swapped],
                         ignore_index=True)
        return replace(self, runs=runs)

    def with_extension(self, estimates: bool = False) -> Results:
        """These results with our extension's runs beside the paper's schedulers' (every
        experiment then measures them too; the claims never use this): its schedulers as
        they ran on the trace's durations, and with ``estimates`` also their runs under the
        profile's ``extension_estimates`` (the figures show the former only); these results
        themselves when the profile runs no extension."""
        if self.extension_runs.empty:
            return self
        lane = self.extension_runs
        if not estimates:
            lane = lane[lane["scheduler"].isin(list(self.config.extension))]
        runs = pd.concat([self.runs, lane], ignore_index=True)
        return replace(self, runs=runs)

    @property
    def ok(self) -> pd.DataFrame:
        """Runs that completed."""
        return self.runs[self.runs["status"] == "ok"]

    @property
    def failed(self) -> pd.DataFrame:
        """Runs whose scheduler raised (see ``runs.run_batch``)."""
        return self.runs[self.runs["status"] == "error"]

    def day_table(self, trace: str) -> pd.DataFrame:
        """One row per replayed day of ``trace``: composition, N(eta), rho."""
        return pd.read_csv(self.layout.day_table(trace))

    def label(self, traces: Iterable[str] | None = None) -> str:
        """Data caption for figures and tables: SYNTHETIC (named) or real, and the profile."""
        names = list(traces) if traces is not None else list(self.traces)
        resolved = [self.traces[n] for n in names]
        if all(r.origin == "synthetic" for r in resolved):
            kinds = ", ".join(r.spec.synthetic for r in resolved)
            data = f"SYNTHETIC traces ({kinds}; {self.seeds_label})"
        else:
            data = "; ".join(r.label for r in resolved)
        return f"{data} | profile {self.config.profile}"

    @property
    def seeds_label(self) -> str:
        """The seeds of the synthetic samples, e.g. "seeds 0-2" or "seed 0"."""
        cfg = self.config
        last = cfg.seed + cfg.samples - 1
        return f"seed {cfg.seed}" if cfg.samples == 1 else f"seeds {cfg.seed}-{last}"

    def select(self, traces: Iterable[str], etas: Iterable[float],
               costs: Iterable[float]) -> pd.DataFrame:
        """Completed runs of the given traces at the given eta and c values."""
        ok = self.ok
        return ok[ok["trace"].isin(list(traces)) & ok["eta"].isin(list(etas))
                  & ok["cost"].isin(list(costs))]
