"""The REAL Venus study's lines in the report (paper/REPRODUCTION.md), registered with the
verdict wing (``registry.report_section``): COMPASS-ABS's Venus leads among the findings on
real data, and the section "How close was venus-synth?"."""

from __future__ import annotations

import pandas as pd

from compass.experiments.studies.venus.stand_in import STAND_IN_TABLE, TRACE
from compass.experiments.verdict.claims import DEFAULT_VARIANT, fmt
from compass.experiments.verdict.registry import ReportInputs, report_section
from compass.experiments.verdict.report import relative_link


@report_section("real data")
def venus_leads(inputs: ReportInputs) -> list[str]:
    """COMPASS-ABS's lead claims on Venus, with their intervals, when Venus is REAL."""
    trace = inputs.res.traces.get(TRACE)
    if trace is None or trace.origin != "real":
        return []
    frame = inputs.claims[inputs.claims["variant"] == DEFAULT_VARIANT]
    leads = frame[(frame["direction"].fillna("") != "") & frame["id"].str.contains(TRACE)]
    return [f"- **Real data** (Venus, {trace.label}): COMPASS-ABS's leads over the strongest "
            "baseline: " + ("; ".join(f"`{r.id}` {r.verdict} ({r.ours_text})"
                                      for r in leads.itertuples()) or "none measured") + "."]


@report_section("beside the paper")
def stand_in_section(inputs: ReportInputs) -> list[str]:
    """The section "How close was venus-synth?" (``stand_in``); nothing when Venus is not
    REAL (the rule ``stand_in`` has not written the table)."""
    path = inputs.tables / f"{STAND_IN_TABLE}.csv"
    if not path.is_file():
        return []
    table = pd.read_csv(path)
    shown = table[~table["group"].str.startswith("arrivals by hour")
                  | (table["statistic"] == "total-variation distance")]
    rows = [f"| {r.group} | {r.statistic} | {fmt(r.real)} | {fmt(r.venus_synth)} | "
            f"{fmt(r.ratio)} |" for r in shown.itertuples()]
    return ["## How close was venus-synth?", "",
            "Before the real Venus jobs shipped, every Venus verdict rested on the SYNTHETIC "
            "stand-in `venus-synth`. Here it is beside REAL Venus on the same day indices "
            f"([{STAND_IN_TABLE}.csv]({relative_link(path, inputs.out)}); the hourly arrival "
            "shares are there). `gfs-synth` is built the same way from published aggregates: "
            "read its verdicts with the distance measured here in mind.", "",
            "| group | statistic | REAL Venus | venus-synth | ratio |", "|---" * 5 + "|",
            *rows, ""]
