"""Rule day_table: per replayed day, the composition, N(eta) and WCC coverage rho."""

import json
from pathlib import Path

from compass.experiments.config import ResolvedTrace
from compass.experiments.data import write_day_table
from compass.experiments.pipeline import logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p, canonical = snakemake.params, snakemake.input.canonical
with logged(snakemake.log[0]):
    write_day_table(ResolvedTrace.from_record(json.loads(p.trace)), p.seed, p.etas, p.demand,
                    Path(canonical[0]) if canonical else None, Path(snakemake.output[0]))
