"""The extension study's section of the report (paper/REPRODUCTION.md), "Beyond the
paper", registered with the verdict wing (``registry.report_section``) at its end."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from compass.experiments.studies.extension.config import BACKFILL_REFERENCE, STRONGEST
from compass.experiments.studies.extension.config import LEADS_TABLE as EXTENSION_TABLE
from compass.experiments.verdict.claims import fmt
from compass.experiments.verdict.registry import ReportInputs, report_section
from compass.experiments.verdict.report import relative_link, table_cell


@report_section("end")
def extension_section(inputs: ReportInputs) -> list[str]:
    """Our extension's own section, after the paper's claims and apart from them: the table
    the rule ``extension_leads`` wrote (``measures.extension_leads``), a line per trace,
    scheduler and runtime estimate on the issue's goal (the AJCT and AGU leads over the
    strongest baseline above zero, with intervals) with the leads over ``gfs-backfill``
    under the same estimate, and the lane's failed runs and cost. Nothing when the profile
    runs none."""
    res, tables, out = inputs.res, inputs.tables, inputs.out
    cfg = res.config
    if not cfg.extension:
        return []
    csv = tables / f"{EXTENSION_TABLE}.csv"
    table = pd.read_csv(csv).fillna({"against": "", "strongest": ""})
    x, runs = cfg.experiments, res.extension_runs
    names = ", ".join(f"`{s}`" for s in cfg.extension)
    estimates = ", ".join(f"`{e}`" for e in cfg.run.extension_estimates)
    lines = ["## Beyond the paper: COMPASS-ABS+ (our extension)", "",
             f"{names}: our own extension beyond the paper (docs/theory.md, section 8), not "
             "one of its schedulers. Every batch runs the lane beside the paper's schedulers "
             "(profile key `extension`) on the same samples, eta, c and seeds; no claim above, "
             "no verdict and no paper lead uses its runs. On the overall experiment's samples "
             f"(eta = {x.overall_eta:g}, c = {cfg.migration_cost:g} s): each one's lead over "
             f"the strongest paper baseline ({', '.join(cfg.baselines)}), over "
             f"{cfg.reference} and over `{BACKFILL_REFERENCE}` where it ran, paired over the "
             "samples with the 95 % bootstrap interval and "
             "n (positive: ours is better; AGU and AFR as shares), and its mean migration "
             "pause per job ([" + f"{EXTENSION_TABLE}.csv]({relative_link(csv, out)})). Its "
             "`backfill` lets jobs pass a blocked FIFO head when they end before the head's "
             "reservation; it reads the jobs' durations from the trace (a perfect runtime "
             "estimate, which a real cluster does not have) and is a queue policy any "
             "baseline could adopt, while every paper scheduler here is FIFO with "
             "head-of-line blocking, so most of an AJCT lead can come from it "
             "(docs/theory.md, section 8, ablation). `gfs-backfill` is best-fit under the "
             "same backfill: the lead over it is what COMPASS-ABS+ adds beyond its queue "
             "policy. "
             + (f"Each also runs under the runtime estimates {estimates} (profile key "
                "`extension_estimates`; runs labelled `<scheduler>@<estimate>`; docs/theory.md, "
                "section 8, \"Runtime estimates\"), and each lead is given per estimate, the "
                "one over `gfs-backfill` under the same estimate."
                if estimates else "Its backfill runs on no other runtime estimate here."), ""]
    goal = table[(table["against"] == STRONGEST)
                 & table["measure"].isin(["ajct lead", "agu lead"])]
    fair = table[table["against"].str.startswith(BACKFILL_REFERENCE)
                 & table["measure"].str.endswith(" lead")]
    for (trace, name, estimate), part in goal.groupby(
            ["trace", "scheduler", "runtime_estimate"], sort=False):
        met = len(part) == 2 and bool((part["ci_low"] > 0).all())
        beyond = fair[(fair["trace"] == trace) & (fair["scheduler"] == name)
                      & (fair["runtime_estimate"] == estimate)]
        lines.append(f"- **{trace}** ({part['data'].iloc[0]}), {name}, {estimate} "
                     "estimates: "
                     + ", ".join(f"{r.measure.split()[0].upper()} lead {_with_interval(r)} "
                                 f"over {r.strongest}" for r in part.itertuples())
                     + ": " + ("both" if met else "not both") + " above zero over their "
                     "whole 95 % interval."
                     + (f" Over `{beyond['against'].iloc[0]}` (the same estimate): "
                        + ", ".join(f"{r.measure.split()[0].upper()} {_with_interval(r)}"
                                    for r in beyond.itertuples()) + "." if len(beyond) else ""))
    rows = [{"trace": r.trace, "scheduler": r.scheduler, "estimate": r.runtime_estimate,
             "measure": r.measure,
             "against": r.against or "-", "strongest": r.strongest or "-",
             "ours [95 % CI]": _with_interval(r), "n": fmt(int(r.n)), "reading": r.reading}
            for r in table.itertuples(index=False)]
    if rows:
        columns = list(rows[0])
        lines += ["", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
                  *["| " + " | ".join(table_cell(row[c]) for c in columns) + " |" for row in rows]]
    failed = runs[runs["status"] != "ok"]
    batches = len(runs[["trace", "day", "seed", "eta", "cost"]].drop_duplicates())
    cpu = float(runs["cpu_s"].sum()) if "cpu_s" in runs else math.nan
    lines += ["", f"Its {len(runs)} runs in {batches} batches took "
              f"{fmt(cpu)} CPU seconds of simulation"
              + (f"; {len(failed)} raised and are left out ("
                 + ", ".join(sorted(set(failed["error"]))) + ")." if len(failed) else ".")
              + " They are not in the section \"Cost\" above.", ""]
    return lines


def _with_interval(row: Any) -> str:
    """A row of the extension's table as "value [low, high] unit" (no interval: the value)."""
    span = f" [{fmt(row.ci_low)}, {fmt(row.ci_high)}]" if pd.notna(row.ci_low) else ""
    return f"{fmt(row.value)}{span} {row.unit}"
