"""The outside schedulers' section of the report (paper/REPRODUCTION.md), "Outside
schedulers", registered with the verdict wing (``registry.report_section``) at its end."""

from __future__ import annotations

import pandas as pd

from compass.experiments.studies.plugins.leads import PLUGIN_TABLE, STRONGEST
from compass.experiments.verdict.claims import fmt
from compass.experiments.verdict.registry import ReportInputs, report_section
from compass.experiments.verdict.report import relative_link


@report_section("end")
def plugin_section(inputs: ReportInputs) -> list[str]:
    """The report's section "Outside schedulers": one line per plugin, trace and metric
    from the table the rule ``plugin_leads`` wrote; nothing when the profile compares
    none."""
    cfg = inputs.res.config
    if not cfg.compare_plugins:
        return []
    csv = inputs.tables / f"{PLUGIN_TABLE}.csv"
    table = pd.read_csv(csv)
    x = cfg.experiments
    lines = ["## Outside schedulers", "",
             f"{', '.join(f'`{s}`' for s in cfg.compare_plugins)}: schedulers from plugins "
             "(profile keys `plugins` and `compare_plugins`), not the paper's; no claim or "
             "verdict uses their runs. On the overall experiment's samples (eta = "
             f"{x.overall_eta:g}, c = {cfg.migration_cost:g} s) each one's lead over "
             f"{cfg.reference} and over the strongest baseline ({', '.join(cfg.baselines)}), "
             "paired over the samples with the 95 % bootstrap interval and n (positive: the "
             f"plugin is better; AFR and AGU as shares). Every value is in [{PLUGIN_TABLE}.csv]"
             f"({relative_link(csv, inputs.out)}).", ""]
    for r in table.itertuples():
        over = (r.against if r.against != STRONGEST
                else f"the strongest baseline ({r.strongest_baseline})")
        span = f" [{fmt(r.ci_low)}, {fmt(r.ci_high)}]" if pd.notna(r.ci_low) else ""
        lines.append(f"- **{r.scheduler}**, {r.trace}, {r.metric.upper()} over {over}: "
                     f"{fmt(r.lead)}{span} (n = {int(r.n)}): {r.reading}")
    return [*lines, ""]
