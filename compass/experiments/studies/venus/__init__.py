"""The REAL Venus study: the Venus GPU jobs of the Helios trace replayed by the main
experiments (docs/traces.md, "The real Venus"), and how far the SYNTHETIC stand-in
``venus-synth`` was from them (``stand_in``: the table ``venus_synth_vs_real``);
``sections`` registers the report's line on COMPASS-ABS's Venus leads on real data and the
section "How close was venus-synth?".
"""
