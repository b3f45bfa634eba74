"""Bad trace input raises TraceError naming the source, the row and the column."""

import pandas as pd
import pytest

from compass.traces import TraceError, demo_trace, read_trace, validate_trace

GOOD = "job_id,submit_time,duration,num_instances,gpus_per_instance\n0,0,10,1,8\n1,5,20,2,4\n"


def _write(tmp_path, text):
    p = tmp_path / "trace.csv"
    p.write_text(text)
    return p


def test_reads_good_file(tmp_path):
    df = read_trace(_write(tmp_path, GOOD))
    assert list(df["job_id"]) == [0, 1] and df["duration"].dtype == float
    assert df["num_instances"].dtype.kind == "i"


@pytest.mark.parametrize(
    "row, column, problem",
    [
        ("2,9,-1,1,1", "duration", "must be > 0"),
        ("2,9,0,1,1", "duration", "must be > 0"),
        ("2,9,5,1,9", "gpus_per_instance", "must be in 1..8"),
        ("2,9,5,1,0", "gpus_per_instance", "must be in 1..8"),
        ("2,9,5,0,1", "num_instances", "must be >= 1"),
        ("2,9,abc,1,1", "duration", "non-numeric value 'abc'"),
        ("2,nine,5,1,1", "submit_time", "non-numeric"),
        ("2,9,5,1.5,1", "num_instances", "whole number"),
        ("2,9,,1,1", "duration", "missing value"),
        ("1,9,5,1,1", "job_id", "duplicate job_id 1"),
        ("2,1,5,1,1", "submit_time", "sorted"),
        ("2,-9,5,1,1", "submit_time", "must be >= 0, got -9.0"),
        ("2,9,5,1e23,1", "num_instances", "numeric overflow: 1e23 does not fit a 64-bit"),
        ("2,9,1e400,1,1", "duration", "numeric overflow: 1e400 is beyond the range"),
        ("2,9,inf,1,1", "duration", "non-finite value 'inf'"),
    ],
)
def test_bad_rows_name_file_row_and_column(tmp_path, row, column, problem):
    path = _write(tmp_path, GOOD + row + "\n")
    with pytest.raises(TraceError) as err:
        read_trace(path)
    e = err.value
    assert (e.row, e.column, e.line) == (3, column, 4)
    message = str(e)
    assert str(path) in message and "row 3 (line 4)" in message and f"'{column}'" in message
    assert problem in message


def test_unsorted_ids_at_equal_time():
    df = pd.DataFrame({"job_id": [5, 4], "submit_time": [0, 0], "duration": [1, 1],
                       "num_instances": [1, 1], "gpus_per_instance": [1, 1]})
    with pytest.raises(TraceError, match="row 2, column 'job_id'"):
        validate_trace(df)


def test_missing_column(tmp_path):
    path = _write(tmp_path, "job_id,submit_time,duration,num_instances\n0,0,1,1\n")
    with pytest.raises(TraceError, match="missing column.*gpus_per_instance"):
        read_trace(path)


def test_missing_and_empty_file(tmp_path):
    with pytest.raises(TraceError, match="file not found"):
        read_trace(tmp_path / "nope.csv")
    with pytest.raises(TraceError, match="file is empty"):
        read_trace(_write(tmp_path, ""))


def test_extra_columns_kept_and_demo_is_valid_and_labelled():
    df = validate_trace(demo_trace(num_jobs=50, seed=3))
    assert len(df) == 50 and set(df["source"]) == {"synthetic"}
    assert df.equals(validate_trace(demo_trace(num_jobs=50, seed=3)))
    assert not df.equals(validate_trace(demo_trace(num_jobs=50, seed=4)))
