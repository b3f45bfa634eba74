"""compass.traces.explore against direct computations on small frames."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compass.traces.explore import busiest_day, choose_day, shape_table, trace_span

DAY = 86_400.0

jobs = st.lists(st.tuples(st.integers(0, 5), st.floats(0, DAY - 1), st.integers(1, 4),
                          st.sampled_from([1, 2, 4, 8]), st.integers(1, 10_000)),
                min_size=1, max_size=40)


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame({
        "job_id": range(len(rows)),
        "submit_time": [d * DAY + t for d, t, *_ in rows],
        "num_instances": [w for *_, w, g, s in rows],
        "gpus_per_instance": [g for *_, g, s in rows],
        "duration": [float(s) for *_, s in rows]})


@given(jobs)
def test_shape_table_sums_to_the_trace(rows) -> None:
    frame = _frame(rows)
    table = shape_table(frame)
    assert table["jobs"].sum() == len(frame)
    assert table["job_share"].sum() == pytest.approx(1.0)
    work = sum(w * g * s for *_, w, g, s in rows)
    assert table["gpu_time"].sum() == pytest.approx(work)
    assert table["gpu_time"].is_monotonic_decreasing
    for _, row in table.iterrows():
        own = [s for *_, w, g, s in rows if (w, g) == (row.num_instances, row.gpus_per_instance)]
        assert row.jobs == len(own) and row.duration_mean == pytest.approx(sum(own) / len(own))


@given(jobs)
def test_the_busiest_day_and_the_span(rows) -> None:
    frame = _frame(rows)
    work = {}
    for d, _, w, g, s in rows:
        work[d] = work.get(d, 0) + w * g * s
    best = max(work.values())
    assert busiest_day(frame) == min(d for d, v in work.items() if v == best)
    assert trace_span(frame) == (min(work), max(work))
    assert choose_day(frame, None) == busiest_day(frame)
    for d in work:
        assert choose_day(frame, d) == d


def test_a_day_outside_the_span_is_named() -> None:
    frame = _frame([(0, 10.0, 1, 8, 100), (1, 10.0, 1, 8, 50)])
    with pytest.raises(ValueError, match=r"day 92 is outside the trace's span: days 0\.\.1.*"
                                         r"busiest day \(0\)"):
        choose_day(frame, 92)
