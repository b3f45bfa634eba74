"""Phys-Mix-migrate, the physical scenario designed from the simulator: COMPASS-ABS migrates
in it, also when the physical world delays its jobs; and the comparison of a physical run
with the simulator's run of the same jobs (no Ray needed here)."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import compass
from compass import experiments as X
from compass.experiments.layout import Layout
from compass.experiments.physical import (
    TWIN_METRICS,
    TwinTolerance,
    simulator_twin,
    start_overheads,
    twin_comparison,
    twin_trace,
)
from compass.experiments.pipeline import make_plan
from compass.runtime import PHYSMIX_MIGRATE
from compass.traces.physmix import TEMPLATES
from compass.traces.physmix_migrate import JOBS, NODES, SOURCE, TIME_SCALE, physmix_migrate

#: the migration cost the scenario was designed for: 25 s of wall time at TIME_SCALE
DESIGN_COST = 25 * TIME_SCALE


def _run(frame, cost):
    return compass.simulate(frame, "compass-abs", nodes=NODES, migration_cost=cost)


def test_the_scenario_is_synthetic_phys_mix_on_the_testbed():
    frame = physmix_migrate()
    assert SOURCE == f"synthetic:{PHYSMIX_MIGRATE}" and (frame["source"] == SOURCE).all()
    shapes = {(t.workload, t.model): (t.gpus_per_instance, t.instances) for t in TEMPLATES}
    for (_, _, w, g, family, model), row in zip(JOBS, frame.itertuples()):
        assert shapes[family, model] == (g, w) == (row.gpus_per_instance, row.num_instances)
    assert frame["submit_time"].is_monotonic_increasing and NODES == 4


def test_compass_abs_migrates_and_the_queue_waits():
    result = _run(physmix_migrate(), DESIGN_COST)
    assert result.summary["migrations"] >= 5
    assert not math.isnan(result.summary["afr"]) and result.summary["peak_seconds"] > 0
    # moves come from Place and Compact, at arrivals and at departures
    assert {"place", "repair"} <= set(result.migrations["operator"])
    assert result.jobs["migrations"].gt(0).sum() >= 4


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_migrations_survive_the_delays_of_a_physical_run(seed):
    """Up to 160 s of start-up per job and 6-70 s per checkpoint-restart (wall, at
    TIME_SCALE), as measured on a 2-core machine under a load of 10: still at least 4
    migrations."""
    rng = np.random.default_rng(seed)
    frame = physmix_migrate()
    frame["duration"] += rng.uniform(0, 160 * TIME_SCALE, len(frame))
    result = _run(frame, rng.uniform(6, 70) * TIME_SCALE)
    assert result.summary["migrations"] >= 4 and not math.isnan(result.summary["afr"])


def _summary(afr, ajct, agu, migrations=5):
    return {"afr": afr, "ajct": ajct, "agu": agu, "migrations": migrations}


def test_twin_comparison_applies_each_tolerance():
    tol = TwinTolerance()
    sim = _summary(0.25, 6000.0, 0.7)
    close = _summary(0.25 + 0.99 * tol.afr, 6000.0 * (1 + 0.99 * tol.ajct), 0.7 - 0.99 * tol.agu,
                     7)
    table = twin_comparison(close, sim, tol).set_index("metric")
    assert list(table.index) == [*TWIN_METRICS, "migrations"]
    assert table.loc[list(TWIN_METRICS), "within"].all()
    assert table.loc["migrations", "difference"] == 2 and table.loc["migrations", "within"] is None
    for metric, off in (("afr", 0.26), ("ajct", 6000.0 * 1.31 - 6000.0), ("agu", -0.16)):
        far = {**sim, metric: sim[metric] + off}
        row = twin_comparison(far, sim, tol).set_index("metric").loc[metric]
        assert not row["within"] and row["difference"] == pytest.approx(off)


def test_twin_comparison_of_undefined_metrics():
    """AFR and AGU are undefined (NaN, or None from summary.json) when nothing queued: the
    comparison holds only when both runs agree on that."""
    sim = _summary(math.nan, 100.0, math.nan)
    both = twin_comparison(_summary(None, 100.0, None), sim).set_index("metric")
    assert both.loc[list(TWIN_METRICS), "within"].all()
    one = twin_comparison(_summary(0.1, 100.0, 0.5), sim).set_index("metric")
    assert not one.loc["afr", "within"] and not one.loc["agu", "within"]
    assert isinstance(one, pd.DataFrame)


def test_the_twin_of_a_simulated_run_is_that_run():
    """A simulator run has no start-up: its twin (same jobs, same c) is itself."""
    run = _run(physmix_migrate(), DESIGN_COST)
    assert (start_overheads(run.jobs).abs() < 1e-6).all()
    twin = simulator_twin(run.jobs, "compass-abs", NODES, DESIGN_COST)
    table = twin_comparison(run.summary, twin).set_index("metric")
    assert (table["difference"].abs() < 1e-9).all() and table["within"].iloc[:3].all()


def test_the_twin_holds_each_job_as_long_as_the_physical_run_did():
    run = _run(physmix_migrate(), DESIGN_COST)
    late = run.jobs.assign(end_time=run.jobs["end_time"] + 60.0 * run.jobs["job_id"])
    assert list(start_overheads(late).round(6)) == [60.0 * k for k in late["job_id"]]
    trace = twin_trace(late)
    assert list(trace["duration"]) == list(late["duration"] + 60.0 * late["job_id"])


def test_the_physical_table_sets_the_simulator_twin_beside_each_run(tmp_path):
    """Fig. 1's physical rows: each run's metrics and its twin's (here a simulator run
    stands in for the physical one, so they agree)."""
    root = Path(__file__).parents[1]
    plan = make_plan(yaml.safe_load((root / "config" / "full.yaml").read_text()), root)
    spec = plan.config.experiments.physical
    layout = Layout(tmp_path)
    layout.config.write_text(json.dumps(plan.record()))
    pd.DataFrame(columns=["scheduler", "status", "error"]).to_csv(layout.runs, index=False)
    run = _run(physmix_migrate(), DESIGN_COST)
    (layout.physical / "compass-abs").mkdir(parents=True)
    run.jobs.to_csv(layout.physical / "compass-abs" / "jobs.csv", index=False)
    summary = {**run.summary, "scheduler": "compass-abs", "restarts": 0, "wall_s": 1.0,
               "mean_migration_latency_s": DESIGN_COST / spec.time_scale}
    pd.DataFrame([summary, {**summary, "scheduler": "gfs"}]).to_csv(
        layout.physical_summary, index=False)
    table = X.physical(X.Results.load(tmp_path)).set_index("scheduler")
    row = table.loc["compass-abs"]
    for metric in (*TWIN_METRICS, "migrations"):
        assert row[f"sim_{metric}"] == pytest.approx(row[metric])
    assert table.loc["gfs", ["sim_afr", "sim_ajct"]].isna().all()  # no jobs.csv: no twin
