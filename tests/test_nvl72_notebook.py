"""notebooks/07_nvl72.ipynb runs under papermill on the runs of rule nvl72 (skipped without
the 'notebooks' extra)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from compass.experiments.layout import Layout
from compass.experiments.studies.nvl72.config import PLATFORMS, SCHEDULERS
from compass.experiments.studies.nvl72.runs import load_nvl72, write_nvl72

papermill = pytest.importorskip("papermill", reason="papermill not installed (extra 'notebooks')")
pytest.importorskip("matplotlib", reason="matplotlib not installed (extra 'notebooks')")

NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "07_nvl72.ipynb"
SETTINGS = {"jobs": 40, "seed": 1, "multi_panel_share": 0.25}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A results folder holding what rule nvl72 writes, on a small workload."""
    layout = Layout(tmp_path_factory.mktemp("results"))
    layout.nvl72.parent.mkdir(parents=True)
    write_nvl72(SETTINGS, layout.nvl72, layout.nvl72_settings)
    return layout.root


def test_rule_output_round_trips_with_its_label(results: Path) -> None:
    table, label = load_nvl72(results)
    assert len(table) == len(PLATFORMS) * len(SCHEDULERS)
    assert (table["status"] == "ok").all()
    assert label == "SYNTHETIC multi-panel workload, 40 jobs, seed 1"
    assert json.loads(Layout(results).nvl72_settings.read_text()) == SETTINGS


def test_nvl72_notebook_runs(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "nvl72.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), cwd=str(tmp_path), progress_bar=False,
                               parameters={"results": str(results), "figures": str(tmp_path),
                                           "tables": str(tmp_path)})
    text = out.read_text()
    assert "compass-abs-hier" in text and "image/png" in text
    for name in ("fig_nvl72.png", "fig_nvl72.pdf", "nvl72.csv", "nvl72.md"):
        assert (tmp_path / name).exists(), name
    written = pd.read_csv(tmp_path / "nvl72.csv")
    assert list(written.columns) == list(load_nvl72(results)[0].columns)
    assert "40 jobs, seed 1" in (tmp_path / "nvl72.md").read_text()
