"""Rule fft_breakeven_runs: the overall experiment's samples of the sweep's days of one trace
under FFT at each round length the batches do not run already (compass.experiments.breakeven)."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per job: Snakemake runs them side by side

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from compass.experiments.breakeven import simulate_breakeven  # noqa: E402
from compass.experiments.pipeline import logged  # noqa: E402
from compass.sim.table_files import write_frame  # noqa: E402

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    canonical = list(snakemake.input.canonical)
    frame = simulate_breakeven(json.loads(p.trace), json.loads(p.run), json.loads(p.samples),
                               json.loads(p.rounds), float(p.eta), float(p.cost),
                               Path(canonical[0]) if canonical else None)
    write_frame(frame, snakemake.output[0])
