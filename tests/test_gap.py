"""Where the AJCT gap comes from (compass.experiments.gap): the parts add up to the lead."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compass.experiments.gap import PARTS, decompose


def _runs(rows: list[tuple[int, str, float, float, float, float, float]]) -> pd.DataFrame:
    """(day, scheduler, run time, queue, pause, blocked s, fragmentation-blocked s)."""
    return pd.DataFrame([{"day": d, "seed": 0, "scheduler": s, "ajct": run + q + p,
                          "mean_queue_time": q, "pause_per_job": p, "blocked_s": b,
                          "frag_blocked_s": f} for d, s, run, q, p, b, f in rows])


def test_a_lead_splits_into_pauses_queueing_while_free_and_the_rest():
    """FFT waits 300 s per job, half of it while enough GPUs were free; COMPASS-ABS waits
    100 s, all of it while free, and pauses 5 s per job more: lead 195 s = -5 (pauses)
    + 50 (queue while free: 150 - 100) + 150 (other queueing) + 0."""
    runs = _runs([(d, "compass-abs", 1000.0, 100.0, 5.0, 10.0, 10.0) for d in range(5)]
                 + [(d, "fft", 1000.0, 300.0, 0.0, 10.0, 5.0) for d in range(5)])
    diff = decompose(runs, "compass-abs", "fft")
    assert diff["lead"] == pytest.approx([195.0] * 5)
    assert diff["pauses"] == pytest.approx([-5.0] * 5)
    assert diff["queue_while_free"] == pytest.approx([50.0] * 5)
    assert diff["queue_other"] == pytest.approx([150.0] * 5)
    assert diff["rest"] == pytest.approx([0.0] * 5)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(*(st.floats(0, 1e4) for _ in range(6))), min_size=1, max_size=6))
def test_the_parts_always_add_up_to_the_lead(values):
    rows = []
    for d, (q1, p1, q2, p2, b, f) in enumerate(values):
        rows += [(d, "compass-abs", 500.0 + d, q1, p1, b, min(f, b)),
                 (d, "gfs", 700.0 + d, q2, p2, b, min(f, b) / 2)]
    diff = decompose(_runs(rows), "compass-abs", "gfs")
    total = sum(diff[p] for p in PARTS)
    assert np.allclose(total, diff["lead"], atol=1e-6 * (1 + np.abs(diff["lead"]).max()))
