# The claims table (every claim of paper/claims.yaml beside the value this run measured, with
# its interval and verdict), then the report that renders it.

from compass.experiments.layout import table_files
from compass.experiments.report import CLAIMS_TABLE

CLAIMS_FILES = table_files(PLAN.tables, CLAIMS_TABLE)


rule claims:
    input:
        claims=BASE / "paper" / "claims.yaml",
        deviations=BASE / "paper" / "deviations.yaml",
        config=L.config,
        runs=L.runs,
        days=DAY_TABLES,
        case=CASE_FILES,
        table1=PLAN.table1_files,
        openb=OPENB_DATA,  # workflow/rules/openb.smk
        openb_claims=OPENB_CLAIMS,
    output:
        CLAIMS_FILES,
    params:
        results=str(L.root),
        tables=str(PLAN.tables),
    localrule: True
    script:
        "../scripts/claims.py"


rule report:
    input:
        claims=BASE / "paper" / "claims.yaml",
        deviations=BASE / "paper" / "deviations.yaml",
        config=L.config,
        runs=L.runs,
        table=CLAIMS_FILES,
        notebooks=[L.notebook(name) for name in NOTEBOOKS],
        openb=OPENB_TARGETS,  # workflow/rules/openb.smk
        openb_claims=OPENB_CLAIMS,
    output:
        PLAN.report,
    params:
        results=str(L.root),
        figures=str(PLAN.figures),
        tables=str(PLAN.tables),
    localrule: True
    script:
        "../scripts/report.py"
