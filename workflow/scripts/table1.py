"""Rule table1: per-class instance shares of each trace (paper Table 1), CSV + Markdown."""

import json

from compass.experiments.pipeline import write_table1

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
write_table1(json.loads(p.traces), p.seed, dict(p.canonical), p.folder, p.caption)
