# REAL openb experiments (compass.experiments.studies.openb; docs/pipeline.md, "openb"): the
# default pod list replayed in time, the four multi-GPU variants packed statically, notebook 08
# and the claims of paper/claims_openb.yaml. Only when the profile has an `openb` block.

import sys
from pathlib import Path

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
            start_timeout=KERNEL_START_TIMEOUT_S,
            # absolute: the executed copy re-runs from its own folder or any other
            results=lambda wc, input: folder(Path(input.config).resolve()),
            figures=lambda wc, output: folder(Path(output.figures[0]).resolve()),
            tables=lambda wc, output: folder(Path(output.tables[0]).resolve()),
        localrule: True
        resources:
            notebook=1,  # at most profiles/default's limit of kernels at once
            mem_mb=4000,
            runtime=60,
        shell:
            "{params.python} -m papermill {input.notebook} {output.notebook} -k python3 "
            "--start-timeout {params.start_timeout} --no-progress-bar -p results {params.results} "
            "-p figures {params.figures} -p tables {params.tables} 2> {log}"
