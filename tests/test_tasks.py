"""tasks.py: environment.yml generated from pyproject.toml, and the venv folder it uses."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _tasks():
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[\w.-]+", requirement)[0]).lower()


def test_environment_yml_is_generated_from_pyproject():
    """The committed file is what `tasks.py lock` writes: edit pyproject.toml, then run it."""
    assert (ROOT / "environment.yml").read_text() == _tasks().environment_yml(PROJECT), (
        "environment.yml differs from pyproject.toml: run python3 tasks.py lock")


def test_environment_yml_holds_every_runtime_dependency_with_its_range():
    """Read back as YAML (not as the generator writes it): every requirement of the package
    and of its extras, highspy included, with pyproject's range, and nothing else."""
    yaml = pytest.importorskip("yaml")
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = [d for d in env["dependencies"] if isinstance(d, str)]
    listed += next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    wanted = [*PROJECT["dependencies"]]
    for extra in PROJECT["optional-dependencies"].values():
        wanted += [r for r in extra if not r.startswith("compass[")]
    assert "highspy" in {_name(r) for r in listed}
    assert sorted(r.replace(" ", "") for r in wanted) == sorted(
        r for r in listed if _name(r) not in ("python", "pip"))
    assert f"python{PROJECT['requires-python']}" in listed


def test_a_requirement_added_to_pyproject_changes_the_environment():
    tasks = _tasks()
    project = {**PROJECT, "dependencies": [*PROJECT["dependencies"], "networkx>=3,<4"],
               "optional-dependencies": {**PROJECT["optional-dependencies"],
                                         "runtime": ["torch>=2.2,<3", "ray>=2.9,<3"]}}
    text = tasks.environment_yml(project)
    assert "  - networkx>=3,<4\n" in text and text != (ROOT / "environment.yml").read_text()
    assert "      - torch>=2.2,<3\n" in text  # pip-only packages go under pip:


@pytest.mark.parametrize(("value", "folder"), [(None, ".venv"), (".venv-physical",
                                                                   ".venv-physical")])
def test_compass_venv_chooses_the_environment_folder(value, folder):
    """COMPASS_VENV names the folder tasks.py creates and runs from (CI: two, side by side)."""
    env = {k: v for k, v in os.environ.items() if k != "COMPASS_VENV"}
    if value is not None:
        env["COMPASS_VENV"] = value
    code = ("import importlib.util as u; s = u.spec_from_file_location('t', 'tasks.py'); "
            "m = u.module_from_spec(s); s.loader.exec_module(m); print(m.VENV, m.STAMP)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                          capture_output=True, check=True)
    venv, stamp = done.stdout.split()
    assert Path(venv) == ROOT / folder and Path(stamp).parent == ROOT / folder


@pytest.mark.parametrize("seconds, text", [(58.4, "58 s"), (71, "1 min 11 s"),
                                           (7376, "2 h 3 min"), (6277, "1 h 45 min"),
                                           (3569, "59 min 29 s"), (1233, "20 min 33 s")])
def test_duration_writes_wall_times_as_the_docs_do(seconds, text):
    """Seconds under an hour; from an hour, minutes rounded to the nearest (the precision
    tests/test_measurements.py allows a quoted "1 h 45 min": half a minute)."""
    assert _tasks().duration(seconds) == text


def test_measure_writes_entries_that_replace_older_ones_of_the_same_id():
    """`tasks.py measure ID --from cost.json`: two entries (wall, CPU) in place of older ones
    with those ids, the rest of the file untouched, readable as YAML."""
    yaml = pytest.importorskip("yaml")
    tasks = _tasks()
    text = (ROOT / "docs" / "measurements.yaml").read_text()
    cost = {"wall_s": 75.4, "cpu_s": 1300.2, "cores": 2, "load_start": [0.1, 0.2, 0.3],
            "load_end": [1.5, 1.0, 1.0], "date": "2026-12-04T17:00:00+00:00",
            "commit": "abcdef1234567", "profile": "quick", "machine": "Linux x86_64"}
    before = yaml.safe_load(text)["measurements"]
    once = tasks.write_measurements(text, tasks.measurement_entries("quick", cost))
    twice = tasks.write_measurements(once, tasks.measurement_entries("quick", cost))
    assert once == twice
    after = {e["id"]: e for e in yaml.safe_load(twice)["measurements"]}
    assert len(after) == len(before)  # quick-wall and quick-cpu replaced, not added
    assert after["quick-wall"]["quoted"] == ["1 min 15 s"] and after["quick-wall"]["value"] == 75
    assert after["quick-cpu"]["quoted"] == ["1,300 CPU-seconds"]
    assert after["quick-cpu"]["commit"] == "abcdef1" and after["quick-cpu"]["date"] == "2026-12-04"
    unchanged = [e for e in before if not e["id"].startswith("quick-")]
    assert [after[e["id"]] for e in unchanged] == unchanged
    new = tasks.write_measurements(text, tasks.measurement_entries("medium-again", cost))
    assert len(yaml.safe_load(new)["measurements"]) == len(before) + 2


def test_measure_records_the_plan_the_verdicts_and_the_sizes_of_a_run():
    """A run's cost.json with its plan fingerprint, verdict counts, peak memory and disk:
    every entry carries the plan; the verdict counts are quoted as the report prints them."""
    yaml = pytest.importorskip("yaml")
    from compass.experiments.verdict.headline import verdict_text

    tasks = _tasks()
    counts = {"holds": 19, "tie": 3, "differs": 43, "inconclusive": 4, "not applicable": 0,
              "no data": 4, "not measured": 8}
    cost = {"wall_s": 449.0, "cpu_s": 815.2, "cores": 2, "load_start": [0.1, 0.2, 0.3],
            "load_end": [1.5, 1.0, 1.0], "date": "2026-12-06T07:00:00+00:00",
            "commit": "abcdef1234567", "profile": "quick", "machine": "Linux x86_64",
            "plan": "0123456789ab", "verdicts": counts, "verdicts_text": verdict_text(counts),
            "peak_memory_mb": 1234, "disk_mb": 56}
    entries = {e["id"]: e for e in tasks.measurement_entries("quick", cost)}
    assert set(entries) == {"quick-verdicts", "quick-peak-memory", "quick-disk", "quick-wall",
                            "quick-cpu"}
    assert all(e["plan"] == "0123456789ab" for e in entries.values())
    assert entries["quick-verdicts"]["quoted"] == [
        "19 holds, 3 tie, 43 differs, 4 inconclusive, 0 not applicable, 4 no data, "
        "8 not measured (81 claims)"]
    assert entries["quick-peak-memory"]["quoted"] == ["1,234 MB"]
    text = tasks.write_measurements("measurements:\n", list(entries.values()))
    assert yaml.safe_load(text)["measurements"][0]["value"] == counts
