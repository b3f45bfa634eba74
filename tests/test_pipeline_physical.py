"""The pipeline's physical experiment (section 5.1): config, plan, results and the claim.

The Ray runs themselves are tested in tests/test_runtime_*.py; here a results folder with
a fabricated physical summary stands in for them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass import experiments as X
from compass.experiments.config import ConfigError, parse_config
from compass.experiments.layout import PHYSICAL_TABLE, Layout
from compass.experiments.pipeline import make_plan
from compass.experiments.verdict.measures import Evidence, _physical_latency

ROOT = Path(__file__).parents[1]


def profile(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


def test_quick_runs_no_physical_experiment_and_full_does():
    quick = make_plan(profile("quick"), ROOT)
    assert quick.config.experiments.physical is None
    assert quick.physical_inputs("01_overall") == []
    full = replace(make_plan(profile("full"), ROOT), runtime=True)
    spec = full.config.experiments.physical
    assert spec is not None and spec.trace == "physmix-migrate" and spec.nodes == 4
    assert spec.scenario and full.physical_canonical() == []
    assert full.physical_inputs("01_overall") == [full.layout.physical_summary]
    assert any(p.name == f"{PHYSICAL_TABLE}.md" for p in full.products("01_overall"))
    assert full.physical_record()["schedulers"] == list(spec.schedulers)


def test_physical_step_is_skipped_with_a_note_without_the_runtime():
    full = replace(make_plan(profile("full"), ROOT), runtime=False)
    assert full.config.experiments.physical is not None and full.physical is None
    assert full.physical_inputs("01_overall") == []
    assert not any(p.stem == PHYSICAL_TABLE for p in full.products("01_overall"))
    assert full.physical_record() == {}
    [note] = [n for n in full.notes if "physical" in n]
    assert note.startswith("SKIPPED") and "pip install torch" in note


def test_physical_scenario_runs_its_fixed_jobs(tmp_path, monkeypatch):
    """A scenario needs no ``traces`` entry; the rule replays its job list under each
    scheduler (``run_physical`` stubbed: the jobs it is handed are what is checked)."""
    import compass.runtime
    from compass.experiments.pipeline import physical_runs
    from compass.traces.physmix_migrate import physmix_migrate

    handed = []

    class Result:
        summary = {"afr": 0.1}

        def write(self, folder, table_format="csv"):
            return folder

    def fake_run(jobs, name, **kwargs):
        handed.append((name, jobs))
        return Result()

    monkeypatch.setattr(compass.runtime, "run_physical", fake_run)
    full = replace(make_plan(profile("full"), ROOT), runtime=True)
    out = tmp_path / "physical" / "summary.csv"
    out.parent.mkdir()
    physical_runs(full.physical_record(), {}, 0, [], str(out))
    expected = physmix_migrate()
    assert [name for name, _ in handed] == list(full.physical.schedulers)
    for _, jobs in handed:
        pd.testing.assert_frame_equal(jobs, expected.head(full.physical.max_jobs))
    summary = pd.read_csv(out)
    assert set(summary["trace"]) == {"physmix-migrate"} and set(summary["label"]) == {"SYNTHETIC"}


def test_physical_refers_to_a_configured_trace_and_registered_schedulers():
    raw = profile("full")
    raw["experiments"]["physical"]["trace"] = "helios"
    with pytest.raises(ConfigError, match="helios"):
        parse_config(raw)
    raw = profile("full")
    raw["experiments"]["physical"]["schedulers"] = ["compass-abs", "no-such-scheduler"]
    with pytest.raises(ConfigError, match="no-such-scheduler"):
        make_plan(raw, ROOT)


def _results(tmp_path: Path, latencies: list[float]) -> X.Results:
    """A results folder with config.json, an empty runs.csv and one physical run."""
    plan = make_plan(profile("full"), ROOT)
    layout = Layout(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    layout.config.write_text(json.dumps(plan.record()))
    pd.DataFrame(columns=["scheduler", "status", "error"]).to_csv(layout.runs, index=False)
    summary = {"scheduler": "compass-abs", "afr": 0.2, "ajct": 3600.0, "agu": 0.7,
               "migrations": len(latencies), "mean_migration_latency_s": 9.0, "restarts": 0,
               "jobs": 16, "wall_s": 300.0, "mode": "emulated", "device": "cpu"}
    layout.physical.mkdir()
    pd.DataFrame([summary]).to_csv(layout.physical_summary, index=False)
    (layout.physical / "compass-abs").mkdir()
    pd.DataFrame({"job_id": range(len(latencies)), "latency_s": latencies}).to_csv(
        layout.physical / "compass-abs" / "migrations.csv", index=False)
    return X.Results.load(tmp_path)


def test_physical_table_sets_the_measured_latency_beside_c(tmp_path):
    res = _results(tmp_path, [7.0, 11.0])
    table = X.physical(res)
    assert list(table["scheduler"]) == ["compass-abs"]
    assert table.loc[0, "c"] == res.config.migration_cost == 8.0
    assert table.loc[0, "mean_migration_latency_s"] == 9.0
    assert "MEASURED on Ray (emulated nodes, cpu training)" in X.physical_label(res)
    assert "SYNTHETIC" in X.physical_label(res)
    assert list(X.migration_latencies(res)["latency_s"]) == [7.0, 11.0]


def test_latency_claim_is_measured_from_the_runs_or_has_no_data(tmp_path):
    measured = _physical_latency(Evidence(_results(tmp_path / "a", [7.0, 11.0]), tmp_path))
    assert measured.value == 9.0 and "2 checkpoint-restarts" in measured.text
    none = _physical_latency(Evidence(_results(tmp_path / "b", []), tmp_path))
    assert none.value is None and "no migration" in none.text
