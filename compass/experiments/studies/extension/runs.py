"""The extension study's runs: the goal days replayed under the paper's schedulers,
COMPASS-ABS+, its ablation and relaxed variants (``goal_runs``), its runtime estimates
(``estimate_runs``) and its bound slacks (``slack_runs``), one tidy row per run, as the
pipeline's ``simulate`` rule builds the days (``data.load_days``, ``data.cluster_nodes``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence

import pandas as pd

from compass.api import simulate
from compass.experiments.config import ResolvedTrace, TraceSpec
from compass.experiments.data import cluster_nodes, load_days
from compass.experiments.runs import diagnostics
from compass.experiments.studies.extension.config import (
    ABLATION,
    BACKFILL_REFERENCE,
    BASELINES,
    ESTIMATING,
    GOAL_DAYS,
    GOAL_TRACES,
    PLUS,
    RELAXED,
    SLACKS,
)
from compass.schedulers import create
from compass.schedulers.backfill import Backfill
from compass.schedulers.compass_abs_plus import CompassAbsPlus
from compass.schedulers.estimates import ESTIMATES, label


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
    return _variant_runs(seeds, schedulers, {label: (PLUS, p) for label, p in variants.items()},
                         eta=eta, cost=cost, traces=traces, days=days, demand=demand, log=log)


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
        **{k: s[k] for k in ("afr", "ajct", "agu", "migrations_per_job", "pause_per_job",
                             "max_nsif")},
        **diagnostics(result, nodes),
        "instants": len(tl), "nsif_over_2_wcc": int((nsif[wcc] > 2).sum()),
        "charged_moves": int(charged.sum()),
        "moves_by_operator": ";".join(f"{op}={n}" for op, n in charged.items()), "cpu_s": cpu,
    }
    if isinstance(policy, CompassAbsPlus):
        row.update(policy.stats.record(), bound_slack=policy.bound_slack)
    gate = getattr(policy, "gate", None)
    if isinstance(gate, Backfill):
        row.update({"runtime_estimate": label(gate.estimator.name),
                    "late_heads": gate.late_heads, "head_extra_wait_s": gate.extra_wait_s})
    return row


def estimate_runs(seeds: Sequence[int] = (0, 1, 2), *, estimates: Sequence[str] = ESTIMATES,
                  baselines: Sequence[str] = BASELINES, **kwargs) -> pd.DataFrame:
    """``goal_runs`` of COMPASS-ABS+ and gfs-backfill under each runtime estimate
    (``variant`` "<scheduler> <label>", ``runtime_estimate`` its display label, so
    ``exact`` reads "clairvoyant") beside the paper's ``baselines`` (no estimate)."""
    variants = {f"{s} {label(e)}": (s, {"runtime_estimate": e})
                for e in estimates for s in ESTIMATING}
    return _variant_runs(seeds, baselines, variants, **kwargs)


def _variant_runs(seeds: Sequence[int], schedulers: Sequence[str],
                  variants: Mapping[str, tuple[str, Mapping[str, object]]], *,
                  eta: float = 0.9, cost: float = 10.0,
                  traces: Mapping[str, TraceSpec] = GOAL_TRACES,
                  days: Mapping[str, Sequence[int]] = GOAL_DAYS, demand: str = "window",
                  log=None) -> pd.DataFrame:
    """One row per (trace, day, seed, run): ``schedulers`` as they are, then each variant
    label -> (scheduler, parameters), on the goal's days (as ``goal_runs``)."""
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    runs = [(s, s, {}) for s in schedulers] + [(s, v, dict(p)) for v, (s, p) in
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
                    log(f"{name} day {day} seed {seed} N {size.nodes}: {variant:<30} "
                        f"AJCT {rows[-1]['ajct']:9.0f}  AFR {rows[-1]['afr']:.4f}  "
                        f"AGU {rows[-1]['agu']:.4f}  "
                        f"pause {rows[-1]['pause_per_job']:5.2f} s/job")
    return pd.DataFrame(rows)


def slack_runs(seeds: Sequence[int] = (0, 1, 2), slacks: Sequence[int] = SLACKS,
               **kwargs) -> pd.DataFrame:
    """COMPASS-ABS+ at each ``bound_slack`` k on the goal days (``variant`` "k = <k>")."""
    return _variant_runs(seeds, (), {f"k = {k}": (PLUS, {"bound_slack": k}) for k in slacks},
                         **kwargs)

