"""The pipeline's profiles: schema, parsing, trace resolution (real or SYNTHETIC fallback),
and the run grid each experiment needs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from compass.experiments.config import PAPER_SCHEDULERS, ConfigError, parse_config
from compass.experiments.data import resolve_trace
from compass.experiments.grid import RunKey, run_grid
from compass.experiments.pipeline import make_plan
from compass.schedulers import available

ROOT = Path(__file__).parents[1]
PROFILES = ("quick", "medium", "full", "smoke")
#: The paper's schedulers that are registered now (others are being built; see the brief).
REGISTERED = [s for s in PAPER_SCHEDULERS if s in available()]


def profile(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


@pytest.mark.parametrize("name", PROFILES)
def test_profiles_match_the_schema_and_list_all_eight_schedulers(name):
    jsonschema = pytest.importorskip("jsonschema")
    raw = profile(name)
    jsonschema.validate(raw, yaml.safe_load((ROOT / "config" / "schema.yaml").read_text()))
    assert tuple(raw["schedulers"]) == PAPER_SCHEDULERS
    assert raw["profile"] == name


def test_the_schema_refuses_unknown_keys():
    jsonschema = pytest.importorskip("jsonschema")
    raw = profile("quick")
    raw["sizing"]["demnd"] = "window"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(raw, yaml.safe_load((ROOT / "config" / "schema.yaml").read_text()))


def test_variants_name_a_baseline_of_the_profile_under_their_own_label():
    raw = profile("quick")
    cfg = parse_config(raw)
    assert cfg.variants["mcg-backfill"] == {"scheduler": "mcg", "params": {"backfill": True}}
    after = len(cfg.schedulers)   # the variants come after the paper's schedulers
    assert cfg.run.runs()[after:after + 2] == [("mcg-backfill", "mcg", {"backfill": True}),
                                               ("fft-3600", "fft", {"round_s": 3600})]
    raw["variants"]["mine"] = {"scheduler": "compass-abs", "params": {}}
    with pytest.raises(ConfigError, match="not a baseline"):
        parse_config(raw)
    raw["variants"] = {"gfs": {"scheduler": "gfs", "params": {}}}
    with pytest.raises(ConfigError, match="own name"):
        parse_config(raw)


def test_experiments_may_only_name_configured_traces():
    raw = profile("quick")
    raw["experiments"]["eta_sweep"]["trace"] = "helios"
    with pytest.raises(ConfigError, match="helios"):
        parse_config(raw)


def test_the_cost_sweep_block_keeps_its_old_name():
    """``experiments.cost_sweep`` was ``experiments.migration_cost`` (the top-level number's
    name): profiles written with the old name still validate and parse the same."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    new = profile("quick")
    old = profile("quick")
    old["experiments"]["migration_cost"] = old["experiments"].pop("cost_sweep")
    jsonschema.validate(old, schema)
    assert parse_config(old).experiments == parse_config(new).experiments
    both = profile("quick")
    both["experiments"]["migration_cost"] = both["experiments"]["cost_sweep"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(both, schema)
    with pytest.raises(ConfigError, match="same block"):
        parse_config(both)
    del new["experiments"]["cost_sweep"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(new, schema)


def test_make_plan_checks_scheduler_names_against_the_registry():
    raw = profile("smoke")
    raw["schedulers"] = ["compass-abs", "no-such-scheduler"]
    raw["baselines"] = ["no-such-scheduler"]
    raw["variants"] = {}
    with pytest.raises(ConfigError, match="no-such-scheduler"):
        make_plan(raw, ROOT)


def test_baselines_must_be_schedulers_of_the_profile():
    """A misspelt baseline (or the reference among them) is refused when the profile is read,
    with the override that keeps the others; it would otherwise drop out of every ranking."""
    raw = profile("quick")
    raw["baselines"] = ["gfs", "ftt"]
    with pytest.raises(ConfigError, match=r"\['ftt'\] are not in schedulers.*"
                                          r"baselines=\[\"gfs\"\]"):
        parse_config(raw)
    raw["baselines"] = ["gfs", "compass-abs"]
    with pytest.raises(ConfigError, match="name the reference"):
        parse_config(raw)
    raw["baselines"], raw["variants"] = ["gfs", "fft"], {}
    assert parse_config(raw).ranked == ("compass-abs", "gfs", "fft")


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r["traces"]["gfs"].update(days=[26, 58]), r"at least 3 candidate days.*replay 2"),
    (lambda r: r["experiments"]["eta_sweep"].update(days=[999]),
     r"eta_sweep: trace gfs replays no day"),
    (lambda r: r["experiments"]["case_study"].update(window_minutes=25 * 60),
     r"1500-minute window does not fit"),
    (lambda r: r["experiments"]["case_study"].update(candidate_days=[26, 1_000]),
     r"candidate_days \[1000\] are not replayed"),
])
def test_data_needs_are_checked_when_the_profile_is_read(change, message):
    """Every experiment's data need (its days, three composition days, a case window that fits
    the replayed hours) is checked by ``make_plan``, not mid-run."""
    raw = profile("quick")
    raw["experiments"]["composition"]["traces"] = ["gfs"]
    make_plan(raw, Path("/nonexistent"))  # the profile as it is feeds every experiment
    change(raw)
    with pytest.raises(ConfigError, match=message):
        make_plan(raw, Path("/nonexistent"))


