"""The claims report: paper/REPRODUCTION.md renders paper/tables/claims.csv (every claim of
paper/claims.yaml beside the value this pipeline measured, the data it came from and its
verdict; ``compass.experiments.verdicts.write_claims``) as Markdown, with the findings
computed from that table, the failed runs, the sensitivity to baseline variants, the known
deviations (paper/deviations.yaml), how each value is measured, and the cost.

On SYNTHETIC data every verdict is about the synthetic stand-ins; claims whose number the
synthetic traces are calibrated to agree by construction, and the report marks them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from compass.experiments.case_study import CaseStudy
from compass.experiments.claims import (
    CLAIMS_TABLE,
    DEFAULT_VARIANT,
    VERDICTS,
    Claim,
    fmt,
    load_claims,
    load_deviations,
    read_claims,
)
from compass.experiments.config import PAPER_SCHEDULERS
from compass.experiments.extension import BACKFILL_REFERENCE, STRONGEST
from compass.experiments.extension import LEADS_TABLE as EXTENSION_TABLE
from compass.experiments.headline import (
    MAX_CELL,
    headline_rows,
    markdown_headline,
    plain_intervals,
    short,
    verdict_counts,
    verdict_text,
)
from compass.experiments.html_report import write_html
from compass.experiments.layout import NOTEBOOKS
from compass.experiments.openb import LABEL as OPENB_LABEL
from compass.experiments.paper_vs_ours import PAPER_VS_OURS_TABLE, summary
from compass.experiments.ranking import RANKING_TABLE, ranking_summary
from compass.experiments.regime import REGIME_TABLE
from compass.experiments.regimes import (
    claims_stem,
    read_regime_claims,
    reading,
    regime_slug,
)
from compass.experiments.results import Results
from compass.experiments.stats import MIN_SAMPLES
from compass.experiments.sweeps import overall_leads
from compass.experiments.tables import markdown
from compass.experiments.windows import window_leads


def _relative(target: Path, report: Path) -> str:
    """``target`` as a link from the report's folder."""
    return Path(os.path.relpath(target, report.parent)).as_posix()


def _links(stems: list[str], figures: Path, tables: Path, report_dir: Path) -> str:
    figure_stems = {s for p in NOTEBOOKS.values() for s in p.figures}
    out = []
    for stem in stems:
        target = figures / f"{stem}.png" if stem in figure_stems else tables / f"{stem}.md"
        out.append(f"[{stem}]({Path(os.path.relpath(target, report_dir)).as_posix()})")
    return ", ".join(out) or "-"


def _cell(text: str) -> str:
    return plain_intervals(str(text)).replace("|", "\\|").replace("\n", " ")


def _fold(rows: list[dict[str, str]], columns: Sequence[str]) -> list[str]:
    """Cut the ``columns`` of ``rows`` longer than ``MAX_CELL`` (in place) and return the
    appendix that gives them whole: a line per claim."""
    appendix = []
    for row in rows:
        long = [c for c in columns if len(row[c]) > MAX_CELL]
        for column in long:
            appendix.append(f"- `{row['id']}`, {column}: {_cell(row[column])}")
            row[column] = short(row[column], MAX_CELL - 12) + " (appendix)"
    return appendix


def _failures(res: Results, case_status: pd.DataFrame) -> list[str]:
    lines = []
    failed = res.failed
    if len(failed):
        grouped = failed.groupby(["scheduler", "error"], sort=False)
        lines.append(f"{len(failed)} of {len(res.runs)} runs raised; they are left out of "
                     "every number above.\n")
        for (scheduler, error), part in grouped:
            where = ", ".join(f"{t} day {d} seed {s} eta {e:g} c {c:g}" for t, d, s, e, c in
                              part[["trace", "day", "seed", "eta", "cost"]].head(5).itertuples(
                                  index=False))
            more = f" and {len(part) - 5} more" if len(part) > 5 else ""
            lines.append(f"- **{scheduler}** ({len(part)} runs: {where}{more}): `{error}`")
    bad = case_status[case_status["status"] != "ok"]
    lines += [f"- case study, **{r.scheduler}**: `{r.error}`" for r in bad.itertuples()]
    return lines


