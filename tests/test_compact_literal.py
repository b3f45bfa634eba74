"""The literal Compact beside the corrected one (compass.experiments.compact_literal): the
table on hand-made batch rows with hand-worked answers, the samples the literal runs
replay, the report's sentence following the table, and the operators' names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

import compass
from compass.experiments import compact_literal as C
from compass.experiments.breakeven import breakeven_samples
from compass.experiments.compact_literal import (
    CORRECTED,
    LITERAL,
    TOTAL,
    compare_compacts,
    literal_sentence,
    literal_settings,
    literal_table,
    paper_pause,
    simulate_literal,
)
from compass.experiments.config import ResolvedTrace, parse_config
from compass.experiments.layout import Layout
from compass.experiments.results import Results
from compass.experiments.verdict.claims import load_claims
from compass.schedulers.base import OPERATORS
from compass.traces import demo_trace

ROOT = Path(__file__).resolve().parents[1]


def _profile() -> dict:
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


def _row(scheduler: str, seed: int, moves: str, status: str = "ok", day: int = 26,
         eta: float = 0.9) -> dict:
    """A batch row of gfs with 10 jobs; ``moves``: its ``operator_moves`` cell."""
    return {"trace": "gfs", "day": day, "seed": seed, "eta": eta, "cost": 8.0,
            "scheduler": scheduler, "status": status, "jobs": 10, "operator_moves": moves}


#: Per job (10 jobs, c = 8 s): corrected seed 0 pool 4 moves + repair 1 (pause 3.2 + 0.8 s),
#: seed 1 pool 2 (1.6 s); literal seed 0 pool 3 + w4 1 (2.4 + 0.8 s), seed 1 no move.
CORRECTED_ROWS = [_row(CORRECTED, 0, '{"compact-pool":[4,4.0,32.0],"repair":[1,1.0,8.0]}'),
                  _row(CORRECTED, 1, '{"compact-pool":[2,2.0,16.0]}'),
                  _row(CORRECTED, 3, '{"compact-pool":[9,9.0,72.0]}')]  # no literal run
LITERAL_ROWS = [_row(LITERAL, 0, '{"compact-pool":[3,3.0,24.0],"compact-w4":[1,1.0,8.0]}'),
                _row(LITERAL, 1, ""),
                _row(LITERAL, 2, "", status="error")]  # failed: not paired


def _by(table: pd.DataFrame) -> pd.DataFrame:
    return table.set_index(["metric", "operator"])


def test_the_table_pairs_the_samples_and_fills_an_idle_operator_with_zero():
    """Two samples both completed (n = 2); with two samples the 95 % interval is the range
    of the two values. Pause per job: pool 3.2 / 1.6 (corrected) and 2.4 / 0 (literal);
    repair 0.8 / 0 and none; totals 4.0 / 1.6 and 3.2 / 0."""
    table = compare_compacts("gfs", pd.DataFrame(CORRECTED_ROWS), pd.DataFrame(LITERAL_ROWS))
    assert list(table.columns) == C.COLUMNS and (table["n"] == 2).all()
    by = _by(table)
    assert list(by.loc["pause_per_job"].index) == ["compact-pool", "compact-w4", "repair", TOTAL]
    pool = by.loc[("pause_per_job", "compact-pool")]
    assert (pool["corrected"], pool["corrected_low"], pool["corrected_high"]) == pytest.approx(
        (2.4, 1.6, 3.2))
    assert (pool["literal"], pool["literal_low"], pool["literal_high"]) == pytest.approx(
        (1.2, 0.0, 2.4))
    assert (pool["difference"], pool["difference_low"], pool["difference_high"]
            ) == pytest.approx((-1.2, -1.6, -0.8))
    repair = by.loc[("pause_per_job", "repair")]
    assert (repair["corrected"], repair["literal"], repair["difference"]) == pytest.approx(
        (0.4, 0.0, -0.4))
    total = by.loc[("pause_per_job", TOTAL)]
    assert (total["corrected"], total["literal"], total["difference"]) == pytest.approx(
        (2.8, 1.6, -1.2))
    assert (total["difference_low"], total["difference_high"]) == pytest.approx((-1.6, -0.8))
    moves = by.loc[("moves_per_job", TOTAL)]
    assert (moves["corrected"], moves["literal"], moves["difference"]) == pytest.approx(
        (0.35, 0.2, -0.15))
    assert by.loc[("moves_per_job", "compact-w4"), "literal"] == pytest.approx(0.05)
    assert set(table["unit"]) == {"moves per job", "s per job"}


def test_a_run_without_a_pair_leaves_the_table_empty_of_samples():
    table = compare_compacts("gfs", pd.DataFrame(CORRECTED_ROWS[2:]),
                             pd.DataFrame(LITERAL_ROWS[:1]))
    assert (table["n"] == 0).all() and table["literal"].isna().all()


def _traces(cfg) -> dict[str, ResolvedTrace]:
    return {t: ResolvedTrace(spec, "synthetic", tuple(spec.days))
            for t, spec in cfg.traces.items()}


def test_the_corrected_rows_are_the_overall_runs_of_the_breakeven_samples():
    """literal_table reads compass-abs's overall runs (eta 0.9, c = 8 s) of the sweep's
    days only: day 58 and another eta are never paired."""
    cfg = parse_config(_profile())
    cfg = replace(cfg, experiments=replace(cfg.experiments, fft_breakeven=replace(
        cfg.experiments.fft_breakeven, traces=("gfs",))))
    other = [_row(CORRECTED, 0, '{"compact-pool":[10,10.0,80.0]}', day=58),
             _row(CORRECTED, 0, '{"compact-pool":[10,10.0,80.0]}', eta=0.85)]
    res = Results(Layout(Path(".")), cfg, _traces(cfg),
                  pd.DataFrame(CORRECTED_ROWS + other))
    table = literal_table(res, pd.DataFrame(LITERAL_ROWS))
    assert set(table["trace"]) == {"gfs"}
    assert _by(table).loc[("pause_per_job", TOTAL), "corrected"] == pytest.approx(2.8)


def test_the_literal_runs_replay_exactly_the_breakeven_samples(monkeypatch):
    """simulate_literal runs one batch per sample of FFT's break-even, at the overall eta
    and the profile's c, under compass-abs-paper alone with compass-abs's parameters."""
    raw = _profile()
    raw["scheduler_params"] = {CORRECTED: {"one_gpu_overflow": True}}
    cfg = parse_config(raw)
    samples = breakeven_samples(cfg, _traces(cfg))
    assert samples == {"venus": [(92, 0), (92, 1)], "gfs": [(26, 0), (26, 1)]}
    settings = literal_settings(cfg.run)
    assert [label for label, _, _ in settings.runs()] == [LITERAL]
    assert settings.runs()[0][2] == {"one_gpu_overflow": True}
    calls = []

    def record(sample, batches, resolved, run, canonical):
        calls.append((sample.trace, sample.day, sample.seed, *map(tuple, batches)))
        assert run == settings
        return pd.DataFrame([{"trace": sample.trace, "day": sample.day, "seed": sample.seed}])

    monkeypatch.setattr(C, "simulate_group", record)
    trace = _traces(cfg)["gfs"]
    eta, cost = cfg.experiments.overall_eta, cfg.migration_cost
    frame = simulate_literal(trace.record(), settings.record(), samples["gfs"], eta, cost, [])
    assert calls == [("gfs", d, s, (eta, cost)) for d, s in samples["gfs"]]
    assert list(zip(frame["day"], frame["seed"])) == samples["gfs"]


def _sentence_table(literal: tuple[float, float], corrected: tuple[float, float]
                    ) -> pd.DataFrame:
    """Two samples whose pool pass pauses ``literal`` / ``corrected`` s per job (c = 8 s, 10
    jobs: multiples of 0.8 s), the corrected runs' repair 0.8 s more on each."""
    def cell(pool: float, repair: float) -> str:
        parts = [f'"{op}":[{round(p * 10 / 8)},{p * 10 / 8},{p * 10}]'
                 for op, p in (("compact-pool", pool), ("repair", repair)) if p]
        return "{" + ",".join(parts) + "}"

    corrected_rows = [_row(CORRECTED, s, cell(p, 0.8)) for s, p in enumerate(corrected)]
    literal_rows = [_row(LITERAL, s, cell(p, 0.0)) for s, p in enumerate(literal)]
    return compare_compacts("gfs", pd.DataFrame(corrected_rows), pd.DataFrame(literal_rows))


