"""Rule fft_breakeven: COMPASS-ABS's leads over FFT per round length (table and figure) and
the fft-paper fit (compass.experiments.breakeven)."""

from compass.experiments.breakeven import write_breakeven
from compass.experiments.pipeline import logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
p = snakemake.params
with logged(snakemake.log[0]):
    write_breakeven(p.results, snakemake.input.claims, p.tables, p.figures)