def _cost(res: Results) -> str:
    ok = res.ok.assign(cpu_s=res.ok["cpu_s"] if "cpu_s" in res.ok else math.nan)
    per = ok.groupby(["trace", "scheduler"]).agg(runs=("cpu_s", "size"),
                                                 cpu_seconds=("cpu_s", "sum"),
                                                 wall_seconds=("wall_s", "sum"),
                                                 jobs=("jobs", "sum")).reset_index()
    per["CPU s per 1,000 jobs"] = 1000 * per["cpu_seconds"] / per["jobs"]
    order = {s: i for i, s in enumerate(PAPER_SCHEDULERS)}
    per = per.sort_values(["trace", "scheduler"], key=lambda c: c.map(order).fillna(99)
                          if c.name == "scheduler" else c)
    batches = len(res.runs[["trace", "day", "seed", "eta", "cost"]].drop_duplicates())
    head = (f"{len(res.runs)} simulator runs in {batches} batches took "
            f"{fmt(ok['cpu_s'].sum())} CPU seconds of simulation (each run's process and "
            f"solver child processes; {fmt(ok['wall_s'].sum())} wall seconds, which include "
            "waiting for a core when runs share the machine). Notebooks, data preparation, "
            "Python start-up and Snakemake's own overhead are not included. Per trace and "
            "scheduler:\n\n")
    return head + markdown(per[["trace", "scheduler", "runs", "cpu_seconds", "wall_seconds",
                                "jobs", "CPU s per 1,000 jobs"]])


def _report_rows(frame: pd.DataFrame, figures: Path, tables: Path,
                 report_dir: Path) -> list[dict[str, str]]:
    """The report's claims table: one row per row of claims.csv."""
    rows = []
    for r in frame.itertuples(index=False):
        text = r.verdict + (f": {r.detail}" if r.detail else "")
        if r.deviation:
            text += f" (see deviation `{r.deviation}`)"
        if r.explained_by:
            text += f"; explained by: {r.explained_by}"
        stems = [s for s in r.shown_in.split(";") if s]
        rows.append({"id": r.id, "section": r.section, "claim": r.statement,
                     "paper": r.paper, "ours": r.ours_text, "data": r.data or "-",
                     "verdict": text, "shown in": _links(stems, figures, tables, report_dir)})
    return rows


#: The measure kinds of absolute levels (the regime a run is in), not comparisons.
LEVEL_KINDS = ("reference_range", "baseline_range", "reference_min")


def _findings(table: pd.DataFrame, res: Results, claims: Sequence[Claim]) -> list[str]:
    """"What we found": plain lines computed from claims.csv and the runs (never typed by
    hand): the data, the verdicts, the real-data (openb) comparisons first, where
    COMPASS-ABS's leads stand (signed) and how far the paper's margins are, its AFR leads,
    the theorem's bound and for which Compact, our absolute levels beside the paper's, and
    which verdicts a baseline variant changes."""
    frame = table[table["variant"] == DEFAULT_VARIANT]
    leads = frame[frame["direction"] != ""]
    counts = frame["verdict"].value_counts()
    synthetic = any(t.origin == "synthetic" for t in res.traces.values())
    lines = ["## What we found", "",
             f"- Data: {res.label()}. " + ("Every comparison is between schedulers on the "
                                           "SYNTHETIC stand-ins, not on the paper's traces."
                                           if synthetic else "Real traces."),
             "- Verdicts: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
             + f" of {len(frame)} claims."]
    real = frame[frame["id"].str.startswith("openb-") & ~frame["verdict"].isin(
        ["no data", "not measured"])]
    if len(real):
        lines.append(f"- **Real data** ({OPENB_LABEL}, the only real-trace comparison here): "
                     + "; ".join(f"`{r.id}` {r.verdict} "
                                 f"({r.ours_text.removeprefix(f'{OPENB_LABEL}: ')})"
                                 for r in real.itertuples()) + ".")
    if len(leads):
        ways = leads["direction"].str.split(" ").str[0].value_counts()
        worst = leads.loc[leads["relative_pct"].abs().idxmax()] if leads[
            "relative_pct"].notna().any() else None
        lines.append(
            f"- COMPASS-ABS's leads over the strongest baseline ({len(leads)} lead claims): "
            f"ahead on {int(ways.get('ahead', 0))}, behind on {int(ways.get('behind', 0))}, "
            f"undecided (the interval spans zero) on {int(ways.get('undecided', 0))}"
            + (f"; the largest is {worst['relative_pct']:+.2g} % of the baseline "
               f"(`{worst['id']}`)" if worst is not None else "") + ".")
        met = leads[leads["verdict"] == "holds"]
        tied = leads[leads["verdict"] == "tie"]
        lines.append(f"- The paper's margins: {len(met)} of {len(leads)} lead claims reach "
                     "the paper's value over their whole interval"
                     + (f" ({', '.join(f'`{i}`' for i in met['id'])})" if len(met) else "")
                     + f", {len(tied)} are ties (the whole interval inside the comparison's "
                     "margin, paper/claims.yaml); the median lead is "
                     f"{leads['relative_pct'].median():+.2g} % of the baseline's value "
                     "(signed: positive means COMPASS-ABS is better).")
    lines += _afr_leads(res)
    bound = frame[frame["id"] == "thm1-sif-bound"]
    if len(bound):
        row = bound.iloc[0]
        which = (f" for the corrected Compact (`{res.config.reference}`; the literal one "
                 f"breaks it, deviation `{row['deviation']}`)" if row["deviation"] else "")
        lines.append(f"- Theorem 1 (N x SIF <= 2 under the WCC) on every replay{which}: "
                     f"{row['verdict']} ({row['ours_text']}).")
    levels = frame.set_index("id").reindex(
        [c.id for c in claims if c.measure["kind"] in LEVEL_KINDS]).dropna(subset=["verdict"])
    if len(levels):
        lines.append("- Our regime against the paper's (absolute levels, not comparisons): "
                     + "; ".join(f"`{i}` paper {r.paper}, ours {r.ours_text}"
                                 for i, r in levels.iterrows()) + ".")
    for variant in res.config.variants:
        mine = table[table["variant"] == variant].set_index("id")["verdict"]
        base = frame.set_index("id")["verdict"].reindex(mine.index)
        changed = [i for i in mine.index if mine[i] != base[i]]
        lines.append(f"- Baseline variant **{variant}**: {len(changed)} of {len(mine)} "
                     "comparison verdicts change"
                     + (" (" + ", ".join(f"`{i}`: {base[i]} -> {mine[i]}" for i in changed)
                        + ")" if changed else "") + " (section \"Sensitivity\").")
    return [*lines, ""]


