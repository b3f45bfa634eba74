# One papermill execution per experiment notebook (thin: they load results, call
# compass.experiments, plot with compass.plotting); executed copies go to
# results/<profile>/notebooks/, figures and tables to the profile's outputs.

import sys

for _name in NOTEBOOKS:

    rule:
        name:
            f"notebook_{_name}"
        input:
            notebook=BASE / "notebooks" / f"{_name}.ipynb",
            config=L.config,
            runs=L.runs,
            days=DAY_TABLES,
            needs=L.needs(NOTEBOOKS[_name]),
            physical=PLAN.physical_inputs(_name),
            claims=CLAIMS_FILES,
        output:
            notebook=L.notebook(_name),
            figures=reported(PLAN.figure_products(_name), REPORT_CATEGORIES[_name]),
            tables=reported(PLAN.table_products(_name), REPORT_CATEGORIES[_name]),
        conda:
            ENVIRONMENT
        log:
            L.log(f"notebooks/{_name}"),
        params:
            python=sys.executable,
            root=lambda wc, input: str(Path(input.notebook).resolve().parents[1]),  # the checkout
            start_timeout=KERNEL_START_TIMEOUT_S,
            # relative to the executed copy's folder, where its kernel runs (--cwd): the
            # copy re-runs from its folder, also after the results folder moved elsewhere
            cwd=lambda wc, output: folder(output.notebook),
            results=lambda wc, input, output: relative(folder(input.config), folder(output.notebook)),
            figures=lambda wc, output: relative(folder(output.figures[0]), folder(output.notebook)),
            tables=lambda wc, output: relative(folder(output.tables[0]), folder(output.notebook)),
        localrule: True
        resources:
            notebook=1,  # at most profiles/default's limit of kernels at once
            mem_mb=4000,
            runtime=60,
        shell:
            # the kernel runs in the notebook's folder: it imports this checkout's compass
            "PYTHONPATH={params.root}${{PYTHONPATH:+:$PYTHONPATH}} "
            "{params.python} -m papermill {input.notebook} {output.notebook} -k python3 "
            "--start-timeout {params.start_timeout} --no-progress-bar --cwd {params.cwd} "
            "-p results {params.results} "
            "-p figures {params.figures} -p tables {params.tables} 2> {log}"


rule table1:
    input:
        canonical=[c for t in PLAN.traces for c in PLAN.canonical(t)],
    output:
        reported(PLAN.table1_files, "Traces (Table 1)"),
    conda:
        ENVIRONMENT
    log:
        L.log("table1"),
    params:
        traces=dump(PLAN.trace_records()),
        canonical={t: str(PLAN.canonical(t)[0]) for t in PLAN.traces if PLAN.canonical(t)},
        seed=PLAN.config.seed,
        folder=lambda wc, output: folder(output[0]),
        caption=lambda wc: "Table 1: per-class instance share over each trace's span. "
        + "; ".join(t.label for t in PLAN.traces.values()),
    localrule: True
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/table1.py"
