"""Rule regime: paper/tables/regime.csv, the paper's operating regime beside this run's and
beside each sensitivity regime's (profile key `regimes`)."""

import json

from compass.experiments.pipeline import logged
from compass.experiments.studies.regime.operating import write_regime

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    write_regime(p.results, snakemake.input.regime, p.tables, json.loads(p.regimes))
