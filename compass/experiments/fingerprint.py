"""The fingerprint of a profile's plan: what a measured run ran, in twelve hex digits.

A time or a verdict count measured on one plan says nothing about another: more seeds, other
days or another grid change the steps Snakemake runs and the samples every verdict rests on.
The pipeline writes the fingerprint of the plan it ran into ``results/<profile>/cost.json``;
``python3 tasks.py measure`` copies it into docs/measurements.yaml (key ``plan``), and
tests/test_measurements.py fails when an entry's fingerprint is not its profile's today.

The fingerprint hashes the number of steps and the parsed profile (``parse_config``:
defaults filled, so the profile file and the Snakefile's validated config give the same one)
without what does not change the work: the description, the output paths and the progress
lines. The profile holds every input of the plan (traces, days, hours, samples, schedulers,
variants, the experiments' eta, c and days, regimes, the physical step); the steps catch a
change of the rules. A run counts the steps it did (its Snakemake log, ``steps_done``), a
test those a dry run in an empty folder plans (``planned_steps``): a run resumed from a
partial one did fewer steps than its plan and is not a measurement of it.

    python -m compass.experiments.fingerprint config/quick.yaml 84   # prints the fingerprint
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from compass.experiments.config import PipelineConfig, parse_config

#: How many hex digits of the SHA-256 a fingerprint keeps.
DIGITS = 12


#: Snakemake's progress line; its last one in a run's log counts the steps the run did.
_PROGRESS = re.compile(r"^(\d+) of (\d+) steps \(100%\) done", re.MULTILINE)
#: The total of a dry run's "Job stats" table.
_TOTAL = re.compile(r"^total\s+(\d+)\s*$", re.MULTILINE)


def plan_record(cfg: PipelineConfig, steps: int | None) -> dict[str, Any]:
    """What the fingerprint hashes: the steps and the parsed profile without its
    description, output paths and progress switch (JSON-ready)."""
    record = asdict(cfg)
    for key in ("spec", "outputs"):
        record.pop(key, None)
    record["run"].pop("progress", None)
    return {"steps": steps, "profile": record}


def fingerprint(cfg: PipelineConfig, steps: int | None) -> str:
    """The plan's fingerprint: the first ``DIGITS`` hex digits of the SHA-256 of its
    canonical JSON."""
    text = json.dumps(plan_record(cfg, steps), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:DIGITS]


def profile_fingerprint(raw: Mapping[str, Any] | str | Path, steps: int | None) -> str:
    """The fingerprint of a profile given as its dict or its YAML file, with its steps."""
    if not isinstance(raw, Mapping):
        raw = yaml.safe_load(Path(raw).read_text())
    return fingerprint(parse_config(raw), steps)


def steps_done(log: str | Path | Sequence[str | Path] | None) -> int | None:
    """The steps a finished run did, from its Snakemake log (``onsuccess`` gets a list of
    log files in Snakemake 9, one path before; None where unreadable)."""
    logs = [log] if isinstance(log, (str, Path)) else list(log or [])
    try:
        found = [m for path in logs for m in _PROGRESS.findall(Path(path).read_text())]
    except OSError:
        return None
    return int(found[-1][1]) if found else None


def planned_steps(dry_run: str) -> int | None:
    """The steps a dry run plans: its "Job stats" total (None where it printed none)."""
    found = _TOTAL.findall(dry_run)
    return int(found[-1]) if found else None


def main(argv: list[str]) -> int:
    """Print the fingerprint of a profile file with its steps."""
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: python -m compass.experiments.fingerprint config/<profile>.yaml STEPS")
        return 2
    print(profile_fingerprint(argv[0], int(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
