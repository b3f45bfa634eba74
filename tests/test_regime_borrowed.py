"""A sensitivity regime takes the batches the main run has already run (a trace on the main
run's own SYNTHETIC kind) from the main run's parts: its runs table is then the one it would
have simulated itself, but for the timing columns; anything that changes the draws or the
runs turns the borrowing off."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments.pipeline import Plan, collect_runs, kept_rows, make_plan, simulate_job
from compass.experiments.studies.regime.borrowed import borrowed_runs
from compass.experiments.studies.regime.config import regime_plans

ROOT = Path(__file__).parents[1]
TIMING = ["wall_s", "cpu_s"]


def _raw(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


def _small() -> dict:
    """The smoke profile cut to an hour of its days, two schedulers and one extension
    scheduler, with a regime that keeps gfs on its own kind and moves venus to another."""
    raw = _raw("smoke")
    raw.update(schedulers=["compass-abs", "gfs"], baselines=["gfs"], variants={},
               extension=["gfs-backfill"], extension_estimates=[], samples=1,
               regimes={"same-gfs": {"gfs": "gfs-synth", "venus": "venus-paper-regime"}})
    for trace in raw["traces"].values():
        trace["hours"] = [9, 10]
    raw["experiments"]["fft_breakeven"] = None
    return raw


def _simulate(plan: Plan, trace: str, folder: Path) -> list[str]:
    """Every part of ``trace`` of ``plan`` simulated into ``folder``; their paths."""
    paths = []
    folder.mkdir()
    for job in [j for j in plan.jobs if j.trace == trace]:
        out = folder / f"{trace}-part{job.part}.csv"
        simulate_job(trace, json.loads(plan.job_samples(job.wildcards)),
                     json.loads(plan.trace_json(trace)), plan.config.run.record(), [], str(out))
        paths.append(str(out))
    return paths


@pytest.mark.parametrize("profile, borrowing", [
    ("quick", {"paper-regime": (), "unclamped": ("gfs",), "venus-synth": ("gfs",)}),
    ("medium", {"paper-regime": (), "unclamped": ("gfs",), "venus-synth": ("gfs",)}),
    ("smoke", {"paper-regime": ()}),
])
def test_a_regime_borrows_the_traces_it_keeps_on_the_main_kind(profile, borrowing):
    """Venus is REAL in quick and medium (its regimes' kinds are SYNTHETIC): never borrowed;
    gfs-synth, kept by two regimes, is; the paper-regime kinds are other draws."""
    main = make_plan(_raw(profile))
    plans = regime_plans(main)
    assert {name: borrowed_runs(main, p).traces for name, p in plans.items()} == borrowing
    for p in plans.values():
        b = borrowed_runs(main, p)
        assert all(job.trace not in b.traces for job in b.own_jobs(p))
        assert len(b.own_jobs(p)) + sum(j.trace in b.traces for j in p.jobs) == len(p.jobs)


def test_the_borrowed_rows_are_the_rows_the_regime_would_simulate(tmp_path):
    main = make_plan(_small(), Path("/nonexistent"))
    regime = regime_plans(main)["same-gfs"]
    b = borrowed_runs(main, regime)
    assert b.traces == ("gfs",)
    main_parts = _simulate(main, "gfs", tmp_path / "main")
    assert sorted(b.parts) == sorted(job.path(main.layout) for job in main.jobs
                                     if job.trace == "gfs")
    collect_runs([], str(tmp_path / "borrowed.csv"), main_parts, b.keep)
    collect_runs(_simulate(regime, "gfs", tmp_path / "regime"), str(tmp_path / "own.csv"))
    borrowed = pd.read_csv(tmp_path / "borrowed.csv")
    own = pd.read_csv(tmp_path / "own.csv")
    assert set(pd.read_csv(main_parts[0])["scheduler"]) > set(own["scheduler"])  # gfs-backfill
    pd.testing.assert_frame_equal(borrowed.drop(columns=TIMING), own.drop(columns=TIMING))


def test_anything_that_changes_the_runs_or_the_draws_stops_the_borrowing():
    main = make_plan(_small(), Path("/nonexistent"))
    regime = regime_plans(main)["same-gfs"]
    run = regime.config.run
    for changed in (replace(run, seed=run.seed + 1), replace(run, pause_rule="per-migration"),
                    replace(run, scheduler_params={"gfs": {"x": 1}})):
        other = replace(regime, config=replace(regime.config, run=changed))
        assert borrowed_runs(main, other).traces == ()
    gfs = regime.traces["gfs"]
    for spec in (replace(gfs.spec, hours=(9.0, 11.0)), replace(gfs.spec, nodes=5),
                 replace(gfs.spec, synthetic="gfs-paper-regime")):
        other = replace(regime, traces={**regime.traces, "gfs": replace(gfs, spec=spec)})
        assert borrowed_runs(main, other).traces == ()
    more_days = replace(gfs, days=(*gfs.days, 999))
    other = replace(regime, traces={**regime.traces, "gfs": more_days})
    assert borrowed_runs(main, other).traces == ()


def test_kept_rows_refuses_parts_that_lack_a_batch():
    frame = pd.DataFrame({"trace": ["gfs"] * 3, "day": [26] * 3, "seed": [0] * 3,
                          "eta": [0.9] * 3, "cost": [8.0] * 3,
                          "scheduler": ["compass-abs", "gfs", "gfs-backfill"]})
    keep = {"labels": ["compass-abs", "gfs"], "batches": {"gfs": [[26, 0, 0.9, 8.0]]}}
    assert kept_rows(frame, keep)["scheduler"].tolist() == ["compass-abs", "gfs"]
    with pytest.raises(ValueError, match="1 of the 2 rows"):
        kept_rows(frame[frame["scheduler"] != "gfs"], keep)
    with pytest.raises(ValueError, match="2 of the 4 rows"):
        kept_rows(frame, {**keep, "batches": {"gfs": [[26, 0, 0.9, 8.0], [26, 1, 0.9, 8.0]]}})
