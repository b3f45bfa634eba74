"""Rule regime: paper/tables/regime.csv, the paper's operating regime beside this run's."""

from compass.experiments.pipeline import logged
from compass.experiments.regime import write_regime

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    write_regime(snakemake.params.results, snakemake.input.regime, snakemake.params.tables)
