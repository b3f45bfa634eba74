# One papermill execution per experiment notebook (thin: they load results, call
# compass.experiments, plot with compass.plotting); executed copies go to
# results/<profile>/notebooks/, figures and tables to the profile's outputs.

import sys

DAY_TABLES = [L.day_table(t) for t in PLAN.traces]
CASE_FILES = [L.case_windows, L.case_timelines, L.case_jobs, L.case_runs]

for _name in NOTEBOOKS:

    rule:
        name:
            f"notebook_{_name}"
        input:
            notebook=BASE / "notebooks" / f"{_name}.ipynb",
            config=L.config,
            runs=L.runs,
            days=DAY_TABLES,
            case=CASE_FILES if _name == "06_case_study" else [],
            physical=PLAN.physical_inputs(_name),
        output:
            notebook=L.notebook(_name),
            products=PLAN.products(_name),
        params:
            python=sys.executable,
            results=str(L.root),
            figures=str(PLAN.figures),
            tables=str(PLAN.tables),
        localrule: True
        shell:
            "{params.python} -m papermill {input.notebook} {output.notebook} -k python3 "
            "--no-progress-bar -p results {params.results} -p figures {params.figures} "
            "-p tables {params.tables}"


rule table1:
    input:
        canonical=[c for t in PLAN.traces for c in PLAN.canonical(t)],
    output:
        PLAN.table1_files,
    params:
        traces=dump(PLAN.trace_records()),
        canonical={t: str(PLAN.canonical(t)[0]) for t in PLAN.traces if PLAN.canonical(t)},
        seed=PLAN.config.seed,
        folder=str(PLAN.tables),
        caption=lambda wc: "Table 1: per-class instance share over each trace's span. "
        + "; ".join(t.label for t in PLAN.traces.values()),
    localrule: True
    script:
        "../scripts/table1.py"
