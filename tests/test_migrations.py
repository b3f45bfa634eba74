"""Issue 12: migration accounting by operator, and AFR / AGU over a batch's common window,
on hand-built logs and timelines with hand-worked answers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

import compass
from compass.experiments.config import ResolvedTrace, RunSettings, TraceSpec, parse_config
from compass.experiments.grid import RunKey
from compass.experiments.layout import Layout
from compass.experiments.migrations import (
    decode,
    encode,
    migrations_by_operator,
    operator_moves,
    operator_shares,
)
from compass.experiments.peak_windows import metric_windows, window_leads
from compass.experiments.results import Results
from compass.experiments.runs import common_window_metrics, run_batch
from compass.traces import demo_trace


def _log() -> pd.DataFrame:
    """Four instants: t=10 job 1 moves two instances (Compact's pool pass) and one more by
    Remove (one restart shared 2:1); t=20 job 2 one pool move; t=30 job 3 one Place move
    that is free (its job starts then); t=40 job 4 one untagged move."""
    rows = [(10.0, 1, 0, 0, 1, True, "compact-pool"), (10.0, 1, 1, 0, 2, True, "compact-pool"),
            (10.0, 1, 2, 3, 2, True, "remove"), (20.0, 2, 0, 1, 0, True, "compact-pool"),
            (30.0, 3, 0, 2, 1, False, "place"), (40.0, 4, 0, 2, 1, True, "")]
    return pd.DataFrame(rows, columns=["time", "job_id", "instance", "src", "dst", "charged",
                                       "operator"])


def test_operator_moves_share_a_restart_among_its_moves():
    moves = operator_moves(_log(), cost=6.0)
    assert list(moves) == ["remove", "compact-pool", "untagged"]  # OPERATORS order
    assert moves["compact-pool"] == (3, pytest.approx(2 / 3 + 1), pytest.approx(4.0 + 6.0))
    assert moves["remove"] == (1, pytest.approx(1 / 3), pytest.approx(2.0))
    assert moves["untagged"] == (1, 1.0, 6.0)
    assert "place" not in moves  # the free move is no migration
    assert sum(r for _, r, _ in moves.values()) == pytest.approx(3)  # three restarts
    assert sum(p for _, _, p in moves.values()) == pytest.approx(18)  # 3 x c


def test_operator_moves_per_migration_charge_every_move():
    moves = operator_moves(_log(), cost=6.0, pause_rule="per-migration")
    assert moves["compact-pool"][2] == 18.0 and moves["remove"][2] == 6.0


def test_operator_moves_of_a_run_add_up_to_its_jobs_table():
    result = compass.simulate(demo_trace(num_jobs=150, seed=11, mean_interarrival=70.0,
                                         max_instances=6), "compass-abs", nodes=6,
                              migration_cost=10.0)
    moves = operator_moves(result.migrations, 10.0)
    jobs = result.jobs
    assert sum(n for n, _, _ in moves.values()) == jobs["instance_moves"].sum() > 0
    assert sum(r for _, r, _ in moves.values()) == pytest.approx(jobs["migrations"].sum())
    assert sum(p for _, _, p in moves.values()) == pytest.approx(jobs["pause_time"].sum())


def test_encode_and_decode_round_trip():
    moves = {"compact-pool": (3, 5 / 3, 10.0), "remove": (1, 1 / 3, 2.0)}
    cell = encode(moves)
    assert json.loads(cell)["remove"] == [1, 0.333333, 2.0]
    assert decode(cell)["compact-pool"] == (3, pytest.approx(5 / 3, abs=1e-6), 10.0)
    assert decode("{}") == {} and decode(math.nan) == {}


def _runs() -> pd.DataFrame:
    base = {"trace": "gfs", "day": 26, "eta": 0.9, "cost": 10.0, "jobs": 4}
    return pd.DataFrame([
        {**base, "scheduler": "compass-abs", "status": "ok",
         "operator_moves": encode({"compact-pool": (6, 3.0, 30.0), "place": (2, 1.0, 10.0)})},
        {**base, "scheduler": "gfs", "status": "ok", "operator_moves": "{}"},
        {**base, "scheduler": "fft", "status": "error", "operator_moves": math.nan},
        {**base, "day": 58, "scheduler": "compass-abs", "status": "ok",
         "operator_moves": encode({"place": (2, 2.0, 20.0)})},
    ])


def test_migrations_by_operator_by_hand():
    table = migrations_by_operator(_runs())
    assert list(table.columns) == ["trace", "day", "eta", "cost", "scheduler", "operator",
                                   "instance_moves", "migrated_jobs", "moves_per_job",
                                   "pause_per_job", "share"]
    pool = table[(table["day"] == 26) & (table["operator"] == "compact-pool")].iloc[0]
    assert pool["instance_moves"] == 6 and pool["migrated_jobs"] == 3.0
    assert pool["moves_per_job"] == 1.5 and pool["pause_per_job"] == 7.5
    assert pool["share"] == 0.75
    assert len(table) == 3  # gfs moved nothing, fft failed


def test_operator_shares_pool_the_runs():
    shares = operator_shares(migrations_by_operator(_runs()))
    assert shares[["operator", "instance_moves"]].values.tolist() == [
        ["compact-pool", 6], ["place", 4]]
    assert shares["share"].tolist() == [0.6, 0.4]


def _timeline(times, queue, sif, util) -> pd.DataFrame:
    return pd.DataFrame({"time": times, "queue_len": queue, "sif": sif, "gpu_util": util})


def test_common_window_metrics_by_hand():
    # a waits on [0, 10), b on [5, 20) and ends at 20; the common window is [0, 20)
    a = _timeline([0.0, 10.0, 30.0], [1, 0, 0], [0.5, 0.0, 0.0], [1.0, 0.5, 0.0])
    b = _timeline([0.0, 5.0, 20.0], [0, 2, 0], [0.2, 0.4, 0.0], [0.8, 1.0, 0.0])
    out = common_window_metrics({"a": a, "b": b}, ["a", "b"])
    assert out["a"]["common_seconds"] == out["b"]["common_seconds"] == 20.0
    assert out["a"]["afr_common"] == pytest.approx(0.5 * 10 / 20)
    assert out["a"]["agu_common"] == pytest.approx((1.0 * 10 + 0.5 * 10) / 20)
    assert out["b"]["afr_common"] == pytest.approx((0.2 * 5 + 0.4 * 15) / 20)
    assert out["b"]["agu_common"] == pytest.approx((0.8 * 5 + 1.0 * 15) / 20)


def test_a_variant_is_measured_over_the_common_window_but_does_not_widen_it():
    a = _timeline([0.0, 10.0, 30.0], [1, 0, 0], [0.5, 0.0, 0.0], [1.0, 0.5, 0.0])
    variant = _timeline([0.0, 40.0], [1, 0], [0.1, 0.0], [0.9, 0.0])  # waits on [0, 40)
    out = common_window_metrics({"a": a, "v": variant}, ["a", "failed-run"])
    assert out["v"]["common_seconds"] == 10.0
    assert out["v"]["afr_common"] == pytest.approx(0.1)


def test_common_window_metrics_without_any_queue_are_nan():
    a = _timeline([0.0, 10.0], [0, 0], [0.5, 0.0], [1.0, 0.0])
    out = common_window_metrics({"a": a}, ["a"])["a"]
    assert math.isnan(out["afr_common"]) and out["common_seconds"] == 0.0


def test_run_batch_keeps_moves_by_operator_and_the_common_window():
    spec = TraceSpec("demo", "gfs-synth", None, "never", [0], (0.0, 24.0), 6)
    jobs = demo_trace(num_jobs=150, seed=11, mean_interarrival=70.0, max_instances=6)
    settings = RunSettings(("compass-abs", "gfs"), 0, {}, "per-event", "record", "window")
    rows = run_batch(jobs, RunKey("demo", 0, 0.9, 10.0), ResolvedTrace(spec, "synthetic", (0,)),
                     settings, log=lambda line: None).set_index("scheduler")
    abs_moves = decode(rows.loc["compass-abs", "operator_moves"])
    assert sum(r for _, r, _ in abs_moves.values()) == pytest.approx(
        rows.loc["compass-abs", "migrations_per_job"] * 150)
    assert decode(rows.loc["gfs", "operator_moves"]) == {}
    assert rows["common_seconds"].nunique() == 1
    assert (rows["common_seconds"] >= rows["peak_seconds"]).all()
    assert rows[["afr_common", "agu_common"]].notna().all().all()


def _results(runs: pd.DataFrame) -> Results:
    raw = yaml.safe_load((Path(__file__).parents[1] / "config" / "smoke.yaml").read_text())
    return Results(Layout(Path("unused")), parse_config(raw), {}, runs)


def test_metric_windows_and_window_leads_by_hand():
    # gfs at eta 0.9, c = 8 s (the smoke profile's overall experiment), two days
    rows = [("compass-abs", 26, 0.10, 0.20, 0.80, 0.70), ("gfs", 26, 0.30, 0.25, 0.90, 0.60),
            ("compass-abs", 58, 0.20, 0.10, 0.60, 0.70), ("gfs", 58, 0.10, 0.15, 0.70, 0.80)]
    runs = pd.DataFrame([{"trace": "gfs", "day": d, "eta": 0.9, "cost": 8.0, "scheduler": s,
                          "status": "ok", "afr": a, "afr_common": ac, "agu": u,
                          "agu_common": uc} for s, d, a, ac, u, uc in rows])
    table = metric_windows(_results(runs)).set_index("scheduler")
    assert list(table.columns) == ["trace", "agu", "agu_common", "afr", "afr_common"]
    assert table.loc["compass-abs", "afr"] == pytest.approx(0.15)
    assert table.loc["gfs", "agu_common"] == pytest.approx(0.70)
    leads = window_leads(_results(runs)).set_index("metric")
    # AFR: own 0.20 - 0.15 = 0.05; common 0.20 - 0.15 = 0.05. AGU: own 0.70 - 0.80 = -0.10,
    # common 0.70 - 0.70 = 0.
    assert leads.loc["afr", "lead (own T_peak)"] == pytest.approx(0.05)
    assert leads.loc["afr", "lead (common window)"] == pytest.approx(0.05)
    assert leads.loc["agu", "lead (own T_peak)"] == pytest.approx(-0.10)
    assert leads.loc["agu", "lead (common window)"] == pytest.approx(0.0)
    assert (leads["vs (own T_peak)"] == "gfs").all()
