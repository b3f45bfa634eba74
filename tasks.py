#!/usr/bin/env python3
"""Bootstrap and run the project's tasks with nothing but Python 3.11+ and pip.

    python3 tasks.py run     # the quick pipeline on the embedded default (SYNTHETIC traces)
    python3 tasks.py test    # the test suite (extra arguments go to pytest)
    python3 tasks.py bench   # the benchmarks (writes CSVs to benchmarks/results/)
    python3 tasks.py lab     # JupyterLab on notebooks/ (extra arguments go to jupyter lab)
    python3 tasks.py env     # only create .venv and install
    python3 tasks.py measure ID -- COMMAND...             # time COMMAND (wall, CPU, load)
    python3 tasks.py measure ID --from results/quick/cost.json   # or take a pipeline run's
                             # record; both write entries ID-wall and ID-cpu (and a run's
                             # plan fingerprint, verdict counts, memory and disk) to
                             # docs/measurements.yaml (replacing older ones of that ID) and
                             # regenerate the docs' cost tables from it
    python3 tasks.py lock    # regenerate requirements.lock from pyproject.toml's ranges
                             # (keeps pins still in range; `lock --upgrade`: newest of all)
                             # and environment.yml (conda) from the same ranges

Each task first creates ``.venv`` and installs the package with its ``dev`` and ``pipeline``
extras, once (again when pyproject.toml or the lock changes): the exact versions of
``requirements.lock`` (hash-checked) by default, pyproject's ranges with ``--unlocked``.
``--physical`` also installs the physical mode (``torch==2.13.0``, then the ``runtime``
extra: Ray). Options go before or right after the task: ``python3 tasks.py env --physical``.
The environment lives in ``.venv`` unless ``COMPASS_VENV`` names another folder (relative to
the repository), e.g. ``COMPASS_VENV=.venv-physical python3 tasks.py test --physical``: CI
tests a newcomer's install and the physical one side by side, each from a clean folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
import venv
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / os.environ.get("COMPASS_VENV", ".venv")
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"
PHYSICAL_STAMP = VENV / ".installed-physical"
LOCK = ROOT / "requirements.lock"
ENVIRONMENT = ROOT / "environment.yml"
QUICK = ROOT / "config" / "quick.yaml"  # the README's run: the quick profile
#: the lock holds the wheels' hashes for this interpreter and platform (pip-compile's markers)
LOCK_TARGET = ("Linux", (3, 11))
EXTRAS = "dev,pipeline"
#: pinned first, so that pip takes the CPU build of this machine's wheel store, not CUDA's
TORCH = "torch==2.13.0"
LOCK_TOOL = "pip-tools==7.6.2"
LOCK_VENV = ROOT / ".venv-lock"
TASKS = {"run", "test", "bench", "lab", "env", "lock", "measure"}
MEASUREMENTS = ROOT / "docs" / "measurements.yaml"
FLAGS = {"--unlocked", "--physical"}


def pip(*args: str) -> None:
    """``pip install`` into .venv, quietly; stop on failure."""
    cmd = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*cmd, *args], check=True, cwd=ROOT)


def lock_usable() -> bool:
    """Whether requirements.lock was compiled for this platform and Python (else: ranges)."""
    here = (platform.system(), sys.version_info[:2])
    if here == LOCK_TARGET:
        return True
    print(f"requirements.lock is for CPython {'.'.join(map(str, LOCK_TARGET[1]))} on "
          f"{LOCK_TARGET[0]}; installing from pyproject.toml's ranges instead", flush=True)
    return False


def install_key(locked: bool) -> str:
    """What an install depends on: the mode and the files it reads."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    if locked:
        digest.update(LOCK.read_bytes())
    return f"{'locked' if locked else 'unlocked'} {digest.hexdigest()}\n"


