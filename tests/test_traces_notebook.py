"""The trace explorer notebook runs under papermill (skipped where papermill is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compass.traces.synthetic import day_plans

papermill = pytest.importorskip("papermill", reason="papermill not installed (extra 'notebooks')")
pytest.importorskip("matplotlib", reason="matplotlib not installed (extra 'notebooks')")

NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "00_explore_traces.ipynb"


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch):
    """The notebook's kernel imports this checkout's compass (not another installed one)."""
    monkeypatch.setenv("PYTHONPATH", str(NOTEBOOK.parents[1]))


def test_notebook_has_a_parameters_cell():
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and "trace =" in tagged[0].source and "day =" in tagged[0].source


def test_notebook_runs_on_a_wcc_stress_day(tmp_path):
    day = next(p.day for p in day_plans("venus-synth", days=60, seed=0)
               if p.scenario == "wcc-stress")
    out = tmp_path / "explore.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), cwd=str(tmp_path), progress_bar=False,
                               parameters={"trace": "venus-synth", "day": day, "days": 1,
                                           "first_day": day, "seed": 0})
    text = out.read_text()
    assert f"rho(day {day}) = 0." in text  # below 1: the WCC fails part of the day
    assert "SYNTHETIC synthetic:venus-synth" in text and "image/png" in text


def _two_day_trace(tmp_path: Path) -> Path:
    """A SYNTHETIC two-day canonical file (days 0 and 1)."""
    from compass.traces import synthesize

    path = tmp_path / "two_days.csv"
    synthesize("gfs-synth", days=2, start_day=0, seed=1).to_csv(path, index=False)
    return path


def test_notebook_defaults_to_the_busiest_day_and_shows_shapes(tmp_path):
    from compass.traces import load_trace
    from compass.traces.explore import busiest_day

    path = _two_day_trace(tmp_path)
    out = tmp_path / "explore.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), cwd=str(tmp_path), progress_bar=False,
                               parameters={"trace": str(path), "day": None})
    text = out.read_text()
    busiest = busiest_day(load_trace(path))
    assert f"on day {busiest} (the busiest)" in text and "days 0..1" in text
    assert "gpu_time_share" in text and "durations by GPUs per instance" in text


def test_notebook_names_the_span_of_a_day_it_lacks(tmp_path):
    path = _two_day_trace(tmp_path)
    with pytest.raises(papermill.PapermillExecutionError, match=r"outside the trace's span: "
                                                               r"days 0\.\.1"):
        papermill.execute_notebook(str(NOTEBOOK), str(tmp_path / "x.ipynb"), cwd=str(tmp_path),
                                   progress_bar=False, parameters={"trace": str(path), "day": 92})


def test_notebook_explores_the_real_venus_day_92_by_default(tmp_path):
    """Its defaults: the REAL Venus jobs data/ ships, day 92 (2020-06-17), with the load
    report's split rules and calendar, and no SYNTHETIC label."""
    out = tmp_path / "explore.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), cwd=str(tmp_path), progress_bar=False)
    import nbformat

    cells = [c for c in nbformat.read(out, 4).cells if c.cell_type == "code"]
    text = "".join(o.get("text", "") for c in cells for o in c.outputs)
    assert "venus: 125293 jobs on days 1..194, 697 on day 92" in text
    assert "counted 12550 (whole_nodes)" in text and "dropped 10 (split_unknown)" in text
    assert "the first job's day is day 1 (2020-03-18)" in text
    assert "a real trace: no calibration targets" in text and "SYNTHETIC" not in text
    assert "image/png" in out.read_text()
