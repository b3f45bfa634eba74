"""Our extension's lane in the pipeline (issue 14): the profile key ``extension``, its runs
kept apart in ``Results.extension_runs``, its leads table and report section, and the rule
that it never changes a paper verdict."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from compass.experiments.config import (
    EXTENSION_SCHEDULERS,
    LANE_ESTIMATES,
    PAPER_SCHEDULERS,
    ConfigError,
    RunSettings,
    lane_label,
    parse_config,
    pipeline_config,
)
from compass.experiments.layout import Layout
from compass.experiments.pipeline import make_plan
from compass.experiments.profile import read_profile
from compass.experiments.results import Results
from compass.experiments.runs import RUN_COLUMNS
from compass.experiments.stats import Interval
from compass.experiments.studies.extension.config import (
    BACKFILL_REFERENCE,
    LEAD_COLUMNS,
    LEADS_TABLE,
    PLUS,
)
from compass.experiments.studies.extension.measures import (
    _lead_reading,
    _pause_reading,
    extension_leads,
    write_extension_leads,
)
from compass.experiments.studies.extension.sections import extension_section
from compass.experiments.verdict.claims import fmt, load_claims, load_deviations
from compass.experiments.verdict.measures import Evidence
from compass.experiments.verdict.registry import ReportInputs
from compass.experiments.verdict.verdicts import claims_table
from compass.schedulers import available

ROOT = Path(__file__).parents[1]
PROFILES = ("smoke", "quick", "medium", "full")
#: Claims measured from runs.csv alone (the others need day tables, the case study, Table 1).
RUN_KINDS = ("wins", "lead", "leads_grow", "reference_range", "reference_min",
             "baseline_range", "afr_below_bound", "nsif_bound", "flatness", "pause_per_job")


def profile(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


# ------------------------------------------------------------------ the profile key
@pytest.mark.parametrize("name", PROFILES)
def test_every_profile_runs_the_extension_and_the_schema_knows_only_its_schedulers(name):
    jsonschema = pytest.importorskip("jsonschema")
    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    assert tuple(schema["properties"]["extension"]["items"]["enum"]) == EXTENSION_SCHEDULERS
    raw = profile(name)
    assert parse_config(raw).extension == EXTENSION_SCHEDULERS
    assert tuple(schema["properties"]["extension_estimates"]["items"]["enum"]) == \
        LANE_ESTIMATES
    # the full profile leaves the runtime-estimate sensitivity to quick and medium (its cost)
    assert parse_config(raw).run.extension_estimates == (() if name == "full" else LANE_ESTIMATES)
    jsonschema.validate(raw, schema)
    for key, value in (("extension", ["compass-abs"]), ("extension_estimates", ["exact"])):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**raw, key: value}, schema)


def test_the_extension_key_is_checked_and_defaults_to_none():
    raw = profile("smoke")
    assert parse_config({k: v for k, v in raw.items() if k != "extension"}).extension == ()
    assert not set(EXTENSION_SCHEDULERS) & set(PAPER_SCHEDULERS)
    assert set(EXTENSION_SCHEDULERS) <= set(available())
    with pytest.raises(ConfigError, match="not our extension's"):
        parse_config({**raw, "extension": ["gfs"]})
    with pytest.raises(ConfigError, match="twice"):
        parse_config({**raw, "extension": ["compass-abs-plus", "compass-abs-plus"]})
    for estimates in (["exact"], ["user", "user"], ["oracle"]):
        with pytest.raises(ConfigError, match="extension_estimates"):
            parse_config({**raw, "extension_estimates": estimates})
    assert parse_config({k: v for k, v in raw.items() if k != "extension_estimates"}
                        ).run.extension_estimates == ()
    for label in ("compass-abs-plus", lane_label("gfs-backfill", "user")):
        with pytest.raises(ConfigError, match="own name"):
            parse_config({**raw, "variants": {label: {"scheduler": "mcg", "params": {}}}})


def test_a_batch_runs_the_extension_after_the_paper_schedulers_and_variants():
    run = parse_config(profile("smoke")).run
    labels = [label for label, _, _ in run.runs()]
    lanes = [lane_label(s, e) for e in LANE_ESTIMATES for s in EXTENSION_SCHEDULERS]
    assert labels == [*PAPER_SCHEDULERS, "mcg-backfill", "fft-3600", *EXTENSION_SCHEDULERS,
                      *lanes]
    assert lane_label("gfs-backfill", "exact") == "gfs-backfill"   # the trace's durations
    params = {label: (scheduler, p) for label, scheduler, p in run.runs()}
    for estimate in LANE_ESTIMATES:
        for s in EXTENSION_SCHEDULERS:
            scheduler, p = params[lane_label(s, estimate)]
            assert scheduler == s and p == {**params[s][1], "runtime_estimate": estimate}
    assert RunSettings.from_record(json.loads(json.dumps(run.record()))) == run


def test_without_the_extension_a_batchs_parameters_are_unchanged():
    """A profile without the lane keeps its batches' record, so no batch is redone."""
    raw = {k: v for k, v in profile("smoke").items() if k != "extension"}
    record = parse_config(raw).run.record()
    assert "extension" not in record and "extension_estimates" not in record
    assert RunSettings.from_record(record).extension == ()
    assert [s for s, _, _ in parse_config(raw).run.runs()] == \
        [*PAPER_SCHEDULERS, "mcg-backfill", "fft-3600"]
    lane = {k: v for k, v in profile("smoke").items() if k != "extension_estimates"}
    assert "extension_estimates" not in parse_config(lane).run.record()


