"""Rule compact_literal_runs: the samples of FFT's break-even of one trace under the literal
Compact, compass-abs-paper (compass.experiments.compact_literal)."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per job: Snakemake runs them side by side

import json  # noqa: E402

from compass.experiments.compact_literal import simulate_literal  # noqa: E402
from compass.experiments.pipeline import logged  # noqa: E402
from compass.sim.table_files import write_frame  # noqa: E402

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    frame = simulate_literal(json.loads(p.trace), json.loads(p.run), json.loads(p.samples),
                             float(p.eta), float(p.cost), list(snakemake.input.canonical))
    write_frame(frame, snakemake.output[0])
