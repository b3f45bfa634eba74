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
CSV and Markdown. It reads no profile.

In the pipeline, the profile key ``extension`` runs our extension's schedulers in every
batch beside the paper's (``Results.extension_runs``), and ``extension_leads`` measures
them on the overall experiment's runs; the rule ``extension_leads`` writes that table and
the report's section "Beyond the paper" renders it. COMPASS-ABS+ is never one of the
paper's schedulers: nothing here feeds a paper verdict.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from compass.api import simulate
from compass.experiments.aggregate import lead_intervals, ordered
from compass.experiments.config import EXTENSION_SCHEDULERS, ResolvedTrace, TraceSpec
from compass.experiments.data import cluster_nodes, load_days
from compass.experiments.results import Results
from compass.experiments.runs import diagnostics
from compass.experiments.stats import Interval, bootstrap_mean, direction
from compass.experiments.sweeps import overall_runs
from compass.experiments.tables import markdown, write_table
from compass.schedulers import create
from compass.schedulers.compass_abs_plus import CompassAbsPlus

#: COMPASS-ABS+, the first of our extension's schedulers (config.EXTENSION_SCHEDULERS, kept
#: apart from config.PAPER_SCHEDULERS).
PLUS = EXTENSION_SCHEDULERS[0]
#: Best-fit under the same EASY backfill: what the queue policy alone gives (the fair
#: comparison for COMPASS-ABS+'s backfill; never one of the goal's baselines).
BACKFILL_REFERENCE = "gfs-backfill"
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
    "no backfill": {"backfill": False},
    "no end alignment": {"end_aligned": False},
    "all off (= compass-abs)": {"mixed_nodes": False, "admit_by_compaction": False,
                                "lazy_compaction": False, "backfill": False},
}
#: COMPASS-ABS+ with a looser bound for its lazy compaction (what the bound costs).
RELAXED: dict[str, dict[str, object]] = {
    "bound N x SIF <= 4": {"bound_slack": 2},
    "bound N x SIF <= 8": {"bound_slack": 6},
}
#: The goal's pause bound (s per job).
PAUSE_GOAL = 1.0


