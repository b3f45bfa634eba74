"""Outside schedulers in the pipeline: how each plugin a profile names under
``compare_plugins`` fares against the reference (COMPASS-ABS) and the strongest baseline,
and which schedulers failed on every run.

The comparison uses the leads the claims use (``aggregate.lead_intervals``: paired over the
overall experiment's samples, 95 % paired-bootstrap interval, the strongest baseline
re-chosen per resample), with the plugin in the reference's place: a positive lead means
the plugin is better. The rule ``plugin_leads`` writes the table
(``<tables>/plugin_leads.{csv,md}``); the report renders it in its own section ("Outside
schedulers", ``plugin_section``). A scheduler whose every run raised is named by
``dead_schedulers``: ``collect_runs`` warns on the console and the report's first section
says so (under ``on_error: raise`` the first failure already stops the pipeline).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd

from compass.experiments.aggregate import lead_intervals
from compass.experiments.claims import fmt
from compass.experiments.results import Results
from compass.experiments.stats import Interval, direction
from compass.experiments.sweeps import overall_runs
from compass.experiments.tables import write_table
from compass.metrics import METRICS

#: The table's stem (``layout.RULE_CAPTIONS`` holds its caption).
PLUGIN_TABLE = "plugin_leads"
#: The ``against`` value of the comparison with the strongest baseline.
STRONGEST = "strongest baseline"


def dead_schedulers(runs: pd.DataFrame) -> list[str]:
    """The schedulers (or variants) with at least one run and none that completed: every
    run raised (a window without jobs counts neither way)."""
    tried = runs[runs["status"] != "empty"]
    ok = tried.groupby("scheduler", sort=False)["status"].apply(lambda s: (s == "ok").any())
    return [str(name) for name, any_ok in ok.items() if not any_ok]


def warn_dead(runs: pd.DataFrame) -> list[str]:
    """One warning per scheduler that failed on every run, printed to the step's log and to
    the terminal that runs the pipeline (the log holds stderr; ``sys.__stderr__`` is the
    terminal's); the warnings, for the caller."""
    lines = []
    for name in dead_schedulers(runs):
        mine = runs[runs["scheduler"] == name]
        error = mine["error"].dropna().astype(str)
        lines.append(f"WARNING: scheduler {name} failed on every run ({len(mine)} runs); "
                     f"its results are missing from every table and figure: "
                     f"{error.iloc[0] if len(error) else 'no error recorded'}")
    for stream in dict.fromkeys([sys.stderr, sys.__stderr__]):
        for line in lines:
            print(line, file=stream, flush=True)
    return lines


def dead_section(res: Results) -> list[str]:
    """The report's warning, before everything else, when a scheduler failed on every run;
    nothing otherwise."""
    dead = dead_schedulers(res.runs)
    if not dead:
        return []
    return ["> **Warning: " + ", ".join(f"`{d}`" for d in dead) + " failed on every run** "
            "and appear(s) in no table, figure or claim below; see \"Failed runs\".", ""]


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


def plugin_section(res: Results, tables: Path, out: Path) -> list[str]:
    """The report's section "Outside schedulers": one line per plugin, trace and metric
    from the table the rule ``plugin_leads`` wrote; nothing when the profile compares
    none."""
    cfg = res.config
    if not cfg.compare_plugins:
        return []
    csv = tables / f"{PLUGIN_TABLE}.csv"
    table = pd.read_csv(csv)
    x = cfg.experiments
    link = Path(os.path.relpath(csv, out.parent)).as_posix()
    lines = ["## Outside schedulers", "",
             f"{', '.join(f'`{s}`' for s in cfg.compare_plugins)}: schedulers from plugins "
             "(profile keys `plugins` and `compare_plugins`), not the paper's; no claim or "
             "verdict uses their runs. On the overall experiment's samples (eta = "
             f"{x.overall_eta:g}, c = {cfg.migration_cost:g} s) each one's lead over "
             f"{cfg.reference} and over the strongest baseline ({', '.join(cfg.baselines)}), "
             "paired over the samples with the 95 % bootstrap interval and n (positive: the "
             f"plugin is better; AFR and AGU as shares). Every value is in [{PLUGIN_TABLE}.csv]"
             f"({link}).", ""]
    for r in table.itertuples():
        over = (r.against if r.against != STRONGEST
                else f"the strongest baseline ({r.strongest_baseline})")
        span = f" [{fmt(r.ci_low)}, {fmt(r.ci_high)}]" if pd.notna(r.ci_low) else ""
        lines.append(f"- **{r.scheduler}**, {r.trace}, {r.metric.upper()} over {over}: "
                     f"{fmt(r.lead)}{span} (n = {int(r.n)}): {r.reading}")
    return [*lines, ""]
