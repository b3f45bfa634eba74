"""Rule canonical_trace: load a real trace once into the canonical schema."""

import json
from pathlib import Path

from compass.experiments.config import ResolvedTrace
from compass.experiments.data import write_canonical

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
write_canonical(ResolvedTrace.from_record(json.loads(snakemake.params.trace)),
                Path(snakemake.output[0]))
