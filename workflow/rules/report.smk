# The claims table (every claim of paper/claims.yaml beside the value this run measured, with
# its interval and verdict), our extension's table (profile key `extension`; none without
# it), then the report that renders both, the extension in its own section.

from compass.experiments.breakeven import BREAKEVEN_FIGURE, BREAKEVEN_TABLE, FIT_TABLE
from compass.experiments.compact_literal import LITERAL_TABLE
from compass.experiments.gap import GAP_TABLE
from compass.experiments.studies.extension.config import LEADS_TABLE as EXTENSION_TABLE
from compass.experiments.verdict.by_baseline import BY_BASELINE_TABLE
from compass.experiments.verdict.paper_vs_ours import PAPER_VS_OURS_TABLE
from compass.experiments.studies.plugins.leads import PLUGIN_TABLE
from compass.experiments.ranking import RANKING_TABLE
from compass.experiments.studies.regime.operating import REGIME_TABLE
from compass.experiments.studies.regime.config import claims_stem, regime_slug
from compass.experiments.studies.venus.stand_in import STAND_IN_TABLE, stand_in_regime

# every number the paper states for Figs. 1-7 and Tables 1-3 beside ours (from the claims)
PAPER_VS_OURS_FILES = table_files(PLAN.tables, PAPER_VS_OURS_TABLE)

# COMPASS-ABS against each baseline alone (compass.experiments.verdict.by_baseline), beside the claims
BY_BASELINE_FILES = [
    *table_files(PLAN.tables, BY_BASELINE_TABLE),
    *table_files(PLAN.tables, GAP_TABLE),  # where the AJCT gap comes from
]
# FFT's break-even (common.smk's BREAKEVEN): table, fft-paper fit, figure
BREAKEVEN_FILES = (
    [
        *table_files(PLAN.tables, BREAKEVEN_TABLE),
        *table_files(PLAN.tables, FIT_TABLE),
        *figure_files(PLAN.figures, BREAKEVEN_FIGURE),
    ]
    if BREAKEVEN
    else []
)
# the literal Compact beside the corrected one on the same samples (common.smk's BREAKEVEN)
LITERAL_FILES = table_files(PLAN.tables, LITERAL_TABLE) if BREAKEVEN else []

EXTENSION_FILES = table_files(PLAN.tables, EXTENSION_TABLE) if PLAN.config.extension else []
# outside schedulers against the reference and the strongest baseline (compare_plugins)
PLUGIN_FILES = table_files(PLAN.tables, PLUGIN_TABLE) if PLAN.config.compare_plugins else []
# the paper's operating regime for its baselines beside this run's (paper/regime.yaml)
REGIME_FILES = table_files(PLAN.tables, REGIME_TABLE)
# the baselines' order per group beside the paper's (paper/paper_rankings.yaml)
RANKING_FILES = table_files(PLAN.tables, RANKING_TABLE)
# each sensitivity regime's comparison claims (common.smk's REGIME_PLANS), beside claims.csv
REGIME_CLAIMS = {name: table_files(PLAN.tables, claims_stem(name)) for name in REGIME_PLANS}
# venus-synth beside REAL Venus on the same days (when Venus is REAL); its outcome rows from
# the regime that replays venus-synth, when the profile has one
STAND_IN_FILES = (table_files(PLAN.tables, STAND_IN_TABLE)
                  if "venus" in PLAN.traces and PLAN.traces["venus"].origin == "real" else [])
STAND_IN_REGIME = stand_in_regime(PLAN.config.regimes)


rule claims:
    input:
        claims=BASE / "paper" / "claims.yaml",
        deviations=BASE / "paper" / "deviations.yaml",
        paper_values=BASE / "paper" / "paper_values.yaml",
        config=L.config,
        runs=L.runs,
        days=DAY_TABLES,
        case=L.needs(NOTEBOOKS["06_case_study"]),
        table1=PLAN.table1_files,
        openb=OPENB_DATA,  # workflow/rules/common.smk
        openb_claims=OPENB_CLAIMS,
    output:
        reported([*CLAIMS_FILES, *PAPER_VS_OURS_FILES, *BY_BASELINE_FILES], "Claims"),
    conda:
        ENVIRONMENT
    log:
        L.log("claims"),
    params:
        results=lambda wc, input: folder(input.config),
        tables=lambda wc, output: folder(output[0]),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/claims.py"


if BREAKEVEN_FILES:

    rule fft_breakeven:
        input:
            claims=BASE / "paper" / "claims.yaml",
            config=L.config,
            runs=L.runs,
            sweep=[L.breakeven_runs(t) for t in BREAKEVEN],
        output:
            reported(BREAKEVEN_FILES, "Claims"),
        conda:
            ENVIRONMENT
        log:
            L.log("fft_breakeven"),
        params:
            results=lambda wc, input: folder(input.config),
            tables=lambda wc, output: folder(output[0]),
            figures=lambda wc, output: folder(output[-1]),
        localrule: True
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/fft_breakeven.py"


if LITERAL_FILES:

    rule compact_literal:
        input:
            config=L.config,
            runs=L.runs,
            literal=[L.compact_literal_runs(t) for t in BREAKEVEN],
        output:
            reported(LITERAL_FILES, "Claims"),
        conda:
            ENVIRONMENT
        log:
            L.log("compact_literal"),
        params:
            results=lambda wc, input: folder(input.config),
            tables=lambda wc, output: folder(output[0]),
        localrule: True
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/compact_literal.py"


