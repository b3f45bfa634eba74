"""The controller's journal (SQLite): every decision and every job's executed state.

Write-ahead: each scheduling instant is journaled (its inputs: time, departed jobs, timer,
arrived jobs; and its outputs: started jobs and applied moves) before the controller acts
on it. A restarted controller replays the inputs through a fresh scheduler (schedulers are
deterministic), checks that the outputs match, and then reconciles the decided placements
with what was executed (the ``jobs`` table: generation and nodes of each job's live gang),
so that no job is lost or started twice. Measured records (migration latencies, executed
placements, restarts, unreadable checkpoints) live here too, so a resumed run reports the
whole run. Every SQLite error comes out as ``JournalError``, naming the file and what to do.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from compass.sim.dispatch import AppliedMove, Instant

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS instants (
    seq INTEGER PRIMARY KEY, time REAL NOT NULL, departed TEXT NOT NULL, timer INTEGER NOT NULL,
    arrived TEXT NOT NULL, started TEXT NOT NULL, moves TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    job_id INTEGER PRIMARY KEY, generation INTEGER NOT NULL, nodes TEXT NOT NULL,
    phase TEXT NOT NULL, restarts INTEGER NOT NULL DEFAULT 0, steps INTEGER);
CREATE TABLE IF NOT EXISTS migrations (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, job_id INTEGER NOT NULL,
    generation INTEGER NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, step INTEGER,
    checkpoint_s REAL, launch_s REAL, restore_s REAL, latency_s REAL);
CREATE TABLE IF NOT EXISTS placements (
    time REAL NOT NULL, job_id INTEGER NOT NULL, generation INTEGER NOT NULL,
    instance INTEGER NOT NULL, decided INTEGER NOT NULL, executed INTEGER,
    reason TEXT NOT NULL, PRIMARY KEY (job_id, generation, instance));
CREATE TABLE IF NOT EXISTS restarts (
    time REAL NOT NULL, job_id INTEGER NOT NULL, generation INTEGER NOT NULL,
    reason TEXT NOT NULL, restored_step INTEGER);
CREATE TABLE IF NOT EXISTS checkpoint_faults (
    time REAL NOT NULL, job_id INTEGER NOT NULL, generation INTEGER NOT NULL,
    file TEXT NOT NULL, error TEXT NOT NULL, resumed_from TEXT NOT NULL, step INTEGER,
    PRIMARY KEY (job_id, generation, file));
"""
#: Journal tables ``Journal.frame`` reads.
TABLES = ("jobs", "migrations", "placements", "restarts", "instants", "checkpoint_faults")

#: What to do about an SQLite error, by a phrase of its message (the first match wins).
_NEXT_STEPS = (
    (("malformed", "not a database", "disk i/o", "encrypted", "no such table",
      "no such column"),
     "The journal is damaged (or not a journal of this compass): the run cannot be resumed "
     "from it. Start a new run with --force-new, which moves the journal and the "
     "checkpoints aside into <workdir>/previous-<time>/, or use another --workdir."),
    (("locked", "busy"),
     "Another controller holds the journal: stop it first, or use another --workdir."),
    (("unable to open", "readonly", "read-only"),
     "Check that the work directory exists and is writable (on a cluster: shared storage "
     "mounted at the same path everywhere)."),
)
_ANY_NEXT_STEP = ("Check the file and its disk; --force-new starts a new run with the "
                  "journal and checkpoints moved aside.")


class JournalError(RuntimeError):
    """The journal cannot be used; the message names its file and the next step."""


def journal_error(path: Path, err: Exception) -> JournalError:
    """``err`` (from SQLite) as a ``JournalError`` naming ``path`` and what to do."""
    text = str(err)
    advice = next((step for phrases, step in _NEXT_STEPS
                   if any(p in text.lower() for p in phrases)), _ANY_NEXT_STEP)
    return JournalError(f"journal {path}: {text} ({type(err).__name__}). {advice}")


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _sqlite(method: _Method) -> _Method:
    """Turn the SQLite errors of a ``Journal`` method into ``JournalError``."""
    @functools.wraps(method)
    def call(self: Journal, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.Error, pd.errors.DatabaseError) as err:
            raise journal_error(self.path, err) from err
    return call  # type: ignore[return-value]


@dataclass(frozen=True)
class LoggedInstant:
    """One journaled instant: the inputs to replay and the outputs to check."""

    time: float
    departed: list[int]
    timer: bool
    arrived: list[int]
    started: list[int]
    moves: list[AppliedMove]


@dataclass(frozen=True)
class JobState:
    """The last gang executed for a job: its generation and nodes, and the job's phase."""

    generation: int
    nodes: tuple[int, ...]
    phase: str
    restarts: int
    steps: int | None


