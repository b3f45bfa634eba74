"""The claims report: paper/REPRODUCTION.md renders paper/tables/claims.csv (every claim of
paper/claims.yaml beside the value this pipeline measured, the data it came from and its
verdict; ``verdicts.write_claims``) as Markdown, with the findings computed from that
table, the failed runs, the sensitivity to baseline variants, the known deviations
(paper/deviations.yaml), how each value is measured, and the cost. The studies add their
lines where their sections are registered (``registry.report_section``: real data among
the findings, the operating and sensitivity regimes, our extension at the end).

On SYNTHETIC data every verdict is about the synthetic stand-ins; claims whose number the
synthetic traces are calibrated to agree by construction, and the report marks them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from compass.experiments.case_study import CaseStudy
from compass.experiments.comparisons import overall_leads
from compass.experiments.config import PAPER_SCHEDULERS
from compass.experiments.failed_schedulers import dead_section
from compass.experiments.layout import NOTEBOOKS
from compass.experiments.peak_windows import window_leads
from compass.experiments.ranking import RANKING_TABLE, ranking_summary
from compass.experiments.results import Results
from compass.experiments.stats import MIN_SAMPLES
from compass.experiments.tables import markdown
from compass.experiments.verdict.answers import answers, breakeven_section, otherwise_missed
from compass.experiments.verdict.claims import (
    CLAIMS_TABLE,
    DEFAULT_VARIANT,
    VERDICTS,
    Claim,
    fmt,
    load_claims,
    load_deviations,
    read_claims,
)
from compass.experiments.verdict.headline import (
    MAX_CELL,
    headline_rows,
    markdown_headline,
    plain_intervals,
    short,
    verdict_counts,
    verdict_text,
)
from compass.experiments.verdict.html_report import write_html
from compass.experiments.verdict.paper_vs_ours import PAPER_VS_OURS_TABLE, summary
from compass.experiments.verdict.registry import ReportInputs, ReportSlot, report_sections


def relative_link(target: Path, report: Path) -> str:
    """``target`` as a link from the report's folder."""
    return Path(os.path.relpath(target, report.parent)).as_posix()


def _links(stems: list[str], figures: Path, tables: Path, report_dir: Path) -> str:
    figure_stems = {s for p in NOTEBOOKS.values() for s in p.figures}
    out = []
    for stem in stems:
        target = figures / f"{stem}.png" if stem in figure_stems else tables / f"{stem}.md"
        out.append(f"[{stem}]({Path(os.path.relpath(target, report_dir)).as_posix()})")
    return ", ".join(out) or "-"


def table_cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, one line, no thousands separators inside an
    interval's brackets."""
    return plain_intervals(str(text)).replace("|", "\\|").replace("\n", " ")


def _fold(rows: list[dict[str, str]], columns: Sequence[str]) -> list[str]:
    """Cut the ``columns`` of ``rows`` longer than ``MAX_CELL`` (in place) and return the
    appendix that gives them whole: a line per claim."""
    appendix = []
    for row in rows:
        long = [c for c in columns if len(row[c]) > MAX_CELL]
        for column in long:
            appendix.append(f"- `{row['id']}`, {column}: {table_cell(row[column])}")
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
        five = r.verdict_without_fft or "-"
        if five != "-" and pd.notna(r.lead_without_fft):
            five += (f": {fmt(r.lead_without_fft)} [{fmt(r.ci_low_without_fft)}, "
                     f"{fmt(r.ci_high_without_fft)}]")
        rows.append({"id": r.id, "section": r.section, "claim": r.statement,
                     "paper": r.paper, "ours": r.ours_text, "data": r.data or "-",
                     "verdict": text, "without FFT": five,
                     "shown in": _links(stems, figures, tables, report_dir)})
    return rows


#: The measure kinds of absolute levels (the regime a run is in), not comparisons.
LEVEL_KINDS = ("reference_range", "baseline_range", "reference_min")


