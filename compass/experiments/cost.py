"""What a pipeline run cost, written beside its results: ``results/<profile>/cost.json``.

The Snakefile makes a ``RunCost`` when it is parsed and its ``onsuccess`` hook writes the
record: wall time since the process started (as ``time`` counts it, on Linux; elsewhere
since the Snakefile was parsed), CPU seconds of Snakemake and of every job it waited for
(``resource.getrusage``: the jobs' scripts, papermill and their kernels), the cores Snakemake
was given and the machine has, and the load average at the start and at the end (a shared
machine's load says how far the wall time is from an idle machine's). A measurement quoted
in the docs is one copy away: ``python3 tasks.py measure --from results/<p>/cost.json``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
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


@dataclass
class RunCost:
    """The start of a run: clock and load (made when the Snakefile is parsed)."""

    started: float = field(default_factory=lambda: time.monotonic() - (process_age() or 0.0))
    load_start: tuple[float, float, float] = field(default_factory=os.getloadavg)
    date: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def record(self, profile: str, cores: int | None, repository: Path) -> dict[str, Any]:
        """The run's cost until now."""
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
        }

    def write(self, path: Path, profile: str, cores: int | None,
              repository: Path) -> dict[str, Any]:
        """Write the record to ``path`` (JSON) and return it."""
        record = self.record(profile, cores, repository)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2) + "\n")
        return record
