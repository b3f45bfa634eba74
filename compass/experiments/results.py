"""A profile's results folder, loaded: the config, the resolved traces and every run's row.

Notebooks and the report start from ``Results.load("results/<profile>")``; the experiment
functions take it and return tidy DataFrames.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from compass.experiments.config import PipelineConfig, ResolvedTrace, read_config_record
from compass.experiments.layout import Layout


@dataclass
class Results:
    """Everything the simulation rules wrote for one profile."""

    layout: Layout
    config: PipelineConfig
    traces: dict[str, ResolvedTrace]
    runs: pd.DataFrame

    @classmethod
    def load(cls, root: str | Path) -> Results:
        """Read ``config.json`` and ``runs.csv`` of a results folder."""
        layout = Layout(Path(root))
        cfg, traces = read_config_record(json.loads(layout.config.read_text()))
        runs = pd.read_csv(layout.runs)
        runs["error"] = runs["error"].fillna("")
        return cls(layout, cfg, traces, runs)

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