def test_the_sentence_says_whose_the_excess_is_from_the_table():
    """Literal 3.2 and 4.8 s per job, corrected 4.0 and 5.6: the literal alone is above the
    paper's 1 s; flipped (literal 0 and 0.8, corrected 1.6 and 2.4) the excess is the
    correction's; with the corrected at 0.8 s there is none."""
    bound, paper = paper_pause(load_claims(ROOT / "paper" / "claims.yaml"))
    assert (bound, paper) == (1.0, "< 1 s per job")
    text = literal_sentence(_sentence_table((3.2, 4.8), (3.2, 4.8)), bound, paper, 8.0)
    assert text.startswith("gfs (c = 8 s, n = 2): pause per job literal 4 [3.2, 4.8] s, "
                           "corrected 4.8 [4, 5.6] s (literal - corrected -0.8 [-0.8, -0.8] s)"
                           ", moves per job literal 0.5 [0.4, 0.6], corrected 0.6 [0.5, 0.7] "
                           "(-0.1 [-0.1, -0.1]); ")
    assert ("; compact-pool pauses 4 [3.2, 4.8] s per job of the literal's, 4 [3.2, 4.8] s of "
            "the corrected's; the repair 0.8 [0.8, 0.8] s; ") in text
    assert text.endswith("the pause above the paper's bound (< 1 s per job) is the paper's "
                         "algorithm's: the literal Compact alone exceeds it")
    flipped = literal_sentence(_sentence_table((0.0, 0.8), (0.8, 1.6)), bound, paper, 8.0)
    assert "pause per job literal 0.4 [0, 0.8] s, corrected 2 [1.6, 2.4] s" in flipped
    assert flipped.endswith("is the correction's: the literal Compact stays within it")
    within = literal_sentence(_sentence_table((0.0, 0.0), (0.0, 0.0)), bound, paper, 8.0)
    assert "compact-pool" not in within  # no literal move: no operator to name
    assert within.endswith("the corrected Compact stays within the paper's bound "
                           "(< 1 s per job): no excess")


