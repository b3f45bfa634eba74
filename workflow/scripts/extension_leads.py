"""Rule extension_leads: our extension's leads over the paper's schedulers (its own table)."""

from compass.experiments.pipeline import logged
from compass.experiments.studies.extension.measures import write_extension_leads

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    write_extension_leads(snakemake.params.results, snakemake.params.tables)