if EXTENSION_FILES:

    rule extension_leads:
        input:
            config=L.config,
            runs=L.runs,
        output:
            reported(EXTENSION_FILES, "Beyond the paper: COMPASS-ABS+"),
        conda:
            ENVIRONMENT
        log:
            L.log("extension_leads"),
        params:
            results=lambda wc, input: folder(input.config),
            tables=lambda wc, output: folder(output[0]),
        localrule: True
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/extension_leads.py"


if PLUGIN_FILES:

    rule plugin_leads:
        input:
            config=L.config,
            runs=L.runs,
        output:
            reported(PLUGIN_FILES, "Outside schedulers"),
        conda:
            ENVIRONMENT
        log:
            L.log("plugin_leads"),
        params:
            results=lambda wc, input: folder(input.config),
            tables=lambda wc, output: folder(output[0]),
        localrule: True
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/plugin_leads.py"


# one rule per regime: its comparison claims judged on its results (claims_<regime>.csv)
for _regime, _regime_plan in REGIME_PLANS.items():

    rule:
        name:
            f"claims_{regime_slug(_regime)}"
        input:
            claims=BASE / "paper" / "claims.yaml",
            deviations=BASE / "paper" / "deviations.yaml",
            config=_regime_plan.layout.config,
            runs=_regime_plan.layout.runs,
            days=[_regime_plan.layout.day_table(t) for t in _regime_plan.traces],
        output:
            reported(REGIME_CLAIMS[_regime], "Claims"),
        conda:
            ENVIRONMENT
        log:
            L.log(f"claims_{regime_slug(_regime)}"),
        params:
            regime=_regime,
            results=lambda wc, input: folder(input.config),
            tables=lambda wc, output: folder(output[0]),
        localrule: True
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/regime_claims.py"


rule regime:
    input:
        regime=BASE / "paper" / "regime.yaml",
        config=L.config,
        runs=L.runs,
        days=DAY_TABLES,
        case=L.needs(NOTEBOOKS["06_case_study"]),
        regime_configs=[p.layout.config for p in REGIME_PLANS.values()],
        regime_runs=[p.layout.runs for p in REGIME_PLANS.values()],
        regime_days=[p.layout.day_table(t) for p in REGIME_PLANS.values() for t in p.traces],
    output:
        reported(REGIME_FILES, "Claims"),
    conda:
        ENVIRONMENT
    log:
        L.log("regime"),
    params:
        results=lambda wc, input: folder(input.config),
        tables=lambda wc, output: folder(output[0]),
        # regime -> its results folder, in the profile's order
        regimes=lambda wc, input: dump(
            dict(zip(REGIME_PLANS, (folder(c) for c in input.regime_configs)))
        ),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/regime.py"


if STAND_IN_FILES:

    rule stand_in:
        input:
            config=L.config,
            runs=L.runs,
            canonical=PLAN.canonical("venus"),
            regime_config=[REGIME_PLANS[STAND_IN_REGIME].layout.config] if STAND_IN_REGIME else [],
            regime_runs=[REGIME_PLANS[STAND_IN_REGIME].layout.runs] if STAND_IN_REGIME else [],
        output:
            reported(STAND_IN_FILES, "Claims"),
        conda:
            ENVIRONMENT
        log:
            L.log("stand_in"),
        params:
            results=lambda wc, input: folder(input.config),
            regime_results=lambda wc, input: (
                folder(input.regime_config[0]) if input.regime_config else ""
            ),
            tables=lambda wc, output: folder(output[0]),
        localrule: True
        resources:
            mem_mb=2000,
            runtime=30,
        script:
            "../scripts/stand_in.py"


rule baseline_ranking:
    input:
        rankings=BASE / "paper" / "paper_rankings.yaml",
        config=L.config,
        runs=L.runs,
        days=DAY_TABLES,
        case=L.needs(NOTEBOOKS["06_case_study"]),
    output:
        reported(RANKING_FILES, "Claims"),
    conda:
        ENVIRONMENT
    log:
        L.log("baseline_ranking"),
    params:
        results=lambda wc, input: folder(input.config),
        tables=lambda wc, output: folder(output[0]),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/baseline_ranking.py"


rule report:
    input:
        claims=BASE / "paper" / "claims.yaml",
        deviations=BASE / "paper" / "deviations.yaml",
        config=L.config,
        runs=L.runs,
        table=CLAIMS_FILES,
        paper_vs_ours=PAPER_VS_OURS_FILES,
        regime=REGIME_FILES,
        ranking=RANKING_FILES,
        regime_claims=[f for files in REGIME_CLAIMS.values() for f in files],
        stand_in=STAND_IN_FILES,
        extension=EXTENSION_FILES,
        plugins=PLUGIN_FILES,
        breakeven=BREAKEVEN_FILES,
        compact_literal=LITERAL_FILES,
        notebooks=[L.notebook(name) for name in NOTEBOOKS],
        figures=[f for name in NOTEBOOKS for f in PLAN.figure_products(name)],
        openb=OPENB_TARGETS,  # workflow/rules/common.smk
        openb_claims=OPENB_CLAIMS,
    output:
        md=PLAN.report,
        html=PLAN.report.with_suffix(".html"),  # the page to open: compass.experiments.verdict.html_report
    conda:
        ENVIRONMENT
    log:
        L.log("report"),
    params:
        results=lambda wc, input: folder(input.config),
        figures=lambda wc, input: folder(input.figures[0]),
        tables=lambda wc, input: folder(input.table[0]),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/report.py"
