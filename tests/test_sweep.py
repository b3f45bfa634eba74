"""``compass.sweep`` and ``compass sweep``: one row per distinct run, every metric, equal to
the run made alone; the disk cache replays nothing it holds; bad grids are refused."""

from __future__ import annotations

import math
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
    assert set(map(tuple, table[["eta", "cost"]].drop_duplicates().to_numpy())) == {
        (e, c) for e in etas for c in costs}
    row = table[(table.scheduler == "compass-abs") & (table.eta == 0.95)
                & (table.cost == 8.0) & (table.seed == 1)].iloc[0]
    nodes = cluster_size(TRACE, 0.95).nodes
    alone = compass.simulate(TRACE, "compass-abs", nodes=nodes, migration_cost=8.0, seed=1)
    assert row["nodes"] == nodes
    assert set(alone.summary) - {"scheduler_params"} <= set(table.columns)  # every column
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
    assert not first["from_cache"].any() and again["from_cache"].all()
    assert str(sweeping.CacheReport.of(again)) == (
        f"2 runs: 2 from the cache, 0 run now (cache {tmp_path})")
    pd.testing.assert_frame_equal(first.drop(columns=["wall_s", "from_cache"]),
                                  again.drop(columns=["wall_s", "from_cache"]))
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
    runs = sweeping._runs(grid, fixed, ["gfs", "cafgd", "mcg"], samples, "t")
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
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"6 runs: 0 from the cache, 6 run now (cache off) -> {out}")
    cache = tmp_path / "cache"
    for cached in (0, 2):
        assert main(["sweep", "--trace", "demo", "--schedulers", "gfs", "--grid",
                     "eta=0.85,0.95", "--cache", str(cache), "--out", str(out)]) == 0
        assert capsys.readouterr().out.splitlines()[-1].startswith(
            f"2 runs: {cached} from the cache, {2 - cached} run now (cache {cache})")
    assert main(["sweep", "--trace", "demo", "--schedulers", "gfs", "--grid", "eta=high",
                 "--no-cache", "--out", str(out)]) == 2
    assert "eta takes float" in capsys.readouterr().err
    assert main(["sweep", "--trace", "demo", "--schedulers", "cafgd", "--grid", "water=high",
                 "--nodes", "8", "--no-cache", "--out", str(out)]) == 2
    assert "cafgd parameter 'water': expected a number, got 'high'" in capsys.readouterr().err
    assert main(["sweep", "--trace", "demo", "--schedulers", "gfs", "--grid", "wter=1",
                 "--nodes", "8", "--no-cache", "--out", str(out)]) == 2
    assert "is neither a setting" in capsys.readouterr().err


PLUGIN_V1 = '''
from compass.schedulers import register
from compass.schedulers.gfs import GFS

@register
class Edited(GFS):
    name = "edited-plugin"
'''


def test_editing_a_plugin_invalidates_its_cached_rows(tmp_path: Path, monkeypatch) -> None:
    """The cache key covers the plugin package's files: an edited plugin is run again, not
    served from the cache (the bug: a stale AFR after the plugin's code changed)."""
    package = tmp_path / "src" / "edited_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN_V1)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    import importlib

    importlib.import_module("edited_plugin")
    cache = tmp_path / "cache"
    first = compass.sweep(TRACE, ["edited-plugin", "gfs"], nodes=6, cache=cache)
    assert sweeping.CacheReport.of(first).ran == 2
    (package / "__init__.py").write_text(PLUGIN_V1 + "\n# a changed rule\n")
    again = compass.sweep(TRACE, ["edited-plugin", "gfs"], nodes=6, cache=cache)
    assert dict(zip(again["scheduler"], again["from_cache"])) == {
        "edited-plugin": False, "gfs": True}
    report = sweeping.CacheReport.of(again)
    assert (report.from_cache, report.ran) == (1, 1)
    assert sweeping.code_digest(type(compass.schedulers.create("gfs"))) != \
        sweeping.code_digest(type(compass.schedulers.create("edited-plugin")))


def test_a_failing_scheduler_is_a_row_under_record(tmp_path: Path, monkeypatch) -> None:
    from compass.schedulers.gfs import GFS

    def broken(self, job, state, now):
        raise RuntimeError("broken rule")

    monkeypatch.setattr(GFS, "place", broken)
    with pytest.raises(RuntimeError, match="broken rule"):
        compass.sweep(TRACE, ["gfs", "fgd"], nodes=6, cache=None)
    table = compass.sweep(TRACE, ["gfs", "fgd"], nodes=6, cache=tmp_path, on_error="record")
    by = table.set_index("scheduler")
    assert by.loc["gfs", "status"] == "error" and "broken rule" in by.loc["gfs", "error"]
    assert by.loc["fgd", "status"] == "ok" and by.loc["fgd", "error"] == ""
    assert math.isnan(by.loc["gfs", "afr"]) and by.loc["fgd", "jobs"] == len(TRACE)
    assert sweeping.CacheReport.of(table).failed == 1
    assert len(list(tmp_path.glob("*.json"))) == 1  # a failed run is never cached


def test_samples_over_workload_seeds_and_traces() -> None:
    table = compass.sweep("demo", ["gfs"], workloads=[0, 1, 2], nodes=8, cache=None)
    assert list(table["trace"]) == ["demo:0", "demo:1", "demo:2"]
    for seed, row in zip([0, 1, 2], table.itertuples()):
        alone = compass.simulate(demo_trace(seed=seed), "gfs", nodes=8)
        assert row.ajct == pytest.approx(alone.summary["ajct"])
    assert table["ajct"].nunique() == 3
    named = compass.sweep({"a": TRACE, "b": TRACE.head(50)}, ["gfs"], nodes=6, cache=None)
    assert list(named["trace"]) == ["a", "b"] and list(named["jobs"]) == [len(TRACE), 50]


def test_the_sweep_records_the_eta_the_api_sized_by() -> None:
    table = compass.sweep(TRACE, ["gfs"], eta=0.9, cache=None)
    assert table.loc[0, "eta"] == 0.9
    assert table.loc[0, "nodes"] == cluster_size(TRACE, 0.9).nodes


def test_grid_parameters_are_checked_as_the_api_checks_them() -> None:
    with pytest.raises(compass.schedulers.params.ParameterError,
                       match="cafgd parameter 'water': expected a number, got 'high'"):
        compass.sweep(TRACE, ["cafgd"], grid={"water": ["high"]}, nodes=6, cache=None)


def test_a_scheduler_defined_without_a_file_is_keyed_by_its_code() -> None:
    """A class made by ``exec`` (a notebook cell, a doc recipe) has no source file: its
    methods' code and plain attributes key it, so an edited method is a new key."""
    def define(body: str) -> type:
        namespace: dict = {"__name__": "made_by_exec"}
        exec("from compass.schedulers.gfs import GFS\n"
             f"class Made(GFS):\n    name = 'made'\n    def place(self, job, state, now):\n"
             f"        {body}\n", namespace)
        return namespace["Made"]

    one, same, other = define("return None"), define("return None"), define("return 1")
    assert sweeping.code_digest(one) == sweeping.code_digest(same)
    assert sweeping.code_digest(one) != sweeping.code_digest(other)
