# The claims table (every claim of paper/claims.yaml beside the value this run measured, with
# its interval and verdict), our extension's table (profile key `extension`; none without
# it), then the report that renders both, the extension in its own section.

from compass.experiments.extension import LEADS_TABLE as EXTENSION_TABLE
from compass.experiments.paper_vs_ours import PAPER_VS_OURS_TABLE
from compass.experiments.ranking import RANKING_TABLE
from compass.experiments.regime import REGIME_TABLE

# every number the paper states for Figs. 1-7 and Tables 1-3 beside ours (from the claims)
PAPER_VS_OURS_FILES = table_files(PLAN.tables, PAPER_VS_OURS_TABLE)

EXTENSION_FILES = table_files(PLAN.tables, EXTENSION_TABLE) if PLAN.config.extension else []
# the paper's operating regime for its baselines beside this run's (paper/regime.yaml)
REGIME_FILES = table_files(PLAN.tables, REGIME_TABLE)
# the baselines' order per group beside the paper's (paper/paper_rankings.yaml)
RANKING_FILES = table_files(PLAN.tables, RANKING_TABLE)


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
        openb=OPENB_DATA,  # workflow/rules/openb.smk
        openb_claims=OPENB_CLAIMS,
    output:
        reported([*CLAIMS_FILES, *PAPER_VS_OURS_FILES], "Claims"),
    conda:
        ENVIRONMENT
    log:
        L.log("claims"),
    params:
        results=lambda wc, input: folder(input.config),
        tables=lambda wc, output: folder(output[0]),
    localrule: True
    script:
        "../scripts/claims.py"


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
        script:
            "../scripts/extension_leads.py"


rule regime:
    input:
        regime=BASE / "paper" / "regime.yaml",
        config=L.config,
        runs=L.runs,
        days=DAY_TABLES,
        case=L.needs(NOTEBOOKS["06_case_study"]),
    output:
        reported(REGIME_FILES, "Claims"),
    conda:
        ENVIRONMENT
    log:
        L.log("regime"),
    params:
        results=lambda wc, input: folder(input.config),
        tables=lambda wc, output: folder(output[0]),
    localrule: True
    script:
        "../scripts/regime.py"


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
        extension=EXTENSION_FILES,
        notebooks=[L.notebook(name) for name in NOTEBOOKS],
        figures=[f for name in NOTEBOOKS for f in PLAN.figure_products(name)],
        openb=OPENB_TARGETS,  # workflow/rules/openb.smk
        openb_claims=OPENB_CLAIMS,
    output:
        PLAN.report,
    conda:
        ENVIRONMENT
    log:
        L.log("report"),
    params:
        results=lambda wc, input: folder(input.config),
        figures=lambda wc, input: folder(input.figures[0]),
        tables=lambda wc, input: folder(input.table[0]),
    localrule: True
    script:
        "../scripts/report.py"
