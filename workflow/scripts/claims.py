"""Rule claims: paper/tables/claims.csv, every claim measured with its interval and verdict,
then paper/tables/paper_vs_ours.csv, every number the paper states beside ours."""

from compass.experiments.pipeline import logged
from compass.experiments.verdict.paper_vs_ours import write_paper_vs_ours
from compass.experiments.verdict.verdicts import write_claims

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
inp = snakemake.input
with logged(snakemake.log[0]):
    write_claims(snakemake.params.results, [inp.claims, *inp.openb_claims], inp.deviations,
                 snakemake.params.tables)
    write_paper_vs_ours(snakemake.params.results, inp.claims, snakemake.params.tables,
                        inp.paper_values)
