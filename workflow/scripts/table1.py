"""Rule table1: per-class instance shares of each trace (paper Table 1), CSV + Markdown."""

import json

from compass.experiments.pipeline import logged, write_table1

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    write_table1(json.loads(p.traces), p.seed, dict(p.canonical), p.folder, p.caption)