def _findings(table: pd.DataFrame, res: Results, claims: Sequence[Claim],
              real: Sequence[str], tables: Path) -> list[str]:
    """"What we found": plain lines computed from claims.csv and the runs (never typed by
    hand): the data, the verdicts, the real-data comparisons first (``real``: the studies'), where
    COMPASS-ABS's leads stand (signed) and how far the paper's margins are, its AFR leads,
    the theorem's bound and for which Compact, our absolute levels beside the paper's, and
    which verdicts a baseline variant changes."""
    frame = table[table["variant"] == DEFAULT_VARIANT]
    leads = frame[frame["direction"] != ""]
    counts = frame["verdict"].value_counts()
    real_traces = [t.name for t in res.traces.values() if t.origin == "real"]
    stand_ins = [t.name for t in res.traces.values() if t.origin == "synthetic"]
    lines = ["## What we found", "", *answers(table, tables),
             *otherwise_missed(res, table, tables, claims),
             "**Details.**", "",
             f"- Data: {res.label()}. " + _data_reading(real_traces, stand_ins),
             "- Verdicts: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
             + f" of {len(frame)} claims."]
    lines += real
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


def _data_reading(real: Sequence[str], stand_ins: Sequence[str]) -> str:
    """Which comparisons rest on real jobs and which on SYNTHETIC stand-ins."""
    if not stand_ins:
        return "Real traces."
    if not real:
        return ("Every comparison is between schedulers on the SYNTHETIC stand-ins, not on "
                "the paper's traces.")
    return (f"The comparisons on {', '.join(real)} replay real jobs; those on "
            f"{', '.join(stand_ins)} are between schedulers on SYNTHETIC stand-ins, not on "
            "the paper's traces.")


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
            f"[{PAPER_VS_OURS_TABLE}.csv]({relative_link(path, out)}) sets every number the "
            "paper's text and Tables 1-3 state beside ours: the stated value and where it is "
            "stated, ours with its interval and n, how far ours reaches outside the stated "
            "value (`difference`) and the verdict of the claim that measures it.", "",
            *[f"- {line}" for line in summary(pd.read_csv(path))], ""]


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
            f"([{RANKING_TABLE}.csv]({relative_link(path, out)})).", "",
            line[0].upper() + line[1:] + ".", "",
            "| experiment | trace | condition | metric | n | ours | P(first) | paper | tau-b | "
            "reading |", "|---" * 10 + "|", *rows, ""]


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
             *["| " + " | ".join([i, *(table_cell(cell.get((i, v), "-")) for v in names)]) + " |"
               for i in ids], ""]
    return lines


def _headline(table: pd.DataFrame, tables: str | Path, out: Path) -> list[str]:
    """The first screen: the verdict of each section of the paper
    (``compass.experiments.verdict.headline``), with the run's verdict counts."""
    path = Path(tables) / f"{CLAIMS_TABLE}.csv"
    return ["## Headline: each section of the paper", "",
            f"Verdicts of this run: {verdict_text(verdict_counts(table))}. One row per "
            "section, its headline claim and the verdicts of all its claims; every claim, "
            f"with its whole reading, is in [{CLAIMS_TABLE}.csv]({relative_link(path, out)}) "
            "and the section \"Claims\" below.", "",
            *markdown_headline(headline_rows(table))]


def _header(res: Results) -> list[str]:
    """Title, profile, and what data every number comes from."""
    cfg = res.config
    traces = [res.traces[name] for name in cfg.traces]
    lines = [
        "# Reproduction report", "",
        "Generated by the pipeline (`snakemake`, docs/pipeline.md) from "
        f"`{res.layout.root.as_posix()}`: profile **{cfg.profile}** ({cfg.spec.description})",
        "", "## Data", "",
        *[f"- **{t.name}**: {t.label}, {len(t.days)} day(s)"
          + (f", hours {t.spec.hours[0]:g}-{t.spec.hours[1]:g}" if t.spec.hours != (0, 24)
             else "") for t in traces],
        *[f"- **{t.note}**" for t in traces if t.note],
        *[f"- {t.name} sources, tried in order (the first present one is replayed): "
          + "; ".join(f"`{s.path}` ({s.format}{', ' + s.derived if s.derived else ''})"
                      for s in t.spec.sources) for t in traces if len(t.spec.sources) > 1],
        "",
    ]
    synthetic = [t.spec.synthetic for t in traces if t.origin == "synthetic"]
    if synthetic:
        lines += ["**SYNTHETIC data.** " + ", ".join(synthetic) + " are synthetic stand-ins "
                  "calibrated to published statistics of the real traces (docs/traces.md). "
                  "Every value below " + ("on those traces " if len(synthetic) < len(traces)
                                          else "") + "measures the schedulers on them, not "
                  "the paper's traces; a verdict says whether the paper's claim holds on this "
                  "data.", ""]
    missing = [s for s in PAPER_SCHEDULERS if s not in set(res.runs["scheduler"])]
    if missing:
        lines += [f"Not run in this profile: {', '.join(missing)} (claims about them have "
                  "no data).", ""]
    return lines


