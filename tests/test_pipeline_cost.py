"""compass.experiments.cost: the record a pipeline run writes to results/<profile>/cost.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compass.experiments.cost import RunCost, commit, process_age
from compass.experiments.runs import cpu_seconds

ROOT = Path(__file__).resolve().parents[1]


def test_cpu_seconds_count_the_children_waited_for():
    before = cpu_seconds()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    assert cpu_seconds() - before > 0.05


def test_the_record_has_wall_cpu_cores_and_load(tmp_path):
    cost = RunCost()
    record = cost.write(tmp_path / "results" / "quick" / "cost.json", "quick", 8, ROOT)
    assert json.loads((tmp_path / "results" / "quick" / "cost.json").read_text()) == record
    assert record["profile"] == "quick" and record["cores"] == 8
    assert record["wall_s"] >= 0 and record["cpu_s"] > 0
    assert len(record["load_start"]) == len(record["load_end"]) == 3
    assert record["date"][:2] == "20" and record["date"].endswith("+00:00")


def test_commit_is_the_checkout_or_none(tmp_path):
    head = commit(ROOT)
    assert head is None or len(head) == 40  # a fresh clone has one; an export has none
    assert commit(tmp_path) is None


def test_the_wall_time_counts_from_the_process_start():
    """As `time` counts: a run's Python and Snakemake start-up included (Linux)."""
    age = process_age()
    if age is None:
        pytest.skip("no /proc: the wall time counts from the Snakefile's parse instead")
    done = subprocess.run([sys.executable, "-c", "import time; time.sleep(0.6); "
                           "from compass.experiments.cost import process_age as a; print(a())"],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    assert 0.6 <= float(done.stdout) < 30
    assert RunCost().record("x", 1, ROOT)["wall_s"] >= round(age, 1) > 0
