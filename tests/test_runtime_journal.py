"""The physical controller's journal: decisions survive a restart and replay identically."""

import pytest
from trace_rows import trace

from compass.cluster import ClusterState
from compass.dispatch import Dispatcher
from compass.runtime.journal import Journal
from compass.schedulers import create
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
