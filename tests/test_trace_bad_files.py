"""Files that are not traces (not UTF-8, binary, numbers that overflow) raise TraceError.

The Python API and the CLI give the same one-line message: the schema validation owns it.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compass.traces import TraceError, load_trace, read_trace, validate_trace
from compass.traces.schema import plain

HEADER = "job_id,submit_time,duration,num_instances,gpus_per_instance\n"
HELIOS = Path(__file__).parent / "data" / "traces" / "helios_cluster_log.csv"


def _write(tmp_path: Path, data: bytes, name: str = "trace.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_non_utf8_bytes_name_the_line(tmp_path):
    path = _write(tmp_path, (HEADER + "0,0,10,1,1\n1,0,10,1,").encode() + b"\xff\xfe1\n")
    for read in (read_trace, load_trace):
        with pytest.raises(TraceError, match=r"not UTF-8 text: byte 0xff at line 3") as err:
            read(path)
        assert str(path) in str(err.value)


def test_binary_garbage_is_refused(tmp_path):
    garbage = random.Random(0).randbytes(4096)
    path = _write(tmp_path, garbage)
    with pytest.raises(TraceError, match="not UTF-8 text"):
        read_trace(path)
    with pytest.raises(TraceError, match="not UTF-8 text"):
        load_trace(path)


def test_a_folder_is_not_a_trace(tmp_path):
    with pytest.raises(TraceError, match="is a folder"):
        read_trace(tmp_path)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=300),
                      st.text(max_size=200).map(lambda t: (HEADER + t).encode())))
def test_any_bytes_load_or_raise_trace_error(tmp_path, data):
    """Whatever the file holds, reading it gives a valid frame or a one-line TraceError."""
    path = _write(tmp_path, data)
    for read in (read_trace, load_trace):
        try:
            frame = read(path)
        except TraceError as err:
            assert "\n" not in str(err)
        else:
            assert (frame["submit_time"] >= 0).all() and (frame["duration"] > 0).all()
            assert (frame["num_instances"] >= 1).all()


def test_overflowing_whole_numbers_never_wrap(tmp_path):
    frame = pd.DataFrame({"job_id": [0], "submit_time": [0.0], "duration": [1.0],
                          "num_instances": [1e23], "gpus_per_instance": [1]})
    with pytest.raises(TraceError, match=r"numeric overflow: 1e\+23 does not fit a 64-bit") as err:
        validate_trace(frame)
    assert "-9223372036854775808" not in str(err.value)
    frame["num_instances"] = [2.0**62]  # large but representable: not an overflow
    assert validate_trace(frame)["num_instances"].iloc[0] == 2**62


def test_upstream_loaders_refuse_overflow_too(tmp_path):
    text = HELIOS.read_text().splitlines()
    cells = text[1].split(",")
    cells[5] = "1e23"  # node_num: the instance count w
    path = _write(tmp_path, "\n".join([text[0], ",".join(cells), *text[2:]]).encode())
    with pytest.raises(TraceError, match=r"row 1 \(line 2\), column 'node_num': numeric overflow"):
        load_trace(path, "helios")


def test_negative_submit_time_refused_for_frames_too():
    frame = pd.DataFrame({"job_id": [0], "submit_time": [-10.0], "duration": [1.0],
                          "num_instances": [1], "gpus_per_instance": [1]})
    with pytest.raises(TraceError, match=r"column 'submit_time': must be >= 0, got -10\.0$"):
        validate_trace(frame)


def test_messages_show_plain_numbers():
    frame = pd.DataFrame({"job_id": [0], "submit_time": [0.0], "duration": [np.float64(-10.0)],
                          "num_instances": [1], "gpus_per_instance": [1]})
    with pytest.raises(TraceError) as err:
        validate_trace(frame)
    assert str(err.value).endswith("must be > 0, got -10.0")
    assert "np." not in str(err.value)
    assert (plain(np.int64(9)), plain(np.float64(0.5)), plain("a b")) == ("9", "0.5", "'a b'")