def _afr_leads(res: Results) -> list[str]:
    """A line on COMPASS-ABS's AFR leads in the overall experiment (no claim states them):
    each trace's paired lead over the strongest baseline with its interval."""
    afr = overall_leads(res)
    afr = afr[(afr["metric"] == "afr") & afr["lead"].notna()]
    if afr.empty:
        return []
    return ["- AFR leads over the strongest baseline (overall experiment, as a share of the "
            "nodes; positive: COMPASS-ABS fragments less): " + ", ".join(
                f"{r.trace} {fmt(r.lead)} [{fmt(r.ci_low)}, {fmt(r.ci_high)}] (n = {r.n})"
                for r in afr.itertuples()) + "."]


def _paper_beside_ours(tables: Path, out: Path) -> list[str]:
    """The section "The paper beside ours": a pointer to paper_vs_ours.csv (every number the
    paper states for Figs. 1-7 and Tables 1-3 beside ours) and a few lines computed from it;
    nothing before the claims rule has written it."""
    path = tables / f"{PAPER_VS_OURS_TABLE}.csv"
    if not path.is_file():
        return []
    return ["## The paper beside ours", "",
            f"[{PAPER_VS_OURS_TABLE}.csv]({_relative(path, out)}) sets every number the "
            "paper's text and Tables 1-3 state beside ours: the stated value and where it is "
            "stated, ours with its interval and n, how far ours reaches outside the stated "
            "value (`difference`) and the verdict of the claim that measures it.", "",
            *[f"- {line}" for line in summary(pd.read_csv(path))], ""]


def _regime_section(tables: Path, out: Path) -> list[str]:
    """The section "The operating regime": the baselines' quantities the paper states beside
    ours (regime.csv, ``compass.experiments.regime``), so that a reader sees whether the
    comparisons above ran in the paper's world; nothing before the regime rule has run."""
    path = tables / f"{REGIME_TABLE}.csv"
    if not path.is_file():
        return []
    table = pd.read_csv(path, keep_default_na=False)
    rows = [f"| {r.trace} | {_cell(r.quantity)} | {r.role} | {r.paper} | {r.ours} | "
            f"{r.interval} | {r.samples} |" for r in table.itertuples()]
    return ["## The operating regime: the paper's baselines beside ours", "",
            "Each quantity the paper states for its baselines, measured on this run "
            f"([{REGIME_TABLE}.csv]({_relative(path, out)}), with where the paper states it). "
            "Where ours lies outside the paper's band, the comparisons above ran in another "
            "regime than the paper's. COMPASS-ABS's own GFS AGU is shown as `held-out`: it is "
            "the claim, never a target of the traces' calibration.", "",
            "| trace | quantity | role | paper | ours | interval | n |", "|---" * 7 + "|",
            *rows, ""]


