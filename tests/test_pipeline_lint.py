"""`snakemake --lint` on the pipeline (docs/pipeline.md, "Lint"): fast, runs no rule.

Clean except for one stated exception: no rule names a conda environment or container
(ACCEPTED_LINT below says why).
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

#: The one lint accepted: the package installs with pip (tasks.py, requirements.lock), and
#: environment.yml holds neither the package itself nor a light runtime, so a `conda:`
#: directive would only build a broken, heavy environment under --use-conda.
ACCEPTED_LINT = "Specify a conda environment or container for each rule."


def lints(profile: str, workdir: Path) -> tuple[int, list[str]]:
    """Exit status of `snakemake --lint` on a profile, and the titles of its lints."""
    cmd = [sys.executable, "-m", "snakemake", "--lint", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(workdir), "--configfile", str(ROOT / "config" / f"{profile}.yaml")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text[-4000:]
    return done.returncode, re.findall(r"^ {4}\* (.+?):$", text, flags=re.M)


@pytest.mark.parametrize("profile", ["smoke", "full"])
def test_lint_is_clean_but_for_the_stated_exception(profile: str, tmp_path: Path) -> None:
    status, titles = lints(profile, tmp_path)
    assert titles, "no lint at all: drop ACCEPTED_LINT and expect exit status 0"
    assert set(titles) == {ACCEPTED_LINT}
    assert status == 1  # snakemake exits 1 on any lint, the accepted one included


def test_every_reported_product_has_a_caption():
    """report.html captions every figure and table from workflow/report/<stem>.rst."""
    from compass.experiments.claims import CLAIMS_TABLE
    from compass.experiments.extension import LEADS_TABLE
    from compass.experiments.layout import NOTEBOOKS, PHYSICAL_TABLE, TABLE1
    from compass.experiments.openb import PRODUCTS

    stems = {TABLE1, CLAIMS_TABLE, PHYSICAL_TABLE, LEADS_TABLE, *PRODUCTS.figures,
             *PRODUCTS.tables}
    for products in NOTEBOOKS.values():
        stems |= {*products.figures, *products.tables}
    missing = sorted(s for s in stems if not (ROOT / "workflow" / "report" / f"{s}.rst").is_file())
    assert not missing
