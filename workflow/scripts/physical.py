"""Rule physical: Phys-Mix under each scheduler as real training jobs on Ray."""

import json

from compass.experiments.pipeline import logged, physical_runs

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    physical_runs(json.loads(snakemake.params.physical), json.loads(snakemake.params.trace),
                  snakemake.params.seed, list(snakemake.input.canonical), snakemake.output[0])
