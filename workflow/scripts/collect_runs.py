"""Rule collect_runs: every batch's rows in one tidy table."""

from compass.experiments.pipeline import collect_runs, logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    collect_runs(list(snakemake.input), snakemake.output[0])