def ensure_env(*, locked: bool = True, physical: bool = False) -> None:
    """Create the virtual environment and install the package (and physical mode) if needed."""
    locked = locked and lock_usable()
    key = install_key(locked)
    if not (STAMP.exists() and STAMP.read_text() == key):
        if not (BIN / "python").exists():
            print(f"creating {VENV}", flush=True)
            venv.EnvBuilder(with_pip=True).create(VENV)
        print(f"installing compass[{EXTRAS}] "
              + ("from requirements.lock" if locked else "from pyproject.toml's ranges"),
              flush=True)
        if locked:
            pip("-r", str(LOCK))  # every wheel pinned and hash-checked
            pip("--no-deps", "-e", str(ROOT))
        else:
            pip("-e", f"{ROOT}[{EXTRAS}]")
        STAMP.write_text(key)
    if physical and not (PHYSICAL_STAMP.exists() and PHYSICAL_STAMP.read_text() == key):
        print(f"installing the physical mode: {TORCH}, then compass[runtime]", flush=True)
        pip(TORCH)
        if locked:  # Ray may add packages, but must not move a locked one
            pins = VENV / "lock-pins.txt"
            pins.write_text(lock_pins(LOCK.read_text()))
            pip("-c", str(pins), "-e", f"{ROOT}[runtime]")
        else:
            pip("-e", f"{ROOT}[runtime]")
        PHYSICAL_STAMP.write_text(key)


def lock_pins(lock: str) -> str:
    """The lock's ``name==version`` lines without hashes: pip refuses hashes in a constraints
    file that also installs an editable package."""
    return "".join(line.removesuffix("\\").rstrip() + "\n" for line in lock.splitlines()
                   if "==" in line and not line.startswith(("#", " ")))


def compile_lock(*options: str) -> int:
    """requirements.lock from pyproject.toml's ranges (pip-tools in its own venv); pins still
    within the ranges are kept unless ``options`` say ``--upgrade`` (or ``-P PACKAGE``)."""
    tool = LOCK_VENV / BIN.name
    if not (tool / "pip-compile").exists():
        venv.EnvBuilder(with_pip=True).create(LOCK_VENV)
        subprocess.run([str(tool / "python"), "-m", "pip", "install", "-q", LOCK_TOOL],
                       check=True)
    return subprocess.run([
        str(tool / "pip-compile"), "--quiet", "--extra", "dev", "--extra", "pipeline",
        "--strip-extras", "--generate-hashes", "--unsafe-package", "compass",
        "--no-emit-index-url", "--no-emit-find-links", "--no-emit-trusted-host",
        "--output-file", LOCK.name, *options, "pyproject.toml",
    ], cwd=ROOT, env={**os.environ, "CUSTOM_COMPILE_COMMAND": "python3 tasks.py lock"}).returncode


#: Installed by pip inside the conda environment: Snakemake as pip installs it (conda-forge
#: has no current one; it lives on bioconda), and the runtime extra, whose conda-forge builds
#: differ (``pytorch``, ``ray-default``) and which a GPU cluster installs for its own CUDA.
CONDA_PIP_ONLY = {"snakemake", "torch", "ray"}
#: The extras environment.yml holds, in its order (all but the package itself: ``pip install
#: -e . --no-deps`` after ``conda env create``).
CONDA_EXTRAS = ("dev", "notebooks", "pipeline", "runtime")


def environment_yml(project: dict) -> str:
    """environment.yml (conda-forge) from pyproject.toml's ``[project]`` table: the runtime
    dependencies and every extra's, with the same ranges, so that the conda route installs
    what pip does (``tasks.py lock`` writes it; tests/test_tasks.py fails on drift)."""
    conda, pips = [], []
    groups = [("dependencies", project["dependencies"])]
    groups += [(f"extra {e}", project["optional-dependencies"][e]) for e in CONDA_EXTRAS]
    for title, requirements in groups:
        texts = [r.replace(" ", "") for r in requirements
                 if not r.startswith(project["name"] + "[")]  # an extra that includes another
        here = [t for t in texts if re.match(r"[\w.-]+", t)[0] not in CONDA_PIP_ONLY]
        conda += [f"  # {title}"] * bool(here) + [f"  - {t}" for t in here]
        pips += [f"      - {t}" for t in texts if t not in here]
    return "\n".join([
        "# Generated from pyproject.toml by `python3 tasks.py lock`: do not edit (a test fails",
        "# on drift). The ranges of pyproject.toml; the exact versions CI tests are in",
        "# requirements.lock. conda env create -f environment.yml && conda activate compass",
        "# && pip install --no-deps -e .  (on a GPU cluster, install the torch build matching",
        "# its CUDA instead of pip's)",
        "name: compass",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        f"  - python{project['requires-python']}",
        *conda,
        "  - pip",
        "  - pip:",
        *pips,
        "",
    ])