# ------------------------------------------------------------------ a results folder
def _baseline_rank(scheduler: str) -> int:
    return list(PAPER_SCHEDULERS).index(scheduler)


#: Made-up AJCT changes under each runtime estimate (s): of both extension schedulers, and
#: of gfs-backfill's on top.
ESTIMATE_AJCT = {"user": 20.0, "history": 5.0}
ESTIMATE_REFERENCE_AJCT = {"user": 6.0, "history": 0.0}


def write_results(folder: Path, raw: dict, extension: bool = True) -> Results:
    """Every batch of the profile's grid with made-up values: on each sample, gfs has the
    lowest AJCT among the baselines (100 + rank + day noise), drr the highest AGU; the
    extension's AJCT is 10 s below gfs's, its AGU 0.01 above drr's, its AFR equal to the
    best baseline's and its pause 0.5 + seed s; gfs-backfill's AJCT is 4 s above it. Under
    an estimate both AJCTs rise by ``ESTIMATE_AJCT`` and gfs-backfill's by
    ``ESTIMATE_REFERENCE_AJCT`` more. ``extension=False``: the same folder as a profile
    without the key writes it (no extension rows, no key)."""
    if not extension:
        raw = {k: v for k, v in raw.items() if k != "extension"}
    plan = make_plan(raw, Path("/nonexistent"))
    rng = np.random.default_rng(7)
    rows = []
    for key in plan.grid:
        noise = rng.normal(0, 5)
        for label, scheduler, params in parse_config(profile(raw["profile"])).run.runs():
            rank = _baseline_rank(scheduler) if scheduler in PAPER_SCHEDULERS else 0
            values = {"ajct": 100.0 + rank + noise + rng.uniform(0, 0.5),
                      "agu": 0.5 + rank / 100, "afr": 0.02 + rank / 1000,
                      "pause_per_job": 1.0 + rank}
            if scheduler in EXTENSION_SCHEDULERS:
                values = {"ajct": 100.0 + _baseline_rank("gfs") + noise - 10, "agu": 0.57,
                          "afr": 0.02 + _baseline_rank("gfs") / 1000,
                          "pause_per_job": 0.5 + key.seed}
                if scheduler == BACKFILL_REFERENCE:  # best-fit under the same backfill
                    values = {**values, "ajct": values["ajct"] + 4, "pause_per_job": 0.0}
                estimate = params.get("runtime_estimate")
                if estimate:
                    values["ajct"] += ESTIMATE_AJCT[estimate] + (
                        ESTIMATE_REFERENCE_AJCT[estimate]
                        if scheduler == BACKFILL_REFERENCE else 0.0)
            if scheduler == "gfs":
                values["ajct"] = 100.0 + _baseline_rank("gfs") + noise
            if scheduler in EXTENSION_SCHEDULERS and not extension:
                continue  # after the draws: both folders share every other value
            rows.append({"trace": key.trace, "day": key.day, "seed": key.seed, "eta": key.eta,
                         "cost": key.cost, "scheduler": label, "status": "ok", "error": "",
                         "nodes": 10, "jobs": 50, "max_nsif_wcc": 1.0, "wall_s": 0.1, "cpu_s": 0.1,
                         "migrations_per_job": 0.1, **values})
    runs = pd.DataFrame(rows).reindex(columns=RUN_COLUMNS)
    layout = Layout(folder)
    folder.mkdir(parents=True, exist_ok=True)
    layout.config.write_text(json.dumps(plan.record()))
    runs.to_csv(layout.runs, index=False)
    return Results.load(folder)


