# Data and simulator rules: resolved config, trace days, run groups, the case study.
# Each rule's params carry exactly what its step depends on (Snakemake reruns a job when
# they change); run groups do not depend on config.json, so editing the profile redoes
# only the groups whose settings or batches changed, and new groups.

import re

from compass.experiments.breakeven import sweep_rounds
from compass.experiments.compact_literal import literal_settings
from compass.experiments.layout import Layout
from compass.experiments.studies.nvl72.config import SETTINGS as NVL72_SETTINGS
from compass.experiments.studies.regime.borrowed import BorrowedRuns, borrowed_runs

RUN = dump(PLAN.config.run.record())
# every plan's results folder: the main one and each regime's (common.smk's REGIME_PLANS)
PLANS = {str(p.layout.root): p for p in [PLAN, *REGIME_PLANS.values()]}
# per results folder, the batches its runs table takes from the main run's parts instead of
# simulating them again (a regime's traces on the main run's own SYNTHETIC kind)
BORROWED = {root: borrowed_runs(PLAN, p) if p is not PLAN else BorrowedRuns((), (), {})
            for root, p in PLANS.items()}
ROOTS = "|".join(re.escape(root) for root in PLANS)
R = Layout(Path("{root}"), PLAN.layout.table_format)


rule config_json:
    output:
        R.config,
    conda:
        ENVIRONMENT
    log:
        R.log("config_json"),
    wildcard_constraints:
        root=ROOTS,
    params:
        # a function: the profile's free text (e.g. "{0.85, 0.90}") is no wildcard pattern
        record=lambda wc: dump(PLANS[wc.root].record()),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/write_config.py"


rule canonical_trace:
    input:
        # the raw file itself: a replaced file is checked (compass trace verify) and reloaded
        raw=lambda wc: PLAN.raw_file(wc.trace),
    output:
        L.canonical("{trace}"),
    conda:
        ENVIRONMENT
    log:
        L.log("canonical_trace/{trace}"),
    params:
        trace=lambda wc: PLAN.trace_json(wc.trace),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/canonical_trace.py"


rule day_table:
    input:
        canonical=lambda wc: PLANS[wc.root].canonical(wc.trace),
    output:
        R.day_table("{trace}"),
    conda:
        ENVIRONMENT
    log:
        R.log("day_table/{trace}"),
    wildcard_constraints:
        root=ROOTS,
        trace=r"[a-z0-9-]+",
    params:
        trace=lambda wc: PLANS[wc.root].trace_json(wc.trace),
        etas=lambda wc: PLANS[wc.root].etas(wc.trace),
        seed=lambda wc: PLANS[wc.root].config.seed,
        demand=lambda wc: PLANS[wc.root].config.run.demand,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/day_table.py"


# One job per part of a trace's samples (trace, day, seed; compass.experiments.grid.SimJob):
# every (eta, c) batch of each, its day drawn once; Python's start-up paid once per part.
rule simulate:
    input:
        canonical=lambda wc: PLANS[wc.root].canonical(wc.trace),
    output:
        R.run_part("{trace}", "{part}"),
    conda:
        ENVIRONMENT
    log:
        R.log("simulate/{trace}/part{part}"),
    wildcard_constraints:
        root=ROOTS,
        trace=r"[a-z0-9-]+",
        part=r"\d+",
    params:
        trace=lambda wc: PLANS[wc.root].trace_json(wc.trace),
        samples=lambda wc: PLANS[wc.root].job_samples(dict(wc)),
        run=lambda wc: dump(PLANS[wc.root].config.run.record()),
    resources:
        mem_mb=4000,
        runtime=120,
    script:
        "../scripts/simulate.py"


# FFT's break-even (common.smk's BREAKEVEN): one job per trace, FFT alone at each round
# length the batches do not run already (compass.experiments.breakeven), and one job per
# trace under the literal Compact

if BREAKEVEN:

    rule fft_breakeven_runs:
        input:
            canonical=lambda wc: PLAN.canonical(wc.trace),
        output:
            L.breakeven_runs("{trace}"),
        conda:
            ENVIRONMENT
        log:
            L.log("fft_breakeven_runs/{trace}"),
        wildcard_constraints:
            trace="|".join(BREAKEVEN),
        params:
            trace=lambda wc: PLAN.trace_json(wc.trace),
            run=RUN,
            samples=lambda wc: dump(BREAKEVEN[wc.trace]),
            rounds=dump(list(sweep_rounds(PLAN.config.experiments.fft_breakeven,
                                          PLAN.config.run))),
            eta=PLAN.config.experiments.overall_eta,
            cost=PLAN.config.migration_cost,
        resources:
            mem_mb=4000,
            runtime=120,
        script:
            "../scripts/fft_breakeven_runs.py"

    # the same samples under the literal Compact, compass-abs-paper (its corrected
    # counterpart's runs are the batches'; compass.experiments.compact_literal)
    rule compact_literal_runs:
        input:
            canonical=lambda wc: PLAN.canonical(wc.trace),
        output:
            L.compact_literal_runs("{trace}"),
        conda:
            ENVIRONMENT
        log:
            L.log("compact_literal_runs/{trace}"),
        wildcard_constraints:
            trace="|".join(BREAKEVEN),
        params:
            trace=lambda wc: PLAN.trace_json(wc.trace),
            run=dump(literal_settings(PLAN.config.run).record()),
            samples=lambda wc: dump(BREAKEVEN[wc.trace]),
            eta=PLAN.config.experiments.overall_eta,
            cost=PLAN.config.migration_cost,
        resources:
            mem_mb=4000,
            runtime=120,
        script:
            "../scripts/compact_literal_runs.py"


rule collect_runs:
    input:
        own=lambda wc: [job.path(PLANS[wc.root].layout)
                        for job in BORROWED[wc.root].own_jobs(PLANS[wc.root])],
        borrowed=lambda wc: BORROWED[wc.root].parts,
    output:
        R.runs,
    conda:
        ENVIRONMENT
    log:
        R.log("collect_runs"),
    wildcard_constraints:
        root=ROOTS,
    params:
        keep=lambda wc: dump(BORROWED[wc.root].keep),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/collect_runs.py"


rule case_study:
    input:
        canonical=PLAN.canonical(PLAN.config.experiments.case.trace),
    output:
        windows=L.case_windows,
        timelines=L.case_timelines,
        jobs=L.case_jobs,
        runs=L.case_runs,
    conda:
        ENVIRONMENT
    log:
        L.log("case_study"),
    params:
        case=dump(PLAN.case_record()),
        trace=PLAN.trace_json(PLAN.config.experiments.case.trace),
        run=RUN,
        cost=PLAN.config.migration_cost,
    resources:
        mem_mb=4000,
        runtime=120,
    script:
        "../scripts/case_study.py"


rule nvl72:
    output:
        runs=L.nvl72,
        settings=L.nvl72_settings,
    conda:
        ENVIRONMENT
    log:
        L.log("nvl72"),
    params:
        settings=dump(NVL72_SETTINGS),
    resources:
        mem_mb=4000,
        runtime=120,
    script:
        "../scripts/nvl72.py"
