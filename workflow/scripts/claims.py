"""Rule claims: paper/tables/claims.csv, every claim measured with its interval and verdict."""

from compass.experiments.pipeline import logged
from compass.experiments.verdicts import write_claims

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
inp = snakemake.input
with logged(snakemake.log[0]):
    write_claims(snakemake.params.results, [inp.claims, *inp.openb_claims], inp.deviations,
                 snakemake.params.tables)
