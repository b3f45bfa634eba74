"""Rule config_json: the profile and its resolved traces, for the notebooks and the report."""

from pathlib import Path

from compass.experiments.pipeline import logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    Path(snakemake.output[0]).write_text(snakemake.params.record + "\n")
