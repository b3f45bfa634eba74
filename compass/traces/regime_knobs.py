"""Knobs that reshape a synthetic day toward the paper's baseline regime (sensitivity traces).

The calibrated ``gfs-synth`` and ``venus-synth`` put the paper's baselines far from the bands
the paper reports for them (paper/regime.yaml: composition-day AGU, the case window's
partial and empty nodes and utilisation, section 6.3 and 6.6). Three knobs move a day's
workload toward that regime; none of them looks at a scheduler, COMPASS-ABS included:

* ``gang_cap``: no gang holds more than this share of the cluster's GPUs at the replay's
  sizing (N(eta) of eq. 13 at the lowest paper eta, so at every paper eta), so that one huge
  gang can no longer stall the queue for days; wider gangs lose instances;
* ``subnode_share``: at least this share of the day's instances ask for fewer than G GPUs
  (the sub-node demand that leaves partial nodes): single-instance G-GPU jobs take a
  sub-node size drawn like the day's own single-instance sub-node jobs, as far as there are
  such jobs to relabel;
* ``duration_scale``: every duration times this factor (more load, higher utilisation).

The defaults change nothing (``RegimeKnobs().identity``). ``data/calibration/paper_regime.yaml``
holds the fitted knobs of the ``*-paper-regime`` kinds (``compass.experiments.studies.regime.fit``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compass.model import G_DEFAULT, PAPER_ETAS
from compass.traces.paths import data_file
from compass.traces.windows import Window, cluster_size

#: The fitted knobs' file under data/ (written by ``compass.experiments.studies.regime.fit``).
KNOBS_FILE = "calibration/paper_regime.yaml"
#: The gang cap is taken at the cluster size of this eta: N(eta) grows with eta, so a gang
#: inside the cap here is inside it at every paper eta.
SIZING_ETA = min(PAPER_ETAS)


@dataclass(frozen=True)
class RegimeKnobs:
    """How a synthetic day is reshaped: gang cap (share of the cluster's GPUs, None: no cap),
    the least share of sub-node instances, and the duration factor."""

    gang_cap: float | None = None
    subnode_share: float = 0.0
    duration_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.gang_cap is not None and not 0.0 < self.gang_cap <= 1.0:
            raise ValueError(f"gang_cap must be in (0, 1] or None, got {self.gang_cap}")
        if not 0.0 <= self.subnode_share <= 1.0:
            raise ValueError(f"subnode_share must be in [0, 1], got {self.subnode_share}")
        if not (math.isfinite(self.duration_scale) and self.duration_scale > 0.0):
            raise ValueError(f"duration_scale must be a finite number > 0, got "
                             f"{self.duration_scale}")

    @property
    def identity(self) -> bool:
        """Whether these knobs leave every day as it is."""
        return self == RegimeKnobs()

    def record(self) -> dict[str, float | None]:
        """YAML-ready form (``from_record`` reads it back)."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RegimeKnobs:
        """Knobs from a mapping of the three fields (clear error on any other key)."""
        unknown = set(record) - {"gang_cap", "subnode_share", "duration_scale"}
        if unknown:
            raise ValueError(f"unknown regime knob(s) {sorted(unknown)}; expected gang_cap, "
                             "subnode_share, duration_scale")
        cap = record.get("gang_cap")
        return cls(None if cap is None else float(cap), float(record.get("subnode_share", 0.0)),
                   float(record.get("duration_scale", 1.0)))


def subnode_instance_share(g: np.ndarray, w: np.ndarray, gpus_per_node: int = G_DEFAULT) -> float:
    """Share of the instances (sum of w) whose size g is below one node."""
    total = int(np.sum(w))
    return float(np.sum(w[g < gpus_per_node]) / total) if total else math.nan


def raise_subnode_share(g: np.ndarray, w: np.ndarray, share: float, rng: np.random.Generator,
                        gpus_per_node: int = G_DEFAULT) -> np.ndarray:
    """``g`` with single-instance full-node jobs relabelled to sub-node sizes until at least
    ``share`` of the instances are sub-node (as far as such jobs reach; unchanged when the
    share is already met). New sizes are drawn like the single-instance sub-node jobs of the
    same frame (1 GPU when it has none)."""
    g = np.asarray(g, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    need = math.ceil(share * int(w.sum()) - 1e-9) - int(w[g < gpus_per_node].sum())
    if need <= 0:
        return g.copy()
    movers = rng.permutation(np.flatnonzero((g == gpus_per_node) & (w == 1)))[:need]
    pool = g[(g < gpus_per_node) & (w == 1)]
    out = g.copy()
    out[movers] = rng.choice(pool, size=movers.size) if pool.size else 1
    return out


def gang_limit(frame: pd.DataFrame, cap: float, within: Window | None,
               eta: float = SIZING_ETA, gpus_per_node: int = G_DEFAULT) -> int:
    """The most GPUs a gang may hold: ``cap`` of the GPUs of N(eta)'s demand part (eq. 13)
    for ``frame``'s jobs in ``within``, never below one node."""
    nodes = cluster_size(frame, eta, gpus_per_node, within).demand_nodes
    return max(gpus_per_node, int(math.floor(cap * gpus_per_node * nodes + 1e-9)))


def cap_gangs(frame: pd.DataFrame, cap: float, within: Window | None, eta: float = SIZING_ETA,
              gpus_per_node: int = G_DEFAULT) -> pd.DataFrame:
    """``frame`` with every gang cut to ``gang_limit`` GPUs (fewer instances of the same g).

    Cutting lowers the demand and so the limit: repeated until the limit of the capped frame
    is the limit it was capped to, so every gang lies within ``cap`` of the replay's sizing.
    """
    out = frame.copy()
    g = out["gpus_per_instance"].to_numpy(dtype=np.int64)
    limit = None
    while True:
        new = gang_limit(out, cap, within, eta, gpus_per_node)
        if new == limit:
            return out
        limit = new
        w = out["num_instances"].to_numpy(dtype=np.int64)
        out["num_instances"] = np.where(g * w > limit, np.maximum(limit // g, 1), w)


def reshape_day(frame: pd.DataFrame, knobs: RegimeKnobs, rng: np.random.Generator,
                within: Window | None, keep_sizes: bool = False) -> pd.DataFrame:
    """One day's jobs under ``knobs``: sub-node share (skipped with ``keep_sizes``, e.g. on a
    day whose Table 2 mix is fixed), then durations, then the gang cap (sized on the result)."""
    out = frame.copy()
    if knobs.subnode_share > 0 and not keep_sizes:
        out["gpus_per_instance"] = raise_subnode_share(
            out["gpus_per_instance"].to_numpy(), out["num_instances"].to_numpy(),
            knobs.subnode_share, rng)
    if knobs.duration_scale != 1.0:
        out["duration"] = out["duration"].to_numpy(dtype=float) * knobs.duration_scale
    if knobs.gang_cap is not None and len(out):
        out = cap_gangs(out, knobs.gang_cap, within)
    return out


def read_knobs(path: str | Path | None = None) -> dict[str, RegimeKnobs]:
    """The knobs of each paper-regime kind in the fit's YAML (default: ``KNOBS_FILE``)."""
    source = data_file(KNOBS_FILE) if path is None else Path(path)
    raw = yaml.safe_load(source.read_text()) or {}
    kinds = raw.get("kinds")
    if not isinstance(kinds, Mapping) or not kinds:
        raise ValueError(f"{source}: no 'kinds' mapping of kind -> knobs")
    return {str(kind): RegimeKnobs.from_record(entry["knobs"]) for kind, entry in kinds.items()}
