"""FFT's break-even (compass.experiments.breakeven): leads over FFT per round length, their
zero crossings, which rounds the batches already run, and the fft-paper fit."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.experiments.breakeven import (
    breakeven_samples,
    breakeven_table,
    crossing,
    crossings,
    existing_rounds,
    paper_fit,
    sweep_rounds,
)
from compass.experiments.config import (
    BreakEvenConfig,
    ConfigError,
    ResolvedTrace,
    parse_config,
)
from compass.experiments.layout import Layout
from compass.experiments.results import Results
from compass.experiments.verdict.claims import load_claims

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = (360.0, 900.0, 3600.0, 14400.0)
#: FFT's AJCT behind COMPASS-ABS per round length (negative: FFT ahead)
GAPS = {360.0: -100.0, 900.0: -20.0, 3600.0: 60.0, 14400.0: 200.0}


def _profile() -> dict:
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


def _traces(cfg) -> dict[str, ResolvedTrace]:
    return {t: ResolvedTrace(spec, "synthetic", tuple(spec.days))
            for t, spec in cfg.traces.items()}


def _results() -> tuple[Results, pd.DataFrame, BreakEvenConfig]:
    """GFS day 26, five seeds: COMPASS-ABS, the five others (partial peak 40) and FFT at 360
    s in the batches, fft-3600 as a variant; the sweep runs 900 and 14,400 s. FFT's peak
    partial nodes grow with the round (10, 20, 30, 40)."""
    cfg = parse_config(_profile())
    config = BreakEvenConfig(("gfs",), ROUNDS, {"gfs": [26]})
    cfg = replace(cfg, experiments=replace(cfg.experiments, fft_breakeven=config))
    base = {"trace": "gfs", "day": 26, "eta": 0.9, "cost": 8.0, "status": "ok", "afr": 0.01}
    runs, variants, sweep = [], [], []
    for seed in range(5):
        level = 5_000.0 + 1_000 * seed
        runs.append({**base, "seed": seed, "scheduler": "compass-abs", "ajct": level,
                     "agu": 0.9, "max_partial_nodes": 2})
        runs += [{**base, "seed": seed, "scheduler": b, "ajct": level + 500, "agu": 0.8,
                  "max_partial_nodes": 40} for b in ("gfs", "fgd", "cafgd", "mcg", "drr")]
        for i, r in enumerate(ROUNDS):
            row = {**base, "seed": seed, "ajct": level + GAPS[r], "agu": 0.9 - 0.01 * i,
                   "max_partial_nodes": 10 * (i + 1)}
            if r == 360.0:
                runs.append({**row, "scheduler": "fft"})
            elif r == 3600.0:
                variants.append({**row, "scheduler": "fft-3600"})
            else:
                sweep.append({**row, "scheduler": "fft", "round_s": r})
        # a c-sweep batch of the variant: not the overall experiment's, never read
        variants.append({**base, "seed": seed, "cost": 1.0, "scheduler": "fft-3600",
                         "ajct": 1.0, "agu": 0.0, "max_partial_nodes": 0})
    res = Results(Layout(Path(".")), cfg, _traces(cfg), pd.DataFrame(runs),
                  pd.DataFrame(variants))
    return res, pd.DataFrame(sweep), config


def test_the_sweep_reads_the_rounds_the_batches_run_and_runs_the_others():
    run = parse_config(_profile()).run
    assert existing_rounds(run) == {360.0: "fft", 3600.0: "fft-3600"}
    assert sweep_rounds(BreakEvenConfig(("gfs",), ROUNDS), run) == (900.0, 14400.0)
    mixed = replace(run, variants={"fft-odd": {"scheduler": "fft",
                                               "params": {"round_s": 900, "time_limit": 5}}})
    assert 900.0 not in existing_rounds(mixed)  # another knob changed: not the same FFT


def test_leads_over_fft_per_round_pair_the_samples():
    """The lead at each round is exactly the gap (zero-width intervals: the same gap on every
    sample), AGU in points, from the batches or the sweep; the crossing lies between 900 and
    3,600 s, interpolated in log(round)."""
    res, sweep, config = _results()
    table = breakeven_table(res, sweep, config)
    ajct = table[table["metric"] == "ajct"].set_index("round_s")
    assert ajct["lead"].to_dict() == pytest.approx(GAPS)
    assert (ajct["ci_low"] == ajct["ci_high"]).all() and (ajct["n"] == 5).all()
    assert ajct.loc[360.0, "source"] == "batches" and ajct.loc[900.0, "source"] == "sweep"
    agu = table[table["metric"] == "agu"].set_index("round_s")
    assert agu.loc[900.0, "lead"] == pytest.approx(1.0) and agu.loc[900.0, "unit"] == "pp"
    row = crossings(table).set_index("metric").loc["ajct"]
    expected = math.exp(math.log(900) + 20 / 80 * (math.log(3600) - math.log(900)))
    assert row["round_s"] == pytest.approx(expected)
    assert row["earliest"] == pytest.approx(expected) == row["latest"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=6))
def test_a_crossing_lies_where_the_curve_reaches_zero(values):
    rounds = [360.0 * 2 ** i for i in range(len(values))]
    at = crossing(rounds, values)
    if values[0] >= 0:
        assert at == rounds[0]
    elif all(v < 0 for v in values):
        assert math.isnan(at)
    else:
        i = next(i for i, v in enumerate(values) if v >= 0)
        assert rounds[i - 1] <= at <= rounds[i] * (1 + 1e-12)


def test_fft_paper_is_fitted_to_the_papers_partial_node_ratio_alone():
    """FFT's peaks 10/20/30/40 against the others' 40: ratios 0.25, 0.5, 0.75, 1; the paper's
    (25-50 against 60-80) middle is 37.5 / 70 = 0.536, so 900 s is chosen and inside the
    paper's range [25/80, 50/60]; COMPASS-ABS's numbers play no part."""
    res, sweep, config = _results()
    claims = load_claims(ROOT / "paper" / "claims.yaml")
    fit = paper_fit(res, sweep, config, claims).set_index("round_s")
    assert fit["ratio"].to_list() == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert fit["chosen"].to_list() == [False, True, False, False]
    assert fit.loc[900.0, "reached"] and not fit.loc[360.0, "reached"]
    assert fit["paper_ratio"].iloc[0] == pytest.approx(37.5 / 70)
    moved = res.runs.assign(ajct=np.where(res.runs["scheduler"] == "compass-abs", 0.0,
                                          res.runs["ajct"]))
    again = paper_fit(replace(res, runs=moved), sweep, config, claims)
    assert again["chosen"].to_list() == fit["chosen"].to_list()


def test_the_sweep_samples_are_the_overall_experiments_and_its_traces_checked():
    cfg = parse_config(_profile())
    assert breakeven_samples(cfg, _traces(cfg)) == {"venus": [(92, 0), (92, 1)],
                                              "gfs": [(26, 0), (26, 1)]}
    raw = _profile()
    raw["experiments"]["fft_breakeven"]["traces"] = ["physmix", "nope"]
    with pytest.raises(ConfigError):
        parse_config(raw)
