"""Rule collect_runs: every batch's rows in one tidy table."""

from compass.experiments.pipeline import collect_runs

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
collect_runs(list(snakemake.input), snakemake.output[0])
