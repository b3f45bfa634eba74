"""What a pipeline run cost, written beside its results: ``results/<profile>/cost.json``.

The Snakefile makes a ``RunCost`` when it is parsed and its ``onsuccess`` hook writes the
record: wall time since the process started (as ``time`` counts it, on Linux; elsewhere
since the Snakefile was parsed), CPU seconds of Snakemake and of every job it waited for
(``resource.getrusage``: the jobs' scripts, papermill and their kernels), the cores Snakemake
was given and the machine has, the load average at the start and at the end (a shared
machine's load says how far the wall time is from an idle machine's), the fingerprint of the
plan it ran (``compass.experiments.fingerprint``), the report's verdict counts, the peak
resident memory of the largest process (Snakemake or a step it waited for) and the disk its
output folders take. A measurement quoted
in the docs is one copy away: ``python3 tasks.py measure --from results/<p>/cost.json``.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compass.experiments.runs import cpu_seconds

#: File name of the record in the profile's results folder.
COST_FILE = "cost.json"


def commit(folder: Path) -> str | None:
    """The checkout's commit (None outside a git checkout or without git)."""
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def process_age() -> float | None:
    """Seconds since this process started (Linux: /proc), None where unknown."""
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def peak_memory_mb() -> int:
    """The peak resident memory, MiB, of this process or the largest child it waited for
    (Linux and macOS count ``ru_maxrss`` in KiB and bytes)."""
    largest = max(resource.getrusage(who).ru_maxrss
                  for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return round(largest / (2**20 if sys.platform == "darwin" else 2**10))


def disk_bytes(folder: Path) -> int:
    """The bytes of the files under ``folder`` (0 where it does not exist)."""
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


@dataclass
class RunCost:
    """The start of a run: clock and load (made when the Snakefile is parsed)."""

    started: float = field(default_factory=lambda: time.monotonic() - (process_age() or 0.0))
    load_start: tuple[float, float, float] = field(default_factory=os.getloadavg)
    date: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def record(self, profile: str, cores: int | None, repository: Path, plan: str | None = None,
               verdicts: Mapping[str, int] | None = None, outputs: Sequence[Path] = (),
               verdicts_text: str | None = None) -> dict[str, Any]:
        """The run's cost until now, with the fingerprint of its plan, the report's verdict
        counts and how the report prints them (None where the run wrote no claims table)
        and the disk of ``outputs``."""
        return {
            "profile": profile,
            "date": self.date,
            "wall_s": round(time.monotonic() - self.started, 1),
            "cpu_s": round(cpu_seconds(), 1),  # since the process started, as `time` counts
            "cores": cores,
            "machine_cores": os.cpu_count(),
            "machine": f"{platform.system()} {platform.machine()}, Python "
                       f"{platform.python_version()}",
            "load_start": [round(x, 2) for x in self.load_start],
            "load_end": [round(x, 2) for x in os.getloadavg()],
            "commit": commit(repository),
            "plan": plan,
            "verdicts": dict(verdicts) if verdicts is not None else None,
            "verdicts_text": verdicts_text,
            "peak_memory_mb": peak_memory_mb(),
            "disk_mb": round(sum(disk_bytes(f) for f in dict.fromkeys(outputs)) / 2**20),
        }

    def write(self, path: Path, profile: str, cores: int | None, repository: Path,
              plan: str | None = None, verdicts: Mapping[str, int] | None = None,
              outputs: Sequence[Path] = (), verdicts_text: str | None = None) -> dict[str, Any]:
        """Write the record to ``path`` (JSON) and return it."""
        record = self.record(profile, cores, repository, plan, verdicts, outputs,
                             verdicts_text)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2) + "\n")
        return record
