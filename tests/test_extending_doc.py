"""docs/extending.md: each recipe's code blocks run as written (recipes 1 and 2 in one
namespace each, recipe 3 as a notebook under papermill); the entry point it shows is the
example plugin's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from compass.schedulers import registry
from compass.traces import formats as trace_formats

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"


def recipe(number: int) -> str:
    """The text of section ``## <number>.``."""
    parts = re.split(r"^## (?=\d\.)", DOC.read_text(), flags=re.M)
    return next(p for p in parts if p.startswith(f"{number}."))


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


@pytest.fixture
def clean_registries():
    schedulers, formats = dict(registry._REGISTRY), dict(trace_formats._FORMATS)
    yield
    registry._REGISTRY.clear()
    registry._REGISTRY.update(schedulers)
    trace_formats._FORMATS.clear()
    trace_formats._FORMATS.update(formats)


def run_recipe(number: int, tmp_path: Path, monkeypatch) -> dict:
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"extending_recipe_{number}"}
    code = blocks(recipe(number), "python")
    assert code, f"recipe {number} has no python block"
    for block in code:
        exec(compile(block, f"{DOC.name} recipe {number}", "exec"), namespace)
    return namespace


def test_recipe_1_a_scheduler(tmp_path, monkeypatch, clean_registries) -> None:
    ns = run_recipe(1, tmp_path, monkeypatch)
    assert registry.scheduler_class("spare-fit").card().display == "Spare-fit (example)"
    table = ns["table"]
    assert len(table) == 2 * (1 + 2)  # gfs once per eta, spare-fit per eta and spare
    shown = tomllib.loads(blocks(recipe(1), "toml")[0])
    plugin = tomllib.loads((ROOT / "examples/compass-worst-fit/pyproject.toml").read_text())
    assert shown["project"]["entry-points"] == plugin["project"]["entry-points"]


def test_recipe_2_a_trace_format(tmp_path, monkeypatch, clean_registries) -> None:
    ns = run_recipe(2, tmp_path, monkeypatch)
    assert trace_formats.trace_format("minutes").description.startswith("a job log")
    assert ns["run"].summary["trace_source"] == "minutes-log"


def test_recipe_3_an_experiment_notebook(tmp_path) -> None:
    papermill = pytest.importorskip("papermill", reason="papermill not installed")
    import nbformat

    cells = [nbformat.v4.new_code_cell(b.rstrip("\n")) for b in blocks(recipe(3), "python")]
    assert cells[0].source.startswith("# parameters")
    cells[0].metadata["tags"] = ["parameters"]
    source = tmp_path / "my_sweep.ipynb"
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python",
                               "name": "python3"}, "language_info": {"name": "python"}}
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=metadata), source)
    out = tmp_path / "out.ipynb"
    papermill.execute_notebook(str(source), str(out), cwd=str(tmp_path), progress_bar=False,
                               parameters={"etas": [0.85, 0.95]})
    text = out.read_text()
    assert "image/png" in text and "SYNTHETIC demo workload" in text
    assert "papermill my_sweep.ipynb" in blocks(recipe(3), "bash")[0]


def test_recipe_5_a_plugin_through_a_sweep_and_the_pipeline(
        tmp_path, monkeypatch, clean_registries, capsys) -> None:
    """The plugin's sweep reports its cache (all run, all cached, then only the edited
    plugin's runs again); the pipeline command writes the plugin's leads table."""
    import os
    import subprocess
    import sys

    from compass.schedulers import PLUGINS_ENV

    # the recipe's load_plugins adds its module to the environment, which the later tests'
    # pipelines inherit: set first, so that monkeypatch restores the variable as it was
    monkeypatch.setenv(PLUGINS_ENV, "")
    monkeypatch.delenv(PLUGINS_ENV)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setitem(sys.modules, "random_fit", None)  # removed again afterwards
    del sys.modules["random_fit"]
    ns = run_recipe(5, tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    print(printed)  # the recipe's output, for whoever reads the test log
    folder = "sweep-cache"
    assert f"18 runs: 0 from the cache, 18 run now (cache {folder})" in printed
    assert f"18 runs: 18 from the cache, 0 run now (cache {folder})" in printed
    assert f"18 runs: 12 from the cache, 6 run now (cache {folder})" in printed
    edited = ns["edited"]
    assert set(edited.loc[~edited["from_cache"], "scheduler"]) == {"random-fit"}
    assert set(edited["trace"]) == {"demo:0", "demo:1", "demo:2"}

    pytest.importorskip("snakemake", reason="the pipeline extra is not installed")
    script = blocks(recipe(5), "bash")[0]
    study = tmp_path / "study"
    env = {**{k: v for k, v in os.environ.items() if k != PLUGINS_ENV},
           "COMPASS": str(ROOT), "STUDY": str(study),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stdout)
    leads = pd.read_csv(study / "results" / "smoke" / "tables" / "plugin_leads.csv")
    assert set(leads["scheduler"]) == {"random-fit"}
    assert set(leads["against"]) == {"compass-abs", "strongest baseline"}
    assert (leads["n"] > 0).all() and "random-fit" in done.stdout
