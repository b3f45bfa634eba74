"""Rule report: paper/REPRODUCTION.md, every claim beside the value this run measured."""

from compass.experiments.pipeline import logged
from compass.experiments.verdict.report import write_report

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p, inp = snakemake.params, snakemake.input
with logged(snakemake.log[0]):
    write_report(p.results, [inp.claims, *inp.openb_claims], inp.deviations,
                 snakemake.output[0], p.figures, p.tables)
