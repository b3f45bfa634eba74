"""Rule collect_runs: every batch's rows in one tidy table (a regime's borrowed batches
read from the main run's parts)."""

import json

from compass.experiments.pipeline import collect_runs, logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    collect_runs(list(snakemake.input.own), snakemake.output[0],
                 list(snakemake.input.borrowed), json.loads(snakemake.params.keep))
