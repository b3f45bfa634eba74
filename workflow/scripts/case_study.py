"""Rule case_study: choose the section 6.6 window and replay its day under every scheduler."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import json  # noqa: E402

from compass.experiments.pipeline import case_study, logged  # noqa: E402

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    case_study(json.loads(p.case), json.loads(p.trace), json.loads(p.run), float(p.cost),
               list(snakemake.input.canonical), dict(snakemake.output.items()))
