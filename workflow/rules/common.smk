# Shared by the files of workflow/rules/: report categories, and the tagging of products for
# `snakemake --report` (functions live here, apart from the rules: snakemake --lint).

from pathlib import Path

from compass.experiments.pipeline import folder  # noqa: F401 (the rules' params use it)

#: The conda environment of every step under --use-conda: environment.yml, generated from
#: pyproject.toml (`python3 tasks.py lock`). The default run uses the interpreter Snakemake
#: runs in (.venv); docs/pipeline.md, "Conda", says what is and is not tested.
ENVIRONMENT = str(BASE / "environment.yml")

#: Seconds papermill waits for a notebook's kernel to answer (its default, 60 s, is too short
#: where the notebook steps share a loaded machine with simulations; at most the `notebook`
#: resource's limit of kernels start at once: profiles/default/config.yaml).
KERNEL_START_TIMEOUT_S = 600

#: Category of each notebook's products in report.html: the paper's section and figure.
REPORT_CATEGORIES = {
    "01_overall": "6.1 Overall (Fig. 1)",
    "02_eta_sweep": "6.2 Eta sweep (Fig. 2)",
    "03_composition": "6.3 Composition (Table 2, Fig. 3)",
    "04_wcc_coverage": "6.4 WCC coverage (Table 3)",
    "05_migration_cost": "6.5 Migration cost (Fig. 4)",
    "06_case_study": "6.6 Case study (Figs. 5-7)",
    "07_nvl72": "Appendix D: NVL72",
    "08_real_openb": "REAL openb",
}
#: File types report.html shows: figures as PNG, tables as CSV (PDF and Markdown stay out).
REPORTED = (".png", ".csv")


def reported(files, category):
    """``files`` with their PNG figures and CSV tables tagged for report.html under
    ``category``, each captioned by workflow/report/<stem>.rst."""
    tagged = [report(f, caption=f"../report/{Path(f).stem}.rst", category=category)
              if Path(f).suffix in REPORTED else f for f in files]
    return tagged