def write_environment() -> None:
    """environment.yml from pyproject.toml (``tasks.py lock``)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    ENVIRONMENT.write_text(environment_yml(project))


def duration(seconds: float) -> str:
    """How the docs write a wall time: ``1 h 2 min``, ``20 min 33 s``, ``58 s``."""
    if seconds >= 3570:  # an hour or more, to the nearest minute
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"{hours} h {minutes} min"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def measurement_entries(name: str, cost: dict) -> list[dict]:
    """The entries of docs/measurements.yaml for a measured run: ``cost`` as
    ``results/<profile>/cost.json`` holds it (wall_s, cpu_s, cores, load_start, load_end,
    date, commit; profile, command, the plan's fingerprint and the verdict counts where
    known): wall and CPU time, and the verdict counts where the run recorded them."""
    loads = f"{cost['load_start'][0]:.1f} at the start, {cost['load_end'][0]:.1f} at the end"
    common = {"kind": "measured", "command": cost.get("command", "snakemake"),
              "profile": cost.get("profile"), "machine": cost.get("machine", ""),
              "cores": cost["cores"], "load": loads, "date": cost["date"][:10],
              "commit": (cost.get("commit") or "")[:7] or None, "plan": cost.get("plan")}
    cpu = round(cost["cpu_s"])
    verdicts = cost.get("verdicts")
    counted = [{"id": f"{name}-verdicts", "figure": f"{name}: the report's verdict counts",
                "value": verdicts, "unit": "verdicts", "quoted": [cost["verdicts_text"]],
                **common}] if verdicts else []
    sizes = [{"id": f"{name}-{key.removesuffix('_mb').replace('_', '-')}",
              "figure": f"{name}: {what}", "value": cost[key], "unit": "MB",
              "quoted": [f"{cost[key]:,} MB"], **common}
             for key, what in (("peak_memory_mb", "peak resident memory of its largest process"),
                               ("disk_mb", "disk of its output folders"))
             if cost.get(key) is not None]
    return [*counted, *sizes,
        {"id": f"{name}-wall", "figure": f"{name}: wall time", "value": round(cost["wall_s"]),
         "unit": "s", "quoted": [duration(cost["wall_s"])], **common},
        {"id": f"{name}-cpu", "figure": f"{name}: CPU seconds", "value": cpu,
         "unit": "CPU-s", "quoted": [f"{cpu:,} CPU-seconds"], **common},
    ]


def run_cost(command: list[str], started: float) -> dict:
    """The cost.json a Snakemake ``command`` wrote after ``started`` (epoch seconds): its
    profile's (``--configfile config/<p>.yaml``; the full profile without one); {} where
    it wrote none."""
    if not any(Path(part).name == "snakemake" for part in command):
        return {}
    profile = "full"
    for i, part in enumerate(command[:-1]):
        if part == "--configfile":
            profile = Path(command[i + 1]).stem
    path = ROOT / "results" / profile / "cost.json"
    return json.loads(path.read_text()) if path.is_file() and path.stat().st_mtime > started \
        else {}


def write_measurements(text: str, entries: list[dict]) -> str:
    """docs/measurements.yaml's ``text`` with ``entries`` in place of those with their ids
    (appended where new): JSON scalars, which YAML reads as they are."""
    lines = text.splitlines()
    for entry in entries:
        block = [f"- id: {json.dumps(entry['id'])}"] + [
            f"  {key}: {json.dumps(value)}" for key, value in entry.items() if key != "id"]
        heads = [i for i, line in enumerate(lines)
                 if line in (f"- id: {entry['id']}", f"- id: {json.dumps(entry['id'])}")]
        if heads:
            end = heads[0] + 1
            while end < len(lines) and lines[end].startswith("  "):
                end += 1
            lines[heads[0]:end] = block
        else:
            lines += block
    return "\n".join(lines) + "\n"


def measure(rest: list[str]) -> int:
    """``measure ID -- COMMAND...`` or ``measure ID --from COST_JSON``: docs/measurements.yaml
    entries from a timed command or a pipeline run's cost.json."""
    if len(rest) < 3 or rest[1] not in ("--", "--from"):
        print("usage: tasks.py measure ID -- COMMAND... | measure ID --from COST_JSON")
        return 2
    name = rest[0]
    if rest[1] == "--from":
        cost = json.loads(Path(rest[2]).read_text())
        status = 0
    else:
        load_start, started, epoch = os.getloadavg(), time.monotonic(), time.time()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        status = subprocess.run(rest[2:], cwd=ROOT).returncode
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        cost = {**{k: v for k, v in run_cost(rest[2:], epoch).items()
                    if k in ("profile", "plan", "verdicts", "verdicts_text",
                             "peak_memory_mb", "disk_mb")},
                "wall_s": time.monotonic() - started,
                "cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
                "cores": os.cpu_count(), "load_start": list(load_start),
                "load_end": list(os.getloadavg()), "command": " ".join(rest[2:]),
                "date": datetime.now(UTC).isoformat(), "commit": commit,
                "machine": f"{platform.system()} {platform.machine()}, "
                           f"{os.cpu_count()} cores, Python {platform.python_version()}"}
    entries = measurement_entries(name, cost)
    MEASUREMENTS.write_text(write_measurements(MEASUREMENTS.read_text(), entries))
    for entry in entries:
        print(f"{entry['id']}: quote {entry['quoted'][0]!r}")
    # the docs' cost tables are made from the YAML (compass.experiments.cost_tables)
    python = BIN / "python"
    if python.exists():
        subprocess.run([str(python), "-m", "compass.experiments.cost_tables"], cwd=ROOT)
    return status


