"""The multi-panel workload generator and the appendix-D experiment (docs/nvl72.md)."""

from __future__ import annotations

import math

import pytest

from compass.experiments.studies.nvl72.config import Platform
from compass.experiments.studies.nvl72.runs import nvl72
from compass.traces.nvl72 import Nvl72Workload, generate, panel_weights


def test_panel_weights_follow_the_documented_mix() -> None:
    assert panel_weights(2) == {2: 2.0}  # domain-filling only
    w = panel_weights(9)
    assert (w[2], w[3], w[8], w[9]) == (4.0, 1.0, 4.0, 2.0) and set(w) == set(range(2, 10))


def test_generate_sizes_and_share() -> None:
    t = generate(Nvl72Workload(4, 9, jobs=2000, seed=3))
    g = t["gpus_per_instance"]
    assert set(g) <= set(range(1, 9)) | {8 * p for p in range(2, 10)}
    assert abs((g > 8).mean() - 0.25) < 0.04
    assert (t["num_instances"] == 1).all() and t["submit_time"].is_monotonic_increasing
    assert generate(Nvl72Workload(4, 9, jobs=50, seed=3)).equals(
        generate(Nvl72Workload(4, 9, jobs=50, seed=3)))
    assert (generate(Nvl72Workload(4, 1, jobs=300))["gpus_per_instance"] <= 8).all()


def test_bad_share_is_refused() -> None:
    with pytest.raises(ValueError, match="multi_panel_share"):
        Nvl72Workload(1, 2, multi_panel_share=1.5)


def test_experiment_rows() -> None:
    table = nvl72([Platform("K=1", 4, 1), Platform("K=2", 2, 2)],
                  ["compass-abs-hier", "gfs"], jobs=60)
    assert list(table["platform"]) == ["K=1", "K=1", "K=2", "K=2"]
    ok = table[table["status"] == "ok"]
    assert len(ok) >= 3 and (ok["sif_gpu"] >= 0).all() and (ok["ajct"] > 0).all()
    assert math.isnan(table.loc[0, "sif_panel"])
    assert (ok.loc[ok["panels"] > 1, "sif_panel"] >= 0).all()
