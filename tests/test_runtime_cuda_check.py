"""benchmarks/physical_cuda_check.py, the trainer's migrations without Ray (run on a GPU by
hand), on the CPU: real processes checkpoint, stop, restart and restore a job."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="physical mode needs the 'runtime' extra (torch)")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "physical_cuda_check.py"


def _module():
    spec = importlib.util.spec_from_file_location("physical_cuda_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_check_migrates_a_job_twice_on_cpu(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path), "--device", "cpu",
                           "--jobs", "1", "--migrations", "2"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=480)
    report = json.loads((tmp_path / "physical_cuda_check.json").read_text())
    assert done.returncode == 0, (done.stdout, done.stderr, report["failed"])
    assert report["ok"] and report["failed"] == [] and report["error"] is None
    rows = report["migrations"]
    assert [r["job"] for r in rows] == [0, 0] and [r["generation"] for r in rows] == [1, 2]
    assert rows[0]["step"] >= 5 and rows[1]["step"] > rows[0]["step"]
    for r in rows:
        assert r["state_equal"] and r["on_device"] and r["restored_step"] == r["step"]
        parts = r["checkpoint_s"] + r["exit_s"] + r["launch_s"] + r["restore_s"]
        assert 0 < r["checkpoint_s"] and 0 < r["launch_s"] and r["latency_s"] >= parts - 1e-6
    assert report["jobs"][0]["max_abs_diff_uninterrupted"] == 0.0


def _row(**kw):
    row = {"migration": 0, "state_equal": True, "on_device": True, "resumed_from": "latest",
           "restored_step": 9, "step": 9}
    return {**row, **kw}


@pytest.mark.parametrize("bad", [{"state_equal": False}, {"on_device": False},
                                 {"resumed_from": "previous"}, {"restored_step": 0}])
def test_verdict_fails_a_migration_that_did_not_restore_the_saved_state(bad):
    check = _module()
    report = {"device": "cpu", "migrations": [_row(), _row(**bad)], "jobs": []}
    assert check.verdict(report, 2) == ["migration 0: restored state differs or off device"]
    assert check.verdict({**report, "migrations": [_row(), _row()]}, 2) == []
    assert check.verdict({**report, "migrations": [_row()]}, 2) == ["1 migrations of 2"]


def _job(diff, **kw):
    return {"job_id": 0, "max_abs_diff_uninterrupted": diff, "nonfinite_migrated": 0,
            "nonfinite_uninterrupted": 0, "nonfinite_masks_equal": True, **kw}


def test_verdict_fails_nan_and_diverged_runs_that_diverge_differently():
    check = _module()
    report = {"device": "cuda", "migrations": []}
    assert len(check.verdict({**report, "jobs": [_job(float("nan"))]}, 0)) == 1
    diverged = _job(0.0, nonfinite_migrated=3, nonfinite_uninterrupted=5,
                    nonfinite_masks_equal=False)
    assert len(check.verdict({**report, "jobs": [diverged]}, 0)) == 1
    same = _job(0.0, nonfinite_migrated=4, nonfinite_uninterrupted=4)
    assert check.verdict({**report, "jobs": [same]}, 0) == []


def test_verdict_tolerates_cuda_rounding_but_not_on_cpu():
    check = _module()
    jobs = [_job(check.CUDA_TOLERANCE / 2)]
    assert check.verdict({"device": "cuda", "migrations": [], "jobs": jobs}, 0) == []
    assert len(check.verdict({"device": "cpu", "migrations": [], "jobs": jobs}, 0)) == 1
    jobs[0]["max_abs_diff_uninterrupted"] = 2 * check.CUDA_TOLERANCE
    assert len(check.verdict({"device": "cuda", "migrations": [], "jobs": jobs}, 0)) == 1
