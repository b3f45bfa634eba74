# Phys-Mix as real training jobs on Ray (section 5.1; docs/runtime.md), only when the
# profile sets experiments.physical. One job runs every scheduler in turn and takes all
# cores: each run starts its own local Ray instance and replays in wall-clock time.

PHYSICAL = PLAN.config.experiments.physical

if PHYSICAL is not None:

    rule physical:
        input:
            canonical=PLAN.canonical(PHYSICAL.trace),
        output:
            L.physical_summary,
        params:
            physical=dump(PLAN.physical_record()),
            trace=trace_record(PHYSICAL.trace),
            seed=PLAN.config.seed,
        threads: workflow.cores
        script:
            "../scripts/physical.py"
