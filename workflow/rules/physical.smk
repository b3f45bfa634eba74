# Phys-Mix as real training jobs on Ray (section 5.1; docs/runtime.md), only when the
# profile sets experiments.physical. One job runs every scheduler in turn and takes all
# cores: each run starts its own local Ray instance and replays in wall-clock time. Without
# the runtime extra (Ray, PyTorch) the step is skipped: the Snakefile prints why, and
# notebook 01 and the report go without it (PLAN.physical is None).

PHYSICAL = PLAN.physical

if PHYSICAL is not None:

    rule physical:
        input:
            canonical=PLAN.physical_canonical(),
        output:
            L.physical_summary,
        conda:
            ENVIRONMENT
        log:
            L.log("physical"),
        params:
            physical=dump(PLAN.physical_record()),
            trace=PLAN.physical_trace_json(),
            seed=PLAN.config.seed,
        threads: workflow.cores
        resources:
            mem_mb=8000,
            runtime=240,
        script:
            "../scripts/physical.py"
