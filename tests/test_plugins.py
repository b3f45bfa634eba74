"""Outside schedulers: the example plugin (examples/compass-worst-fit) through ``--plugin``,
through an entry point of the group ``compass.schedulers`` (simulated: the entry point the
package's pyproject.toml declares, given to the registry by ``importlib.metadata``), through
``compass.simulate`` and through a pipeline profile's ``plugins:``."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import compass
from compass.cluster import ClusterState
from compass.experiments.config import ConfigError
from compass.experiments.pipeline import make_plan
from compass.model import Job
from compass.schedulers import PLUGINS_ENV, registry
from compass.traces import demo_trace

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "compass-worst-fit"
SRC = PLUGIN / "src"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != PLUGINS_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(SRC)])
    return env


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compass.cli", *args], capture_output=True,
                          text=True, env=_env(), cwd=ROOT, timeout=300)


def test_the_plugin_runs_through_the_cli_only_when_named(tmp_path: Path) -> None:
    run = ["simulate", "--trace", "demo", "--nodes", "8", "--scheduler", "worst-fit",
           "--out", str(tmp_path / "wf"), "--quiet"]
    installed = any(p.name == "worst-fit"
                    for p in metadata.entry_points(group=registry.ENTRY_POINT_GROUP))
    if not installed:  # where CI pip-installed the example, it needs no option
        refused = _cli(*run)
        assert refused.returncode == 2 and "--plugin" in refused.stderr
    for args in (["--plugin", "compass_worst_fit", *run], [*run, "--plugin", "compass_worst_fit"]):
        done = _cli(*args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("worst-fit: AFR=")
    assert (tmp_path / "wf" / "summary.json").exists()
    listed = _cli("--plugin", "compass_worst_fit", "schedulers")
    assert "worst-fit  [variant] Worst-fit (plugin)" in listed.stdout.splitlines()
    missing = _cli("--plugin", "no_such_plugin_module", "schedulers")
    assert missing.returncode == 2 and "no_such_plugin_module" in missing.stderr


def _entry_points(value: str):
    point = metadata.EntryPoint(name="worst-fit", value=value, group=registry.ENTRY_POINT_GROUP)

    def entry_points(*, group: str):
        return [point] if group == registry.ENTRY_POINT_GROUP else []
    return entry_points


@pytest.mark.parametrize("value", ["compass_worst_fit", "compass_worst_fit:WorstFit"])
def test_an_entry_point_adds_the_scheduler(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    declared = tomllib.loads((PLUGIN / "pyproject.toml").read_text())
    assert declared["project"]["entry-points"]["compass.schedulers"] == {
        "worst-fit": "compass_worst_fit"}
    monkeypatch.syspath_prepend(str(SRC))
    monkeypatch.setattr(registry.metadata, "entry_points", _entry_points(value))
    monkeypatch.setattr(registry, "_outside_loaded", False)
    assert "worst-fit" in compass.schedulers.available()
    result = compass.simulate(demo_trace(num_jobs=60), "worst-fit", nodes=8)
    assert result.summary["scheduler"] == "worst-fit" and len(result.jobs) == 60


def test_an_entry_point_that_cannot_be_imported_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry.metadata, "entry_points", _entry_points("no_such_plugin_module"))
    monkeypatch.setattr(registry, "_outside_loaded", False)
    with pytest.raises(ImportError, match="scheduler plugin 'worst-fit' .*no_such_plugin_module"):
        registry.load_outside()


@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from([1, 2, 4, 8])), min_size=1,
                max_size=20))
def test_worst_fit_places_on_the_emptiest_node(jobs: list[tuple[int, int]]) -> None:
    """The plugin's rule against a brute-force reference: instance by instance, the node
    with the most free GPUs (lowest index on ties); a job that does not fit whole is refused."""
    sys.path.insert(0, str(SRC))
    try:
        import compass_worst_fit  # noqa: F401  registers worst-fit (no environment change)
    finally:
        sys.path.remove(str(SRC))
    scheduler, state = compass.schedulers.create("worst-fit"), ClusterState(4, 8)
    for job_id, (w, g) in enumerate(jobs):
        free = [state.free(n) for n in range(4)]
        expected: list[int] | None = []
        for _ in range(w):
            node = max(range(4), key=lambda n: (free[n], -n))
            if free[node] < g:
                expected = None
                break
            expected.append(node)
            free[node] -= g
        placement = scheduler.place(Job(job_id, 0.0, 1.0, w, g), state, 0.0)
        assert (None if placement is None else list(placement.nodes)) == expected
        if placement is not None:
            state.place_job(job_id, g, placement.nodes)


def _profile(**extra: object) -> dict:
    import yaml
    raw = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    raw.update(extra)
    return raw


def test_a_profile_loads_its_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(SRC))
    monkeypatch.setenv(PLUGINS_ENV, "")  # restored (removed) after the test
    raw = _profile()
    raw.update(plugins=["compass_worst_fit"], schedulers=[*raw["schedulers"], "worst-fit"])
    plan = make_plan(raw, ROOT)
    assert "worst-fit" in plan.config.schedulers
    assert "compass_worst_fit" in os.environ[PLUGINS_ENV].split(",")  # its jobs load it too
    with pytest.raises(ConfigError, match="no_such_plugin_module"):
        make_plan({**raw, "plugins": ["no_such_plugin_module"]}, ROOT)


def test_an_installed_entry_point_needs_no_option(tmp_path: Path) -> None:
    """What ``pip install examples/compass-worst-fit`` leaves on the path: the package and a
    ``*.dist-info`` with the pyproject's entry points. A fresh process finds the scheduler
    through ``importlib.metadata`` alone."""
    declared = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    info = tmp_path / f"compass_worst_fit-{declared['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {declared['name']}\n"
                                   f"Version: {declared['version']}\n")
    lines = [line for group, points in declared["entry-points"].items()
             for line in [f"[{group}]", *(f"{k} = {v}" for k, v in points.items())]]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    env = _env()
    env["PYTHONPATH"] += os.pathsep + str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "compass.cli", "simulate", "--trace", "demo",
                           "--nodes", "8", "--scheduler", "worst-fit", "--out",
                           str(tmp_path / "wf"), "--quiet"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("worst-fit: AFR=")
