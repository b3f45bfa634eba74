"""Rule ``simulate`` runs groups: every (eta, c) batch of one sample (trace, day, seed) in one
Snakemake job. Which batches form a group, what a group writes (the rows its batches would
write one by one), that an interrupted group leaves no output to be taken for done, and that
runs.csv keeps the batch order whatever the groups."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments import pipeline
from compass.experiments.config import ResolvedTrace, RunSettings
from compass.experiments.data import load_days
from compass.experiments.grid import RunGroup, RunKey, group_grid
from compass.experiments.pipeline import collect_runs, make_plan, simulate_group
from compass.experiments.runs import run_batch

ROOT = Path(__file__).parents[1]
#: The sample the tests replay: a few hours of one SYNTHETIC Venus day, two cheap schedulers.
SAMPLE = {"trace": "venus", "day": "92", "seed": "1"}
BATCHES = [[0.85, 8.0], [0.9, 1.0], [0.9, 8.0]]


def plan(name: str) -> pipeline.Plan:
    raw = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
    return make_plan(raw, Path("/nonexistent"))  # no real traces: SYNTHETIC everywhere


def run_record(name: str = "smoke") -> dict:
    """The profile's run settings cut to two cheap schedulers, no variants, no extension."""
    record = {**plan(name).config.run.record(), "schedulers": ["gfs", "fgd"], "variants": {}}
    record.pop("extension", None)
    return record


@pytest.mark.parametrize("name, groups", [("smoke", 8), ("quick", 30), ("full", 1860)])
def test_a_group_is_every_batch_of_one_sample(name, groups):
    p = plan(name)
    assert len(p.groups) == groups
    assert sorted(k for keys in p.groups.values() for k in keys) == p.grid  # each batch once
    for group, keys in p.groups.items():
        assert {k.group for k in keys} == {group}
        assert keys == sorted(keys, key=lambda k: (k.eta, k.cost))
    assert list(p.groups) == sorted(p.groups)


def test_a_group_takes_its_batches_as_a_parameter():
    """The (eta, c) list is a rule parameter: another eta or c for a sample redoes its group
    (Snakemake's params trigger), and only that group."""
    p = plan("smoke")
    batches = json.loads(p.group_batches({"trace": "gfs", "day": "26", "seed": "0"}))
    assert batches == [[0.85, 8.0], [0.9, 1.0], [0.9, 8.0], [0.95, 8.0]]
    assert json.loads(p.group_batches({"trace": "gfs", "day": "58", "seed": "0"})) == \
        [[0.85, 8.0], [0.9, 8.0], [0.95, 8.0]]


def test_group_grid_orders_groups_and_their_batches():
    keys = [RunKey("gfs", 2, 0.9, 8.0, 1), RunKey("gfs", 2, 0.85, 8.0, 1),
            RunKey("gfs", 2, 0.9, 1.0, 0), RunKey("venus", 1, 0.9, 8.0, 0)]
    assert group_grid(keys) == {
        RunGroup("gfs", 2, 0): [keys[2]],
        RunGroup("gfs", 2, 1): [keys[1], keys[0]],
        RunGroup("venus", 1, 0): [keys[3]],
    }


def test_a_group_writes_the_rows_its_batches_write_one_by_one(tmp_path, capfd):
    """Drawing the day once for all batches changes no value: the group's CSV holds, in
    order, the rows of each batch run alone (apart from the seconds each run took)."""
    p, out = plan("smoke"), tmp_path / "group.csv"
    simulate_group(SAMPLE, BATCHES, p.traces["venus"].record(), run_record(), [], str(out))
    trace = ResolvedTrace.from_record(p.traces["venus"].record())
    settings = RunSettings.from_record({**run_record(), "seed": 1})
    alone = []
    for eta, cost in BATCHES:
        jobs = load_days(trace, 1, [92])[92]
        alone.append(run_batch(jobs, RunKey("venus", 92, eta, cost, 1), trace, settings))
    # through a CSV, as runs.csv reads them
    expected = pd.concat(alone, ignore_index=True)
    expected.to_csv(tmp_path / "alone.csv", index=False)
    got, want = pd.read_csv(out), pd.read_csv(tmp_path / "alone.csv")
    timing = ["wall_s", "cpu_s"]  # measured, so never equal between two runs
    pd.testing.assert_frame_equal(got.drop(columns=timing), want.drop(columns=timing))
    log = capfd.readouterr().err
    assert "venus day 92 seed 1: 3 batches, start-up" in log
    assert "batch 3 of 3 (eta 0.9, c 8) done in" in log


def test_an_interrupted_group_leaves_no_output_and_its_rerun_completes(tmp_path, monkeypatch,
                                                                      capfd):
    """A group stopped after some batches writes nothing (Snakemake sees the output missing
    and redoes the group on the next run); its log says how far it got."""
    p, out = plan("smoke"), tmp_path / "group.csv"
    calls = []

    def stopped_at_the_second(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return run_batch(*args, **kwargs)

    monkeypatch.setattr(pipeline, "run_batch", stopped_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        simulate_group(SAMPLE, BATCHES, p.traces["venus"].record(), run_record(), [], str(out))
    assert not out.exists()
    assert "batch 1 of 3 (eta 0.85, c 8) done" in capfd.readouterr().err
    monkeypatch.undo()
    simulate_group(SAMPLE, BATCHES, p.traces["venus"].record(), run_record(), [], str(out))
    assert len(pd.read_csv(out)) == len(BATCHES) * 2


def test_collect_runs_keeps_the_batch_order_whatever_the_groups(tmp_path):
    """runs.csv lists rows by batch (trace, day, eta, c, seed), each batch's schedulers in
    the profile's order, as when each batch was its own file."""
    def rows(seed: int, etas: list[float]) -> pd.DataFrame:
        return pd.DataFrame([{"trace": "gfs", "day": 26, "eta": eta, "cost": 8.0,
                              "seed": seed, "scheduler": s}
                             for eta in etas for s in ("mcg", "gfs")])

    paths = []
    for seed in (1, 0):
        paths.append(str(tmp_path / f"day26_s{seed}.csv"))
        rows(seed, [0.85, 0.9]).to_csv(paths[-1], index=False)
    collect_runs(paths, str(tmp_path / "runs.csv"))
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert list(runs.itertuples(index=False, name=None)) == [
        ("gfs", 26, eta, 8.0, seed, s) for eta in (0.85, 0.9) for seed in (0, 1)
        for s in ("mcg", "gfs")]
