"""The baselines' ranking (compass.experiments.ranking): tau-b against scipy, P(first) against
exact enumeration of the bootstrap, each agreement reading on hand-built samples,
paper/paper_rankings.yaml against what the pipeline measures, and invariance to sample
order."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from compass.experiments.config import parse_config
from compass.experiments.ranking import (
    EXPERIMENT_METRICS,
    EXPERIMENTS,
    LOWER_FIRST,
    Group,
    agreement,
    case_matrix,
    kendall_tau_b,
    mean_order,
    p_first,
    rank_group,
    ranking_rows,
    ranking_summary,
    read_rankings,
    sample_matrix,
    strict_pairs,
)
from compass.experiments.stats import MIN_SAMPLES
from compass.traces.paths import repo_root

RANKINGS = repo_root() / "paper" / "paper_rankings.yaml"
SIX = ("gfs", "fgd", "cafgd", "mcg", "fft", "drr")


def matrix(columns: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(columns, dtype=float)


@settings(max_examples=200)
@given(
    st.integers(2, 8).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
        )
    )
)
def test_tau_b_is_scipys(pair):
    """Kendall's tau-b with ties, against scipy.stats.kendalltau (its default variant b);
    both NaN when a ranking is all tied."""
    x, y = pair
    ours, theirs = kendall_tau_b(x, y), kendalltau(x, y).statistic
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs)


def test_tau_b_of_the_same_and_reversed_orders():
    assert kendall_tau_b([0, 1, 2, 3], [0, 1, 2, 3]) == pytest.approx(1.0)
    assert kendall_tau_b([0, 1, 2, 3], [3, 2, 1, 0]) == pytest.approx(-1.0)


def test_a_clear_winner_is_first_on_almost_every_resample():
    rng = np.random.default_rng(1)
    m = matrix(
        {"gfs": rng.normal(100, 5, 20), "fft": rng.normal(60, 5, 20), "drr": rng.normal(100, 5, 20)}
    )
    shares = p_first(m, lower_first=True)
    assert shares["fft"] > 0.99 and sum(shares.values()) == pytest.approx(1.0)
    assert p_first(m, lower_first=False)["fft"] < 0.01  # higher first: fft is last
    assert mean_order(m, lower_first=True)[0] == ("fft",)


def test_identical_baselines_split_first_place():
    m = matrix({b: [3.0, 1.0, 4.0, 1.0, 5.0] for b in ("gfs", "fgd", "mcg")})
    assert p_first(m, lower_first=True) == pytest.approx({b: 1 / 3 for b in m})
    assert mean_order(m, lower_first=True) == (("gfs", "fgd", "mcg"),)


def test_p_first_matches_the_exact_bootstrap():
    """With 3 samples the bootstrap has 27 equally likely resamples: P(first) by
    enumerating them, against the Monte Carlo estimate (10,000 resamples)."""
    m = matrix({"a": [1.0, 5.0, 2.0], "b": [2.0, 1.0, 4.0], "c": [3.0, 3.0, 0.5]})
    exact = dict.fromkeys(m, 0.0)
    for rows in itertools.product(range(3), repeat=3):
        means = m.iloc[list(rows)].mean()
        best = means[means == means.min()].index
        for b in best:
            exact[b] += 1 / 27 / len(best)
    got = p_first(m, lower_first=True)
    assert got == pytest.approx(exact, abs=0.02)


def test_one_sample_gives_its_own_order():
    m = matrix({"gfs": [70.0], "fft": [30.0], "drr": [70.0]})
    assert p_first(m, lower_first=True) == {"gfs": 0.0, "fft": 1.0, "drr": 0.0}
    assert mean_order(m, lower_first=True) == (("fft",), ("gfs", "drr"))


def separated(n: int = 12) -> pd.DataFrame:
    """fft well below gfs and drr, which overlap."""
    rng = np.random.default_rng(7)
    return matrix(
        {"gfs": rng.normal(70, 3, n), "drr": rng.normal(70, 3, n), "fft": rng.normal(35, 3, n)}
    )


@pytest.mark.parametrize(
    ("order", "reading"),
    [
        ((("fft",), ("gfs", "drr")), "agrees"),  # every strict pair separated its way
        ((("gfs", "drr"), ("fft",)), "differs"),  # separated the other way
        ((("gfs",), ("drr",)), "undecided"),  # the pair it depends on overlaps
        ((("fft",), ("gfs",), ("drr",)), "undecided"),  # fft > gfs agrees, gfs > drr open
        ((("drr",), ("gfs",), ("fft",)), "differs"),  # one pair against decides
        ((("fft", "gfs", "drr"), ("mcg",)), ""),  # no strict pair among those run
    ],
)
def test_agreement_reading(order, reading):
    assert agreement(separated(), order, lower_first=True) == reading


def test_fewer_samples_than_the_minimum_are_undecided():
    m = separated(MIN_SAMPLES - 1)
    assert agreement(m, (("fft",), ("gfs", "drr")), lower_first=True) == "undecided"
    assert agreement(separated(MIN_SAMPLES), (("fft",), ("gfs", "drr")), True) == "agrees"


def test_strict_pairs_leave_ties_out():
    assert strict_pairs((("a",), ("b", "c"))) == [("a", "b"), ("a", "c")]


def test_the_paper_rankings_are_valid():
    """Every order of paper/paper_rankings.yaml names baselines only, and is about a group
    the full profile measures (its experiment's trace, metric and condition)."""
    cfg = parse_config(yaml.safe_load((repo_root() / "config" / "full.yaml").read_text()))
    x = cfg.experiments
    traces = {
        "overall": set(x.overall_traces),
        "eta_sweep": {x.eta_trace},
        "composition": set(x.composition_traces),
        "case": {x.case.trace},
    }
    conditions = {
        "eta_sweep": {f"eta {e:g}" for e in x.etas},
        "case": {"window paper", "window busiest", "window fragmented"},
    }
    rankings = read_rankings(RANKINGS)
    assert rankings and len({r.id for r in rankings}) == len(rankings)
    for r in rankings:
        named = [s for level in r.order for s in level]
        assert set(named) <= set(cfg.baselines) == set(SIX), r.id
        assert r.experiment in EXPERIMENTS and r.metric in EXPERIMENT_METRICS[r.experiment]
        assert r.trace in traces[r.experiment], r.id
        assert r.condition is None or r.condition in conditions.get(r.experiment, ()), r.id
        assert r.kind in ("stated", "read from numbers") and r.where.startswith("section 6.")


def test_the_paper_rankings_are_the_texts():
    """Each order is the one its quoted words give: FFT's 25-50 partial nodes below the
    others' 60-80; DRR's 94.6 % fragmentation share below the others' 100 %."""
    by_id = {r.id: r for r in read_rankings(RANKINGS)}
    partial, share = by_id["case-partial-nodes"], by_id["case-fragmentation-share"]
    assert partial.order[0] == ("fft",) and "25-50" in partial.where and "60-80" in partial.where
    assert share.order[0] == ("drr",) and "94.6%" in share.where
    assert LOWER_FIRST["partial_nodes"] and LOWER_FIRST["frag_share"]


@pytest.mark.parametrize(
    "bad",
    [
        {"order": [["fft"]]},  # one level orders nothing
        {"order": [["fft"], ["fft", "gfs"]]},  # a baseline twice
        {"metric": "ajct"},  # the case study ranks no AJCT
        {"experiment": "cost_sweep"},  # not ranked
    ],
)
def test_bad_rankings_are_refused(tmp_path, bad):
    row = {
        "id": "x",
        "experiment": "case",
        "trace": "gfs",
        "metric": "partial_nodes",
        "order": [["fft"], ["gfs"]],
        "kind": "stated",
        "where": "section 6.6",
        **bad,
    }
    path = tmp_path / "rankings.yaml"
    path.write_text(yaml.safe_dump({"rankings": [row]}))
    with pytest.raises(ValueError):
        read_rankings(path)


def runs_table(seed: int = 3, days: int = 4, seeds: int = 2) -> pd.DataFrame:
    """Tidy runs of three baselines on days x seeds samples: fft lowest AJCT."""
    rng = np.random.default_rng(seed)
    rows = []
    for day, s in itertools.product(range(days), range(seeds)):
        for b, centre in (("gfs", 500.0), ("fft", 300.0), ("drr", 480.0)):
            rows.append(
                {
                    "day": day,
                    "seed": s,
                    "scheduler": b,
                    "ajct": centre + rng.normal(0, 40),
                    "agu": rng.uniform(0.8, 0.9),
                }
            )
    return pd.DataFrame(rows)


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_permuting_sample_order_leaves_the_ranking_unchanged(random):
    """The samples are keyed by (day, seed): shuffling the runs' rows changes nothing."""
    runs = runs_table()
    order = list(range(len(runs)))
    random.shuffle(order)
    paper = read_rankings(RANKINGS)[0]
    group = Group("overall", "gfs", "", "ajct")
    rows = [
        rank_group(group, sample_matrix(r, ("gfs", "fft", "drr"), "ajct"), paper, SIX)
        for r in (runs, runs.iloc[order])
    ]
    assert rows[0]["ours"].startswith("fft > ") and rows[0]["agreement"] in ("agrees", "undecided")
    pd.testing.assert_series_equal(pd.Series(rows[0]), pd.Series(rows[1]))


def test_sample_matrix_keeps_complete_samples():
    runs = runs_table()
    runs.loc[(runs["day"] == 0) & (runs["scheduler"] == "drr"), "ajct"] = np.nan
    m = sample_matrix(runs, ("gfs", "fft", "drr", "mcg"), "ajct")  # mcg did not run
    assert list(m.columns) == ["gfs", "fft", "drr"] and len(m) == 6


def test_case_matrix_takes_the_band_middle_and_the_share():
    summary = pd.DataFrame(
        {
            "window": ["busiest"] * 3,
            "scheduler": ["gfs", "fft", "drr"],
            "partial_nodes_p10": [60.0, 25.0, 64.0],
            "partial_nodes_p90": [80.0, 50.0, 76.0],
            "frag_share": [1.0, 1.0, 0.946],
        }
    )
    m = case_matrix(summary, SIX, "busiest", "partial_nodes")
    assert m.to_dict("records") == [{"gfs": 70.0, "fft": 37.5, "drr": 70.0}]
    assert case_matrix(summary, SIX, "busiest", "frag_share").iloc[0]["drr"] == 0.946


def test_the_table_and_its_summary():
    """Every group gets our order; an order of the paper no group covers is "not measured";
    the summary line counts from the table."""
    rankings = read_rankings(RANKINGS)
    summary = pd.DataFrame(
        {
            "window": ["paper"] * 3,
            "scheduler": ["gfs", "fft", "drr"],
            "partial_nodes_p10": [60.0, 25.0, 64.0],
            "partial_nodes_p90": [80.0, 50.0, 76.0],
        }
    )
    runs = runs_table(days=5)
    groups = [
        (Group("overall", "gfs", "", "ajct"), sample_matrix(runs, SIX, "ajct")),
        (
            Group("case", "gfs", "window paper", "partial_nodes"),
            case_matrix(summary, SIX, "paper", "partial_nodes"),
        ),
        (Group("overall", "gfs", "", "agu"), matrix({"gfs": [0.8], "mcg": [0.8]})),
    ]
    table = ranking_rows(groups, rankings, SIX)
    assert list(table["strongest"]) == ["fft", "fft", "gfs = mcg", ""]
    case = table.iloc[1]
    assert case["paper"] == "fft > gfs = fgd = cafgd = mcg = drr" and case["n"] == 1
    assert case["agreement"] == "undecided"  # one window: one sample
    assert case["tau_b"] == pytest.approx(kendalltau([0, 1, 1], [0, 1, 1]).statistic)
    assert table.iloc[3]["agreement"] == "not measured"  # no frag_share group here
    assert table.iloc[0]["paper"] == "" and table.iloc[0]["agreement"] == ""
    assert table.iloc[0]["p_first_fft"] > 0.99 and math.isnan(table.iloc[0]["p_first_mcg"])
    assert ranking_summary(table) == (
        "strongest baseline per group (by mean): fft in 2 of 3 groups, a tie for first in 1; "
        "of 2 groups the paper orders: 0 agrees, 0 differs, 1 undecided, 1 not measured"
    )


def test_an_order_covers_its_condition_or_every_condition():
    every = read_rankings(RANKINGS)[0]  # no condition: each case window
    assert every.covers(Group("case", "gfs", "window busiest", every.metric))
    assert not every.covers(Group("case", "venus", "window busiest", every.metric))
    one = dataclasses.replace(every, condition="window paper")
    assert one.covers(Group("case", "gfs", "window paper", every.metric))
    assert not one.covers(Group("case", "gfs", "window busiest", every.metric))