def goal_runs(seeds: Sequence[int] = (0, 1, 2), *, eta: float = 0.9, cost: float = 10.0,
              traces: Mapping[str, TraceSpec] = GOAL_TRACES,
              days: Mapping[str, Sequence[int]] = GOAL_DAYS,
              schedulers: Sequence[str] = ("compass-abs", *BASELINES, BACKFILL_REFERENCE,
                                           PLUS),
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
    and whether each goal is met (lead >= 0 on every seed; mean pause < 1 s); then, where
    ``gfs-backfill`` ran, the same leads over it ("... vs gfs-backfill", no goal)."""
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
        leads = {"": list(baselines)}
        if BACKFILL_REFERENCE in by["ajct"]:
            leads[f" vs {BACKFILL_REFERENCE}"] = [BACKFILL_REFERENCE]
        for suffix, rivals in leads.items():
            ajct_lead = by["ajct"][rivals].min(axis=1) - by["ajct"][PLUS]
            agu_lead = by["agu"][PLUS] - by["agu"][rivals].max(axis=1)
            for name, lead in ((f"ajct lead{suffix}", ajct_lead),
                               (f"agu lead{suffix}", agu_lead)):
                interval = bootstrap_mean(lead.to_numpy(), resamples=resamples)
                row.update({name: interval.value, f"{name} low": interval.low,
                            f"{name} high": interval.high,
                            f"{name} >= 0 on every seed": bool((lead >= 0).all())})
        row["pause goal met"] = bool(by["pause_per_job"][PLUS].mean() < PAUSE_GOAL)
        rows.append(row)
    return pd.DataFrame(rows)


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


#: The extension's leads table's stem under the tables folder (rule ``extension_leads``).
LEADS_TABLE = "extension_leads"
#: Columns of that table, in order.
LEAD_COLUMNS = ["trace", "data", "scheduler", "measure", "against", "strongest", "value",
                "ci_low", "ci_high", "n", "relative_pct", "unit", "reading"]
#: The measures of that table: the three metrics of section 5.5 as leads, and the pause.
LEAD_METRICS = {"ajct": "s", "agu": "share of GPUs", "afr": "share of nodes"}
PAUSE = "pause_per_job"
#: What the leads over the best of the paper's baselines are against.
STRONGEST = "the strongest baseline"
#: How a lead's ``stats.direction`` reads.
READINGS = {"ahead": "above zero over its whole 95 % interval",
            "behind": "below zero over its whole 95 % interval",
            "undecided": "not shown above zero: its 95 % interval spans zero",
            "": "not measured: no sample where every scheduler has a value"}


def _lead_reading(name: str, metric: str, against: str, interval: Interval) -> str:
    """A plain sentence: whether ``name``'s lead is above zero."""
    way = direction(interval)
    if way.endswith("(one sample)"):
        way = f"{way.split()[0]} on its one sample (no interval)"
    return f"{name}'s {metric.upper()} lead over {against} is {READINGS.get(way, way)}"


def _pause_reading(name: str, interval: Interval) -> str:
    """A plain sentence: whether ``name``'s mean pause per job is under the goal."""
    goal = f"the goal of {PAUSE_GOAL:g} s per job"
    if not interval.defined:
        side = "under" if interval.value < PAUSE_GOAL else "not under"
        return f"{name}'s mean pause is {side} {goal} on its one sample (no interval)"
    if interval.high < PAUSE_GOAL:
        return f"{name}'s mean pause is under {goal} over its whole 95 % interval"
    if interval.low >= PAUSE_GOAL:
        return f"{name}'s mean pause is not under {goal}: its whole 95 % interval is above"
    return f"{name}'s mean pause is not shown under {goal}: its 95 % interval spans it"


def extension_leads(res: Results) -> pd.DataFrame:
    """The extension's lane on the overall experiment (every sample of its traces at its
    eta and the profile's c): per trace and extension scheduler, its lead over the
    strongest paper baseline, over the reference (COMPASS-ABS) and, for the others, over
    ``gfs-backfill`` when it ran (best-fit under the same backfill) on AJCT, AGU and AFR,
    paired over the samples with a 95 % bootstrap interval (``aggregate.lead_intervals``;
    positive: the extension is better), and its mean migration pause per job with its
    bootstrap interval (``stats.bootstrap_mean``); n samples and a plain ``reading`` each.
    Empty (``LEAD_COLUMNS``) when the profile runs no extension."""
    cfg, x = res.config, res.config.experiments
    runs = overall_runs(res.with_extension())
    rows: list[dict[str, object]] = []
    for name in cfg.extension:
        versus = [(STRONGEST, cfg.baselines), (cfg.reference, (cfg.reference,))]
        if BACKFILL_REFERENCE in cfg.extension and name != BACKFILL_REFERENCE:
            versus.append((BACKFILL_REFERENCE, (BACKFILL_REFERENCE,)))
        for against, rivals in versus:
            leads = lead_intervals(runs, name, rivals, ["trace"], tuple(LEAD_METRICS))
            for r in leads.itertuples(index=False):
                interval = Interval(r.lead, r.ci_low, r.ci_high, int(r.n))
                strongest = (r.strongest_baseline or "") if against == STRONGEST else ""
                rows.append({"trace": r.trace, "scheduler": name, "measure": f"{r.metric} lead",
                             "against": against, "strongest": strongest, "value": r.lead,
                             "ci_low": r.ci_low, "ci_high": r.ci_high, "n": int(r.n),
                             "relative_pct": r.relative_pct, "unit": LEAD_METRICS[r.metric],
                             "reading": _lead_reading(name, r.metric, against + (
                                 f" ({strongest})" if strongest else ""), interval)})
        mine = runs[runs["scheduler"] == name]
        for trace in x.overall_traces:
            pauses = mine.loc[mine["trace"] == trace, PAUSE].dropna().to_numpy()
            if not pauses.size:
                continue
            interval = bootstrap_mean(pauses)
            rows.append({"trace": trace, "scheduler": name, "measure": "pause per job",
                         "against": "", "strongest": "", "value": interval.value,
                         "ci_low": interval.low, "ci_high": interval.high, "n": interval.n,
                         "relative_pct": float("nan"), "unit": "s per job",
                         "reading": _pause_reading(name, interval)})
    frame = pd.DataFrame(rows, columns=LEAD_COLUMNS)
    frame["data"] = frame["trace"].map(lambda t: res.traces[t].label)
    return ordered(frame, "trace", x.overall_traces)


def write_extension_leads(results: str | Path, tables: str | Path) -> list[Path]:
    """Rule ``extension_leads``: ``extension_leads`` of a results folder as
    ``<tables>/extension_leads.{csv,md}``, captioned with its data."""
    res = Results.load(results)
    x = res.config.experiments
    caption = (f"Beyond the paper: {', '.join(res.config.extension)} (our extension, not the "
               "paper's) against the strongest paper baseline, COMPASS-ABS and best-fit with "
               "the same backfill, paired over "
               f"the samples, η = {x.overall_eta:g}, c = {res.config.migration_cost:g} s. "
               f"{res.label(x.overall_traces)}")
    return write_table(extension_leads(res), tables, LEADS_TABLE, caption)


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
