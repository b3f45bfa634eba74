"""The COMPASS-ABS+ goal experiment's tables (compass.experiments.studies.extension), on frames with
known answers, and the extension's place beside the paper's schedulers."""

import itertools

import pandas as pd
import pytest

from compass.experiments.config import EXTENSION_SCHEDULERS, PAPER_SCHEDULERS, check_schedulers
from compass.experiments.studies.extension.config import (
    BACKFILL_REFERENCE,
    BASELINES,
    PLUS,
    STRONGEST,
)
from compass.experiments.studies.extension.figure import plot_slack_curve
from compass.experiments.studies.extension.measures import (
    ablation_table,
    estimate_leads,
    goal_table,
    slack_curve,
    smallest_slack,
)
from compass.plotting import color
from compass.schedulers import available, cards


def test_the_extension_is_registered_coloured_and_apart_from_the_paper():
    check_schedulers(list(PAPER_SCHEDULERS) + list(EXTENSION_SCHEDULERS), available())
    assert not set(EXTENSION_SCHEDULERS) & set(PAPER_SCHEDULERS)
    assert color(PLUS) not in {c.color for c in cards() if c.name != PLUS}


def runs_frame(plus_ajct, plus_agu, plus_pause=0.5):
    """Two seeds of one day: baselines with AJCT 100 + k and AGU 0.5 + k / 100 (the best:
    gfs on AJCT, drr on AGU), compass-abs-plus with the given values per seed."""
    rows = []
    for seed, (a, u) in enumerate(zip(plus_ajct, plus_agu)):
        for k, s in enumerate(BASELINES):
            rows.append({"trace": "gfs", "data": "SYNTHETIC gfs-synth", "day": 26,
                         "seed": seed, "scheduler": s, "variant": s, "ajct": 100.0 + k,
                         "agu": 0.5 + k / 100, "pause_per_job": 0.0})
        rows.append({"trace": "gfs", "data": "SYNTHETIC gfs-synth", "day": 26, "seed": seed,
                     "scheduler": PLUS, "variant": PLUS, "ajct": a, "agu": u,
                     "pause_per_job": plus_pause})
    return pd.DataFrame(rows)


def test_goal_table_pairs_each_seed_with_its_best_baseline():
    table = goal_table(runs_frame([90.0, 110.0], [0.6, 0.54]), resamples=200)
    row = table.iloc[0]
    assert row["seeds"] == 2 and row["data"] == "SYNTHETIC gfs-synth"
    assert row["ajct lead"] == pytest.approx(0.0)          # +10 and -10 against gfs's 100
    assert not row["ajct lead >= 0 on every seed"]
    assert row["agu lead"] == pytest.approx((0.05 - 0.01) / 2)   # drr's AGU is 0.55
    assert row["ajct lead low"] == pytest.approx(-10) and row["ajct lead high"] == pytest.approx(10)
    assert row["pause goal met"] and row["ajct " + PLUS] == pytest.approx(100)


def test_goal_table_adds_the_lead_over_best_fit_with_the_same_backfill_where_it_ran():
    runs = runs_frame([90.0, 110.0], [0.6, 0.54])
    assert "ajct lead vs " + BACKFILL_REFERENCE not in goal_table(runs, resamples=50)
    reference = runs[runs["scheduler"] == PLUS].assign(
        scheduler=BACKFILL_REFERENCE, variant=BACKFILL_REFERENCE,
        ajct=[95.0, 100.0], agu=[0.55, 0.55], pause_per_job=0.0)
    row = goal_table(pd.concat([runs, reference]), resamples=200).iloc[0]
    assert row["ajct lead vs gfs-backfill"] == pytest.approx((5.0 - 10.0) / 2)
    assert row["agu lead vs gfs-backfill"] == pytest.approx((0.05 - 0.01) / 2)
    assert not row["ajct lead vs gfs-backfill >= 0 on every seed"]
    assert row["ajct lead"] == pytest.approx(0.0)  # the goal's baselines are the paper's only


