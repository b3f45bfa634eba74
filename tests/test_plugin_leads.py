"""Outside schedulers in the pipeline (compass.experiments.plugin_leads): the leads of a
compared plugin against hand-computed paired differences, the profile key's checks, and a
scheduler that failed on every run said on the terminal and at the head of the report."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from compass.experiments import failed_schedulers as F
from compass.experiments.config import ConfigError
from compass.experiments.pipeline import collect_runs, make_plan
from compass.experiments.studies.plugins import leads as P
from compass.experiments.studies.plugins import sections as S
from compass.experiments.verdict.registry import ReportInputs, report_sections
from compass.sim.table_files import write_frame

ROOT = Path(__file__).resolve().parents[1]


def _runs(values: dict[str, list[float]], status: dict[str, str] | None = None
          ) -> pd.DataFrame:
    rows = []
    for name, afrs in values.items():
        for day, afr in enumerate(afrs):
            rows.append({"trace": "t", "day": day, "seed": 0, "eta": 0.9, "cost": 8.0,
                         "scheduler": name, "status": (status or {}).get(name, "ok"),
                         "error": "", "afr": afr, "ajct": 100.0 * afr, "agu": 1 - afr})
    return pd.DataFrame(rows)


def _results(runs: pd.DataFrame, plugins=("plug",)) -> SimpleNamespace:
    cfg = SimpleNamespace(compare_plugins=plugins, reference="compass-abs",
                          baselines=("gfs", "fgd"), migration_cost=8.0,
                          experiments=SimpleNamespace(overall_traces=["t"], overall_eta=0.9))
    return SimpleNamespace(config=cfg, runs=runs,
                           select=lambda traces, etas, costs: runs[runs["status"] == "ok"])


def test_a_plugins_leads_are_its_paired_differences() -> None:
    ref = [0.10, 0.20, 0.15, 0.30, 0.25, 0.05]
    plug = [r + 0.10 for r in ref]           # always 0.10 more fragmented than the reference
    gfs = [p - 0.05 for p in plug]           # the strongest baseline: 0.05 below the plugin
    fgd = [p - 0.02 for p in plug]
    table = P.plugin_leads(_results(_runs({"compass-abs": ref, "plug": plug, "gfs": gfs,
                                           "fgd": fgd})))
    afr = table[table["metric"] == "afr"].set_index("against")
    assert afr.loc["compass-abs", "lead"] == pytest.approx(-0.10)
    assert afr.loc["compass-abs", ["ci_low", "ci_high"]].tolist() == pytest.approx([-0.1, -0.1])
    assert afr.loc[P.STRONGEST, "strongest_baseline"] == "gfs"
    assert afr.loc[P.STRONGEST, "lead"] == pytest.approx(-0.05)
    assert set(afr["reading"]) == {"behind"} and set(afr["n"]) == {6}
    agu = table[table["metric"] == "agu"].set_index("against")  # higher is better
    assert agu.loc["compass-abs", "lead"] == pytest.approx(-0.10)


def test_a_scheduler_that_failed_on_every_run_is_said_on_the_terminal_and_in_the_report(
        tmp_path: Path, capfd) -> None:
    runs = _runs({"gfs": [0.1, 0.2], "plug": [0.1, 0.2], "half": [0.1, 0.2]},
                 status={"plug": "error"})
    runs.loc[runs["scheduler"] == "plug", "error"] = "ZeroDivisionError: rule"
    runs.loc[(runs["scheduler"] == "half") & (runs["day"] == 0), "status"] = "error"
    assert F.dead_schedulers(runs) == ["plug"]
    paths = []
    for day, part in runs.groupby("day"):
        paths.append(tmp_path / f"part{day}.csv")
        write_frame(part, paths[-1])
    collect_runs([str(p) for p in paths], str(tmp_path / "runs.csv"))
    err = capfd.readouterr().err
    assert "WARNING: scheduler plug failed on every run (2 runs)" in err
    assert "ZeroDivisionError: rule" in err and "half" not in err
    head = F.dead_section(SimpleNamespace(runs=runs))
    assert head and "`plug` failed on every run" in head[0]
    assert F.dead_section(SimpleNamespace(runs=runs[runs["scheduler"] != "plug"])) == []


def test_compare_plugins_must_name_an_outside_scheduler_the_profile_runs() -> None:
    raw = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    for wrong in (["worst-fit"], ["gfs"], ["compass-abs"]):  # not run; a baseline; the ref
        with pytest.raises(ConfigError, match="compare_plugins"):
            make_plan({**raw, "compare_plugins": wrong}, ROOT)
    plan = make_plan({**raw, "schedulers": [*raw["schedulers"], "first-fit"],
                      "compare_plugins": ["first-fit"]}, ROOT)
    assert plan.config.compare_plugins == ("first-fit",)


def test_the_report_section_renders_the_table(tmp_path: Path) -> None:
    ref = [0.10, 0.20, 0.15]
    res = _results(_runs({"compass-abs": ref, "plug": [r - 0.05 for r in ref],
                          "gfs": [r + 0.01 for r in ref], "fgd": [r + 0.02 for r in ref]}))
    from compass.experiments.tables import write_table

    write_table(P.plugin_leads(res), tmp_path / "tables", P.PLUGIN_TABLE)
    lines = S.plugin_section(ReportInputs(res, pd.DataFrame(), tmp_path / "tables",
                                          tmp_path / "REPORT.md"))
    assert lines[0] == "## Outside schedulers"
    assert "(tables/plugin_leads.csv)" in lines[2]
    assert "- **plug**, t, AFR over compass-abs: 0.05 [0.05, 0.05] (n = 3): ahead" in lines
    assert any(line.startswith("- **plug**, t, AFR over the strongest baseline (gfs): 0.06")
               for line in lines)
    assert S.plugin_section(ReportInputs(_results(res.runs, plugins=()), pd.DataFrame(),
                                         tmp_path, tmp_path / "R.md")) == []
    assert S.plugin_section in report_sections("end")  # the report renders it
