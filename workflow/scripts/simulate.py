"""Rule simulate: every (eta, c) batch of each sample (day, seed) of one job under every
scheduler, one CSV row each."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per job: Snakemake runs them side by side

import json  # noqa: E402

from compass.experiments.pipeline import logged, simulate_job  # noqa: E402

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
with logged(snakemake.log[0]):
    simulate_job(snakemake.wildcards.trace, json.loads(snakemake.params.samples),
                   json.loads(snakemake.params.trace), json.loads(snakemake.params.run),
                   list(snakemake.input.canonical), snakemake.output[0])
