"""``compass.sweep`` and ``compass sweep``: one row per distinct run, every metric, equal to
the run made alone; the disk cache replays nothing it holds; bad grids are refused."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compass
import compass.sweeping as sweeping
from compass.cli import main
from compass.traces import demo_trace
from compass.traces.windows import cluster_size

TRACE = demo_trace(num_jobs=120, seed=3)


def test_an_eta_by_cost_grid_is_a_tidy_frame(tmp_path: Path) -> None:
    etas, costs = [0.85, 0.95], [0.0, 8.0, 30.0]
    table = compass.sweep(TRACE, ["gfs", "compass-abs"], grid={"eta": etas, "cost": costs},
                          samples=2, processes=2, cache=tmp_path)
    assert isinstance(table, pd.DataFrame) and len(table) == 2 * 3 * 2 * 2
    assert set(map(tuple, table[["eta", "migration_cost"]].drop_duplicates().to_numpy())) == {
        (e, c) for e in etas for c in costs}
    row = table[(table.scheduler == "compass-abs") & (table.eta == 0.95)
                & (table.migration_cost == 8.0) & (table.seed == 1)].iloc[0]
    nodes = cluster_size(TRACE, 0.95).nodes
    alone = compass.simulate(TRACE, "compass-abs", nodes=nodes, migration_cost=8.0, seed=1)
    assert row["nodes"] == nodes
    assert set(alone.summary) - set(alone.metadata) <= set(table.columns)  # every metric
    for metric in ("afr", "ajct", "agu", "migrations"):
        assert row[metric] == pytest.approx(alone.summary[metric], nan_ok=True)


def test_the_cache_replays_nothing_it_holds(tmp_path: Path, monkeypatch) -> None:
    grid = {"nodes": [6, 8]}
    first = compass.sweep(TRACE, ["gfs"], grid=grid, cache=tmp_path)
    assert len(list(tmp_path.glob("*.json"))) == 2

    def refuse(job):
        raise AssertionError("a cached run was replayed")

    monkeypatch.setattr(sweeping, "_run_one", refuse)
    again = compass.sweep(TRACE, ["gfs"], grid=grid, cache=tmp_path)
    pd.testing.assert_frame_equal(first.drop(columns="wall_s"), again.drop(columns="wall_s"))
    with pytest.raises(AssertionError, match="replayed"):  # another trace is another key
        compass.sweep(TRACE.head(60), ["gfs"], grid=grid, cache=tmp_path)


@settings(max_examples=10, deadline=None)
@given(axes=st.lists(st.sampled_from(["nodes", "water", "beta"]), min_size=1, max_size=3,
                     unique=True), samples=st.integers(1, 2))
def test_rows_are_the_distinct_runs(axes: list[str], samples: int) -> None:
    """A scheduler without a swept parameter runs once for all of its values."""
    values = {"nodes": [6, 8], "water": [0.9, 0.95], "beta": [0.2, 0.5, 0.8]}
    grid = {k: values[k] for k in axes}
    fixed = {} if "nodes" in grid else {"nodes": 6}
    runs = sweeping._runs(grid, fixed, ["gfs", "cafgd", "mcg"], samples)
    nodes = len(values["nodes"]) if "nodes" in grid else 1
    own = {"gfs": [], "cafgd": ["water"], "mcg": ["beta"]}
    expected = sum(nodes * samples * len(list(pd.MultiIndex.from_product(
        [values[k] for k in own[s] if k in grid] or [[None]]))) for s in own)
    assert len(runs) == len(set(runs)) == expected


def test_bad_grids_are_refused() -> None:
    with pytest.raises(ValueError, match="neither a setting"):
        compass.sweep(TRACE, ["gfs"], grid={"wter": [0.9]}, nodes=6, cache=None)
    with pytest.raises(ValueError, match="exactly one of nodes or eta"):
        compass.sweep(TRACE, ["gfs"], grid={"eta": [0.9]}, nodes=6, cache=None)
    with pytest.raises(ValueError, match="exactly one"):
        compass.sweep(TRACE, ["gfs"], cache=None)


def test_the_sweep_command(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sweep.csv"
    assert main(["sweep", "--trace", "demo", "--schedulers", "gfs", "cafgd", "--grid",
                 "eta=0.85,0.95", "--grid", "water=0.9,0.95", "--no-cache",
                 "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert len(table) == 2 + 4 and table[table.scheduler == "gfs"]["water"].isna().all()
    assert main(["sweep", "--trace", "demo", "--schedulers", "gfs", "--grid", "eta=high",
                 "--no-cache", "--out", str(out)]) == 2
    assert "eta takes float" in capsys.readouterr().err
