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

``run_replay`` and ``run_packing`` write results/<profile>/openb/; the summaries and the
measure kinds of paper/claims_openb.yaml (``OPENB_MEASURES``) read them.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from compass.api import simulate
from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER, top1
from compass.experiments.claims import Measured, fmt
from compass.experiments.config import lane_runs
from compass.experiments.layout import OPENB_NOTEBOOK, OPENB_PRODUCTS, Layout
from compass.experiments.runs import diagnostics
from compass.model import G_DEFAULT
from compass.schedulers import create
from compass.sim.metrics import METRICS, peak_mask, time_weighted_mean_within
from compass.sim.packing import pack
from compass.sim.table_files import DEFAULT_FORMAT, read_frame, table_path, write_frame
from compass.traces import windows as W
from compass.traces.formats.alibaba_openb import (
    Fractional,
    load_alibaba_openb,
    load_alibaba_openb_snapshot,
)
from compass.traces.ingest import LoadReport

#: What every table, figure and report row says about this data.
LABEL = "REAL openb (Alibaba FGD ATC'23 pod lists)"
#: Replay metrics (section 5.5) and packing measures.
REPLAY_METRICS = METRICS
PACKING_MEASURES = ("allocated_share", "partial_nodes", "sif")
STAGES = ("first_rejection", "saturation")
CONFIDENCE = 0.95


@dataclass(frozen=True)
class ReplayConfig:
    """The replay: pod list, sizing level, busy-day threshold, GPU-sharing pods, cost c."""

    path: str
    eta: float = 0.9
    min_pods: int = 50
    fractional: Fractional = "drop"
    migration_cost: float = 8.0


@dataclass(frozen=True)
class PackingConfig:
    """The packing: variants (name -> pod list), node list, seeds, GPU-sharing pods."""

    variants: Mapping[str, str]
    node_list: str
    seeds: int
    fractional: Fractional = "drop"


