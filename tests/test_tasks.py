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