def test_ablation_table_reports_each_variants_change():
    rows = [{"trace": t, "scheduler": PLUS, "variant": v, "seed": s, "ajct": a + s,
             "agu": 0.5, "afr": 0.0, "pause_per_job": p, "migrations_per_job": 0.0,
             "max_nsif_wcc": 2.0, "nsif_over_2_wcc": 0, "blocked_s": 0.0}
            for t, (v, a, p), s in itertools.product(
                ["venus"], [(PLUS, 100.0, 1.0), ("no lazy compaction", 104.0, 3.0)], [0, 1])]
    table = ablation_table(pd.DataFrame(rows)).set_index("variant")
    assert table.loc["no lazy compaction", "ajct change"] == pytest.approx(4.0)
    assert table.loc["no lazy compaction", "pause_per_job change"] == pytest.approx(2.0)
    assert table.loc[PLUS, "ajct change"] == 0


def estimate_frame():
    """Two seeds of one gfs day under two estimates: gfs (AJCT 100, AFR 0.2, AGU 0.5) and
    each estimate's gfs-backfill (AJCT 90 + seed, AFR 0.1) and compass-abs-plus (AJCT 85
    under clairvoyant, 92 under user; AFR 0.05; pause 0.4 + seed)."""
    rows = []
    for seed in (0, 1):
        rows.append({"trace": "gfs", "day": 26, "seed": seed, "variant": "gfs",
                     "runtime_estimate": None, "ajct": 100.0, "afr": 0.2, "agu": 0.5,
                     "pause_per_job": 0.0})
        for estimate, ours in (("clairvoyant", 85.0), ("user", 92.0)):
            rows.append({"trace": "gfs", "day": 26, "seed": seed,
                         "variant": f"{BACKFILL_REFERENCE} {estimate}",
                         "runtime_estimate": estimate, "ajct": 90.0 + seed, "afr": 0.1,
                         "agu": 0.55, "pause_per_job": 0.0})
            rows.append({"trace": "gfs", "day": 26, "seed": seed,
                         "variant": f"{PLUS} {estimate}", "runtime_estimate": estimate,
                         "ajct": ours, "afr": 0.05, "agu": 0.56,
                         "pause_per_job": 0.4 + seed})
    return pd.DataFrame(rows)


def test_estimate_leads_pair_each_estimate_with_its_own_gfs_backfill():
    table = estimate_leads(estimate_frame(), baselines=("gfs",), resamples=200)
    pick = table.set_index(["runtime_estimate", "day", "measure", "against"])["value"]
    assert pick["clairvoyant", "26", "ajct lead", "gfs-backfill (clairvoyant)"] == \
        pytest.approx(5.5)
    assert pick["user", "26", "ajct lead", "gfs-backfill (user)"] == pytest.approx(-1.5)
    assert pick["user", "26", "afr lead", "gfs-backfill (user)"] == pytest.approx(0.05)
    assert pick["user", "all", "ajct lead", STRONGEST] == pytest.approx(8.0)
    assert pick["user", "26", "pause per job", ""] == pytest.approx(0.9)
    assert set(table["data"]) == {"SYNTHETIC gfs-synth"}


def test_slack_curve_finds_the_smallest_slack_under_the_pause_goal():
    rows = [{"trace": "gfs", "day": 26, "seed": s, "bound_slack": k,
             "pause_per_job": 3.0 / (k + 1) + s / 10, "afr": 0.01 * k, "ajct": 100.0 + k,
             "agu": 0.5, "max_nsif_wcc": 2 + k} for k in range(5) for s in (0, 1)]
    curve = slack_curve(pd.DataFrame(rows), resamples=100)
    assert list(curve["pause_per_job"]) == pytest.approx([3.05, 1.55, 1.05, 0.8, 0.65])
    best = smallest_slack(curve, "gfs")
    assert best["bound_slack"] == 3
    assert best["afr change vs k = 0"] == pytest.approx(0.03)
    assert best["ajct change vs k = 0"] == pytest.approx(3.0)
    assert smallest_slack(curve[curve["bound_slack"] < 3], "gfs") is None


def test_the_slack_figure_is_written(tmp_path):
    rows = [{"trace": t, "bound_slack": k, "pause_per_job": 2.0 - k / 3, "afr": 0.01 * k,
             "ajct": 100.0 + k} for t in ("gfs", "venus") for k in range(5)]
    path = plot_slack_curve(pd.DataFrame(rows), tmp_path / "fig_bound_slack.png")
    assert path.stat().st_size > 1000
