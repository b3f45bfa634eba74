"""Rule claims_<regime>: paper/tables/claims_<regime>.csv, the comparison claims judged on
a sensitivity regime's results (compass.experiments.studies.regime.sensitivity)."""

from compass.experiments.pipeline import logged
from compass.experiments.studies.regime.sensitivity import write_regime_claims

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
inp, p = snakemake.input, snakemake.params
with logged(snakemake.log[0]):
    write_regime_claims(p.results, inp.claims, inp.deviations, p.tables, p.regime)
