"""Text job ids: accepted by the canonical schema and kept as given in every output.

Inside, the simulator numbers such jobs by FIFO position; a run with text ids must make the
same decisions as the same trace with ids 0, 1, ... and return the given ids everywhere.
"""

from __future__ import annotations

import pandas as pd
import pytest

import compass
from compass.schedulers import available
from compass.traces import TraceError, demo_trace, read_trace, validate_trace
from compass.traces.schema import external_ids, jobs_from_frame, restore_ids

NAMES = [f"pod-{k:03d}x" for k in range(60)]


def _traces() -> tuple[pd.DataFrame, pd.DataFrame]:
    numbered = demo_trace(num_jobs=60, seed=3, max_instances=6).reset_index(drop=True)
    assert numbered["job_id"].tolist() == list(range(60))
    return numbered, numbered.assign(job_id=list(reversed(NAMES)))  # not in FIFO text order


@pytest.mark.parametrize("scheduler", available())
def test_text_ids_survive_a_simulation_under_every_scheduler(scheduler):
    numbered, named = _traces()
    a = compass.simulate(numbered, scheduler, nodes=6, migration_cost=4.0, seed=0)
    b = compass.simulate(named, scheduler, nodes=6, migration_cost=4.0, seed=0)
    given = dict(zip(numbered["job_id"], named["job_id"]))
    assert b.jobs["job_id"].tolist() == named["job_id"].tolist()
    expected = a.jobs.assign(job_id=a.jobs["job_id"].map(given))
    pd.testing.assert_frame_equal(b.jobs, expected)
    pd.testing.assert_frame_equal(b.timeline, a.timeline)
    moved = a.migrations.assign(job_id=a.migrations["job_id"].map(given))
    pd.testing.assert_frame_equal(b.migrations, moved, check_dtype=not moved.empty)
    assert {k: v for k, v in b.summary.items() if k != "trace"} == {
        k: v for k, v in a.summary.items() if k != "trace"}


def test_some_scheduler_migrates_so_the_log_is_checked():
    numbered, named = _traces()
    logs = [compass.simulate(named, s, nodes=6, seed=0).migrations for s in
            ("compass-abs", "sifopt")]
    moved = pd.concat(logs)
    assert len(moved) and set(moved["job_id"]) <= set(NAMES)


def test_text_ids_read_from_a_file_keep_their_spelling(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("job_id,submit_time,duration,num_instances,gpus_per_instance\n"
                    "b 7,0,10,1,8\n0012,0,5,2,4\nA,3,4,1,1\n")
    frame = read_trace(path)
    assert frame["job_id"].tolist() == ["b 7", "0012", "A"]  # ties keep the row order
    result = compass.simulate(path, "gfs", nodes=2)
    assert result.jobs["job_id"].tolist() == ["b 7", "0012", "A"]
    assert [j.job_id for j in jobs_from_frame(frame)] == [0, 1, 2]


def test_whole_number_ids_are_unchanged():
    numbered, _ = _traces()
    assert external_ids(numbered) is None
    assert restore_ids(numbered, None) is numbered
    assert [j.job_id for j in jobs_from_frame(numbered)] == list(range(60))


@pytest.mark.parametrize("ids, times, column, problem", [
    (["a", "a"], [0, 1], "job_id", "duplicate job_id a"),
    (["a", " "], [0, 1], "job_id", "missing value"),
    (["a", None], [0, 1], "job_id", "missing value"),
    (["a", "b"], [5, 1], "submit_time", "sorted"),
    ([2, 1.5], [0, 1], "job_id", "whole number"),
])
def test_bad_text_ids_name_row_and_column(ids, times, column, problem):
    frame = pd.DataFrame({"job_id": ids, "submit_time": times, "duration": [1, 1],
                          "num_instances": [1, 1], "gpus_per_instance": [1, 1]})
    with pytest.raises(TraceError) as err:
        validate_trace(frame)
    assert err.value.row == 2 and err.value.column == column and problem in str(err.value)
