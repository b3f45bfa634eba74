"""COMPASS-ABS+, our extension beyond the paper (docs/theory.md): its goal experiment.

The goal (issue 14): on gfs-synth days 26 and 58 and venus-synth days 92 and 94 at
eta = 0.90 and c = 10 s, AJCT no higher and AGU no lower than every baseline, and a mean
migration pause per job under 1 s. The days are built as the ``simulate`` rule builds them
(``data.load_days``, ``data.cluster_nodes``; replayed with ``compass.simulate`` as
``runs.simulate_window`` does, per-event pauses); every synthetic seed is another sample
of the same day. The data are SYNTHETIC, and every row says so.

* ``goal_runs``: one tidy row per (trace, day, seed, scheduler or ablation variant);
* ``goal_table``: per (trace, day), each scheduler's mean over the seeds, and COMPASS-ABS+'s
  paired lead over the best baseline of each seed with a bootstrap interval;
* ``ablation_table``: each variant's means over all samples of a trace and its change
  against the full scheduler (the share of each mechanism, and what the bound costs).

``python -m compass.experiments.extension --out results/extension`` runs it all and writes
CSV and Markdown. It reads no profile; the lead can wire ``goal_runs`` into the pipeline.
COMPASS-ABS+ is never one of the paper's schedulers: nothing here feeds a paper verdict.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from compass.api import simulate
from compass.experiments.config import ResolvedTrace, TraceSpec
from compass.experiments.data import cluster_nodes, load_days
from compass.experiments.runs import diagnostics
from compass.experiments.tables import markdown
from compass.schedulers import create
from compass.schedulers.compass_abs_plus import CompassAbsPlus

#: Our extension's schedulers, kept apart from the paper's (config.PAPER_SCHEDULERS).
EXTENSION_SCHEDULERS = ("compass-abs-plus",)
PLUS = EXTENSION_SCHEDULERS[0]
#: The six baselines of section 5.4 (MCG under the shared FIFO queue by default).
BASELINES = ("gfs", "fgd", "cafgd", "mcg", "fft", "drr")
#: The goal's traces and days (SYNTHETIC stand-ins; Table 2 days).
GOAL_TRACES = {"gfs": TraceSpec("gfs", "gfs-synth"), "venus": TraceSpec("venus", "venus-synth")}
GOAL_DAYS = {"gfs": (26, 58), "venus": (92, 94)}
#: Ablation: COMPASS-ABS+ with one mechanism off, label -> parameters.
ABLATION: dict[str, dict[str, object]] = {
    "no mixed nodes": {"mixed_nodes": False, "admit_by_compaction": False},
    "no admission by compaction": {"admit_by_compaction": False},
    "no lazy compaction": {"lazy_compaction": False},
    "all off (= compass-abs)": {"mixed_nodes": False, "admit_by_compaction": False,
                                "lazy_compaction": False},
}
#: COMPASS-ABS+ with a looser bound for its lazy compaction (what the bound costs).
RELAXED: dict[str, dict[str, object]] = {
    "bound N x SIF <= 4": {"nsif": 4},
    "bound N x SIF <= 8": {"nsif": 8},
}
#: The goal's pause bound (s per job).
PAUSE_GOAL = 1.0


def goal_runs(seeds: Sequence[int] = (0, 1, 2), *, eta: float = 0.9, cost: float = 10.0,
              traces: Mapping[str, TraceSpec] = GOAL_TRACES,
              days: Mapping[str, Sequence[int]] = GOAL_DAYS,
              schedulers: Sequence[str] = ("compass-abs", *BASELINES, PLUS),
              variants: Mapping[str, Mapping[str, object]] = {**ABLATION, **RELAXED},
              demand: str = "window", log=None) -> pd.DataFrame:
    """One row per (trace, day, seed, variant): ``scheduler`` is the registered name,
    ``variant`` the scheduler's name or a COMPASS-ABS+ variant's label (``ABLATION``,
    ``RELAXED``; parameters in ``params``)."""
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    runs = [(s, s, {}) for s in schedulers] + [(PLUS, label, dict(p)) for label, p in
                                                variants.items()]
    rows = []
    for name, spec in traces.items():
        for day in days[name]:
            for seed in seeds:
                jobs = load_days(ResolvedTrace(spec, "synthetic", (day,)), seed, [day])[day]
                size = cluster_nodes(jobs, spec, day, eta, demand)
                for scheduler, variant, params in runs:
                    rows.append(_run(jobs, spec, day, seed, eta, cost, size.nodes, scheduler,
                                     variant, params, demand))
                    log(f"{name} day {day} seed {seed} N {size.nodes}: {variant:<28} "
                        f"AJCT {rows[-1]['ajct']:9.0f}  AGU {rows[-1]['agu']:.4f}  "
                        f"pause {rows[-1]['pause_per_job']:5.2f} s/job")
    return pd.DataFrame(rows)


def _run(jobs: pd.DataFrame, spec: TraceSpec, day: int, seed: int, eta: float, cost: float,
         nodes: int, scheduler: str, variant: str, params: Mapping[str, object],
         demand: str) -> dict[str, object]:
    """One replay, as ``runs.simulate_window`` does it (per-event pauses), keeping the
    scheduler object for COMPASS-ABS+'s counters."""
    policy = create(scheduler, seed=seed, **params)
    started = time.process_time()
    result = simulate(jobs, policy, nodes=nodes, migration_cost=cost, seed=seed)
    cpu = time.process_time() - started
    tl, log = result.timeline, result.migrations
    nsif = (tl["partial_nodes"] - tl["phi_star"]).to_numpy()
    wcc = tl["wcc"].fillna(False).to_numpy(dtype=bool)
    charged = log.loc[log["charged"].astype(bool), "operator"].value_counts().sort_index()
    s = result.summary
    row: dict[str, object] = {
        "trace": spec.name, "data": f"SYNTHETIC {spec.synthetic}", "day": day, "seed": seed,
        "eta": eta, "cost": cost, "nodes": nodes, "jobs": len(jobs), "scheduler": scheduler,
        "variant": variant, "params": repr(dict(params)),
        **{k: s[k] for k in ("afr", "ajct", "agu", "migrations_per_job")},
        **diagnostics(result, nodes),
        "instants": len(tl), "nsif_over_2_wcc": int((nsif[wcc] > 2).sum()),
        "charged_moves": int(charged.sum()),
        "moves_by_operator": ";".join(f"{op}={n}" for op, n in charged.items()), "cpu_s": cpu,
    }
    if isinstance(policy, CompassAbsPlus):
        row.update(policy.stats.record())
    return row


