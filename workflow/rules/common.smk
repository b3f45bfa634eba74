# Shared by the files of workflow/rules/: report categories, and the tagging of products for
# `snakemake --report` (functions live here, apart from the rules: snakemake --lint).

from pathlib import Path

from compass.experiments.layout import REPORT_CATEGORIES  # noqa: F401 (report.html's sections)
from compass.experiments.pipeline import caption_file, folder, relative  # noqa: F401 (params)

#: The conda environment of every step under --use-conda: environment.yml, generated from
#: pyproject.toml (`python3 tasks.py lock`). The default run uses the interpreter Snakemake
#: runs in (.venv); docs/pipeline.md, "Conda", says what is and is not tested.
ENVIRONMENT = str(BASE / "environment.yml")

#: Seconds papermill waits for a notebook's kernel to answer (its default, 60 s, is too short
#: where the notebook steps share a loaded machine with simulations; at most the `notebook`
#: resource's limit of kernels start at once: profiles/default/config.yaml).
KERNEL_START_TIMEOUT_S = 600

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
