"""`snakemake --lint` on the pipeline (docs/pipeline.md, "Lint"): fast, runs no rule.

Clean: no lint at all, exit status 0 (every rule names environment.yml as its conda
environment).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parents[1]
pytestmark = pytest.mark.skipif(importlib.util.find_spec("snakemake") is None,
                                reason="snakemake not installed: pip install -e '.[pipeline]'")

def lints(profile: str, workdir: Path) -> tuple[int, list[str]]:
    """Exit status of `snakemake --lint` on a profile, and the titles of its lints."""
    cmd = [sys.executable, "-m", "snakemake", "--lint", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(workdir), "--configfile", str(ROOT / "config" / f"{profile}.yaml")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text[-4000:]
    return done.returncode, re.findall(r"^ {4}\* (.+?):$", text, flags=re.M)


@pytest.mark.parametrize("profile", ["smoke", "full"])
def test_lint_is_clean(profile: str, tmp_path: Path) -> None:
    status, titles = lints(profile, tmp_path)
    assert titles == []
    assert status == 0


def _defined(text: str) -> set[str]:
    """The upper-case names a rule file assigns at its top level (``NAME = ...``)."""
    return set(re.findall(r"^([A-Z][A-Z0-9_]*)\s*=", text, flags=re.M))


def test_rule_files_share_values_only_through_common_smk():
    """A value that more than one file of workflow/rules/ reads is defined in common.smk
    (or by the Snakefile: the plan itself), never by one rule file for another: no rule file
    depends on the order in which the Snakefile includes the others."""
    rules = ROOT / "workflow" / "rules"
    shared = _defined((rules / "common.smk").read_text()) | _defined(
        (ROOT / "Snakefile").read_text())
    files = {f.name: f.read_text() for f in rules.glob("*.smk") if f.name != "common.smk"}
    for name, text in files.items():
        for value in _defined(text) - shared:
            users = [other for other, body in files.items()
                     if other != name and re.search(rf"\b{value}\b", body)]
            assert not users, f"{value}, defined in {name}, is read by {users}"
    assert {"DAY_TABLES", "REGIME_PLANS", "OPENB_TARGETS", "CLAIMS_FILES"} <= shared


def test_every_rule_names_the_generated_conda_environment():
    """Each rule's `conda:` is environment.yml (generated from pyproject.toml: test_tasks)."""
    files = [f for f in (ROOT / "workflow" / "rules").glob("*.smk") if f.name != "common.smk"]
    for smk in files:
        text = smk.read_text()
        rules = re.findall(r"^\s*rule\b", text, flags=re.M)
        envs = re.findall(r"^\s*conda:\n\s*ENVIRONMENT$", text, flags=re.M)
        assert rules and len(rules) == len(envs), smk
    assert 'ENVIRONMENT = str(BASE / "environment.yml")' in (
        ROOT / "workflow" / "rules" / "common.smk").read_text()


def test_every_reported_product_has_a_caption():
    """report.html captions every figure and table from the product registry
    (compass.experiments.layout): each notebook's products, and those rules write."""
    from compass.experiments.breakeven import BREAKEVEN_FIGURE, BREAKEVEN_TABLE, FIT_TABLE
    from compass.experiments.compact_literal import LITERAL_TABLE
    from compass.experiments.gap import GAP_TABLE
    from compass.experiments.layout import NOTEBOOKS, PHYSICAL_TABLE, RULE_CAPTIONS, TABLE1, caption
    from compass.experiments.ranking import RANKING_TABLE
    from compass.experiments.studies.extension.config import LEADS_TABLE
    from compass.experiments.studies.openb.config import PRODUCTS
    from compass.experiments.studies.plugins.leads import PLUGIN_TABLE
    from compass.experiments.studies.regime.config import claims_stem
    from compass.experiments.studies.regime.operating import REGIME_TABLE
    from compass.experiments.studies.venus.stand_in import STAND_IN_TABLE
    from compass.experiments.verdict.by_baseline import BY_BASELINE_TABLE
    from compass.experiments.verdict.claims import CLAIMS_TABLE
    from compass.experiments.verdict.paper_vs_ours import PAPER_VS_OURS_TABLE

    rules = {TABLE1, CLAIMS_TABLE, PHYSICAL_TABLE, LEADS_TABLE, PAPER_VS_OURS_TABLE,
             REGIME_TABLE, RANKING_TABLE, BY_BASELINE_TABLE, GAP_TABLE, BREAKEVEN_TABLE,
             FIT_TABLE, BREAKEVEN_FIGURE, LITERAL_TABLE, PLUGIN_TABLE, STAND_IN_TABLE}
    assert set(RULE_CAPTIONS) == rules  # no caption of a product nobody writes
    stems = {*rules, *PRODUCTS.figures, *PRODUCTS.tables}
    for products in NOTEBOOKS.values():
        stems |= {*products.figures, *products.tables}
    for profile in (ROOT / "config").glob("*.yaml"):  # each regime's claims table too
        stems |= {claims_stem(r) for r in yaml.safe_load(profile.read_text()).get("regimes") or {}}
    assert all(caption(s).strip() for s in stems)
    assert "paper_regime" in caption(claims_stem("paper-regime"))
    with pytest.raises(KeyError, match="no caption for product 'fig99_new'"):
        caption("fig99_new")