def goal_table(runs: pd.DataFrame, baselines: Sequence[str] = BASELINES,
               resamples: int = 2000) -> pd.DataFrame:
    """Per (trace, day): the mean AJCT, AGU and pause of every scheduler over the seeds,
    then COMPASS-ABS+'s paired leads over the best baseline of each seed (AJCT: best - ours,
    AGU: ours - best; > 0 is a lead) with a 95 % percentile bootstrap interval over seeds,
    and whether each goal is met (lead >= 0 on every seed; mean pause < 1 s)."""
    main = runs[runs["variant"] == runs["scheduler"]]
    rows = []
    for (trace, day), group in main.groupby(["trace", "day"], sort=False):
        by = group.pivot_table(index="seed", columns="scheduler",
                               values=["ajct", "agu", "pause_per_job"])
        row: dict[str, object] = {"trace": trace, "data": group["data"].iloc[0], "day": day,
                                  "seeds": len(by)}
        for s in group["scheduler"].unique():
            row[f"ajct {s}"] = by["ajct"][s].mean()
            row[f"agu {s}"] = by["agu"][s].mean()
            row[f"pause {s}"] = by["pause_per_job"][s].mean()
        ajct_lead = by["ajct"][list(baselines)].min(axis=1) - by["ajct"][PLUS]
        agu_lead = by["agu"][PLUS] - by["agu"][list(baselines)].max(axis=1)
        for name, lead in (("ajct lead", ajct_lead), ("agu lead", agu_lead)):
            low, high = bootstrap_interval(lead.to_numpy(), resamples)
            row.update({name: lead.mean(), f"{name} low": low, f"{name} high": high,
                        f"{name} >= 0 on every seed": bool((lead >= 0).all())})
        row["pause goal met"] = bool(by["pause_per_job"][PLUS].mean() < PAUSE_GOAL)
        rows.append(row)
    return pd.DataFrame(rows)


def bootstrap_interval(values: np.ndarray, resamples: int = 2000, seed: int = 0
                       ) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean (one value: that value twice)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float(values.mean()), float(values.mean())
    rng = np.random.default_rng(seed)
    means = rng.choice(values, size=(resamples, len(values))).mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def ablation_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Each COMPASS-ABS+ variant's means over every (trace, day, seed) sample, and the
    change against the full scheduler: what switching that mechanism off costs."""
    plus = runs[runs["scheduler"] == PLUS]
    metrics = ["ajct", "agu", "afr", "pause_per_job", "migrations_per_job", "max_nsif_wcc",
               "nsif_over_2_wcc", "blocked_s"]
    per_trace = plus.groupby(["trace", "variant"], sort=False)[metrics].mean().reset_index()
    full = per_trace[per_trace["variant"] == PLUS].set_index("trace")
    for m in ("ajct", "agu", "pause_per_job"):
        per_trace[f"{m} change"] = per_trace[m] - per_trace["trace"].map(full[m])
    return per_trace


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=Path("results/extension"))
    args = parser.parse_args(argv)
    runs = goal_runs(args.seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(args.out / "goal_runs.csv", index=False)
    for name, table in (("goal", goal_table(runs)), ("ablation", ablation_table(runs))):
        table.to_csv(args.out / f"{name}.csv", index=False)
        (args.out / f"{name}.md").write_text(markdown(table) + "\n")


if __name__ == "__main__":
    main()