def _ranking_section(tables: Path, out: Path) -> list[str]:
    """The section "Do the baselines rank as in the paper?": per group our order of the
    baselines, P(first), and the paper's order where it gives one (baseline_ranking.csv,
    ``compass.experiments.ranking``); nothing before the baseline_ranking rule has run."""
    path = tables / f"{RANKING_TABLE}.csv"
    if not path.is_file():
        return []
    table = pd.read_csv(path).fillna({c: "" for c in ("condition", "ours", "strongest",
                                                      "paper", "kind", "agreement", "where")})
    share = [c for c in table if c.startswith("p_first_")]
    rows = []
    for r in table.to_dict("records"):
        first = sorted(((r[c], c.removeprefix("p_first_")) for c in share
                        if r[c] >= 0.005), reverse=True)  # the CSV has the rest
        cells = [r["experiment"], r["trace"], r["condition"], r["metric"], str(r["n"]),
                 r["ours"] or "-", ", ".join(f"{b} {p:.2f}" for p, b in first) or "-",
                 r["paper"] or "-", fmt(r["tau_b"]) if pd.notna(r["tau_b"]) else "-",
                 r["agreement"] or "-"]
        rows.append("| " + " | ".join(cells) + " |")
    line = ranking_summary(table)
    return ["## Do the baselines rank as in the paper?", "",
            "Per group (an experiment's trace, condition and metric) the six baselines by "
            "their mean over the samples, best first (`frag_share`: lowest first), and each "
            "one's share of paired bootstrap resamples on which it is first, P(first). The "
            "paper never names its strongest baseline; it orders them only in its case study "
            "(section 6.6, paper/paper_rankings.yaml, with where). There, Kendall's tau-b "
            "compares its order with ours; ours *agrees* when every pair the paper separates "
            "is separated the same way by its paired 95 % interval, *differs* when one is "
            "separated the other way, and is *undecided* otherwise "
            f"(always with fewer than {MIN_SAMPLES} samples: a case window is one replay) "
            f"([{RANKING_TABLE}.csv]({_relative(path, out)})).", "",
            line[0].upper() + line[1:] + ".", "",
            "| experiment | trace | condition | metric | n | ours | P(first) | paper | tau-b | "
            "reading |", "|---" * 10 + "|", *rows, ""]


def _on_the_papers_regime(res: Results, tables: Path, out: Path
                          ) -> tuple[list[str], list[str]]:
    """The profile's sensitivity regimes (profile key ``regimes``,
    ``compass.experiments.regimes``): lines for "What we found", one per claim family and
    regime (``regimes.reading``: a gap that closes on the regime is the data's, one that
    stays is the scheduler's), and the section "On the paper's regime", each comparison
    claim's main verdict and value beside those on each regime. Sensitivity: no main verdict
    changes. Nothing without regimes, or before their claims rules ran."""
    main = read_claims(tables)
    mine = main[main["variant"] == DEFAULT_VARIANT].set_index("id")
    found: list[str] = []
    section: list[str] = []
    for name in res.config.regimes:
        theirs = read_regime_claims(tables, name)
        if theirs is None:
            continue
        found += [f"- On the paper's regime, {r.line(name)}" for r in reading(main, theirs)]
        data = next((d for d in theirs["data"] if d not in ("", "-")), "-")
        path = tables / f"{claims_stem(name)}.csv"
        rows = [f"| {r.id} | {mine.at[r.id, 'verdict'] if r.id in mine.index else '-'} | "
                f"{_cell(mine.at[r.id, 'ours_text']) if r.id in mine.index else '-'} | "
                f"{r.verdict}" + (f": {_cell(r.detail)}" if r.detail else "")
                + f" | {_cell(r.ours_text)} |" for r in theirs.itertuples()]
        section += [f"### `{name}`", "",
                    f"Data: {data}. Every value is in [{path.name}]({_relative(path, out)}); "
                    f"regime.csv's columns `ours_{regime_slug(name)}` set the regime's "
                    "own quantities beside the paper's and ours.", "",
                    "| claim | main verdict | value | verdict on the paper's regime | value |",
                    "|---" * 5 + "|", *rows, ""]
    if not section:
        return [], []
    return found, ["## On the paper's regime", "",
                   "Sensitivity: the comparison experiments (overall, eta sweep, composition, "
                   "cost sweep) replayed on SYNTHETIC kinds whose baselines run in the paper's "
                   "operating regime, each claim judged as in the main table. A gap that "
                   "closes there is the data's, one that stays the scheduler's. This never "
                   "changes a main verdict; the case study, which replays one day's window, "
                   "is not re-judged.", "", *section]


