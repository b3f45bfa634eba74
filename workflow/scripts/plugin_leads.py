"""Rule plugin_leads: the outside schedulers' leads over the reference and the strongest
baseline (profile key compare_plugins; its own table)."""

from compass.experiments.pipeline import logged
from compass.experiments.studies.plugins.leads import write_plugin_leads

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    write_plugin_leads(snakemake.params.results, snakemake.params.tables)
