"""venus-synth beside REAL Venus (``compass.experiments.studies.venus.stand_in``): every
statistic on hand-worked day frames, the table's ratio and total-variation row, the outcome
filter, and the report's reading of which traces are real."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compass.experiments.studies.venus.stand_in import (
    outcome_stats,
    stand_in_regime,
    stand_in_table,
    workload_stats,
)
from compass.experiments.verdict.report import _data_reading


def _day(rows: list[tuple[float, float, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["submit_time", "duration", "num_instances",
                                       "gpus_per_instance"])


def test_workload_statistics_by_hand() -> None:
    one = _day([(0.0, 100.0, 1, 1), (3600.0, 300.0, 2, 8)])        # hours 0 and 1
    two = _day([(86_400 + 7200.0, 200.0, 1, 4)])                  # hour 2 of the next day
    stats = workload_stats([one, two])
    assert stats[("per day", "jobs")] == 1.5
    assert stats[("per day", "GPU-seconds")] == (100 + 16 * 300 + 4 * 200) / 2
    # instances: 1 of g=1, 2 of g=8, 1 of g=4
    assert stats[("instance share by g", "g = 1")] == 0.25
    assert stats[("instance share by g", "g = 8")] == 0.5
    assert stats[("instance share by g", "g = 4")] == 0.25
    assert stats[("job share by w", "w = 1")] == pytest.approx(2 / 3)
    assert stats[("job share by w", "w = 2-4")] == pytest.approx(1 / 3)
    assert stats[("duration (s)", "mean")] == 200.0
    assert stats[("duration (s)", "p50")] == 200.0
    assert stats[("GPU-seconds", "share of jobs over 8 GPUs")] == pytest.approx(4800 / 5700)
    hours = [stats[("arrivals by hour (share of jobs)", f"{h:02d}h")] for h in range(24)]
    assert hours[:3] == pytest.approx([1 / 3] * 3) and sum(hours) == pytest.approx(1.0)


def test_the_table_sets_both_side_by_side_with_the_arrivals_distance() -> None:
    group = "arrivals by hour (share of jobs)"
    real = {("per day", "jobs"): 10.0, (group, "00h"): 1.0, (group, "01h"): 0.0}
    synth = {("per day", "jobs"): 15.0, (group, "00h"): 0.5, (group, "01h"): 0.5,
             ("AFR at eta 0.9", "gfs"): 0.1}
    table = stand_in_table(real, synth)
    assert table.loc[0, "ratio"] == 1.5
    afr = table[table["statistic"] == "gfs"].iloc[0]
    assert np.isnan(afr["real"]) and np.isnan(afr["ratio"])
    tv = table[table["statistic"] == "total-variation distance"].iloc[0]
    assert tv["venus_synth"] == pytest.approx(0.5)


def test_outcomes_are_the_venus_runs_of_the_days_at_eta_and_cost() -> None:
    rows = [("venus", 92, 0.9, 8.0, "gfs", "ok", 0.1, 0.8),
            ("venus", 93, 0.9, 8.0, "gfs", "ok", 0.3, 0.6),
            ("venus", 92, 0.85, 8.0, "gfs", "ok", 9.0, 9.0),    # another eta
            ("venus", 92, 0.9, 1.0, "gfs", "ok", 9.0, 9.0),     # another cost
            ("gfs", 92, 0.9, 8.0, "gfs", "ok", 9.0, 9.0),       # another trace
            ("venus", 94, 0.9, 8.0, "gfs", "ok", 9.0, 9.0),     # another day
            ("venus", 92, 0.9, 8.0, "fgd", "error", 9.0, 9.0)]  # failed
    runs = pd.DataFrame(rows, columns=["trace", "day", "eta", "cost", "scheduler", "status",
                                       "afr", "agu"])
    assert outcome_stats(runs, [92, 93], 0.9, 8.0) == {
        ("AFR at eta 0.9", "gfs"): pytest.approx(0.2),
        ("AGU at eta 0.9", "gfs"): pytest.approx(0.7)}


def test_the_stand_in_regime_and_the_data_reading() -> None:
    regimes = {"paper-regime": {"venus": "venus-paper-regime"},
               "venus-synth": {"venus": "venus-synth", "gfs": "gfs-synth"}}
    assert stand_in_regime(regimes) == "venus-synth"
    assert stand_in_regime({"paper-regime": regimes["paper-regime"]}) is None
    assert _data_reading(["venus"], []) == "Real traces."
    assert _data_reading([], ["gfs"]).startswith("Every comparison is between schedulers on")
    mixed = _data_reading(["venus"], ["gfs", "physmix"])
    assert "venus replay real jobs" in mixed and "gfs, physmix" in mixed