def _windows_section(res: Results, claims: list[Claim]) -> list[str]:
    """The overall experiment's AFR and AGU leads under both windows: each run's
    own T_peak, the paper's definition and the claims', and the batch's common window."""
    if "afr_common" not in res.runs:
        return []  # a results folder written before the common window was recorded
    table = window_leads(res)
    points = table["metric"] == "agu"
    lead_columns = [c for c in table if c.startswith("lead")]
    table.loc[points, lead_columns] = table.loc[points, lead_columns] * 100
    ids = [c.id for c in claims if c.measure.get("kind") == "lead"
           and c.measure.get("metric") in ("afr", "agu")]
    return ["## AFR and AGU: own T_peak and a common window", "",
            "The paper averages AFR and AGU over each run's own T_peak (eq. 14-17), the "
            "period its own queue waited; every claim above uses that definition"
            + (f" ({', '.join(f'`{i}`' for i in ids)})" if ids else "") + ". Averaged over "
            "each batch's common window instead (the union of every scheduler's T_peak on "
            "the same jobs; a run that finished inside it counts as idle there), the overall "
            "experiment's leads of the reference over the strongest baseline are "
            "(AGU in percentage points; table `metric_windows`, docs/pipeline.md):", "",
            markdown(table)]


def _sensitivity(table: pd.DataFrame, res: Results) -> list[str]:
    """The sensitivity section: every comparison claim's verdict (and our value) under the
    profile's parameters and under each variant of a baseline."""
    variants = res.config.variants
    if not variants:
        return []
    sensitive = table[table["variant"] != DEFAULT_VARIANT]
    ids = list(dict.fromkeys(sensitive["id"]))
    cell = {(r.id, r.variant): f"{r.verdict}: {r.ours_text}" for r in table.itertuples()}
    names = [DEFAULT_VARIANT, *variants]
    lines = ["## Sensitivity: the comparisons under other baseline variants", "",
             "Each variant replaces one baseline's runs by the same baseline with other "
             "parameters, on the same samples; the verdicts above use the default "
             "(paper-faithful) parameters and are not changed by this section.", "",
             *[f"- **{v}**: {spec['scheduler']} with "
               + ", ".join(f"{k} = {val}" for k, val in spec["params"].items())
               for v, spec in variants.items()], "",
             "| claim | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1),
             *["| " + " | ".join([i, *(_cell(cell.get((i, v), "-")) for v in names)]) + " |"
               for i in ids], ""]
    return lines


