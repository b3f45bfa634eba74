"""Rule canonical_trace: load a real trace once into the canonical schema."""

import json
from pathlib import Path

from compass.experiments.config import ResolvedTrace
from compass.experiments.data import write_canonical
from compass.experiments.pipeline import logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    write_canonical(ResolvedTrace.from_record(json.loads(snakemake.params.trace)),
                    Path(snakemake.output[0]))