def run(*cmd: str) -> int:
    return subprocess.run([str(BIN / cmd[0]), *cmd[1:]], cwd=ROOT).returncode


def parse(argv: list[str]) -> tuple[str | None, set[str], list[str]]:
    """The task, its options (before it or right after it) and the arguments it passes on."""
    flags: set[str] = set()
    rest = list(argv)
    while rest and rest[0] in FLAGS:
        flags.add(rest.pop(0))
    task = rest.pop(0) if rest and rest[0] in TASKS else None
    while rest and rest[0] in FLAGS:
        flags.add(rest.pop(0))
    return task, flags, rest


def main(argv: list[str]) -> int:
    task, flags, rest = parse(argv)
    if task is None:
        print(__doc__)
        return 2
    if task == "measure":
        return measure(rest)
    if task == "lock":
        write_environment()
        return compile_lock(*rest)
    ensure_env(locked="--unlocked" not in flags, physical="--physical" in flags)
    if task == "run":
        # the quick profile unless the caller names one (the Snakefile's default is full)
        profile = [] if "--configfile" in rest else ["--configfile", str(QUICK)]
        return run("snakemake", "--cores", "all", *profile, *rest)
    if task == "test":
        return run("python", "-m", "pytest", *rest)
    if task == "lab":
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0  # containers often run as root
        root = ["--ServerApp.allow_root=True"] if as_root else []
        return run("jupyter", "lab", f"--ServerApp.root_dir={ROOT / 'notebooks'}", *root, *rest)
    if task == "bench":
        status = 0
        for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
            status |= run("python", str(script), *rest)
        return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
