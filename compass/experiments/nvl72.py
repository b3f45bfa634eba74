"""Appendix D experiment: SIF per level, AJCT and AGU on multi-panel domains (docs/nvl72.md).

One synthetic trace per platform (``compass.traces.nvl72``), replayed by every scheduler on
D domains of K panels. Platforms: "K=1" (DGX/HGX), "K=2" (DGX-2-like), "K=9" (NVL72) and
"8x9" (NVL576 as eight NVL72 sub-domains: no generated instance spans more than 72 GPUs, so
the third tier constrains nothing and NVL576 is 8 x the domains of NVL72 with K = 9; the
flat K = 72 reading is left out: no exact panel-level oracle exists for K > 16).

The baselines ``gfs`` and ``fgd`` keep their node rules but only consider domains where the
instance still has a panel layout (``compass.schedulers.base.PanelFit``; docs/baselines.md,
"Multi-panel domains"), so none of their runs splits an instance. A scheduler whose
placement does split a sub-panel instance across panels is still refused by the simulator
(``SchedulerError``); such a run is reported with ``status`` = the error and NaN metrics
rather than dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import compass
from compass.experiments.layout import Layout
from compass.sim.metrics import time_weighted_mean
from compass.sim.simulator import SchedulerError
from compass.sim.table_files import read_frame, write_frame
from compass.traces.nvl72 import Nvl72Workload, generate


@dataclass(frozen=True)
class Platform:
    """A cluster of ``domains`` NVLink domains of ``panels`` 8-GPU panels."""

    name: str
    domains: int
    panels: int


#: Platforms of the issue, at roughly 144-288 GPUs (8x9 is 8 sub-domains of NVL72).
PLATFORMS = (
    Platform("K=1", 18, 1), Platform("K=2", 9, 2), Platform("K=9", 2, 9),
    Platform("8x9", 8, 9),
)
SCHEDULERS = ("compass-abs-hier", "gfs", "fgd")
METRICS = ("sif_gpu", "sif_panel", "ajct", "agu")
#: The workload of the pipeline's rule ``nvl72``, the same in every profile.
SETTINGS: dict[str, Any] = {"jobs": 400, "seed": 0, "multi_panel_share": 0.25}


def run_one(platform: Platform, scheduler: str, workload: Nvl72Workload) -> dict[str, object]:
    """One run: mean SIF per level over time, AJCT, AGU (over T_peak), migrations."""
    row: dict[str, object] = {"platform": platform.name, "scheduler": scheduler,
                              "domains": platform.domains, "panels": platform.panels}
    try:
        result = compass.simulate(generate(workload), scheduler, nodes=platform.domains,
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
