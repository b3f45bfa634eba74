"""The work directory of a physical run: which run it holds, and starting one safely.

It holds the journal (``journal.sqlite``), the checkpoints (``checkpoints/job-<id>.pt``)
and the rendezvous files of one run. Trainers restore whatever checkpoint they find there,
so a new run must not start where another run left checkpoints; a resumed run must find
the journal of the run it continues (docs/runtime.md, "Faults and controller restarts").
"""

from __future__ import annotations

import json
import logging
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

from compass.runtime.journal import Journal, JournalError

log = logging.getLogger(__name__)

JOURNAL = "journal.sqlite"
#: What a run leaves in its work directory (``move_aside`` moves all of it).
RUN_FILES = (JOURNAL, f"{JOURNAL}-journal", f"{JOURNAL}-wal", f"{JOURNAL}-shm", "checkpoints",
             "rendezvous")
#: Folder prefix of a previous run's files moved aside by ``--force-new``.
ASIDE_PREFIX = "previous-"


def leftovers(workdir: Path) -> list[str]:
    """What of another run ``workdir`` holds: a non-empty journal, checkpoint files."""
    found = []
    journal = workdir / JOURNAL
    if journal.is_file() and journal.stat().st_size > 0:
        found.append(f"a journal ({journal})")
    checkpoints = sorted((workdir / "checkpoints").glob("*")) if (
        workdir / "checkpoints").is_dir() else []
    if checkpoints:
        found.append(f"{len(checkpoints)} checkpoint file(s) in {workdir / 'checkpoints'}")
    return found


def move_aside(workdir: Path) -> Path | None:
    """Move a previous run's files into ``workdir/previous-<time>/``; return that folder
    (None when there was nothing to move)."""
    present = [workdir / name for name in RUN_FILES if (workdir / name).exists()]
    if not present:
        return None
    aside = workdir / f"{ASIDE_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}"
    while aside.exists():
        aside = aside.with_name(aside.name + "-1")
    aside.mkdir()
    for path in present:
        shutil.move(str(path), str(aside / path.name))
    log.warning("moved the previous run's files of %s aside into %s", workdir, aside)
    return aside


def open_run(workdir: Path, run_key: dict[str, Any], *, resume: bool,
             force_new: bool = False) -> tuple[Journal, Path | None]:
    """The journal of the run in ``workdir`` and where a previous run's files went.

    A new run needs a work directory without another run's journal or checkpoints (else
    ``FileExistsError``); ``force_new`` moves them aside first. ``resume`` needs the
    journal of a run with the same key (``JournalError`` if it is missing, empty or
    unreadable; ``ValueError`` if the run differs).
    """
    if resume and force_new:
        raise ValueError("resume and force_new exclude each other: continue the run in the "
                         "work directory, or start a new one there")
    path = workdir / JOURNAL
    if resume:
        return _resumed(path, run_key), None
    aside = move_aside(workdir) if force_new else None
    found = leftovers(workdir)
    if found:
        raise FileExistsError(
            f"{workdir} holds what another run left, {' and '.join(found)}: a new run's "
            "trainers would restore its checkpoints. Continue that run with --resume "
            "(resume=True), move its files aside with --force-new (force_new=True), or use "
            "another --workdir")
    journal = Journal(path)
    journal.set_meta({**run_key, "run_id": uuid.uuid4().hex[:12], "wall_origin": time.time()})
    return journal, aside


def _resumed(path: Path, run_key: dict[str, Any]) -> Journal:
    hint = "start a new run without --resume (--force-new moves the work directory's files aside)"
    if not path.is_file():
        raise JournalError(f"journal {path}: not found, nothing to resume: {hint}")
    if path.stat().st_size == 0:
        raise JournalError(f"journal {path}: empty (0 bytes), nothing to resume: {hint}")
    journal = Journal(path)
    try:
        meta = journal.meta()
        if "run_id" not in meta or "wall_origin" not in meta:
            raise JournalError(f"journal {path}: holds no run (no run id), nothing to resume: "
                               f"{hint}")
        key = json.loads(json.dumps(run_key))
        diff = {k: (meta.get(k), v) for k, v in key.items() if meta.get(k) != v}
        if diff:
            raise ValueError(f"cannot resume {path}: the run differs in {diff}")
    except BaseException:
        journal.close()
        raise
    return journal
