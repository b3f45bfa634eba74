"""`snakemake --lint` on the pipeline (docs/pipeline.md, "Lint"): fast, runs no rule.

Clean: no lint at all, exit status 0 (every rule names environment.yml as its conda
environment).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    """report.html captions every figure and table from workflow/report/<stem>.rst."""
    from compass.experiments.claims import CLAIMS_TABLE
    from compass.experiments.extension import LEADS_TABLE
    from compass.experiments.layout import NOTEBOOKS, PHYSICAL_TABLE, TABLE1
    from compass.experiments.openb import PRODUCTS
    from compass.experiments.ranking import RANKING_TABLE

    stems = {TABLE1, CLAIMS_TABLE, PHYSICAL_TABLE, LEADS_TABLE, RANKING_TABLE, *PRODUCTS.figures,
             *PRODUCTS.tables}
    for products in NOTEBOOKS.values():
        stems |= {*products.figures, *products.tables}
    import yaml

    from compass.experiments.regimes import claims_stem

    for profile in (ROOT / "config").glob("*.yaml"):  # each regime's claims table too
        stems |= {claims_stem(r) for r in yaml.safe_load(profile.read_text()).get("regimes") or {}}
    missing = sorted(s for s in stems if not (ROOT / "workflow" / "report" / f"{s}.rst").is_file())
    assert not missing
