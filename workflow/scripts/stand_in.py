"""Rule stand_in: paper/tables/venus_synth_vs_real.csv, venus-synth beside REAL Venus on
the same days (compass.experiments.studies.venus.stand_in)."""

from compass.experiments.pipeline import logged
from compass.experiments.studies.venus.stand_in import write_stand_in

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    write_stand_in(p.results, p.regime_results or None, p.tables)
