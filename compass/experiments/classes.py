"""Table 1: per-class instance shares of each trace, pooled over every instance of its span.

Classes as in the paper's Table 1: I=1, I_FF = {2, 4}, I_FUF = {3, 5, 6, 7}, I=8
(``compass.traces.windows.class_shares``). The synthetic traces are calibrated to Table 1,
so on them agreement is by construction, not a finding; the report says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from compass.experiments.config import ResolvedTrace
from compass.experiments.data import load_full
from compass.traces.windows import class_shares

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("table1",)


def table1(traces: Mapping[str, ResolvedTrace], seed: int,
           canonical: Mapping[str, Path]) -> pd.DataFrame:
    """One row per trace: its data label, instances and the four class shares in percent
    (``canonical``: the canonical CSV of each real trace)."""
    rows = []
    for name, trace in traces.items():
        frame = load_full(trace, seed, canonical.get(name))
        shares = class_shares(frame)
        rows.append({"trace": name, "data": trace.label,
                     "instances": int(frame["num_instances"].sum()),
                     **{f"{k} %": 100.0 * v for k, v in shares.items()}})
    return pd.DataFrame(rows)
