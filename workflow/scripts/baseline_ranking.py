"""Rule baseline_ranking: paper/tables/baseline_ranking.csv, the baselines' order per group
beside the paper's."""

from compass.experiments.pipeline import logged
from compass.experiments.ranking import write_ranking

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    write_ranking(snakemake.params.results, snakemake.input.rankings, snakemake.params.tables)