@pytest.fixture(scope="module")
def smoke_results(tmp_path_factory) -> Results:
    return write_results(tmp_path_factory.mktemp("ext") / "smoke", profile("smoke"))


def test_results_keep_the_extensions_runs_apart_and_add_them_on_request(smoke_results):
    res = smoke_results
    assert "compass-abs-plus" not in set(res.runs["scheduler"])
    assert set(res.extension_runs["scheduler"]) == set(res.config.extension_labels) == {
        *EXTENSION_SCHEDULERS, *(lane_label(s, e) for s in EXTENSION_SCHEDULERS
                                 for e in LANE_ESTIMATES)}
    assert not set(res.config.extension_labels) & set(res.runs["scheduler"])
    assert "compass-abs-plus" not in set(res.variant_runs["scheduler"])
    both = res.with_extension()   # the figures': the extension on the trace's durations
    exact = res.extension_runs["scheduler"].isin(EXTENSION_SCHEDULERS)
    assert len(both.runs) == len(res.runs) + int(exact.sum()) and 0 < exact.sum() < len(exact)
    assert set(both.runs["scheduler"]) == {*res.runs["scheduler"], *EXTENSION_SCHEDULERS}
    every = res.with_extension(estimates=True)
    assert len(every.runs) == len(res.runs) + len(res.extension_runs)
    assert both.variant_runs is res.variant_runs
    bare = Results(res.layout, res.config, res.traces, res.runs, res.variant_runs)
    assert bare.with_extension() is bare  # no extension: the paper's results themselves


def test_extension_leads_over_the_strongest_baseline_and_compass_abs(smoke_results):
    table = extension_leads(smoke_results)
    assert list(table.columns) == LEAD_COLUMNS
    assert list(dict.fromkeys(table["trace"])) == ["venus", "gfs", "physmix"]
    assert (table["data"] == table["trace"].map(
        {"venus": "SYNTHETIC venus-synth", "gfs": "SYNTHETIC gfs-synth",
         "physmix": "SYNTHETIC physmix"})).all()
    assert list(dict.fromkeys(table["runtime_estimate"])) == ["clairvoyant", "user", "history"]
    plus = table[(table["scheduler"] == PLUS) & (table["runtime_estimate"] == "clairvoyant")]
    gfs = plus[plus["trace"] == "gfs"].set_index(["measure", "against"])
    ajct = gfs.loc[("ajct lead", "the strongest baseline")]
    assert ajct["strongest"] == "gfs" and ajct["value"] == pytest.approx(10.0)
    assert ajct["ci_low"] == pytest.approx(10.0) and ajct["n"] == 4   # 2 days x 2 seeds
    assert "above zero over its whole 95 % interval" in ajct["reading"]
    agu = gfs.loc[("agu lead", "the strongest baseline")]
    assert agu["strongest"] == "drr" and agu["value"] == pytest.approx(0.01)
    afr = gfs.loc[("afr lead", "the strongest baseline")]
    assert afr["value"] == pytest.approx(0.0) and "not shown above zero" in afr["reading"]
    versus = gfs.loc[("agu lead", "compass-abs")]
    assert versus["strongest"] == "" and versus["value"] == pytest.approx(0.07)
    assert versus["reading"].startswith("compass-abs-plus's AGU lead over compass-abs is")
    pause = gfs.loc[("pause per job", "")]
    assert pause["value"] == pytest.approx(1.0) and pause["n"] == 4  # 0.5 and 1.5, 2 each
    assert pause["ci_low"] < 1.0 < pause["ci_high"] and "spans it" in pause["reading"]
    fair = gfs.loc[("ajct lead", BACKFILL_REFERENCE)]
    assert fair["value"] == pytest.approx(4.0) and fair["n"] == 4
    assert fair["reading"].startswith("compass-abs-plus's AJCT lead over gfs-backfill is above")
    reference = table[table["scheduler"] == BACKFILL_REFERENCE]
    assert set(reference["against"]) == {"the strongest baseline", "compass-abs", ""}