@dataclass(frozen=True)
class OpenbConfig:
    """The profile's ``openb`` block (config/quick.yaml; docs/pipeline.md), and the profile's
    ``extension``: our extension's schedulers, replayed and packed after the block's own
    (never a reference or a baseline: no openb lead or verdict uses them), and its
    ``extension_estimates``: the replay runs them under each of these runtime estimates too
    (``config.lane_runs``; packing has no runtimes)."""

    reference: str
    baselines: tuple[str, ...]
    schedulers: tuple[str, ...]
    packing_schedulers: tuple[str, ...]
    replay: ReplayConfig
    packing: PackingConfig
    extension: tuple[str, ...] = ()
    extension_estimates: tuple[str, ...] = ()

    @classmethod
    def from_profile(cls, raw: Mapping[str, Any]) -> OpenbConfig | None:
        """The block of a profile dict (reference, baselines and extension are the
        profile's), or None when the profile has none."""
        block = raw.get("openb")
        if block is None:
            return None
        return cls.from_record({**block, "reference": raw["reference"],
                                "baselines": raw["baselines"],
                                "extension": raw.get("extension") or [],
                                "extension_estimates": (raw.get("extension_estimates") or []
                                                        if raw.get("extension") else [])})

    def record(self) -> dict[str, Any]:
        """JSON-ready form (the rules' params); without ``extension_estimates`` when it is
        empty, so that a profile without them keeps its rules' params."""
        out = json.loads(json.dumps(asdict(self)))
        if not self.extension_estimates:
            del out["extension_estimates"]
        return out

    def resolved(self, root: str | Path) -> OpenbConfig:
        """The same settings with relative file paths taken from ``root`` (the profile's
        paths are relative to the repository, where data/ is)."""
        def where(path: str) -> str:
            return str(Path(path) if Path(path).is_absolute() else Path(root) / path)

        packing = replace(self.packing, node_list=where(self.packing.node_list),
                          variants={k: where(v) for k, v in self.packing.variants.items()})
        return replace(self, replay=replace(self.replay, path=where(self.replay.path)),
                       packing=packing)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> OpenbConfig:
        packing = {**record["packing"], "variants": dict(record["packing"]["variants"])}
        return cls(record["reference"], tuple(record["baselines"]), tuple(record["schedulers"]),
                   tuple(record["packing_schedulers"]), ReplayConfig(**record["replay"]),
                   PackingConfig(**packing), tuple(record.get("extension", ())),
                   tuple(record.get("extension_estimates", ())))

    def replay_runs(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(label, registered scheduler, parameters) of every replay: the block's schedulers,
        then the extension's lane (``config.lane_runs``)."""
        return [(s, s, {}) for s in self.schedulers] + lane_runs(self.extension,
                                                                 self.extension_estimates)


def openb_dir(results: str | Path) -> Path:
    """Where a profile's openb results live."""
    return Path(results) / "openb"


#: Notebook 08 and what it writes (figures PNG + PDF, tables CSV + Markdown): the registry's.
NOTEBOOK, PRODUCTS = OPENB_NOTEBOOK, OPENB_PRODUCTS
#: Files of ``openb_dir``: tables by stem (``table_path``: CSV, or Parquet as the profile's
#: ``outputs.table_format`` says), metadata as JSON.
REPLAY_RUNS, REPLAY_DAYS, REPLAY_META = "replay_runs", "replay_days", "replay.json"
PACKING, PACKING_META = "packing", "packing.json"


# ------------------------------------------------------------------ statistics
def mean_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the Student-t interval of the mean at CONFIDENCE (NaN if < 2)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, mean - half, mean + half


def _summary(table: pd.DataFrame, by: Sequence[str], measures: Sequence[str]) -> pd.DataFrame:
    rows = []
    for key, part in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for m in measures:
            mean, lo, hi = mean_interval(part[m])
            rows.append({**dict(zip(by, key)), "measure": m, "mean": mean, "low": lo,
                         "high": hi, "n": int(part[m].notna().sum())})
    return pd.DataFrame(rows)


def paired_leads(table: pd.DataFrame, by: Sequence[str], sample: str, reference: str,
                 baselines: Sequence[str], measures: Sequence[str]) -> pd.DataFrame:
    """The reference's lead over the strongest baseline, paired by ``sample`` (seed or day).

    Per group and measure the strongest baseline is the one with the best mean; the lead of
    each sample is (baseline - reference) for lower-is-better measures, else the opposite,
    so a positive lead means the reference is better. Mean and interval over the samples.
    """
    rows = []
    for key, part in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for m in measures:
            wide_table = part.pivot_table(index=sample, columns="scheduler", values=m)
            base = [b for b in baselines if b in wide_table and wide_table[b].notna().any()]
            row = {**dict(zip(by, key)), "measure": m, "reference": reference,
                   "strongest_baseline": None, "lead": math.nan, "low": math.nan,
                   "high": math.nan, "n": 0}
            if reference in wide_table and base:
                means = wide_table[base].mean()
                best = str(means.idxmin() if MEASURE_LOWER_IS_BETTER[m] else means.idxmax())
                diff = wide_table[best] - wide_table[reference]
                lead, lo, hi = mean_interval(diff if MEASURE_LOWER_IS_BETTER[m] else -diff)
                row.update(strongest_baseline=best, lead=lead, low=lo, high=hi,
                           n=int(diff.notna().sum()))
            rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ replay
def busy_window(frame: pd.DataFrame, min_pods: int) -> W.Window:
    """Days from the first to the last with at least ``min_pods`` submissions."""
    day = np.floor(frame["submit_time"].to_numpy() / W.DAY_SECONDS).astype(np.int64)
    days, counts = np.unique(day, return_counts=True)
    busy = days[counts >= min_pods]
    if busy.size == 0:
        raise ValueError(f"no day has {min_pods} or more submissions; lower min_pods")
    first, last = int(busy[0]), int(busy[-1])
    return W.Window(first * W.DAY_SECONDS, (last + 1) * W.DAY_SECONDS, first)


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
    window = busy_window(frame, spec.min_pods)
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


# ------------------------------------------------------------------ packing
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


# ------------------------------------------------------------------ reading results
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
        cfg = OpenbConfig.from_profile(record["profile"])
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
        return _summary(self.replay_days, ["scheduler"], REPLAY_METRICS)

    def replay_leads(self) -> pd.DataFrame:
        """The reference's lead over the strongest baseline, paired by busy day."""
        days = self.replay_days.assign(window="busy days")
        return paired_leads(days, ["window"], "day", self.config.reference,
                            self.config.baselines, REPLAY_METRICS)

    def packing_summary(self) -> pd.DataFrame:
        """Per variant, stage and scheduler: mean over seeds with its interval."""
        return _summary(self.packing, ["variant", "multi_gpu_share", "stage", "scheduler"],
                        PACKING_MEASURES)

    def packing_leads(self) -> pd.DataFrame:
        """Per variant and stage: the reference's lead over the strongest baseline by seed."""
        return paired_leads(self.packing, ["variant", "multi_gpu_share", "stage"], "seed",
                            self.config.reference, self.config.baselines, PACKING_MEASURES)


# ------------------------------------------------------------------ claims_openb.yaml
def _measured(value: Any, text: str) -> Measured:
    return Measured(value, f"{LABEL}: {text}")


def _fmt(x: float) -> str:
    return fmt(float(x))


def _results(ev: Any) -> OpenbResults | None:
    """The openb results of the report's results folder, or None when they are absent."""
    if OpenbConfig.from_profile(ev.res.config.raw) is None:
        return None
    return OpenbResults.load(ev.res.layout.root)


def _replay_wins(ev: Any) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    ok = res.replay_runs[res.replay_runs["status"] == "ok"].assign(window="whole replay")
    ref = res.config.reference
    flags = top1(ok, ref, res.config.baselines, ["window"], REPLAY_METRICS)
    flags = flags[flags["defined"]]
    if flags.empty:
        return _measured(None, "the reference or every baseline failed")
    values = ok.set_index("scheduler")
    lost = []
    for m in flags.loc[~flags["top1"], "metric"]:
        theirs = values.loc[[b for b in res.config.baselines if b in values.index], m]
        best = theirs.idxmin() if MEASURE_LOWER_IS_BETTER[m] else theirs.idxmax()
        lost.append(f"{m} ({best} {_fmt(theirs[best])} vs {_fmt(values.loc[ref, m])})")
    won = int(flags["top1"].sum())
    text = f"{won} of {len(flags)} on the whole replay"
    return _measured((won, len(flags)), text + ("; not best on " + ", ".join(lost)
                                                if lost else ""))


def _replay_lead(ev: Any, metric: str) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    row = res.replay_leads().set_index("measure").loc[metric]
    if not np.isfinite(row["low"]):
        return _measured(None, f"fewer than two busy days with a {metric} value")
    return _measured((float(row["low"]), float(row["high"])),
                     f"lead {_fmt(row['lead'])} ({CONFIDENCE:.0%} interval {_fmt(row['low'])} to "
                     f"{_fmt(row['high'])}; vs {row['strongest_baseline']}, {row['n']} busy days)")


def _sif_bound(ev: Any, experiment: str) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    ref = res.config.reference
    if experiment == "replay":
        runs = res.replay_runs
        values = runs.loc[runs["scheduler"] == ref, "max_nsif_wcc"].dropna()
        where = "any instant of the replay with the WCC holding"
    else:
        p = res.packing
        mine = p[(p["scheduler"] == ref) & p["wcc"].fillna(False).astype(bool)]
        values = mine["sif"] * res.packing_meta["nodes"]
        where = f"{len(mine)} packing states (both stages) with the WCC holding"
    if values.empty:
        return _measured(None, f"no {experiment} state of {ref} with the WCC holding")
    return _measured(float(values.max()), f"max N x SIF {_fmt(float(values.max()))} over {where}")


def _packing_lead(ev: Any, stage: str, measure: str) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    leads = res.packing_leads()
    rows = leads[(leads["stage"] == stage) & (leads["measure"] == measure)]
    rows = rows.sort_values("multi_gpu_share")
    if rows.empty or rows["lead"].isna().all():
        return _measured(None, f"no packing lead at {stage}")
    parts = [f"{r.multi_gpu_share:.0%} multi-GPU: {_fmt(r.lead)} [{_fmt(r.low)}, {_fmt(r.high)}]"
             f" vs {r.strongest_baseline}" for r in rows.itertuples()]
    worst = float(rows["lead"].min())
    return _measured(worst, f"worst lead {_fmt(worst)}; by multi-GPU share of the GPUs: "
                     + "; ".join(parts) + f" ({int(rows['n'].min())} seeds)")


#: The measure kinds of paper/claims_openb.yaml, registered into the report's MEASURES.
OPENB_MEASURES: dict[str, Callable[..., Measured]] = {
    "openb_replay_wins": _replay_wins, "openb_replay_lead": _replay_lead,
    "openb_sif_bound": _sif_bound, "openb_packing_lead": _packing_lead,
}