def test_a_notebook_entry_declares_a_caption_for_each_product():
    """A notebook's registry entry (``Products``) is refused without a caption for each of
    its figures and tables, or with one for a product it does not make."""
    from compass.experiments.layout import Products

    with pytest.raises(ValueError, match=r"missing \['t'\]"):
        Products(figures=("f",), tables=("t",), category="x", captions={"f": "F"})
    with pytest.raises(ValueError, match=r"extra \['g'\]"):
        Products(figures=("f",), tables=(), category="x", captions={"f": "F", "g": "G"})
    both = Products(figures=("f",), tables=("f",), category="x", captions={"f": "F and its CSV"})
    assert both.captions == {"f": "F and its CSV"}


def test_the_report_rules_write_the_registry_captions(tmp_path: Path) -> None:
    """Parsing the pipeline writes each reported product's caption file under
    results/<profile>/captions/, the text of the registry, and the rules point at it."""
    from compass.experiments.layout import caption
    from compass.experiments.pipeline import caption_file

    status, _ = lints("smoke", tmp_path)
    assert status == 0
    folder = tmp_path / "results" / "smoke" / "captions"
    written = {p.stem: p.read_text() for p in folder.glob("*.rst")}
    assert {"fig1_overall", "claims", "table1_classes", "openb_replay"} <= set(written)
    assert all(text == caption(stem) + "\n" for stem, text in written.items())
    path = Path(caption_file(tmp_path / "c", "fig1_overall"))
    before = path.stat().st_mtime_ns
    assert caption_file(tmp_path / "c", "fig1_overall") == str(path)  # unchanged: not rewritten
    assert path.stat().st_mtime_ns == before and path.is_absolute()


def test_the_documented_notebook_entry_is_all_a_new_notebook_needs(monkeypatch, tmp_path):
    """docs/pipeline.md's example entry, added to ``NOTEBOOKS``, gives the plan the notebook's
    figure and table files, its report category, and report.html's caption files."""
    from compass.experiments import layout
    from compass.experiments.pipeline import caption_file, make_plan

    text = (ROOT / "docs" / "pipeline.md").read_text()
    shown = re.search(r"^    (\"09_my_sweep\": Products\(.*?\}\),)$", text, flags=re.M | re.S)
    assert shown, "docs/pipeline.md lost its example entry"
    entry = eval("{" + textwrap.dedent(shown.group(1)) + "}", {"Products": layout.Products})
    monkeypatch.setattr(layout, "NOTEBOOKS", {**layout.NOTEBOOKS, **entry})
    import compass.experiments.pipeline as pipeline

    monkeypatch.setattr(pipeline, "NOTEBOOKS", layout.NOTEBOOKS)
    raw = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    plan = make_plan({**raw, "outputs": {**raw["outputs"], "results": str(tmp_path)}},
                     Path("/nonexistent"))
    assert [p.name for p in plan.figure_products("09_my_sweep")] == ["my_sweep_afr.png",
                                                                     "my_sweep_afr.pdf"]
    assert [p.name for p in plan.table_products("09_my_sweep")] == ["my_sweep.csv",
                                                                    "my_sweep.md"]
    for stem in ("my_sweep_afr", "my_sweep"):
        assert Path(caption_file(plan.layout.captions, stem)).read_text() == (
            entry["09_my_sweep"].captions[stem] + "\n")
