"""Sensitivity regimes (compass.experiments.studies.regime): the derived profile of a regime,
the profile key refused with an unknown kind or trace, and ``reading`` on hand-built claims
tables for each case (closes, stays, partly closes, no data, no gap)."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments.config import ConfigError, parse_config, pipeline_config
from compass.experiments.pipeline import make_plan
from compass.experiments.profile import profile_dict, read_profile
from compass.experiments.studies.regime.config import (
    COMPARISONS,
    claims_stem,
    regime_plans,
    regime_profile,
    regime_results,
)
from compass.experiments.studies.regime.sensitivity import NOT_REJUDGED, is_comparison, reading
from compass.experiments.verdict.claims import CLAIMS_TABLE, load_claims

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())


def _profile(name: str = "smoke", **regimes: dict[str, str]) -> dict:
    raw = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
    raw["regimes"] = regimes or {"paper-regime": {"venus": "venus-synth",
                                                  "gfs": "gfs-synth-indep"}}
    return raw


def test_the_derived_profile_replays_the_comparisons_on_the_regimes_kinds():
    raw = _profile()
    spec = read_profile(raw)
    derived = regime_profile(spec, "paper-regime")
    assert spec == read_profile(raw)  # the profile itself is left alone
    cfg = pipeline_config(derived)
    assert {t: s.synthetic for t, s in cfg.traces.items()} == {"venus": "venus-synth",
                                                               "gfs": "gfs-synth-indep"}
    assert all(s.real is None and s.use_real == "never" for s in cfg.traces.values())
    x, main = cfg.experiments, parse_config(raw).experiments
    assert x.overall_traces == ("venus", "gfs")  # physmix is not in the regime
    assert (x.etas, x.eta_trace, x.migration_costs) == (main.etas, main.eta_trace,
                                                        main.migration_costs)
    assert x.wcc_traces == x.overall_traces and x.wcc_etas == (x.overall_eta,)
    assert x.physical is None and not cfg.variants and not cfg.extension and not cfg.regimes
    assert derived.openb is None and "openb" not in profile_dict(derived)
    assert cfg.results_dir == regime_results(parse_config(raw).results_dir, "paper-regime")
    assert cfg.results_dir == Path("results/smoke/regimes/paper-regime")
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(profile_dict(derived), SCHEMA)


def test_a_regime_writes_its_run_tables_in_the_profiles_table_format():
    """``outputs.table_format`` reaches the regime's plan: its runs table is the format the
    report rules read (a Parquet profile's regime writes runs.parquet)."""
    raw = _profile()
    raw["outputs"] = {**raw["outputs"], "table_format": "parquet"}
    plan = make_plan(regime_profile(read_profile(raw), "paper-regime"))
    assert plan.layout.runs == Path("results/smoke/regimes/paper-regime/runs.parquet")


def test_a_regimes_batches_are_the_main_comparisons_on_its_traces():
    """Every batch of the regime's plan is one the main plan runs too (same trace, day, eta,
    c and seed, on other data), and each main batch of the comparisons on the regime's
    traces is in it: the regime replays the comparison experiments, nothing else."""
    plan = make_plan(_profile())
    derived = regime_plans(plan)["paper-regime"]
    mine, main = set(derived.grid), set(plan.grid)
    assert mine <= main
    x = plan.config.experiments
    overall = {k for k in main if k.trace in ("venus", "gfs") and k.eta == x.overall_eta
               and k.cost == plan.config.migration_cost}
    sweep = {k for k in main if k.trace == x.eta_trace and k.cost == plan.config.migration_cost
             and k.seed != plan.config.seed}  # every seed: the eta sweep's, not WCC's
    assert overall | sweep <= mine
    assert str(derived.layout.root) == "results/smoke/regimes/paper-regime"


def test_a_case_study_trace_outside_the_regime_moves_to_the_eta_sweeps():
    """A profile's case study is required but never replayed in a regime: on a trace the
    regime does not map, the derived profile points it at the eta sweep's trace."""
    raw = _profile()
    raw["experiments"]["case_study"]["trace"] = "physmix"
    raw["experiments"]["case_study"]["candidate_days"] = [0]
    derived = regime_profile(read_profile(raw), "paper-regime")
    case = derived.experiments.case_study
    assert (case.trace, case.candidate_days) == ("gfs", None)
    assert make_plan(derived).config.experiments.case.trace == "gfs"


def test_no_regime_no_plan():
    raw = _profile()
    raw.pop("regimes")
    assert regime_plans(make_plan(raw)) == {}
    assert regime_plans(make_plan({**raw, "regimes": {}})) == {}


@pytest.mark.parametrize(("kinds", "match"), [
    ({"gfs": "gfs-nonsense"}, "unknown synthetic kind 'gfs-nonsense'"),
    ({"alibaba": "gfs-synth"}, r"traces \['alibaba'\] are not under 'traces'"),
    ({}, "maps no trace"),
])
def test_the_config_reader_refuses_a_bad_regime(kinds, match):
    with pytest.raises(ConfigError, match=match):
        parse_config(_profile(bad=kinds))


def test_the_schema_lists_every_synthetic_kind():
    """config/schema.yaml's synthetic kinds are compass.traces.synthetic.KINDS: a kind added
    to the generators is one a profile (and a regime) may name."""
    from compass.traces.synthetic import KINDS

    assert SCHEMA["$defs"]["trace"]["properties"]["synthetic"]["$ref"] == \
        "#/$defs/synthetic_kind"
    assert set(SCHEMA["$defs"]["synthetic_kind"]["enum"]) == set(KINDS)


def test_the_schema_refuses_an_unknown_kind():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(_profile(), SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_profile(bad={"gfs": "gfs-nonsense"}), SCHEMA)


def test_a_regime_without_the_eta_sweeps_trace_is_refused():
    with pytest.raises(ConfigError, match="eta sweep's trace gfs"):
        regime_profile(read_profile(_profile(venus_only={"venus": "venus-synth"})),
                       "venus_only")


def test_the_comparison_claims_are_the_four_experiments_comparisons():
    claims = load_claims(ROOT / "paper" / "claims.yaml")
    compared = [c for c in claims if is_comparison(c)]
    assert {c.measure["experiment"] for c in compared} == set(COMPARISONS)
    assert not any(c.section.startswith("6.6") for c in compared)
    assert claims_stem("paper-regime") == f"{CLAIMS_TABLE}_paper_regime"


def _table(rows: list[tuple[str, str, str]], variant: str = "default") -> pd.DataFrame:
    return pd.DataFrame([{"id": i, "section": s, "verdict": v, "variant": variant}
                         for i, s, v in rows])


MAIN = _table([("a1", "6.1", "differs"), ("a2", "6.1", "holds"),
               ("b1", "6.2", "differs"), ("b2", "6.2", "tie"),
               ("c1", "6.3", "differs"), ("c2", "6.3", "tie"),
               ("d1", "6.5", "differs"), ("d2", "6.5", "differs"),
               ("e1", "6.4", "holds"),
               ("f1", "7", "inconclusive"),
               ("g1", "8", "differs"), ("g2", "8", "differs"),
               ("z1", "6.6", "differs")])
REGIME = _table([("a1", "6.1", "holds"), ("a2", "6.1", "differs"),
                 ("b1", "6.2", "differs"), ("b2", "6.2", "tie"),
                 ("c1", "6.3", "holds"), ("c2", "6.3", "differs"),
                 ("d1", "6.5", "no data"), ("d2", "6.5", "inconclusive"),
                 ("e1", "6.4", "differs"),
                 ("f1", "7", "holds"),
                 ("g1", "8", "holds"), ("g2", "8", "inconclusive"),
                 ("z1", "6.6", NOT_REJUDGED)])


def test_reading_closes_stays_partly_no_data_undecided_and_no_gap():
    got = {r.family: r for r in reading(MAIN, REGIME)}
    assert list(got) == ["6.1", "6.2", "6.3", "6.5", "6.4", "7", "8"]  # 6.6: not judged
    assert {f: r.status for f, r in got.items()} == {
        "6.1": "closes", "6.2": "stays", "6.3": "partly closes", "6.5": "no data",
        "6.4": "no gap", "7": "undecided", "8": "closes"}
    assert got["6.1"].closed == ("a1",) and not got["6.1"].stayed  # a2 is no gap of ours
    assert "the data account for it" in got["6.1"].line("paper-regime")
    assert got["6.2"].stayed == (("b1", "differs"), ("b2", "tie"))
    assert "the scheduler, not the data" in got["6.2"].line("paper-regime")
    assert (got["6.3"].closed, got["6.3"].stayed) == (("c1",), (("c2", "differs"),))
    assert got["6.5"].unsettled == (("d1", "no data"), ("d2", "inconclusive"))
    assert "`d2` inconclusive" in got["6.5"].line("r")
    assert got["7"].undecided == ("f1",)  # an inconclusive verdict of ours is no gap
    assert got["8"].unsettled == (("g2", "inconclusive"),)
    assert "undecided there: `g2` inconclusive" in got["8"].line("r")
    assert got["6.1"].line("r").startswith("**6.1** (2 comparison claims) on `r`: ")


def test_reading_uses_the_main_default_verdicts_only():
    """A variant row of the main table (the sensitivity variants) never counts as a gap."""
    main = pd.concat([_table([("a1", "6.1", "holds")]),
                      _table([("a1", "6.1", "differs")], variant="fft-3600")])
    (only,) = reading(main, _table([("a1", "6.1", "holds")]))
    assert only.status == "no gap"
    (missing,) = reading(_table([("a1", "6.1", "differs")]), _table([("a1", "6.1", "holds"),
                                                                      ("a9", "6.1", "holds")]))
    assert missing.status == "closes" and missing.claims == ("a1", "a9")


def test_a_regime_reads_the_cost_sweep_under_its_earlier_name_through_the_profile():
    """The c-sweep block's earlier name (``migration_cost``) is read in one place (the key's
    ``old`` name in ``compass.experiments.profile``): a regime derived from such a profile
    writes it as ``cost_sweep``, and a profile giving both names is refused there too."""
    raw = _profile()
    raw["experiments"]["migration_cost"] = raw["experiments"].pop("cost_sweep")
    derived = profile_dict(regime_profile(read_profile(raw), "paper-regime"))
    assert "cost_sweep" in derived["experiments"]
    assert "migration_cost" not in derived["experiments"]
    raw["experiments"]["cost_sweep"] = raw["experiments"]["migration_cost"]
    with pytest.raises(ConfigError, match="same block"):
        read_profile(raw)


def _dict_regime_profile(raw: dict, regime: str) -> dict:
    """The regime's profile as it was derived before profiles were typed: the raw dict
    copied and edited (the reference ``regime_profile`` must keep to)."""
    raw = copy.deepcopy(raw)
    kinds, x = raw["regimes"][regime], raw["experiments"]
    sweep = x["cost_sweep"]
    overall = [t for t in x["overall"]["traces"] if t in kinds]
    case = dict(x["case_study"])
    if case["trace"] not in kinds:
        case.update(trace=x["eta_sweep"]["trace"], candidate_days=None)
    raw["experiments"] = {
        "overall": {**x["overall"], "traces": overall},
        "eta_sweep": x["eta_sweep"],
        "composition": {**x["composition"],
                        "traces": [t for t in x["composition"]["traces"] if t in kinds]},
        "wcc_coverage": {"traces": overall, "etas": [x["overall"]["eta"]]},
        "cost_sweep": {**sweep, "traces": [t for t in sweep["traces"] if t in kinds],
                       "days": {t: d for t, d in (sweep.get("days") or {}).items()
                                if t in kinds}},
        "case_study": case,
        "physical": None,
    }
    raw["traces"] = {t: {**spec, "synthetic": kinds[t], "real": None, "use_real": "never"}
                     for t, spec in raw["traces"].items() if t in kinds}
    for key in ("variants", "extension", "extension_estimates", "openb", "regimes"):
        raw.pop(key, None)
    root = regime_results(Path(raw["outputs"]["results"]) / raw["profile"], regime)
    raw["description"] = (f"the comparison experiments of profile {raw['profile']} on the "
                          f"regime {regime} (SYNTHETIC {', '.join(kinds.values())})")
    raw["outputs"] = {**raw["outputs"], "results": str(root.parent),
                      "figures": str(root / "figures"), "tables": str(root / "tables"),
                      "report": str(root / "REPRODUCTION.md")}
    raw["profile"] = regime
    return raw


@pytest.mark.parametrize("name", ["quick", "medium"])
def test_each_regime_is_derived_as_the_dict_edit_derived_it(name):
    """``regime_profile`` (``dataclasses.replace`` on the typed profile) gives each regime
    of quick and medium the profile, and so the plan, that editing the YAML's dict gave."""
    raw = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())
    plan = make_plan(raw)
    plans = regime_plans(plan)
    assert list(plans) == list(raw["regimes"]) and len(plans) == 3
    for regime, derived in plans.items():
        expected = make_plan(_dict_regime_profile(raw, regime))
        assert derived.config.spec == expected.config.spec
        assert derived.config == expected.config and derived.grid == expected.grid
        assert derived.traces == expected.traces
