"""COMPASS-ABS reproduction pipeline (docs/pipeline.md).

    snakemake --cores 8                                    # paper scale (config/full.yaml)
    snakemake --cores all --configfile config/quick.yaml   # the README's quick run
    snakemake --cores 8 --configfile config/medium.yaml    # reviewers: under an hour
    snakemake --cores all --configfile config/smoke.yaml   # CI smoke run

Simulator batches (one per trace-day x seed x eta x c, every scheduler; one job per trace-day x
seed runs all its batches) -> results/<profile>/runs.csv
-> one papermill notebook per experiment -> figures, tables -> paper/REPRODUCTION.md.
"""

from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import min_version, validate

min_version("8.0")

BASE = Path(workflow.basedir)
if not workflow.overwrite_configfiles:
    configfile: str(BASE / "config" / "full.yaml")
validate(config, str(BASE / "config" / "schema.yaml"))

from compass.experiments.cost import COST_FILE, RunCost  # noqa: E402
from compass.experiments.fingerprint import fingerprint, steps_done  # noqa: E402
from compass.experiments.verdict.headline import run_verdicts, verdict_text  # noqa: E402
from compass.experiments.interrupts import SignalNote  # noqa: E402
from compass.experiments.layout import NOTEBOOKS  # noqa: E402
from compass.experiments.pipeline import dump, make_plan  # noqa: E402

COST = RunCost()  # the run's start: results/<profile>/cost.json when it succeeds
PLAN = make_plan(config)
L = PLAN.layout
for note in PLAN.notes:
    logger.warning("\n" + "!" * 78 + f"\n{note}\n" + "!" * 78)


include: "workflow/rules/common.smk"  # every value the rule files share (OPENB_TARGETS, ...)
include: "workflow/rules/openb.smk"


rule all:
    default_target: True
    input:
        PLAN.report,
        PLAN.table1_files,
        [L.notebook(name) for name in NOTEBOOKS],
        OPENB_TARGETS,


# SIGINT / SIGTERM: say what stopped the run and exit 130 / 143 (README, "Interrupted?");
# profiles/default/config.yaml makes the next run redo the incomplete outputs.
SIGNALS = SignalNote()


onstart:
    SIGNALS.install()


onerror:
    SIGNALS.finish(log)


onsuccess:
    # with the fingerprint of the plan it ran (its steps from the log) and its verdict counts;
    # the cores of a local run, none where an executor submits the jobs (no --cores: there
    # workflow.cores raises, which failed every SLURM run at its end)
    VERDICTS = run_verdicts(PLAN.tables)
    COST.write(L.root / COST_FILE, PLAN.config.profile,
               workflow.cores if workflow.local_exec else None, BASE,
               fingerprint(PLAN.config, steps_done(log)), VERDICTS,
               [L.root, PLAN.figures, PLAN.tables], VERDICTS and verdict_text(VERDICTS))


include: "workflow/rules/simulate.smk"
include: "workflow/rules/notebooks.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/physical.smk"