@pytest.mark.parametrize("estimate, shown", [("user", "user"), ("history", "history")])
def test_extension_leads_per_runtime_estimate(smoke_results, estimate, shown):
    """Under each estimate: the lead over gfs-backfill under the same estimate, and over the
    strongest baseline, from that estimate's runs only."""
    table = extension_leads(smoke_results)
    mine = table[(table["runtime_estimate"] == shown) & (table["trace"] == "gfs")]
    plus = mine[mine["scheduler"] == PLUS].set_index(["measure", "against"])
    same = lane_label(BACKFILL_REFERENCE, estimate)
    assert set(plus.index.get_level_values("against")) == {
        "the strongest baseline", "compass-abs", same, ""}
    fair = plus.loc[("ajct lead", same)]
    assert fair["value"] == pytest.approx(4.0 + ESTIMATE_REFERENCE_AJCT[estimate])
    assert fair["n"] == 4
    assert fair["reading"].startswith(f"{lane_label(PLUS, estimate)}'s AJCT lead over {same}")
    strongest = plus.loc[("ajct lead", "the strongest baseline")]
    assert strongest["value"] == pytest.approx(10.0 - ESTIMATE_AJCT[estimate])
    assert strongest["strongest"] == "gfs"
    assert plus.loc[("agu lead", same)]["value"] == pytest.approx(0.0)
    reference = mine[mine["scheduler"] == BACKFILL_REFERENCE]
    assert not reference["against"].str.contains("backfill").any()


def test_extension_leads_are_empty_without_the_extension(tmp_path):
    res = write_results(tmp_path / "r", profile("smoke"), extension=False)
    table = extension_leads(res)
    assert table.empty and list(table.columns) == LEAD_COLUMNS


@pytest.mark.parametrize("interval, words", [
    (Interval(2.0, 1.0, 3.0, 5), "above zero over its whole"),
    (Interval(-2.0, -3.0, -1.0, 5), "below zero over its whole"),
    (Interval(0.5, -1.0, 2.0, 5), "spans zero"),
    (Interval(2.0, np.nan, np.nan, 1), "ahead on its one sample"),
    (Interval(np.nan, np.nan, np.nan, 0), "no sample"),
])
def test_a_leads_reading_says_whether_it_is_above_zero(interval, words):
    assert words in _lead_reading("x", "ajct", "gfs", interval)


@pytest.mark.parametrize("interval, words", [
    (Interval(0.5, 0.4, 0.6, 5), "is under the goal"),
    (Interval(2.0, 1.5, 2.5, 5), "whole 95 % interval is above"),
    (Interval(1.0, 0.5, 1.5, 5), "spans it"),
    (Interval(0.5, np.nan, np.nan, 1), "under the goal of 1 s per job on its one sample"),
])
def test_a_pauses_reading_compares_it_with_the_goal(interval, words):
    assert words in _pause_reading("x", interval)


def _inputs(res: Results, tables: Path, folder: Path) -> ReportInputs:
    """What the report hands its sections (the extension's reads no claim)."""
    return ReportInputs(res, pd.DataFrame(), tables, folder / "REPRODUCTION.md")


def test_the_report_section_renders_the_table_apart_with_the_goal(smoke_results, tmp_path):
    tables = tmp_path / "tables"
    write_extension_leads(smoke_results.layout.root, tables)
    assert "SYNTHETIC" in (tables / f"{LEADS_TABLE}.md").read_text()
    lines = extension_section(_inputs(smoke_results, tables, tmp_path))
    text = "\n".join(lines)
    assert lines[0] == "## Beyond the paper: COMPASS-ABS+ (our extension)"
    assert "[extension_leads.csv](tables/extension_leads.csv)" in text
    assert "- **gfs** (SYNTHETIC gfs-synth), compass-abs-plus, clairvoyant estimates: AJCT " \
           "lead 10.0 [10.0, 10.0] s over gfs, AGU lead 0.01 [0.01, 0.01] share of GPUs over " \
           "drr: both above zero over their whole 95 % interval. Over `gfs-backfill` (the " \
           "same estimate): AJCT 4.00 [4.00, 4.00] s," in text
    assert "- **gfs** (SYNTHETIC gfs-synth), compass-abs-plus, user estimates: AJCT lead " \
           "-10.0 [-10.0, -10.0] s over gfs, AGU lead 0.01 [0.01, 0.01] share of GPUs over " \
           "drr: not both above zero over their whole 95 % interval. Over " \
           "`gfs-backfill@user` (the same estimate): AJCT 10.0 [10.0, 10.0] s," in text
    assert "| gfs | compass-abs-plus | clairvoyant | ajct lead | the strongest baseline | gfs " \
           "| 10.0 [10.0, 10.0] s | 4 |" in text
    assert "| gfs | compass-abs-plus | history | ajct lead | compass-abs | - |" in text
    assert "`extension_estimates`" in text
    runs = len(smoke_results.extension_runs)   # one run of each lane per batch
    batches = runs // len(smoke_results.config.extension_labels)
    assert f"Its {runs} runs in {batches} batches took {fmt(runs * 0.1)} CPU seconds" in text
    bare = Results(smoke_results.layout,
                   pipeline_config(replace(smoke_results.config.spec, extension=())),
                   smoke_results.traces, smoke_results.runs)
    assert extension_section(_inputs(bare, tables, tmp_path)) == []