def _studies(slot: ReportSlot, inputs: ReportInputs) -> list[str]:
    """The lines the studies' report sections write at ``slot`` (``registry``)."""
    return [line for section in report_sections(slot) for line in section(inputs)]


def write_report(results: str | Path, claims_path: str | Path | Sequence[str | Path],
                 deviations_path: str | Path,
                 out: str | Path, figures: str | Path, tables: str | Path,
                 page: str | Path | None = None) -> None:
    """Write the Markdown report from paper/tables/claims.csv (``write_claims``) and the
    claims' texts (how each value is measured) and deviations; and the HTML page
    (``compass.experiments.verdict.html_report``) to ``page`` where given."""
    res, out = Results.load(results), Path(out)
    claims, deviations = load_claims(claims_path), load_deviations(deviations_path)
    table = read_claims(tables)
    frame = table[table["variant"] == DEFAULT_VARIANT]
    rows = _report_rows(frame, Path(figures), Path(tables), out.parent)
    appendix = _fold(rows, ("claim", "ours", "verdict"))
    counts = frame["verdict"].value_counts()
    columns = list(rows[0])
    inputs = ReportInputs(res, table, Path(tables), out)
    header = _header(res)
    lines = [*header[:4], *_headline(table, tables, out), *header[4:], *dead_section(res),
             *_findings(table, res, claims, _studies("real data", inputs), Path(tables))[:-1],
             *_studies("findings", inputs), "", "## Summary", "",
             ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
             + f" ({len(frame)} claims).", "",
             "Leads are paired over the samples (every sample replays the same jobs under "
             "every scheduler) and given with their 95 % bootstrap interval, the number of "
             "samples n and their size relative to the strongest baseline. A comparison's "
             "sign is decided first: a lead whose whole interval is below zero *differs* (a "
             "loss); only one that spans zero can be a *tie*, when it lies inside the "
             "comparison's margin, at most a quarter of the paper's smallest lead for the "
             "metric (paper/claims.yaml, `margins`). Then a verdict is *holds* when the whole "
             "interval satisfies the paper's claim, *differs* when none of it does, "
             f"*inconclusive* when it admits both readings or rests on fewer than {MIN_SAMPLES} "
             "samples; a claim is *not applicable*, with the reason, when the data hold "
             "nothing to test (no window with fragmentation-induced blocking under the "
             "baselines, no event of the kind, COMPASS-ABS passing the same check). The "
             "column *without FFT* judges each comparison again against the strongest of the "
             "five other baselines (leads_by_baseline.csv: against each alone). Values "
             "without an interval are judged as they are. Every value is in "
             f"[{CLAIMS_TABLE}.csv]"
             f"({relative_link(Path(tables) / f'{CLAIMS_TABLE}.csv', out)}).",
             ""]
    failures = _failures(res, CaseStudy.load(res).status)
    if failures:
        lines += ["## Failed runs", "", *failures, ""]
    lines += ["## Claims", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
              *["| " + " | ".join(table_cell(row[c]) for c in columns) + " |"
                for row in rows], "",
              *_paper_beside_ours(Path(tables), out), *_studies("beside the paper", inputs),
              *_ranking_section(Path(tables), out),
              *_windows_section(res, claims), *_sensitivity(table, res),
              *breakeven_section(Path(tables), Path(figures),
                                 lambda path: relative_link(path, out)),
              "## Known deviations", ""]
    lines += [f"- **{d['id']}**: {d.get('title', '')}. {d.get('text', '')}"
              + (f" (claims: {', '.join(d['claims'])})" if d.get("claims") else "")
              for d in deviations] or ["None recorded."]
    lines += ["", "## How each value is measured", "",
              *[f"- `{c.id}`: {c.how}" for c in claims], "", "## Cost", "", _cost(res),
              *_studies("end", inputs)]
    if appendix:
        lines += ["", "## Appendix: the long readings", "",
                  "The claims table's cells cut above, whole (also in claims.csv).", "",
                  *appendix]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip() + "\n")
    if page is not None:
        write_html(table, Path(page), out, Path(figures), Path(tables),
                   f"Reproduction report: profile {res.config.profile}", f"Data: {res.label()}.")
