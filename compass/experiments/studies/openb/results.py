"""The openb study's results: the tables ``runs.run_replay`` and ``runs.run_packing``
wrote for one profile, their labels, and their summaries and leads over the samples (busy
days of the replay, seeds of the packing) with Student-t intervals
(``stats.t_interval_table``, ``stats.t_paired_leads``)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER
from compass.experiments.layout import Layout
from compass.experiments.profile import read_profile
from compass.experiments.stats import t_interval_table, t_paired_leads
from compass.experiments.studies.openb.config import (
    LABEL,
    PACKING,
    PACKING_MEASURES,
    PACKING_META,
    REPLAY_DAYS,
    REPLAY_META,
    REPLAY_METRICS,
    REPLAY_RUNS,
    OpenbConfig,
    openb_dir,
)
from compass.sim.table_files import read_frame, table_path


@dataclass
class OpenbResults:
    """The tables ``run_replay`` and ``run_packing`` wrote for one profile."""

    config: OpenbConfig
    replay_runs: pd.DataFrame
    replay_days: pd.DataFrame
    replay_meta: dict[str, Any]
    packing: pd.DataFrame
    packing_meta: dict[str, Any]

    @classmethod
    def load(cls, results: str | Path) -> OpenbResults:
        folder, fmt = openb_dir(results), Layout.of(results).table_format
        record = json.loads((Path(results) / "config.json").read_text())
        cfg = OpenbConfig.from_profile(read_profile(record["profile"]))
        if cfg is None:
            raise ValueError(f"{results}: the profile has no openb block")
        return cls(cfg, read_frame(table_path(folder, REPLAY_RUNS, fmt)),
                   read_frame(table_path(folder, REPLAY_DAYS, fmt)),
                   json.loads((folder / REPLAY_META).read_text()),
                   read_frame(table_path(folder, PACKING, fmt)),
                   json.loads((folder / PACKING_META).read_text()))

    def replay_label(self) -> str:
        m = self.replay_meta
        return (f"{LABEL}: default pod list, N = {m['nodes']} nodes by N({m['eta']:g}) over "
                f"the busy days {m['busy_first_day']}-{m['busy_last_day']}")

    def packing_label(self) -> str:
        m = self.packing_meta
        return (f"{LABEL}: multi-GPU variants, {m['nodes']} 8-GPU nodes, "
                f"{m['seeds']} seeded arrival orders")

    def drops(self) -> pd.DataFrame:
        """Pods read, kept and dropped by reason (and rounded up) per pod list."""
        records = {"replay (default)": self.replay_meta["report"],
                   **{k: v["report"] for k, v in self.packing_meta["variants"].items()}}
        rows = []
        for name, r in records.items():
            row = {"pod list": name, "read": r["rows_read"], "kept": r["rows_kept"],
                   **{f"dropped {k}": v for k, v in r["dropped"].items()},
                   "rounded up": r["options"].get("rounded_up", 0)}
            rows.append(row)
        return pd.DataFrame(rows).fillna(0)

    def replay_table(self) -> pd.DataFrame:
        """Per scheduler: the whole replay's AFR, AJCT, AGU and the busy-day means with their
        intervals."""
        runs = self.replay_runs.set_index("scheduler")
        rows = []
        for r in self.replay_summary().itertuples():
            rows.append({"scheduler": r.scheduler, "metric": r.measure,
                         "whole replay": runs.loc[r.scheduler, r.measure]
                         if r.measure in runs else math.nan,
                         "busy-day mean": r.mean, "low": r.low, "high": r.high, "days": r.n})
        return pd.DataFrame(rows)

    def plot_frame(self, experiment: str) -> pd.DataFrame:
        """Long table (scheduler, metric, value, ...) for ``compass.plotting``: busy-day
        means of the replay, or packing means per variant and stage."""
        if experiment == "replay":  # the extension on the trace's durations, as the pipeline's
            shown = [*self.config.schedulers, *self.config.extension]
            table = self.replay_summary().assign(window="busy days")
            table = table[table["scheduler"].isin(shown)]
        else:
            names = {"first_rejection": "at the first rejection", "saturation": "at saturation"}
            table = self.packing_summary().assign(stage=lambda t: t["stage"].map(names))
        return table.rename(columns={"measure": "metric", "mean": "value"})

    def replay_summary(self) -> pd.DataFrame:
        """Per scheduler and metric: mean over the busy days with its interval."""
        return t_interval_table(self.replay_days, ["scheduler"], REPLAY_METRICS)

    def replay_leads(self, baselines: Sequence[str] | None = None) -> pd.DataFrame:
        """The reference's lead over the strongest of ``baselines`` (default: the study's),
        paired by busy day."""
        days = self.replay_days.assign(window="busy days")
        return t_paired_leads(days, ["window"], "day", self.config.reference,
                              self.config.baselines if baselines is None else baselines,
                              REPLAY_METRICS, MEASURE_LOWER_IS_BETTER)

    def packing_summary(self) -> pd.DataFrame:
        """Per variant, stage and scheduler: mean over seeds with its interval."""
        return t_interval_table(self.packing,
                                ["variant", "multi_gpu_share", "stage", "scheduler"],
                                PACKING_MEASURES)

    def packing_leads(self) -> pd.DataFrame:
        """Per variant and stage: the reference's lead over the strongest baseline by seed."""
        return t_paired_leads(self.packing, ["variant", "multi_gpu_share", "stage"], "seed",
                              self.config.reference, self.config.baselines, PACKING_MEASURES,
                              MEASURE_LOWER_IS_BETTER)

