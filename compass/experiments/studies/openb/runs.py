"""REAL openb experiments: FGD's Alibaba pod lists (ATC'23, data/README.md), the one public
per-task GPU trace the artifact ships. Labelled REAL everywhere.

* **replay**: ``openb_pod_list_default.csv`` in time (pods submitted at creation, running
  deletion - scheduled seconds; whole-GPU pods; GPU-sharing pods dropped, or rounded up to
  one GPU, and counted in the drop report), under every scheduler on one cluster. The
  trace spans 149 days but 98 % of its pods arrive on days 116-148, so sizing over the
  whole span (N(0.90) = 4 nodes) overloads the cluster there; instead N(eta) of eq. 13 is
  measured over the *busy window*: the days from the first to the last with at least
  ``min_pods`` submissions (days 116-148 for 50, N(0.90) = 6). Per busy day, AJCT of the
  pods submitted that day and AFR / AGU over T_peak inside the day give the samples of the
  intervals (one replay, so days are correlated through the queue they inherit).
* **packing**: the four multi-GPU variants (``openb_pod_list_multigpu{20,30,40,50}.csv``,
  no times) as FGD's static packing: pods in a seeded random order, never leaving
  (``compass.sim.packing``), on the 617 8-GPU nodes of the openb cluster's node list (its only
  8-GPU nodes; the model has one node size). Per seed, variant and scheduler: the share of
  GPUs allocated, partial nodes and SIF at the first rejection and at saturation.

``run_replay`` and ``run_packing`` write results/<profile>/openb/; ``results.OpenbResults``
reads them back, ``measures`` turns them into the kinds of paper/claims_openb.yaml.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compass.api import simulate
from compass.experiments.runs import diagnostics
from compass.experiments.studies.openb.config import (
    LABEL,
    PACKING,
    PACKING_META,
    REPLAY_DAYS,
    REPLAY_META,
    REPLAY_METRICS,
    REPLAY_RUNS,
    OpenbConfig,
)
from compass.model import G_DEFAULT
from compass.schedulers import create
from compass.sim.metrics import peak_mask, time_weighted_mean_within
from compass.sim.packing import pack
from compass.sim.table_files import DEFAULT_FORMAT, table_path, write_frame
from compass.traces import windows as W
from compass.traces.formats.alibaba_openb import load_alibaba_openb, load_alibaba_openb_snapshot
from compass.traces.ingest import LoadReport


def _day_rows(result: Any, days: range) -> list[dict[str, Any]]:
    tl, jobs = result.timeline, result.jobs
    peak = peak_mask(tl)
    submit_day = np.floor(jobs["submit_time"].to_numpy() / W.DAY_SECONDS)
    rows = []
    for d in days:
        start, end = d * W.DAY_SECONDS, (d + 1) * W.DAY_SECONDS
        mine = jobs["jct"].to_numpy()[submit_day == d]
        rows.append({"day": d, "pods": int(mine.size),
                     "afr": time_weighted_mean_within(tl, "sif", start, end, peak),
                     "ajct": float(mine.mean()) if mine.size else math.nan,
                     "agu": time_weighted_mean_within(tl, "gpu_util", start, end, peak)})
    return rows


def replay(cfg: OpenbConfig, log: Callable[[str], None] = print
           ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Every scheduler on the default pod list: (one row per scheduler, one row per busy day
    and scheduler, what was replayed: drop report, busy window, cluster size)."""
    spec = cfg.replay
    frame, report = load_alibaba_openb(spec.path, fractional=spec.fractional)
    window = W.busy_window(frame, spec.min_pods)
    size = W.cluster_size(frame, spec.eta, within=window)
    first, last = int(window.start // W.DAY_SECONDS), int(window.end // W.DAY_SECONDS) - 1
    meta = {"label": LABEL, "path": spec.path, "eta": spec.eta, "min_pods": spec.min_pods,
            "busy_first_day": first, "busy_last_day": last, "nodes": size.nodes,
            "p_eta": size.p_eta, "whole_span_nodes": W.cluster_size(frame, spec.eta).nodes,
            "migration_cost": spec.migration_cost, "report": _report_record(report)}
    runs, days = [], []
    for scheduler, name, params in cfg.replay_runs():
        started = time.process_time()
        row: dict[str, Any] = {"scheduler": scheduler, "nodes": size.nodes, "pods": len(frame)}
        try:
            result = simulate(frame, name, nodes=size.nodes, migration_cost=spec.migration_cost,
                              scheduler_params=params)
        except Exception as exc:  # recorded and reported, like the pipeline's runs
            runs.append({**row, "status": "error", "error": f"{type(exc).__name__}: {exc}"})
            continue
        runs.append({**row, "status": "ok", "error": "",
                     **{m: result.summary[m] for m in REPLAY_METRICS},
                     "migrations": result.summary["migrations"],
                     "max_nsif_wcc": diagnostics(result, size.nodes)["max_nsif_wcc"],
                     "cpu_s": time.process_time() - started})
        days += [{"scheduler": scheduler, **r} for r in _day_rows(result, range(first, last + 1))]
        log(f"openb replay {scheduler}: N {size.nodes} AFR {result.summary['afr']:.4f} "
            f"AJCT {result.summary['ajct']:.0f} s AGU {result.summary['agu']:.4f}")
    return pd.DataFrame(runs), pd.DataFrame(days), meta


def _report_record(report: LoadReport) -> dict[str, Any]:
    return {"rows_read": report.rows_read, "rows_kept": report.rows_kept,
            "dropped": dict(report.dropped), "options": dict(report.options)}


def run_replay(cfg: OpenbConfig, out: str | Path, table_format: str = DEFAULT_FORMAT) -> None:
    """Write the replay's tables (as ``table_format``) into ``out`` (the rule
    ``openb_replay``)."""
    runs, days, meta = replay(cfg)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_frame(runs, table_path(out, REPLAY_RUNS, table_format))
    write_frame(days, table_path(out, REPLAY_DAYS, table_format))
    (out / REPLAY_META).write_text(json.dumps(meta, indent=2) + "\n")


def packing_nodes(node_list: str | Path, gpus_per_node: int = G_DEFAULT) -> int:
    """The openb cluster's nodes with exactly ``gpus_per_node`` GPUs (617 of 1,213)."""
    nodes = pd.read_csv(node_list)
    return int((pd.to_numeric(nodes["gpu"]) == gpus_per_node).sum())


def multi_gpu_share(gpus: np.ndarray) -> float:
    """Share of the pods' GPUs requested by multi-GPU pods."""
    return float(gpus[gpus > 1].sum() / gpus.sum())


def packing(cfg: OpenbConfig, log: Callable[[str], None] = print
            ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every (variant, seed, scheduler): the cluster at the first rejection and at
    saturation, one row per stage; and what was packed (drop reports, cluster size)."""
    spec = cfg.packing
    nodes = packing_nodes(spec.node_list)
    meta: dict[str, Any] = {"label": LABEL, "nodes": nodes, "seeds": spec.seeds,
                            "node_list": spec.node_list, "variants": {}}
    rows = []
    for index, (variant, path) in enumerate(spec.variants.items()):
        pods, report = load_alibaba_openb_snapshot(path, fractional=spec.fractional)
        gpus = pods["gpus_per_instance"].to_numpy()
        share = multi_gpu_share(gpus)
        meta["variants"][variant] = {"path": path, "pods": len(pods), "gpus": int(gpus.sum()),
                                     "multi_gpu_share": share,
                                     "report": _report_record(report)}
        for seed in range(spec.seeds):
            order = np.random.default_rng([seed, index]).permutation(gpus.size)
            for scheduler in (*cfg.packing_schedulers, *cfg.extension):
                base = {"variant": variant, "multi_gpu_share": share, "seed": seed,
                        "scheduler": scheduler}
                run = pack(gpus[order], create(scheduler, seed=seed), nodes)
                for stage, snap in (("first_rejection", run.first_rejection),
                                    ("saturation", run.saturation)):
                    rows.append({**base, "stage": stage, "rejected": run.rejected,
                                 "repacks": run.repacks, "moves": run.moves,
                                 **({} if snap is None else asdict(snap))})
        log(f"openb packing {variant}: {spec.seeds} seeds x "
            f"{len(cfg.packing_schedulers) + len(cfg.extension)} "
            f"schedulers on {nodes} nodes")
    return pd.DataFrame(rows), meta


def run_packing(cfg: OpenbConfig, out: str | Path, table_format: str = DEFAULT_FORMAT) -> None:
    """Write the packing table (as ``table_format``) into ``out`` (the rule
    ``openb_packing``)."""
    table, meta = packing(cfg)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_frame(table, table_path(out, PACKING, table_format))
    (out / PACKING_META).write_text(json.dumps(meta, indent=2) + "\n")

