"""The physical controller's journal: decisions survive a restart and replay identically; a
damaged journal names itself and the next step; the work directory protects a run.

Item 2 of issue 17: every SQLite error is wrapped with the journal's path and what to do;
``--resume`` refuses an empty or unreadable journal; a new run refuses a work directory that
holds another run's journal or checkpoints (``--force-new`` moves them aside).
"""

import sqlite3

import pytest
from trace_rows import trace

from compass.cluster import ClusterState
from compass.runtime.journal import Journal, JournalError, journal_error
from compass.runtime.workdir import open_run
from compass.schedulers import create
from compass.sim.dispatch import Dispatcher
from compass.traces import jobs_from_frame, validate_trace

ROWS = [(0, 0, 20, 2, 3), (1, 2, 80, 2, 1), (2, 4, 80, 1, 1), (3, 40, 20, 1, 2)]


def _run_dispatcher(jobs, journal=None):
    """Arrivals at their submit times, departures at start + duration, one by one."""
    dispatcher = Dispatcher(create("compass-abs"), ClusterState(2))
    dispatcher.reset(jobs)
    ends, out = {}, []
    events = sorted({j.submit_time for j in jobs})
    while events:
        t = events.pop(0)
        arrived = [j for j in jobs if j.submit_time == t]
        departed = [j for j in jobs if ends.get(j.job_id) == t]
        instant = dispatcher.step(t, departures=departed, arrivals=arrived)
        for job_id in instant.started:
            ends[job_id] = t + jobs[job_id].duration
            events = sorted(set(events) | {ends[job_id]})
        if journal is not None:
            journal.log_instant(instant, False, [j.job_id for j in arrived])
        out.append(instant)
    return out


def test_journaled_instants_replay_to_the_same_decisions(tmp_path):
    jobs = jobs_from_frame(validate_trace(trace(*ROWS)))
    journal = Journal(tmp_path / "j.sqlite")
    live = _run_dispatcher(jobs, journal)
    assert any(i.moves for i in live)  # the trace forces a Compact migration
    journal.close()

    logged = Journal(tmp_path / "j.sqlite").instants()
    assert [(i.time, i.started, i.moves) for i in logged] == [
        (i.time, i.started, i.moves) for i in live]
    fresh = Dispatcher(create("compass-abs"), ClusterState(2))
    fresh.reset(jobs)
    for rec in logged:
        instant = fresh.step(rec.time, departures=[jobs[j] for j in rec.departed],
                             timer=rec.timer, arrivals=[jobs[j] for j in rec.arrived])
        assert (instant.started, instant.moves) == (rec.started, rec.moves)


