#!/usr/bin/env python3
"""sbatch's stand-in where no SLURM runs: the submit command of Snakemake's generic cluster
executor in CI's fallback (.ci/slurm-smoke.sh; README, "On a SLURM cluster"):
``--executor cluster-generic --default-resources tmpdir=system_tmpdir
--cluster-generic-submit-cmd "python3 workflow/cluster/local_submit.py"``.

Snakemake calls it with a job script; it refuses a job whose rule declares no ``mem_mb`` or
``runtime`` (a cluster needs both, and the default resources above supply neither), then
runs the script detached, as a batch system would: in a session of its own, with a bare
environment (PATH, HOME, LANG), its declared limits and output in
.snakemake/local-submit/<job script>.log, and prints the process id as the job id. The job
script itself tells Snakemake when it ended (the executor's marker files), so no status
command is needed. Standard library only: it runs under the system's python3.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

#: the line Snakemake writes into every job script: its job's properties as JSON
PROPERTIES = re.compile(r"^# properties = (.*)$", re.MULTILINE)
#: what a rule must declare to be submitted (threads default to 1)
REQUIRED = ("mem_mb", "runtime")
LOGS = Path(".snakemake") / "local-submit"


def job_properties(jobscript: str) -> dict:
    """The properties of the job whose script is ``jobscript`` (its text)."""
    match = PROPERTIES.search(jobscript)
    if match is None:
        raise ValueError("no '# properties = ...' line: not a Snakemake job script")
    return json.loads(match.group(1))


def limits(properties: dict) -> tuple[int, int, int]:
    """(threads, mem_mb, runtime in minutes) the job declares: ValueError naming what a
    rule of it left out. A group job (``--groups``) has its rules' resources combined."""
    resources = properties.get("resources", {})
    missing = [key for key in REQUIRED if key not in resources]
    if missing:
        name = properties.get("rule") or properties.get("groupid")
        raise ValueError(f"{properties.get('type', 'single')} job {name!r} declares no "
                         f"{' and no '.join(missing)}: give its rule a resources: entry")
    return int(properties.get("threads", 1)), int(resources["mem_mb"]), \
        int(resources["runtime"])


def main(argv: list[str]) -> int:
    jobscript = Path(argv[-1])
    try:
        threads, mem_mb, runtime = limits(job_properties(jobscript.read_text()))
    except ValueError as error:
        print(f"local_submit: {error}", file=sys.stderr)
        return 1
    LOGS.mkdir(parents=True, exist_ok=True)
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    log = (LOGS / f"{jobscript.name}.log").open("w")
    log.write(f"local_submit: threads={threads} mem_mb={mem_mb} runtime={runtime}\n")
    log.flush()
    job = subprocess.Popen(["/bin/sh", str(jobscript)], env=env, stdout=log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           start_new_session=True)
    print(job.pid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