def test_the_sentence_is_undecided_when_an_interval_straddles_the_bound():
    rows = [_row(LITERAL, 0, ""),
            _row(LITERAL, 1, '{"compact-pool":[2,2.0,16.0]}')]  # 0 and 1.6 s per job
    table = compare_compacts("gfs", pd.DataFrame([_row(CORRECTED, s, '{"repair":[3,3.0,24.0]}')
                                                  for s in (0, 1)]), pd.DataFrame(rows))
    assert literal_sentence(table, 1.0, "< 1 s per job", 8.0).endswith(
        "undecided on these samples: an interval straddles the bound")


def test_the_literal_compact_tags_its_moves_with_the_operators_names():
    """compass-abs-paper names every move with the vocabulary of OPERATORS (the one the
    accounting and the table read), and never with the corrected Compact's repair."""
    jobs = demo_trace(num_jobs=150, seed=11, mean_interarrival=70.0, max_instances=6)
    tags = {}
    for name in (LITERAL, CORRECTED):
        log = compass.simulate(jobs, name, nodes=6, migration_cost=10.0).migrations
        tags[name] = set(log["operator"])
        assert tags[name] and tags[name] <= set(OPERATORS), (name, tags[name])
    assert C.REPAIR in OPERATORS and C.REPAIR not in tags[LITERAL]
    assert "compact-pool" in tags[LITERAL]
