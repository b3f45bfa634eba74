"""Rules openb_replay and openb_packing: the REAL openb experiments
(compass.experiments.studies.openb)."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per job, like the simulator batches

import json  # noqa: E402

from compass.experiments.pipeline import logged  # noqa: E402
from compass.experiments.studies.openb.config import OpenbConfig  # noqa: E402
from compass.experiments.studies.openb.runs import run_packing, run_replay  # noqa: E402

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
run = {"replay": run_replay, "packing": run_packing}[p.part]
with logged(snakemake.log[0]):
    run(OpenbConfig.from_record(json.loads(p.record)), p.out, p.table_format)
