"""The REAL openb experiments: loaders, static packing, busy-window sizing, intervals, claims.

Static packing is checked against an independent best-fit packer on random pod streams;
the experiments run end to end on the shipped pod lists (data/) with a few schedulers.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER
from compass.experiments.profile import read_profile
from compass.experiments.stats import t_interval, t_paired_leads
from compass.experiments.studies.openb.config import (
    LABEL,
    PACKING,
    PACKING_META,
    REPLAY_DAYS,
    REPLAY_META,
    REPLAY_RUNS,
    STAGES,
    OpenbConfig,
    openb_dir,
)
from compass.experiments.studies.openb.results import OpenbResults
from compass.experiments.studies.openb.runs import (
    packing_nodes,
    run_packing,
    run_replay,
)
from compass.experiments.verdict.claims import Claim, load_claims
from compass.experiments.verdict.measures import MEASURES
from compass.experiments.verdict.registry import registered_measures
from compass.experiments.verdict.verdicts import assess
from compass.schedulers import create
from compass.sim.metrics import time_weighted_mean, time_weighted_mean_within
from compass.sim.packing import pack
from compass.traces import TraceError, load_trace
from compass.traces import windows as W
from compass.traces.formats.alibaba_openb import load_alibaba_openb, load_alibaba_openb_snapshot
from compass.traces.paths import data_dir, data_file, repo_root

CSV = "alibaba_clusterdata/cluster-trace-gpu-v2023/csv"
DEFAULT = data_file(f"{CSV}/openb_pod_list_default.csv")
VARIANTS = {f"multigpu{k}": str(data_file(f"{CSV}/openb_pod_list_multigpu{k}.csv"))
            for k in (20, 30, 40, 50)}
NODES = data_file(f"{CSV}/openb_node_list_gpu_node.csv")


# ------------------------------------------------------------------ the shipped files
def test_openb_files_reconcile_with_their_summary():
    summary = pd.read_csv(data_file("calibration/openb_summary.csv"))
    hist = summary[(summary["subset"] == "all pods") & (summary["variable"] == "num_gpu")]
    raw = pd.read_csv(DEFAULT)
    assert raw["num_gpu"].value_counts().to_dict() == {
        int(v): int(c) for v, c in zip(hist["value"], hist["count"])}
    nodes = summary[summary["variable"] == "gpus_per_node"]
    assert packing_nodes(NODES) == int(nodes.loc[nodes["value"] == 8, "count"].iloc[0]) == 617


def test_round_up_keeps_gpu_sharing_pods_as_one_gpu():
    kept, dropped = load_alibaba_openb(DEFAULT)
    both, rounded = load_alibaba_openb(DEFAULT, fractional="round-up")
    raw = pd.read_csv(DEFAULT)
    sharing = (raw["num_gpu"] == 1) & (raw["gpu_milli"] < 1000) & raw["scheduled_time"].notna()
    assert rounded.dropped["shared_gpu"] == 0
    assert rounded.options["rounded_up"] == int(((raw["num_gpu"] == 1)
                                                 & (raw["gpu_milli"] < 1000)).sum()) == 3078
    assert len(both) == len(kept) + int(sharing.sum())
    assert dropped.options["fractional"] == "drop" and dropped.options["rounded_up"] == 0
    with pytest.raises(ValueError, match="fractional"):
        load_alibaba_openb(DEFAULT, fractional="half")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_snapshot_loader_accounts_for_every_pod(variant):
    pods, report = load_alibaba_openb_snapshot(VARIANTS[variant])
    raw = pd.read_csv(VARIANTS[variant])
    whole = (raw["num_gpu"] >= 2) | ((raw["num_gpu"] == 1) & (raw["gpu_milli"] >= 1000))
    assert report.rows_read == len(raw) and report.rows_kept == int(whole.sum()) == len(pods)
    assert report.dropped == {"no_gpu": 1088, "shared_gpu": 3078, "gpu_exceeds_node": 0}
    assert pods["gpus_per_instance"].tolist() == raw.loc[whole, "num_gpu"].tolist()
    with pytest.raises(TraceError, match="snapshot"):
        load_trace(VARIANTS[variant])


def test_snapshot_loader_names_bad_rows(tmp_path):
    path = tmp_path / "pods.csv"
    path.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,2,1000\nb,1,1,x,0\n")
    with pytest.raises(TraceError, match="row 2.*num_gpu"):
        load_alibaba_openb_snapshot(path)


# ------------------------------------------------------------------ static packing
def _naive_best_fit(gpus, nodes, G=8):
    """Independent best fit: the node with the least free GPUs that fits, lowest index."""
    free = [G] * nodes
    first = None
    for k, g in enumerate(gpus):
        fits = [(f, n) for n, f in enumerate(free) if f >= g]
        if fits:
            free[min(fits)[1]] -= g
        elif first is None:
            first = (k + 1, nodes * G - sum(free), sum(0 < f < G for f in free))
    return first, nodes * G - sum(free), sum(0 < f < G for f in free)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, 1, 1, 2, 4, 8, 3, 5]), min_size=1, max_size=40),
       st.integers(1, 4))
def test_best_fit_packing_equals_an_independent_packer(gpus, nodes):
    run = pack(gpus, create("gfs"), nodes)
    first, used, partial = _naive_best_fit(gpus, nodes)
    assert (run.saturation.used_gpus, run.saturation.partial_nodes) == (used, partial)
    if first is None:
        assert run.first_rejection is None and run.rejected == 0
    else:
        fr = run.first_rejection
        assert (fr.offered, fr.used_gpus, fr.partial_nodes) == first
        assert fr.allocated_share == pytest.approx(first[1] / (8 * nodes))
    assert run.saturation.placed == len(gpus) - run.rejected


def test_packing_by_hand():
    """Two nodes: 8 fills node 0, 4 + 4 fill node 1, the second 8 and the 1 are rejected."""
    run = pack([8, 4, 4, 8, 1], create("gfs"), 2)
    assert run.first_rejection.offered == 4 and run.first_rejection.allocated_share == 1.0
    assert run.rejected == 2 and run.saturation.placed == 3
    assert run.first_rejection.sif == 0 and run.first_rejection.phi_star == 0


@pytest.mark.parametrize("scheduler", ["fft", "drr"])
def test_migrating_schedulers_repack_before_each_refusal(scheduler):
    run = pack([1, 1, 1, 1, 1, 1, 1, 1, 8, 8, 4, 4, 2, 8], create(scheduler), 2)
    assert run.repacks >= run.rejected > 0


@pytest.mark.parametrize("scheduler", ["compass-abs", "fgd", "cafgd", "mcg", "fft", "drr"])
def test_every_rule_packs_validly_and_never_releases(scheduler):
    rng = np.random.default_rng(5)
    gpus = rng.choice([1, 1, 1, 2, 4, 8], size=120)
    run = pack(gpus, create(scheduler), 6)
    fr, sat = run.first_rejection, run.saturation
    assert fr is not None and fr.used_gpus <= sat.used_gpus <= 48
    assert sat.partial_nodes >= sat.phi_star and fr.partial_nodes >= fr.phi_star
    assert sat.placed + run.rejected == len(gpus)


def test_packing_refuses_pods_larger_than_a_node():
    with pytest.raises(ValueError, match="1..8"):
        pack([9], create("gfs"), 2)


# ------------------------------------------------------------------ statistics
def test_t_interval_is_students_t():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    mean, lo, hi = t_interval(x)
    half = stats.t.ppf(0.975, 3) * x.std(ddof=1) / 2
    assert (mean, lo, hi) == pytest.approx((3.5, 3.5 - half, 3.5 + half))
    assert math.isnan(t_interval([1.0])[1]) and math.isnan(t_interval([])[0])


def test_t_paired_leads_by_hand():
    rows = [(s, k, v) for k, (a, b, c) in enumerate([(1, 3, 5), (2, 3, 4), (1, 4, 2)])
            for s, v in zip(("ref", "b1", "b2"), (a, b, c))]
    table = pd.DataFrame(rows, columns=["scheduler", "seed", "partial_nodes"]).assign(group="g")
    out = t_paired_leads(table, ["group"], "seed", "ref", ["b1", "b2"],
                         ["partial_nodes"], MEASURE_LOWER_IS_BETTER).iloc[0]  # lower is better
    assert out["strongest_baseline"] == "b1"  # mean 3.33 < b2's 3.67
    assert out["lead"] == pytest.approx(np.mean([2, 1, 3])) and out["n"] == 3
    # higher is better (the allocated share): the strongest is the largest, the lead flips
    table = table.rename(columns={"partial_nodes": "allocated_share"})
    out = t_paired_leads(table, ["group"], "seed", "ref", ["b1", "b2"],
                         ["allocated_share"], MEASURE_LOWER_IS_BETTER).iloc[0]
    assert out["strongest_baseline"] == "b2"  # mean 3.67 > b1's 3.33
    assert out["lead"] == pytest.approx(np.mean([-4, -2, -1]))


def test_time_weighted_mean_within_clips_intervals():
    tl = pd.DataFrame({"time": [0.0, 10.0, 30.0, 40.0], "v": [1.0, 3.0, 5.0, 7.0]})
    # [5, 35): 5 s of 1, 20 s of 3, 5 s of 5
    assert time_weighted_mean_within(tl, "v", 5, 35) == pytest.approx((5 + 60 + 25) / 30)
    assert time_weighted_mean_within(tl, "v", 0, 40) == pytest.approx(time_weighted_mean(tl, "v"))
    mask = np.array([False, True, True, False])
    assert time_weighted_mean_within(tl, "v", 5, 35, mask) == pytest.approx((60 + 25) / 25)
    assert math.isnan(time_weighted_mean_within(tl, "v", 50, 60))


def test_busy_window_spans_the_busy_days():
    frame = load_trace(DEFAULT)
    window = W.busy_window(frame, 50)
    assert (window.start / 86400, window.end / 86400) == (116, 149)
    day = frame["submit_time"] // 86400
    assert ((day >= 116) & (day <= 148)).mean() > 0.97
    with pytest.raises(ValueError, match="min_pods"):
        W.busy_window(frame, 10_000)


# ------------------------------------------------------------------ the experiments
def _config() -> OpenbConfig:
    quick = yaml.safe_load((repo_root() / "config" / "quick.yaml").read_text())
    quick["openb"]["schedulers"] = ["compass-abs", "gfs", "fft"]
    quick["openb"]["packing_schedulers"] = ["compass-abs", "gfs"]
    quick["openb"]["packing"]["seeds"] = 2
    quick["baselines"] = ["gfs", "fft"]
    cfg = OpenbConfig.from_profile(read_profile(quick))
    return cfg.resolved(repo_root()), quick


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    cfg, profile = _config()
    root = tmp_path_factory.mktemp("results")
    (root / "config.json").write_text(json.dumps({"profile": profile, "resolved": {}}))
    run_replay(cfg, openb_dir(root))
    run_packing(cfg, openb_dir(root))
    return root


def test_replay_sizes_over_the_busy_window_and_says_so(results):
    res = OpenbResults.load(results)
    meta = res.replay_meta
    assert (meta["busy_first_day"], meta["busy_last_day"]) == (116, 148)
    assert meta["nodes"] > meta["whole_span_nodes"] == 4
    assert meta["report"]["dropped"]["shared_gpu"] == 3078
    runs = res.replay_runs
    # the profile's extension runs after the block's schedulers (its own lane; no lead)
    assert runs["status"].eq("ok").all() and runs["scheduler"].tolist() == [
        "compass-abs", "gfs", "fft", "compass-abs-plus", "gfs-backfill",
        "compass-abs-plus@user", "gfs-backfill@user", "compass-abs-plus@history",
        "gfs-backfill@history"]
    assert runs[["afr", "ajct", "agu"]].notna().all().all()
    assert not {"compass-abs-plus@user", "gfs-backfill@history"} & set(
        res.plot_frame("replay")["scheduler"])
    days = res.replay_days
    assert days.groupby("scheduler")["day"].apply(list).map(len).eq(33).all()
    assert days.groupby("scheduler")["pods"].sum().eq(
        int(((load_trace(DEFAULT)["submit_time"] // 86400).between(116, 148)).sum())).all()
    assert "REAL" in res.replay_label() and "116-148" in res.replay_label()


def test_packing_table_covers_every_variant_seed_scheduler_and_stage(results):
    res = OpenbResults.load(results)
    p = res.packing
    assert len(p) == 4 * 2 * 4 * 2   # variants x seeds x (2 schedulers + 2 extension) x stages
    shares = p.groupby("variant")["multi_gpu_share"].first()
    assert shares.is_monotonic_increasing and shares.iloc[0] > 0.2
    assert (p["allocated_share"] <= 1).all() and (p["partial_nodes"] >= p["phi_star"]).all()
    summary, leads = res.packing_summary(), res.packing_leads()
    assert set(summary["stage"]) == set(STAGES) and leads["strongest_baseline"].eq("gfs").all()
    assert res.drops()["kept"].tolist()[0] == len(load_trace(DEFAULT))


def _evidence(profile: dict, results: Path) -> SimpleNamespace:
    """What the openb measures read of the claims' evidence: the profile, its baselines and
    the results folder."""
    spec = read_profile(profile)
    return SimpleNamespace(res=SimpleNamespace(
        config=SimpleNamespace(spec=spec, baselines=spec.baselines),
        layout=SimpleNamespace(root=results)))


def test_openb_claims_are_measured_and_judged(results):
    claims = load_claims(repo_root() / "paper" / "claims_openb.yaml")
    assert {c.measure["kind"] for c in claims} <= {*MEASURES, *registered_measures()}
    fields = set(yaml.safe_load((repo_root() / "paper" / "claims.yaml").read_text())
                 ["claims"][0])
    raw = yaml.safe_load((repo_root() / "paper" / "claims_openb.yaml").read_text())["claims"]
    assert all(set(c) <= fields | {"calibrated"} for c in raw)
    _, profile = _config()
    ev = _evidence(profile, results)
    for claim in claims:
        measured, verdict = assess(claim, ev)
        assert verdict.status in ("holds", "differs"), (claim.id, measured.text)
        assert measured.text.startswith(LABEL)
    no_block = SimpleNamespace(res=SimpleNamespace(
        config=SimpleNamespace(spec=replace(read_profile(profile), openb=None)),
        layout=SimpleNamespace(root=results)))
    assert assess(claims[0], no_block)[1].status == "no data"


def test_a_claim_that_cannot_hold_is_judged_differs(results):
    _, profile = _config()
    ev = _evidence(profile, results)
    claim = Claim("x", "", "", "", {"kind": "openb_sif_bound", "experiment": "replay"},
                  {"at_most": -1}, "", [], "")
    assert assess(claim, ev)[1].status == "differs"


def test_the_shipped_data_folder_is_small():
    size = sum(p.stat().st_size for p in data_dir().rglob("*") if p.is_file()
               and "raw" not in p.parts)
    assert size < 5 * 2**20


def test_the_results_are_read_in_the_profiles_table_format(results, tmp_path):
    """With ``outputs.table_format: parquet`` the tables are Parquet files, read back as the
    CSV ones are."""
    from compass.sim.table_files import read_frame, table_path, write_frame

    record = json.loads((results / "config.json").read_text())
    record["profile"]["outputs"] = {**record["profile"]["outputs"], "table_format": "parquet"}
    (tmp_path / "config.json").write_text(json.dumps(record))
    folder = openb_dir(tmp_path)
    folder.mkdir()
    for stem in (REPLAY_RUNS, REPLAY_DAYS, PACKING):
        write_frame(read_frame(table_path(openb_dir(results), stem)),
                    table_path(folder, stem, "parquet"))
    for meta in (REPLAY_META, PACKING_META):
        (folder / meta).write_text((openb_dir(results) / meta).read_text())
    csv, parquet = OpenbResults.load(results), OpenbResults.load(tmp_path)
    assert not list(folder.glob("*.csv"))
    for name in ("replay_runs", "replay_days", "packing"):
        pd.testing.assert_frame_equal(getattr(parquet, name), getattr(csv, name),
                                      check_dtype=False)
    assert parquet.replay_table().equals(csv.replay_table())
