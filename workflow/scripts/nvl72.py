"""Rule nvl72: appendix D's runs (SIF per level, AJCT, AGU on multi-panel domains)."""

import json

from compass.experiments.pipeline import logged
from compass.experiments.studies.nvl72.runs import write_nvl72

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    write_nvl72(json.loads(snakemake.params.settings), snakemake.output.runs,
                snakemake.output.settings)