def test_job_states_placements_and_migrations(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    journal.set_meta({"run_id": "abc", "wall_origin": 1.5})
    assert journal.meta() == {"run_id": "abc", "wall_origin": 1.5}
    assert journal.job(4) is None
    journal.launched(4, 1, (0, 1), 10.0, "start")
    journal.executed(4, 1, [0, 1])
    journal.launched(4, 2, (1, 1), 20.0, "migrate")
    journal.migration(20.0, 4, 2, (0, 1), (1, 1), step=7, checkpoint_s=0.1)
    journal.migration_latency(4, 2, 3.5, 2.0, 1.0)
    journal.launched(4, 3, (1, 1), 25.0, "restart")
    journal.restarted(4, 3, 25.0, "fault")
    journal.restored(4, 3, 9)
    journal.finished(4, 12)
    state = journal.job(4)
    assert (state.generation, state.nodes, state.phase, state.restarts, state.steps) == (
        3, (1, 1), "done", 1, 12)
    placements = journal.frame("placements")
    assert placements["reason"].tolist() == ["start"] * 2 + ["migrate"] * 2 + ["restart"] * 2
    assert placements["executed"].head(2).tolist() == [0, 1]
    assert journal.frame("migrations")["latency_s"].tolist() == [3.5]
    assert journal.frame("restarts")["restored_step"].tolist() == [9]
    with pytest.raises(ValueError):
        journal.frame("sqlite_master")


# ------------------------------------------------------------------ damaged journals
ADVICE = "--force-new"


def _journal_with_rows(path, jobs=20):
    """A journal of some 40 kB (pages of metadata, placements and jobs)."""
    journal = Journal(path)
    journal.set_meta({"run_id": "abc", "wall_origin": 1.5,
                      **{f"note{k}": "x" * 100 for k in range(300)}})
    for k in range(jobs):
        journal.launched(k, 1, tuple(range(64)), 1.0, "start")
    journal.close()
    assert path.stat().st_size > 30_000


def _damage(path, start=4096):
    data = bytearray(path.read_bytes())
    for i in range(start, len(data), 3):
        data[i] = 0xAB
    path.write_bytes(bytes(data))


def test_a_file_that_is_no_database_names_the_journal_and_the_next_step(tmp_path):
    path = tmp_path / "journal.sqlite"
    path.write_bytes(b"this is not a database\n" * 200)
    with pytest.raises(JournalError) as err:
        Journal(path)
    message = str(err.value)
    assert str(path) in message and "file is not a database" in message and ADVICE in message
    assert isinstance(err.value.__cause__, sqlite3.DatabaseError)


@pytest.mark.parametrize("start", [100, 4096, 20000])
def test_every_sqlite_error_of_a_damaged_journal_is_wrapped(tmp_path, start):
    """Whichever call meets the damage (opening, a read, pandas' read, a write), it raises
    JournalError naming the file and what to do, never a bare SQLite error."""
    path = tmp_path / "journal.sqlite"
    _journal_with_rows(path)
    _damage(path, start)
    calls = [lambda j: j.meta(), lambda j: j.instants(), lambda j: j.job(7),
             lambda j: j.frame("placements"), lambda j: j.launched(999, 1, (0,), 2.0, "start"),
             lambda j: j.finished(7, 3), lambda j: j.frame("checkpoint_faults")]
    failures = 0
    try:
        journal = Journal(path)
    except JournalError as err:
        assert str(path) in str(err) and ADVICE in str(err)
        return
    for call in calls:
        try:
            call(journal)
        except JournalError as err:
            failures += 1
            assert str(path) in str(err) and "malformed" in str(err) and ADVICE in str(err)
    assert failures >= 1


@pytest.mark.parametrize(("text", "advice"), [
    ("database disk image is malformed", "damaged"),
    ("file is not a database", "damaged"),
    ("no such table: instants", "damaged"),
    ("database is locked", "Another controller holds the journal"),
    ("unable to open database file", "writable"),
    ("attempt to write a readonly database", "writable"),
    ("something else", "Check the file and its disk"),
])
def test_each_sqlite_error_gets_its_next_step(tmp_path, text, advice):
    err = journal_error(tmp_path / "j.sqlite", sqlite3.OperationalError(text))
    assert str(err).startswith(f"journal {tmp_path / 'j.sqlite'}: {text} (OperationalError). ")
    assert advice in str(err)


def test_a_journal_in_a_folder_that_cannot_hold_it(tmp_path):
    (tmp_path / "journal.sqlite").mkdir()  # a directory where the file should be
    with pytest.raises(JournalError, match="unable to open .*writable"):
        Journal(tmp_path / "journal.sqlite")


# ------------------------------------------------------------------ the work directory
KEY = {"scheduler": "compass-abs", "seed": 0, "nodes": 2}


def _new(workdir, **kw):
    journal, aside = open_run(workdir, KEY, resume=False, **kw)
    run_id = journal.meta()["run_id"]
    journal.close()
    return run_id, aside


def test_resume_refuses_a_missing_empty_or_unreadable_journal(tmp_path):
    with pytest.raises(JournalError, match="not found, nothing to resume"):
        open_run(tmp_path, KEY, resume=True)
    (tmp_path / "journal.sqlite").write_bytes(b"")
    with pytest.raises(JournalError, match=r"empty \(0 bytes\), nothing to resume"):
        open_run(tmp_path, KEY, resume=True)
    (tmp_path / "journal.sqlite").write_bytes(b"garbage" * 100)
    with pytest.raises(JournalError, match="file is not a database.*--force-new"):
        open_run(tmp_path, KEY, resume=True)
    (tmp_path / "journal.sqlite").unlink()
    Journal(tmp_path / "journal.sqlite").close()  # tables, but no run
    with pytest.raises(JournalError, match="holds no run"):
        open_run(tmp_path, KEY, resume=True)


def test_resume_continues_the_same_run_only(tmp_path):
    run_id, _ = _new(tmp_path)
    journal, aside = open_run(tmp_path, KEY, resume=True)
    assert journal.meta()["run_id"] == run_id and aside is None
    journal.close()
    with pytest.raises(ValueError, match="differs"):
        open_run(tmp_path, {**KEY, "seed": 1}, resume=True)
    with pytest.raises(ValueError, match="exclude each other"):
        open_run(tmp_path, KEY, resume=True, force_new=True)


def test_a_new_run_refuses_another_runs_checkpoints_until_moved_aside(tmp_path):
    """The issue's case: a zero-byte journal beside an old run's checkpoints."""
    (tmp_path / "journal.sqlite").write_bytes(b"")
    old = tmp_path / "checkpoints" / "job-3.pt"
    old.parent.mkdir()
    old.write_bytes(b"an old run's parameters")
    with pytest.raises(FileExistsError, match=r"1 checkpoint file\(s\).*--resume.*--force-new"):
        _new(tmp_path)
    run_id, aside = _new(tmp_path, force_new=True)
    assert aside is not None and aside.parent == tmp_path
    assert aside.name.startswith("previous-")
    assert (aside / "checkpoints" / "job-3.pt").read_bytes() == b"an old run's parameters"
    assert (aside / "journal.sqlite").exists() and not (tmp_path / "checkpoints").exists()
    with pytest.raises(FileExistsError, match="a journal"):
        _new(tmp_path)  # the new run's own journal now
    again, second = _new(tmp_path, force_new=True)
    assert again != run_id and second != aside and (second / "journal.sqlite").exists()


def test_a_clean_or_empty_work_directory_starts_a_run(tmp_path):
    assert _new(tmp_path / "fresh")[1] is None
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "journal.sqlite").write_bytes(b"")
    assert _new(tmp_path / "empty")[1] is None
    assert _new(tmp_path / "nothing", force_new=True)[1] is None  # nothing to move aside