class Journal:
    """An SQLite file; each method is one transaction and raises ``JournalError``."""

    @_sqlite
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        self._db.executescript(_SCHEMA)

    @_sqlite
    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ run metadata
    @_sqlite
    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self._db.execute("SELECT key, value FROM meta")}

    @_sqlite
    def set_meta(self, values: dict[str, Any]) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                 [(k, json.dumps(v)) for k, v in values.items()])

    # ------------------------------------------------------------------ decisions
    @_sqlite
    def log_instant(self, instant: Instant, timer: bool, arrived: list[int]) -> None:
        moves = [[m.instance[0], m.instance[1], m.src, m.dst] for m in instant.moves]
        with self._db:
            self._db.execute(
                "INSERT INTO instants (time, departed, timer, arrived, started, moves) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (instant.time, json.dumps(instant.departed), int(timer), json.dumps(arrived),
                 json.dumps(instant.started), json.dumps(moves)))

    @_sqlite
    def instants(self) -> list[LoggedInstant]:
        rows = self._db.execute("SELECT time, departed, timer, arrived, started, moves "
                                "FROM instants ORDER BY seq")
        return [LoggedInstant(t, json.loads(d), bool(tm), json.loads(a), json.loads(s),
                              [AppliedMove((j, k), src, dst) for j, k, src, dst in json.loads(m)])
                for t, d, tm, a, s, m in rows]

    # ------------------------------------------------------------------ executed state
    @_sqlite
    def job(self, job_id: int) -> JobState | None:
        row = self._db.execute("SELECT generation, nodes, phase, restarts, steps FROM jobs "
                               "WHERE job_id = ?", (job_id,)).fetchone()
        if row is None:
            return None
        gen, nodes, phase, restarts, steps = row
        return JobState(gen, tuple(json.loads(nodes)), phase, restarts, steps)

    @_sqlite
    def launched(self, job_id: int, generation: int, nodes: tuple[int, ...], time: float,
                 reason: str) -> None:
        """A new gang (generation) of the job was launched on ``nodes``."""
        with self._db:
            self._db.execute(
                "INSERT INTO jobs (job_id, generation, nodes, phase) VALUES (?, ?, ?, 'running') "
                "ON CONFLICT(job_id) DO UPDATE SET generation = excluded.generation, "
                "nodes = excluded.nodes, phase = 'running'",
                (job_id, generation, json.dumps(list(nodes))))
            self._db.executemany(
                "INSERT INTO placements VALUES (?, ?, ?, ?, ?, NULL, ?)",
                [(time, job_id, generation, k, n, reason) for k, n in enumerate(nodes)])

    @_sqlite
    def executed(self, job_id: int, generation: int, nodes: list[int]) -> None:
        """The nodes Ray actually started the gang's instances on."""
        with self._db:
            self._db.executemany(
                "UPDATE placements SET executed = ? WHERE job_id = ? AND generation = ? "
                "AND instance = ?", [(n, job_id, generation, k) for k, n in enumerate(nodes)])

    @_sqlite
    def finished(self, job_id: int, steps: int) -> None:
        with self._db:
            self._db.execute("UPDATE jobs SET phase = 'done', steps = ? WHERE job_id = ?",
                             (steps, job_id))

    @_sqlite
    def restarted(self, job_id: int, generation: int, time: float, reason: str,
                  restored_step: int | None = None) -> None:
        with self._db:
            self._db.execute("UPDATE jobs SET restarts = restarts + 1 WHERE job_id = ?",
                             (job_id,))
            self._db.execute("INSERT INTO restarts VALUES (?, ?, ?, ?, ?)",
                             (time, job_id, generation, reason, restored_step))

    @_sqlite
    def restored(self, job_id: int, generation: int, step: int) -> None:
        """The restart of ``generation`` resumed from ``step``."""
        with self._db:
            self._db.execute("UPDATE restarts SET restored_step = ? WHERE job_id = ? "
                             "AND generation = ?", (step, job_id, generation))

    @_sqlite
    def checkpoint_fault(self, time: float, job_id: int, generation: int, file: str, error: str,
                         resumed_from: str, step: int | None) -> None:
        """Generation ``generation`` found checkpoint ``file`` unreadable and resumed from
        ``resumed_from`` ("previous" checkpoint at ``step``, or "scratch"); once per file."""
        with self._db:
            self._db.execute("INSERT OR IGNORE INTO checkpoint_faults VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (time, job_id, generation, file, error, resumed_from, step))

    # ------------------------------------------------------------------ migrations
    @_sqlite
    def migration(self, time: float, job_id: int, generation: int, src: tuple[int, ...],
                  dst: tuple[int, ...], step: int, checkpoint_s: float) -> None:
        """A checkpoint-restart of the job into ``generation``; latency filled in later."""
        with self._db:
            self._db.execute(
                "INSERT INTO migrations (time, job_id, generation, src, dst, step, checkpoint_s) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (time, job_id, generation, json.dumps(list(src)), json.dumps(list(dst)), step,
                 checkpoint_s))

    @_sqlite
    def migration_latency(self, job_id: int, generation: int, latency_s: float,
                          launch_s: float, restore_s: float) -> None:
        """The measured latency of the migration into ``generation`` and two of its parts:
        ``launch_s`` (old actors killed -> new processes up, model built) and ``restore_s``
        (-> group joined, checkpoint loaded, training)."""
        with self._db:
            self._db.execute("UPDATE migrations SET latency_s = ?, launch_s = ?, restore_s = ? "
                             "WHERE job_id = ? AND generation = ?",
                             (latency_s, launch_s, restore_s, job_id, generation))

    # ------------------------------------------------------------------ tables
    @_sqlite
    def frame(self, table: str) -> pd.DataFrame:
        """A journal table as a DataFrame (``jobs``, ``migrations``, ``placements``, ...)."""
        if table not in TABLES:
            raise ValueError(f"no journal table {table!r}")
        return pd.read_sql_query(f"SELECT * FROM {table}", self._db)
