"""A core install (``pip install .``, no extra) runs the command line: ``compass
schedulers`` and ``compass simulate --trace demo`` run in an interpreter where every package
outside the core dependencies of pyproject.toml (and theirs) cannot be imported, as in a
core install. (CI also installs the package alone in a clean venv and runs the commands:
.ci/run.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
CORE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]

#: Runs the CLI in a fresh interpreter in which the modules of ``BLOCKED`` cannot be imported.
PROBE = """
import json, os, sys

class Blocker:
    blocked = set(json.loads(os.environ["BLOCKED"]))
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Blocker())
from compass.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(requirements: list[str]) -> set[str]:
    """The distributions ``requirements`` pull in (no extras), normalised names."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        if _norm(req.name) in seen:
            continue
        seen.add(_norm(req.name))
        try:
            todo.extend(Requirement(r) for r in metadata.requires(req.name) or [])
        except metadata.PackageNotFoundError:
            pass
    return seen


def _plugins() -> set[str]:
    """The installed distributions that register schedulers (entry point group
    ``compass.schedulers``): a user's plugins, which a core install may hold beside compass."""
    return {_norm(point.dist.name) for point in metadata.entry_points(group="compass.schedulers")
            if point.dist is not None}


def outside_core(core: list[str]) -> set[str]:
    """The importable top-level modules of installed distributions outside ``core``'s
    closure (pip, setuptools, compass itself and its installed plugins excepted: a venv with
    compass has them)."""
    allowed = _closure(core) | {"compass", "pip", "setuptools"} | _plugins()
    return {module for module, dists in metadata.packages_distributions().items()
            if not {_norm(d) for d in dists} & allowed}


def _cli(tmp_path: Path, core: list[str], *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BLOCKED": json.dumps(sorted(outside_core(core)))}
    return subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env=env)


def test_the_cli_runs_on_the_core_dependencies(tmp_path: Path) -> None:
    listed = _cli(tmp_path, CORE, "schedulers")
    assert listed.returncode == 0 and "compass-abs" in listed.stdout, listed.stderr
    demo = _cli(tmp_path, CORE, "simulate", "--trace", "demo", "--nodes", "8", "--quiet",
                "--out", str(tmp_path / "demo"))
    assert demo.returncode == 0, demo.stderr
    assert (tmp_path / "demo" / "summary.json").exists()


def test_the_probe_fails_without_a_needed_package(tmp_path: Path) -> None:
    """The check can fail: without pandas in the core, the CLI cannot start."""
    assert {"snakemake", "matplotlib"} <= outside_core(CORE)
    broken = _cli(tmp_path, [r for r in CORE if not r.startswith("pandas")], "schedulers")
    assert broken.returncode != 0 and "pandas" in broken.stderr
