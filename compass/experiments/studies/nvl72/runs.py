"""The appendix D study's runs: one synthetic trace per platform
(``compass.traces.nvl72``) replayed by every scheduler (``nvl72``; rule ``nvl72``:
``write_nvl72``), and the table read back with its data label (``load_nvl72``)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from compass.api import simulate
from compass.experiments.layout import Layout
from compass.experiments.studies.nvl72.config import METRICS, PLATFORMS, SCHEDULERS, Platform
from compass.sim.metrics import time_weighted_mean
from compass.sim.simulator import SchedulerError
from compass.sim.table_files import read_frame, write_frame
from compass.traces.nvl72 import Nvl72Workload, generate


def run_one(platform: Platform, scheduler: str, workload: Nvl72Workload) -> dict[str, object]:
    """One run: mean SIF per level over time, AJCT, AGU (over T_peak), migrations."""
    row: dict[str, object] = {"platform": platform.name, "scheduler": scheduler,
                              "domains": platform.domains, "panels": platform.panels}
    try:
        result = simulate(generate(workload), scheduler, nodes=platform.domains,
                                  gpus_per_node=8 * platform.panels)
    except SchedulerError as err:
        return {**row, "status": str(err), **dict.fromkeys(METRICS, math.nan),
                "migrations": math.nan}
    tl = result.timeline
    gpu, panel = ("sif", None) if platform.panels == 1 else ("sif_gpu", "sif_panel")
    return {**row, "status": "ok",
            "sif_gpu": time_weighted_mean(tl, gpu),
            "sif_panel": math.nan if panel is None else time_weighted_mean(tl, panel),
            "ajct": result.summary["ajct"], "agu": result.summary["agu"],
            "migrations": result.summary["migrations"]}


def nvl72(platforms: Sequence[Platform] = PLATFORMS,
          schedulers: Sequence[str] = SCHEDULERS, jobs: int = 400, seed: int = 0,
          multi_panel_share: float = 0.25) -> pd.DataFrame:
    """The appendix-D table: one row per (platform, scheduler).

    For K = 1 the GPU level is the node level (column ``sif`` of the timeline) and the
    panel level is empty (NaN), as in D.5.
    """
    rows = []
    for platform in platforms:
        workload = Nvl72Workload(platform.domains, platform.panels, jobs=jobs, seed=seed,
                                 multi_panel_share=multi_panel_share)
        rows += [run_one(platform, s, workload) for s in schedulers]
    return pd.DataFrame(rows)


def write_nvl72(settings: Mapping[str, Any], out: str | Path, settings_out: str | Path) -> None:
    """Rule ``nvl72``: the appendix-D table under ``settings`` (as ``out``'s suffix: CSV or
    Parquet), the settings beside it (JSON) for the data label."""
    write_frame(nvl72(**settings), out)
    Path(settings_out).write_text(json.dumps(dict(settings)) + "\n")


def load_nvl72(results: str | Path) -> tuple[pd.DataFrame, str]:
    """The table rule ``nvl72`` wrote under a results folder, and the label of its data."""
    layout = Layout.of(results)
    settings = json.loads(layout.nvl72_settings.read_text())
    label = f"SYNTHETIC multi-panel workload, {settings['jobs']} jobs, seed {settings['seed']}"
    return read_frame(layout.nvl72), label
