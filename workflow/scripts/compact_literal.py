"""Rule compact_literal: COMPASS-ABS's moves and pause per job by operator under the literal
and the corrected Compact (compass.experiments.compact_literal), from the results folder's
runs and the literal Compact's own runs."""

import pandas as pd

from compass.experiments.compact_literal import LITERAL_TABLE, literal_table
from compass.experiments.pipeline import logged
from compass.experiments.results import Results
from compass.experiments.tables import write_table
from compass.sim.table_files import read_frame

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    res = Results.load(p.results)
    literal = pd.concat([read_frame(f, dtype={"error": str}) for f in snakemake.input.literal],
                        ignore_index=True)
    label = res.label(res.config.experiments.fft_breakeven.traces)
    write_table(literal_table(res, literal), p.tables, LITERAL_TABLE,
                "COMPASS-ABS's moves and pause per job by operator, the literal Compact "
                f"(compass-abs-paper) beside the corrected one (compass-abs); {label}")
