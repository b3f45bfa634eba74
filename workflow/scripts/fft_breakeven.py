"""Rule fft_breakeven: COMPASS-ABS's leads over FFT per round length (table and figure) and
the fft-paper fit (compass.experiments.breakeven), from the results folder's runs and the
sweep's own runs."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from compass.experiments.breakeven import (  # noqa: E402
    BREAKEVEN_FIGURE,
    BREAKEVEN_TABLE,
    FIT_TABLE,
    breakeven_figure,
    breakeven_table,
    paper_fit,
)
from compass.experiments.pipeline import logged  # noqa: E402
from compass.experiments.results import Results  # noqa: E402
from compass.experiments.tables import write_table  # noqa: E402
from compass.experiments.verdict.claims import load_claims  # noqa: E402
from compass.plotting import save  # noqa: E402
from compass.sim.table_files import read_frame  # noqa: E402

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    res = Results.load(p.results)
    config = res.config.experiments.fft_breakeven
    sweep = pd.concat([read_frame(f, dtype={"error": str}) for f in snakemake.input.sweep],
                      ignore_index=True)
    table = breakeven_table(res, sweep, config)
    fit = paper_fit(res, sweep, config, load_claims(snakemake.input.claims))
    label = res.label(config.traces)
    write_table(table, p.tables, BREAKEVEN_TABLE,
                f"COMPASS-ABS's leads over FFT per FFT round length ({label}; the sweep's own "
                f"{len(sweep)} FFT runs took {float(sweep['cpu_s'].sum()):,.0f} CPU-s)")
    write_table(fit, p.tables, FIT_TABLE, f"fft-paper: the fit ({label})")
    figure = breakeven_figure(table, f"COMPASS-ABS's leads over FFT per round length. {label}")
    save(figure, p.figures, BREAKEVEN_FIGURE)
    plt.close(figure)