def test_quick_grid_covers_every_experiment_once():
    raw = profile("quick")
    raw["schedulers"] = REGISTERED
    plan = make_plan(raw, Path("/nonexistent"))  # no real traces: SYNTHETIC everywhere
    assert {t.origin for t in plan.traces.values()} == {"synthetic"}
    assert plan.notes and all("FALLBACK" in n for n in plan.notes)
    grid = set(plan.grid)
    assert len(grid) == len(plan.grid)
    assert RunKey("physmix", 0, 0.9, 8.0) in grid                      # Fig. 1
    assert {RunKey("gfs", 58, e, 8.0, s) for e in (0.85, 0.9, 0.95)
            for s in range(5)} <= grid  # Fig. 2, on its days 26 and 58
    assert {RunKey("venus", 93, e, 8.0) for e in (0.85, 0.9, 0.95)} <= grid  # Table 3
    assert {RunKey("gfs", 26, 0.9, c) for c in (1.0, 8.0, 10.0)} <= grid  # Fig. 4
    assert RunKey("gfs", 58, 0.9, 1.0) not in grid  # the sweep runs on its own days only
    # 5 seeds of: gfs 3 days at 0.9 and 2 days at 0.85 and 0.95, venus 5 days at 0.9,
    # physmix 1, the c sweep's 2 traces x 2 extra costs; the base seed alone of the WCC
    # table's other pairs: gfs 113 and venus's 5 days at 0.85 and 0.95
    assert len(grid) == 5 * (3 + 4 + 5 + 1 + 4) + 2 + 10
    assert RunKey("gfs", 113, 0.95, 8.0, 0) in grid
    assert RunKey("gfs", 113, 0.95, 8.0, 1) not in grid
    assert RunKey("venus", 93, 0.95, 8.0, 1) not in grid


def test_full_profile_replays_every_synthetic_day():
    raw = profile("full")
    cfg = parse_config(raw)
    traces = {n: resolve_trace(s, Path("/nonexistent")) for n, s in cfg.traces.items()}
    assert len(traces["venus"].days) == 180 and len(traces["gfs"].days) == 185
    grid = run_grid(cfg, traces)
    sweep = sum(1 for k in grid if k.cost != 8.0)
    assert sweep == 5 * 9 * (len(range(0, 185, 20)) + len(range(0, 180, 20)))
    # 5 seeds of every gfs, venus and physmix day at 0.9; the WCC table's other 2 eta on
    # seed 0 of every gfs and venus day; the eta sweep's on seeds 1-4 of every tenth gfs day
    assert len(grid) - sweep == 5 * (185 + 180 + 7) + 2 * (185 + 180) + 4 * 2 * 19


def test_a_real_trace_is_used_when_present(tmp_path):
    """A present real file is replayed; this sample is not the published table, so the
    profile trusts it (tests/test_traces_verify.py checks the verification itself)."""
    raw_dir = tmp_path / "data" / "raw" / "gfs"
    raw_dir.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "data" / "traces" / "alibaba_spot_job_info_df.csv",
                raw_dir / "job_info_df.csv")
    cfg = parse_config({**profile("full"), "trust_local": True})
    gfs = resolve_trace(cfg.traces["gfs"], tmp_path)
    assert gfs.origin == "real" and gfs.note.startswith("UNVERIFIED")
    assert gfs.label == "REAL gfs (data/raw/gfs/job_info_df.csv, unverified local file)"
    assert gfs.days == (0, 110)  # the days of the sample that have jobs (backlog dropped)
    venus = resolve_trace(cfg.traces["venus"], tmp_path)
    assert venus.origin == "synthetic" and "FALLBACK" in venus.note
    assert venus.label == "SYNTHETIC venus-synth"


def test_quick_medium_and_full_replay_the_real_venus_jobs():
    """With the repository's data/ (the derived Venus table ships), Venus is REAL in the
    three reviewer profiles: one sample per day, the paper's day numbers, every day of the
    trace with jobs in the full profile (187: the paper's 188 x 3 eta = 564 pairs are 561
    here); GFS stays the SYNTHETIC stand-in without its fetched table."""
    days = {"quick": (92, 93, 94, 95, 96), "medium": tuple(range(85, 95))}
    for name in ("quick", "medium", "full"):
        cfg = parse_config(profile(name))
        traces = {n: resolve_trace(s, ROOT) for n, s in cfg.traces.items()}
        venus = traces["venus"]
        assert venus.origin == "real" and venus.note is None and venus.source_index == 1
        assert venus.label == ("REAL venus (data/mystous_gpu_scheduler/helios_trace.csv.gz; "
                               "derived: durations clamped at 48 h)")
        assert cfg.sample_seeds(venus) == (0,) and traces["gfs"].origin == "synthetic"
        assert venus.days == days.get(name, venus.days)
        assert cfg.regimes["unclamped"] == {"venus": "venus-unclamped", "gfs": "gfs-synth"}
    assert len(venus.days) == 187 and venus.days[:3] == (1, 8, 9) and venus.days[-1] == 194
    grid = run_grid(cfg, traces)
    real = [k for k in grid if k.trace == "venus"]
    # every day at 0.9 and the WCC table's 0.85 and 0.95; c in 1..10 s (9 more) on every
    # twentieth day that has jobs (20, 40, ..., 180: day 0 has none)
    assert len(real) == 3 * 187 + 9 * 9 and {k.seed for k in real} == {0}
    assert len(grid) - len(real) == (5 * (185 + 7) + 2 * 185 + 4 * 2 * 19
                                     + 5 * 9 * len(range(0, 185, 20)))