def test_the_lane_never_changes_a_paper_verdict(smoke_results, tmp_path):
    """Every claim measured from the runs reads the same with the extension's rows in
    runs.csv and the key in the profile as without either."""
    claims = [c for c in load_claims(ROOT / "paper" / "claims.yaml")
              if c.measure["kind"] in RUN_KINDS
              and c.measure.get("experiment") != "composition"]
    assert len(claims) >= 15
    deviations = load_deviations(ROOT / "paper" / "deviations.yaml")
    without = write_results(tmp_path / "without", profile("smoke"), extension=False)
    columns = ["id", "ours", "ci_low", "ci_high", "n", "verdict", "detail", "ours_text"]
    tables = [claims_table(claims, Evidence(res, tmp_path), deviations)[columns]
              for res in (smoke_results, without)]
    pd.testing.assert_frame_equal(*tables)
    assert set(tables[0]["verdict"]) - {"no data"}   # the claims were measured


def test_the_openb_experiments_run_the_profiles_extension_after_their_own():
    from compass.experiments.studies.openb.config import OpenbConfig

    raw = profile("smoke")
    cfg = OpenbConfig.from_profile(read_profile(raw))
    assert cfg.extension == EXTENSION_SCHEDULERS
    assert OpenbConfig.from_record(cfg.record()) == cfg
    assert "compass-abs-plus" not in (*cfg.schedulers, *cfg.packing_schedulers, *cfg.baselines)
    bare = OpenbConfig.from_profile(read_profile({**raw, "extension": []}))
    assert bare.extension == bare.extension_estimates == ()
    assert "extension_estimates" not in bare.record()   # its rules' params as before
    # the replay runs the lane under each estimate too, as a batch does
    assert cfg.replay_runs() == [(s, s, {}) for s in cfg.schedulers] + \
        parse_config(raw).run.extension_runs()
    assert ("gfs-backfill@history", "gfs-backfill", {"runtime_estimate": "history"}) in \
        cfg.replay_runs()


def test_figures_show_the_extension_last_in_its_own_colour_marker_and_name():
    from compass import plotting as P

    assert P.order(["compass-abs-plus", "sifopt", "gfs", "compass-abs"]) == [
        "compass-abs", "gfs", "sifopt", "compass-abs-plus"]
    assert P.display("compass-abs-plus") == "COMPASS-ABS+ (our extension)"
    assert P._marker("compass-abs-plus") == "D" and P._marker("gfs") == "o"
    style = P._line_style("compass-abs-plus")
    assert style["color"] == P.color("compass-abs-plus") and style["ls"] == "-."


def test_a_line_grid_with_the_extension_lays_its_legend_in_two_even_rows():
    from compass import plotting as P

    names = [*PAPER_SCHEDULERS, "compass-abs-plus"]
    means = pd.DataFrame({"scheduler": names, "metric": "ajct", "value": 1.0, "cost": 1.0,
                          "trace": "gfs"})
    fig = P.line_grid(means, "cost", "trace", "t", "SYNTHETIC", metrics=("ajct",))
    assert fig.legends[0]._ncols == 5
    paper = P.line_grid(means[means["scheduler"] != "compass-abs-plus"], "cost", "trace", "t",
                        "SYNTHETIC", metrics=("ajct",))
    assert paper.legends[0]._ncols == 8   # the paper's figures keep one row
