"""A run's tables as CSV or Parquet (``compass.sim.table_files``): both formats give back the
frame written, and the CLI, ``SimulationResult`` and the pipeline write the one asked for."""

from __future__ import annotations

import math
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.api import SimulationResult, simulate
from compass.cli import main
from compass.sim.table_files import FORMATS, read_frame, table_format, table_path, write_frame
from compass.traces import demo_trace

#: Text that a CSV reader takes for text: a letter first (so no number), never a missing-value
#: token such as "NA" or "nan" (all start with a capital or "n", the letters left out).
TEXT = st.text(alphabet="xyz_" + string.digits, max_size=8).map(lambda s: f"x{s}")


@st.composite
def frames(draw) -> pd.DataFrame:
    """Frames of whole numbers, floats with NaN, and text with missing values."""
    rows = draw(st.integers(1, 12))
    ints = draw(st.lists(st.integers(-2**62, 2**62), min_size=rows, max_size=rows))
    floats = draw(st.lists(st.floats(allow_infinity=False) | st.just(math.nan),
                           min_size=rows, max_size=rows))
    texts = draw(st.lists(TEXT | st.none(), min_size=rows, max_size=rows))
    return pd.DataFrame({"n": np.array(ints, dtype="int64"),
                         "x": np.array(floats, dtype="float64"),
                         "s": [math.nan if t is None else t for t in texts]})


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=60, deadline=None)
@given(frame=frames())
def test_a_frame_comes_back_as_written(tmp_path_factory, fmt, frame):
    path = write_frame(frame, table_path(tmp_path_factory.mktemp("t"), "runs", fmt))
    assert path.suffix == f".{fmt}"
    back = read_frame(path)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)


def test_the_suffix_names_the_format(tmp_path):
    assert table_format("a/runs.parquet") == "parquet" and table_format("runs.CSV") == "csv"
    with pytest.raises(ValueError, match="not 'md'"):
        table_format("runs.md")
    with pytest.raises(ValueError, match="one of"):
        table_path(tmp_path, "runs", "xlsx")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_simulation_result_reads_back_what_it_wrote(tmp_path, fmt):
    result = simulate(demo_trace(num_jobs=40, seed=1), "gfs", nodes=4)
    result.write(tmp_path, fmt)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{t}.{fmt}" for t in SimulationResult.TABLES] + ["summary.json"])
    back = SimulationResult.read(tmp_path)
    for name in SimulationResult.TABLES:
        pd.testing.assert_frame_equal(getattr(back, name), getattr(result, name),
                                      check_dtype=fmt == "parquet")
    assert back.metadata == result.metadata
    assert back.summary.keys() == result.summary.keys()


def test_the_cli_writes_parquet_when_asked(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--trace", "demo", "--nodes", "6", "--out", str(out),
                 "--table-format", "parquet", "--quiet"]) == 0
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert len(jobs) and not (out / "jobs.csv").exists()
    assert {"time", "sif"} <= set(pd.read_parquet(out / "timeline.parquet").columns)
    # --no-timeline removes a stale timeline of either format
    assert main(["simulate", "--trace", "demo", "--nodes", "6", "--out", str(out),
                 "--no-timeline", "--quiet"]) == 0
    assert not list(out.glob("timeline.*")) and (out / "jobs.csv").exists()
    assert main(["demo", "--out", str(tmp_path / "demo"), "--jobs", "30", "--nodes", "6",
                 "--schedulers", "gfs", "fgd", "--table-format", "parquet", "--quiet"]) == 0
    assert list(read_frame(tmp_path / "demo" / "summary.parquet")["scheduler"]) == ["gfs", "fgd"]
    assert main(["sweep", "--trace", "demo", "--nodes", "6", "--schedulers", "gfs",
                 "--grid", "cost=1,8", "--no-cache", "--out", str(tmp_path / "sweep.csv"),
                 "--table-format", "parquet"]) == 0
    assert len(pd.read_parquet(tmp_path / "sweep.parquet")) == 2
    assert "sweep.parquet" in capsys.readouterr().out
