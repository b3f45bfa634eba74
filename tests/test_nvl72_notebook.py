"""notebooks/07_nvl72.ipynb runs under papermill (skipped without the 'notebooks' extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

papermill = pytest.importorskip("papermill", reason="papermill not installed (extra 'notebooks')")
pytest.importorskip("matplotlib", reason="matplotlib not installed (extra 'notebooks')")

NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "07_nvl72.ipynb"


def test_nvl72_notebook_runs(tmp_path: Path) -> None:
    out = tmp_path / "nvl72.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), cwd=str(tmp_path), progress_bar=False,
                               parameters={"jobs": 40, "seed": 1, "figures": str(tmp_path),
                                           "tables": str(tmp_path)})
    text = out.read_text()
    assert "compass-abs-hier" in text and "image/png" in text
    for name in ("fig_nvl72.png", "fig_nvl72.pdf", "nvl72.csv", "nvl72.md"):
        assert (tmp_path / name).exists(), name
