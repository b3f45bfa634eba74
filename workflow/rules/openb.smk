# REAL openb experiments (compass.experiments.studies.openb; docs/pipeline.md, "openb"): the
# default pod list replayed in time, the four multi-GPU variants packed statically, notebook 08
# and the claims of paper/claims_openb.yaml. Only when the profile has an `openb` block.

import sys

from compass.experiments.config import check_schedulers
from compass.schedulers import available

if OPENB is not None:  # workflow/rules/common.smk: OPENB and its files
    check_schedulers([*OPENB.schedulers, *OPENB.packing_schedulers], available())
    OPENB_RECORD = dump(OPENB.record())

    rule openb_replay:
        input:
            OPENB.replay.path,
        output:
            OPENB_REPLAY,
        conda:
            ENVIRONMENT
        log:
            L.log("openb_replay"),
        params:
            record=OPENB_RECORD,
            part="replay",
            out=lambda wc, output: folder(output[0]),
            table_format=L.table_format,
        resources:
            mem_mb=4000,
            runtime=60,
        script:
            "../scripts/openb.py"

    rule openb_packing:
        input:
            [*OPENB.packing.variants.values(), OPENB.packing.node_list],
        output:
            OPENB_PACKING,
        conda:
            ENVIRONMENT
        log:
            L.log("openb_packing"),
        params:
            record=OPENB_RECORD,
            part="packing",
            out=lambda wc, output: folder(output[0]),
            table_format=L.table_format,
        resources:
            mem_mb=4000,
            runtime=60,
        script:
            "../scripts/openb.py"

    rule notebook_08_real_openb:
        input:
            notebook=BASE / "notebooks" / f"{OPENB_NOTEBOOK_NAME}.ipynb",
            config=L.config,
            replay=OPENB_REPLAY,
            packing=OPENB_PACKING,
            claims=CLAIMS_FILES,
        output:
            notebook=L.notebook(OPENB_NOTEBOOK_NAME),
            figures=reported(OPENB_FIGURES, REPORT_CATEGORIES[OPENB_NOTEBOOK_NAME]),
            tables=reported(OPENB_TABLES, REPORT_CATEGORIES[OPENB_NOTEBOOK_NAME]),
        conda:
            ENVIRONMENT
        log:
            L.log(f"notebooks/{OPENB_NOTEBOOK_NAME}"),
        params:
            python=sys.executable,
            root=lambda wc, input: str(Path(input.notebook).resolve().parents[1]),  # the checkout
            start_timeout=KERNEL_START_TIMEOUT_S,
            # relative to the executed copy's folder (as notebooks.smk's rules)
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
            "-p results {params.results} -p figures {params.figures} -p tables {params.tables} "
            "2> {log}"
