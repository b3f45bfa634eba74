#!/usr/bin/env python3
"""Bootstrap and run the project's tasks with nothing but Python 3.11+ and pip.

    python3 tasks.py run     # the quick pipeline on the embedded default (SYNTHETIC traces)
    python3 tasks.py test    # the test suite (extra arguments go to pytest)
    python3 tasks.py bench   # the benchmarks (writes CSVs to benchmarks/results/)

Each task first creates ``.venv`` and installs the package with its ``dev`` and
``pipeline`` extras, once (again only when pyproject.toml changes).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"


def ensure_env() -> None:
    """Create the virtual environment and install the package if needed."""
    pyproject = ROOT / "pyproject.toml"
    if STAMP.exists() and STAMP.stat().st_mtime >= pyproject.stat().st_mtime:
        return
    if not (BIN / "python").exists():
        print(f"creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", f"{ROOT}[dev,pipeline]"], check=True, cwd=ROOT)
    STAMP.touch()


def run(*cmd: str) -> int:
    return subprocess.run([str(BIN / cmd[0]), *cmd[1:]], cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "bench", "env"}:
        print(__doc__)
        return 2
    task, rest = argv[0], argv[1:]
    ensure_env()
    if task == "run":
        return run("snakemake", "--cores", "all", *rest)
    if task == "test":
        return run("python", "-m", "pytest", *rest)
    if task == "bench":
        status = 0
        for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
            status |= run("python", str(script), *rest)
        return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