def _extension_section(res: Results, tables: Path, out: Path) -> list[str]:
    """Our extension's own section, after the paper's claims and apart from them: the table
    the rule ``extension_leads`` wrote (``extension.extension_leads``), a line per trace,
    scheduler and runtime estimate on the issue's goal (the AJCT and AGU leads over the
    strongest baseline above zero, with intervals) with the leads over ``gfs-backfill``
    under the same estimate, and the lane's failed runs and cost. Nothing when the profile
    runs none."""
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
             "pause per job ([" + f"{EXTENSION_TABLE}.csv]({_relative(csv, out)})). Its "
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
                  *["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows]]
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


def _headline(table: pd.DataFrame, tables: str | Path, out: Path) -> list[str]:
    """The first screen: the verdict of each section of the paper
    (``compass.experiments.headline``), with the run's verdict counts."""
    path = Path(tables) / f"{CLAIMS_TABLE}.csv"
    return ["## Headline: each section of the paper", "",
            f"Verdicts of this run: {verdict_text(verdict_counts(table))}. One row per "
            "section, its headline claim and the verdicts of all its claims; every claim, "
            f"with its whole reading, is in [{CLAIMS_TABLE}.csv]({_relative(path, out)}) "
            "and the section \"Claims\" below.", "",
            *markdown_headline(headline_rows(table))]


def _header(res: Results) -> list[str]:
    """Title, profile, and what data every number comes from."""
    cfg = res.config
    traces = [res.traces[name] for name in cfg.traces]
    lines = [
        "# Reproduction report", "",
        "Generated by the pipeline (`snakemake`, docs/pipeline.md) from "
        f"`{res.layout.root.as_posix()}`: profile **{cfg.profile}** ({cfg.raw['description']})",
        "", "## Data", "",
        *[f"- **{t.name}**: {t.label}, {len(t.days)} day(s)"
          + (f", hours {t.spec.hours[0]:g}-{t.spec.hours[1]:g}" if t.spec.hours != (0, 24)
             else "") for t in traces],
        *[f"- **{t.note}**" for t in traces if t.note], "",
    ]
    synthetic = [t.spec.synthetic for t in traces if t.origin == "synthetic"]
    if synthetic:
        lines += ["**SYNTHETIC data.** " + ", ".join(synthetic) + " are synthetic stand-ins "
                  "calibrated to published statistics of the real traces (docs/traces.md). "
                  "Every value below measures the schedulers on them, not the paper's traces; "
                  "a verdict says whether the paper's claim holds on this data.", ""]
    missing = [s for s in PAPER_SCHEDULERS if s not in set(res.runs["scheduler"])]
    if missing:
        lines += [f"Not run in this profile: {', '.join(missing)} (claims about them have "
                  "no data).", ""]
    return lines


def write_report(results: str | Path, claims_path: str | Path | Sequence[str | Path],
                 deviations_path: str | Path,
                 out: str | Path, figures: str | Path, tables: str | Path,
                 page: str | Path | None = None) -> None:
    """Write the Markdown report from paper/tables/claims.csv (``write_claims``) and the
    claims' texts (how each value is measured) and deviations; and the HTML page
    (``compass.experiments.html_report``) to ``page`` where given."""
    res, out = Results.load(results), Path(out)
    claims, deviations = load_claims(claims_path), load_deviations(deviations_path)
    table = read_claims(tables)
    frame = table[table["variant"] == DEFAULT_VARIANT]
    rows = _report_rows(frame, Path(figures), Path(tables), out.parent)
    appendix = _fold(rows, ("claim", "ours", "verdict"))
    counts = frame["verdict"].value_counts()
    columns = list(rows[0])
    found, on_regime = _on_the_papers_regime(res, Path(tables), out)
    header = _header(res)
    lines = [*header[:4], *_headline(table, tables, out), *header[4:],
             *_findings(table, res, claims)[:-1], *found, "", "## Summary", "",
             ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
             + f" ({len(frame)} claims).", "",
             "Leads are paired over the samples (every sample replays the same jobs under "
             "every scheduler) and given with their 95 % bootstrap interval, the number of "
             "samples n and their size relative to the strongest baseline. A verdict is "
             "*holds* when the whole interval satisfies the paper's claim, *tie* when it lies "
             "inside the comparison's practical-equivalence margin (paper/claims.yaml, "
             "`margins`), *differs* when none of it satisfies the claim, *inconclusive* when "
             f"it admits both readings or rests on fewer than {MIN_SAMPLES} samples; a "
             "case-study claim is *not applicable* when no window shows "
             "fragmentation-induced blocking under the baselines. Values without an interval "
             "are judged as they are. Every value is in "
             f"[{CLAIMS_TABLE}.csv]({_relative(Path(tables) / f'{CLAIMS_TABLE}.csv', out)}).",
             ""]
    failures = _failures(res, CaseStudy.load(res).status)
    if failures:
        lines += ["## Failed runs", "", *failures, ""]
    lines += ["## Claims", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
              *["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows], "",
              *_paper_beside_ours(Path(tables), out), *_regime_section(Path(tables), out),
              *on_regime, *_ranking_section(Path(tables), out),
              *_windows_section(res, claims), *_sensitivity(table, res),
              "## Known deviations", ""]
    lines += [f"- **{d['id']}**: {d.get('title', '')}. {d.get('text', '')}"
              + (f" (claims: {', '.join(d['claims'])})" if d.get("claims") else "")
              for d in deviations] or ["None recorded."]
    lines += ["", "## How each value is measured", "",
              *[f"- `{c.id}`: {c.how}" for c in claims], "", "## Cost", "", _cost(res),
              *_extension_section(res, Path(tables), out)]
    if appendix:
        lines += ["", "## Appendix: the long readings", "",
                  "The claims table's cells cut above, whole (also in claims.csv).", "",
                  *appendix]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip() + "\n")
    if page is not None:
        write_html(table, Path(page), out, Path(figures), Path(tables),
                   f"Reproduction report: profile {res.config.profile}", f"Data: {res.label()}.")
