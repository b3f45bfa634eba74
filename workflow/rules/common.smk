# Shared by the files of workflow/rules/: every value more than one rule file reads (the
# claims tables, the trace-day tables, the sensitivity regimes' plans, the openb files),
# report categories, and the tagging of products for `snakemake --report` (functions live
# here, apart from the rules: snakemake --lint). A rule file defines only what it alone uses.

from pathlib import Path

from compass.experiments.breakeven import breakeven_samples
from compass.experiments.layout import REPORT_CATEGORIES  # noqa: F401 (report.html's sections)
from compass.experiments.layout import figure_files, table_files
from compass.experiments.pipeline import caption_file, folder, relative  # noqa: F401 (params)
from compass.experiments.pipeline import sized_together
from compass.experiments.studies.openb.config import (
    NOTEBOOK as OPENB_NOTEBOOK_NAME,
    PACKING,
    PACKING_META,
    PRODUCTS as OPENB_PRODUCTS,
    REPLAY_DAYS,
    REPLAY_META,
    REPLAY_RUNS,
    OpenbConfig,
    openb_dir,
)
from compass.experiments.studies.regime.config import regime_plans
from compass.experiments.verdict.claims import CLAIMS_TABLE
from compass.sim.table_files import table_path

#: The conda environment of every step under --use-conda: environment.yml, generated from
#: pyproject.toml (`python3 tasks.py lock`). The default run uses the interpreter Snakemake
#: runs in (.venv); docs/pipeline.md, "Conda", says what is and is not tested.
ENVIRONMENT = str(BASE / "environment.yml")

#: Seconds papermill waits for a notebook's kernel to answer (its default, 60 s, is too short
#: where the notebook steps share a loaded machine with simulations; at most the `notebook`
#: resource's limit of kernels start at once: profiles/default/config.yaml).
KERNEL_START_TIMEOUT_S = 600

#: FFT's break-even (profile key experiments.fft_breakeven): trace -> its (day, seed)
#: samples; empty: no sweep (simulate.smk runs it, report.smk tabulates it)
BREAKEVEN = breakeven_samples(PLAN.config, PLAN.traces)

#: File types report.html shows: figures as PNG, tables as CSV (PDF and Markdown stay out).
REPORTED = (".png", ".csv")


def reported(files, category):
    """``files`` with their PNG figures and CSV tables tagged for report.html under
    ``category``, each captioned from the product registry (compass.experiments.layout:
    its notebook's ``Products.captions`` or ``RULE_CAPTIONS``), written once into
    results/<profile>/captions/<stem>.rst."""
    tagged = [report(f, caption=caption_file(L.captions, Path(f).stem), category=category)
              if Path(f).suffix in REPORTED else f for f in files]
    return tagged


# every notebook renders its claims
CLAIMS_FILES = table_files(PLAN.tables, CLAIMS_TABLE)
# each trace's day table (notebooks, claims, report)
DAY_TABLES = [L.day_table(t) for t in PLAN.traces]
# The profile's sensitivity regimes (profile key `regimes`), each a plan of its own whose
# results go to results/<profile>/regimes/<name>/: the rules from config_json to
# collect_runs serve every plan, the {root} wildcard (a results folder) telling which.
# Their simulate jobs are sized over the samples of all of them (pipeline.sized_together).
PLAN, *_REGIMES = sized_together([PLAN, *regime_plans(PLAN).values()])
REGIME_PLANS = dict(zip(PLAN.config.regimes, _REGIMES))

# REAL openb (workflow/rules/openb.smk): its files, all empty without an `openb` block.
OPENB = OpenbConfig.from_profile(PLAN.config.spec)  # its paths: relative to the repository
OPENB = OPENB.resolved(BASE) if OPENB is not None else None
OPENB_DIR = openb_dir(L.root)
# tables in the profile's outputs.table_format, metadata as JSON
OPENB_REPLAY = [*(table_path(OPENB_DIR, t, L.table_format) for t in (REPLAY_RUNS, REPLAY_DAYS)),
                OPENB_DIR / REPLAY_META]
OPENB_PACKING = [table_path(OPENB_DIR, PACKING, L.table_format), OPENB_DIR / PACKING_META]
OPENB_FIGURES = [f for s in OPENB_PRODUCTS.figures for f in figure_files(PLAN.figures, s)]
OPENB_TABLES = [f for s in OPENB_PRODUCTS.tables for f in table_files(PLAN.tables, s)]
OPENB_TARGETS = ([L.notebook(OPENB_NOTEBOOK_NAME), *OPENB_FIGURES, *OPENB_TABLES]
                 if OPENB is not None else [])
OPENB_DATA = [*OPENB_REPLAY, *OPENB_PACKING] if OPENB is not None else []  # the openb claims'
OPENB_CLAIMS = [BASE / "paper" / "claims_openb.yaml"] if OPENB is not None else []
