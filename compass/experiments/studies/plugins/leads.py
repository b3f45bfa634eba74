"""The outside schedulers' leads: how each plugin a profile names under
``compare_plugins`` fares against the reference (COMPASS-ABS) and the strongest baseline.

The comparison uses the leads the claims use (``aggregate.lead_intervals``: paired over the
overall experiment's samples, 95 % paired-bootstrap interval, the strongest baseline
re-chosen per resample), with the plugin in the reference's place: a positive lead means
the plugin is better. The rule ``plugin_leads`` writes the table
(``<tables>/plugin_leads.{csv,md}``); ``sections`` renders it in the report.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from compass.experiments.aggregate import lead_intervals
from compass.experiments.comparisons import overall_runs
from compass.experiments.results import Results
from compass.experiments.stats import Interval, direction
from compass.experiments.tables import write_table
from compass.sim.metrics import METRICS

#: The table's stem (``layout.RULE_CAPTIONS`` holds its caption).
PLUGIN_TABLE = "plugin_leads"
#: The ``against`` value of the comparison with the strongest baseline.
STRONGEST = "strongest baseline"


def plugin_leads(res: Results) -> pd.DataFrame:
    """Per compared plugin, trace and metric: its lead over the reference and over the
    strongest baseline on the overall experiment's samples (positive: the plugin is
    better), with interval, n and the reading ``ahead`` / ``behind`` / ``undecided``."""
    cfg, runs = res.config, overall_runs(res)
    frames = []
    for name in cfg.compare_plugins:
        for against, rivals in ((cfg.reference, [cfg.reference]), (STRONGEST, cfg.baselines)):
            leads = lead_intervals(runs, name, rivals, ["trace"], METRICS)
            frames.append(leads.assign(scheduler=name, against=against))
    if not frames:
        return pd.DataFrame()
    table = pd.concat(frames, ignore_index=True)
    table["reading"] = [direction(Interval(r.lead, r.ci_low, r.ci_high, int(r.n)))
                        if r.n else "no data" for r in table.itertuples()]
    return table[["trace", "scheduler", "against", "strongest_baseline", "metric", "lead",
                  "ci_low", "ci_high", "n", "baseline_mean", "relative_pct", "reading"]]


def write_plugin_leads(results: str | Path, tables: str | Path) -> list[Path]:
    """Rule ``plugin_leads``: ``plugin_leads`` as ``<tables>/plugin_leads.{csv,md}``."""
    res = Results.load(results)
    x = res.config.experiments
    caption = (f"Outside schedulers {', '.join(res.config.compare_plugins)} against "
               f"{res.config.reference} and the strongest baseline, paired over the samples, "
               f"η = {x.overall_eta:g}, c = {res.config.migration_cost:g} s (positive: the "
               f"plugin is better). {res.label(x.overall_traces)}")
    return write_table(plugin_leads(res), tables, PLUGIN_TABLE, caption)
