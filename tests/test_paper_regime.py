"""The paper-regime traces: the knobs' properties (compass.traces.regime_knobs), the kinds
``gfs-paper-regime`` and ``venus-paper-regime``, the fit's YAML and its objective
(compass.experiments.studies.regime.fit) on hand-built frames."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.cli import main
from compass.experiments.studies.regime.fit import (
    COMPOSITION_ETA,
    FIT_SEEDS,
    GRID,
    HELD_OUT_SEED,
    _settings,
    distance,
    grid_points,
    objective,
    scored,
    write_yaml,
)
from compass.experiments.studies.regime.operating import BASELINES, RegimeQuantity, read_regime
from compass.model import G_DEFAULT
from compass.traces import load_trace
from compass.traces.fidelity import REGIME_EXEMPT, calibration_checks
from compass.traces.paths import data_file, repo_root
from compass.traces.regime_knobs import (
    KNOBS_FILE,
    RegimeKnobs,
    cap_gangs,
    gang_limit,
    raise_subnode_share,
    read_knobs,
    reshape_day,
    subnode_instance_share,
)
from compass.traces.synthetic import KINDS, REGIME_BASE, kind_knobs, synthesize
from compass.traces.windows import DAY_SECONDS, cluster_size, day_window

REGIME = repo_root() / "paper" / "regime.yaml"


@st.composite
def day_frames(draw: st.DrawFn) -> pd.DataFrame:
    """One day of jobs: submit times inside day 0, durations, sizes, gang widths."""
    n = draw(st.integers(1, 60))
    ints = st.lists(st.integers(0, 10**6), min_size=n, max_size=n)
    submit = np.array(draw(ints)) % int(DAY_SECONDS)
    duration = 1 + np.array(draw(ints)) % 200_000
    g = np.array(draw(st.lists(st.sampled_from([1, 2, 4, 8]), min_size=n, max_size=n)))
    w = 1 + np.array(draw(ints)) % draw(st.sampled_from([1, 4, 64, 300]))
    return pd.DataFrame({"submit_time": submit.astype(float), "duration": duration.astype(float),
                         "num_instances": w.astype(np.int64), "gpus_per_instance": g})


# ------------------------------------------------------------------ the knobs
@settings(max_examples=60, deadline=None)
@given(day_frames(), st.floats(0.01, 1.0))
def test_gang_cap_bounds_every_gang_at_the_capped_days_sizing(frame, cap):
    out = cap_gangs(frame, cap, day_window(0))
    gpus = out["gpus_per_instance"] * out["num_instances"]
    for eta in (0.85, 0.9, 0.95):  # N(eta) grows with eta: the lowest paper eta is the tightest
        nodes = cluster_size(out, eta, within=day_window(0)).demand_nodes
        assert (gpus <= max(G_DEFAULT, cap * G_DEFAULT * nodes) + 1e-9).all()
    limit = gang_limit(out, cap, day_window(0))
    untouched = frame["gpus_per_instance"] * frame["num_instances"] <= limit
    assert (out["num_instances"][untouched] == frame["num_instances"][untouched]).all()
    assert (out["num_instances"] >= 1).all()
    assert (out["num_instances"] <= frame["num_instances"]).all()
    assert out["gpus_per_instance"].equals(frame["gpus_per_instance"])


def test_gang_cap_cuts_the_one_huge_gang():
    frame = pd.DataFrame({"submit_time": [0.0, 10.0, 20.0], "duration": [3600.0] * 3,
                          "num_instances": [1, 2, 100], "gpus_per_instance": [8, 8, 8]})
    out = cap_gangs(frame, 0.5, day_window(0))
    assert out["num_instances"].tolist()[:2] == [1, 2] and out["num_instances"].iloc[2] < 100


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.9))
def test_subnode_share_is_reached_within_one_instance_as_far_as_jobs_reach(seed, share):
    rng = np.random.default_rng(seed)
    n = 5000  # a large day: enough single-instance full-node jobs to relabel
    g = rng.choice([1, 2, 4, 8], size=n, p=[0.3, 0.05, 0.05, 0.6])
    w = np.where(rng.random(n) < 0.9, 1, rng.integers(1, 20, size=n))
    before = subnode_instance_share(g, w)
    out = raise_subnode_share(g, w, share, np.random.default_rng(seed + 1))
    after = subnode_instance_share(out, w)
    changed = out != g
    assert (g[changed] == G_DEFAULT).all() and (w[changed] == 1).all()
    assert set(out[changed]) <= set(g[(g < G_DEFAULT) & (w == 1)])
    reachable = before + ((g == G_DEFAULT) & (w == 1)).sum() / w.sum()
    if before >= share:
        assert not changed.any()
    elif reachable < share:  # too few single-instance full-node jobs: every one moves
        assert after == pytest.approx(reachable)
    else:
        assert share <= after < share + 1 / w.sum() + 1e-12


@settings(max_examples=40, deadline=None)
@given(day_frames(), st.floats(0.1, 10.0))
def test_duration_scale_multiplies_exactly(frame, scale):
    out = reshape_day(frame, RegimeKnobs(duration_scale=scale), np.random.default_rng(0),
                      day_window(0))
    assert (out["duration"].to_numpy() == frame["duration"].to_numpy() * scale).all()
    pd.testing.assert_frame_equal(out.drop(columns="duration"), frame.drop(columns="duration"))


@settings(max_examples=30, deadline=None)
@given(day_frames())
def test_identity_knobs_change_nothing(frame):
    assert RegimeKnobs().identity
    pd.testing.assert_frame_equal(
        reshape_day(frame, RegimeKnobs(), np.random.default_rng(0), day_window(0)), frame)


@pytest.mark.parametrize("kwargs, message", [({"gang_cap": 0.0}, "gang_cap"),
                                             ({"gang_cap": 1.5}, "gang_cap"),
                                             ({"subnode_share": -0.1}, "subnode_share"),
                                             ({"subnode_share": 1.1}, "subnode_share"),
                                             ({"duration_scale": 0.0}, "duration_scale"),
                                             ({"duration_scale": math.inf}, "duration_scale")])
def test_invalid_knobs_say_which(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RegimeKnobs(**kwargs)
    with pytest.raises(ValueError, match="unknown regime knob"):
        RegimeKnobs.from_record({"gang_capp": 0.5})


# ------------------------------------------------------------------ the kinds
@pytest.mark.parametrize("kind", list(REGIME_BASE))
def test_the_kinds_are_listed_labelled_and_checked(kind):
    assert kind in KINDS
    frame = synthesize(kind, days=3, start_day=112, seed=0)
    assert set(frame["source"]) == {f"synthetic:{kind}"}
    assert frame["source_id"].str.startswith(f"{kind}/s0/d112/").any()
    checks = calibration_checks(frame)
    assert checks["ok"].all(), checks.to_string()
    assert not checks["statistic"].str.contains("GPU-seconds").any()  # exempt: REGIME_EXEMPT
    assert all(REGIME_EXEMPT.values())


def test_same_seed_same_trace_and_identity_is_the_base_kind():
    a = synthesize("gfs-paper-regime", days=2, start_day=112, seed=3)
    pd.testing.assert_frame_equal(a, synthesize("gfs-paper-regime", days=2, start_day=112,
                                                seed=3))
    assert not a.equals(synthesize("gfs-paper-regime", days=2, start_day=112, seed=4))
    for kind, base in REGIME_BASE.items():
        plain = synthesize(kind, days=2, start_day=25, seed=1, knobs=RegimeKnobs())
        pd.testing.assert_frame_equal(plain.drop(columns=["source", "source_id"]),
                                      synthesize(base, days=2, start_day=25, seed=1)
                                      .drop(columns=["source", "source_id"]))


def test_table2_days_keep_their_sizes():
    knobs = RegimeKnobs(subnode_share=0.9)
    day = synthesize("gfs-paper-regime", days=1, start_day=26, seed=0, knobs=knobs)
    base = synthesize("gfs-synth", days=1, start_day=26, seed=0)
    assert (day["gpus_per_instance"].to_numpy() == base["gpus_per_instance"].to_numpy()).all()
    other = synthesize("gfs-paper-regime", days=1, start_day=27, seed=0, knobs=knobs)
    g, w = other["gpus_per_instance"].to_numpy(), other["num_instances"].to_numpy()
    # 0.9 lies beyond what the day's single-instance full-node jobs reach: every one moved
    assert subnode_instance_share(g, w) < 0.9 and not ((g == G_DEFAULT) & (w == 1)).any()


def test_cli_synthesizes_and_checks_a_paper_regime_trace(tmp_path, capsys):
    out = tmp_path / "regime.csv"
    assert main(["trace", "synth", "--kind", "gfs-paper-regime", "--days", "1",
                 "--start-day", "113", "--out", str(out)]) == 0
    assert set(load_trace(out)["source"]) == {"synthetic:gfs-paper-regime"}
    assert main(["trace", "stats", str(out)]) == 0
    text = capsys.readouterr().out
    assert "SYNTHETIC" in text and "gang_cap" in text


# ------------------------------------------------------------------ the fit's YAML
@settings(max_examples=30, deadline=None)
@given(st.one_of(st.none(), st.floats(0.01, 1.0)), st.floats(0.0, 1.0), st.floats(0.1, 10.0))
def test_knobs_round_trip_through_the_yaml(tmp_path_factory, cap, share, scale):
    knobs = RegimeKnobs(cap, share, scale)
    path = tmp_path_factory.mktemp("fit") / "paper_regime.yaml"
    write_yaml({"kinds": {"gfs-paper-regime": {"knobs": knobs.record()}}}, path, "test")
    assert read_knobs(path) == {"gfs-paper-regime": knobs}
    assert path.read_text().startswith("# The paper-regime traces' knobs")


def test_the_shipped_fit_names_both_kinds_and_its_provenance():
    path = data_file(KNOBS_FILE)
    fitted = read_knobs(path)
    assert set(fitted) == set(REGIME_BASE)
    assert all(kind_knobs(kind) == fitted[kind] for kind in REGIME_BASE)
    text = path.read_text()
    assert "python -m compass.experiments.studies.regime.fit" in text and "Objective" in text
    assert all(knobs in grid_points() for knobs in fitted.values())


# ------------------------------------------------------------------ the fit's objective
def _q(id_: str, measure: str, metric: str, paper, schedulers: str = "baselines",
       trace: str = "composition days", role: str = "regime") -> RegimeQuantity:
    return RegimeQuantity(id_, trace, id_, schedulers, measure, metric, paper, role, "test")


def test_objective_on_a_hand_built_case():
    agu = _q("agu", "composition_band", "agu", (0.77, 0.90))
    stalled = _q("stalled", "stalled_share", "mean_queue_time", None, trace="gfs")
    rows = []
    for seed, agus, queue in ((0, (0.70, 0.80), 10.0), (1, (0.70, 0.96), 2 * 86_400.0)):
        for scheduler, value in zip(("gfs", "fft"), agus, strict=True):
            rows.append({"trace": "gfs", "day": 26, "eta": COMPOSITION_ETA, "seed": seed,
                         "scheduler": scheduler, "agu": value, "mean_queue_time": queue})
    runs = pd.DataFrame(rows)
    value, got = objective([agu, stalled], runs, None)
    # AGU means: gfs 0.70, fft 0.88 -> band [0.70, 0.88]: 0.07 below, none above
    assert got["agu"].value == pytest.approx((0.70, 0.88))
    assert got["stalled"].value == 0.5  # one of two (day, eta, seed) samples stalled
    assert value == pytest.approx(0.07 / 0.13 + 0.5)
    assert distance(agu, got["agu"]) == pytest.approx(0.07 / 0.13)
    with pytest.raises(ValueError, match="regime-role"):
        objective([_q("abs", "eta_floor", "agu", 0.957, "compass-abs", "gfs", "held-out")],
                  runs, None)


def test_the_fit_runs_baselines_only_and_scores_no_held_out_quantity():
    assert "compass-abs" not in _settings(0).schedulers and set(_settings(0).schedulers) == set(
        BASELINES)
    quantities = read_regime(REGIME)
    for kind in REGIME_BASE:
        mine = scored(quantities, kind)
        assert mine and all(q.role == "regime" for q in mine)
    assert HELD_OUT_SEED not in FIT_SEEDS and len(grid_points()) == math.prod(map(len,
                                                                                  GRID.values()))
