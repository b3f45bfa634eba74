"""Synthetic workloads for multi-panel NVLink domains (appendix D; docs/nvl72.md).

A job is *sub-panel* (g <= 8, one panel) with probability 1 - ``multi_panel_share``, else
*multi-panel* (g = 8p, 2 <= p <= K, eq. 23). Sizes are drawn from documented weights:

* sub-panel g: ``SUB_PANEL_WEIGHTS`` (1-GPU heavy, FF sizes 2/4/8 common, FUF 3/5/6/7 rare,
  in the spirit of the production mixes of section 5);
* multi-panel p: weight 4 for panel-FF p in {2, 4, 8}, 1 for panel-FUF p in {3, 5, 6, 7},
  2 for the domain-filling p = K; other p (9 < p < K only for K > 9) weight 1.

With K = 1 there are no multi-panel sizes and every job is sub-panel (the share is
ignored). Every job has one instance (gang jobs of several multi-panel instances are out of scope).
Arrivals are Poisson with the rate that puts the offered load (GPU-seconds per second)
at ``load`` times the cluster's GPUs; durations are log-normal (median ``median_duration``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from compass.oracle.panels import PANEL_GPUS
from compass.traces.schema import CANONICAL_COLUMNS, validate_trace

#: Sub-panel size weights (g = 1..8).
SUB_PANEL_WEIGHTS = {1: 0.40, 2: 0.15, 3: 0.03, 4: 0.15, 5: 0.02, 6: 0.02, 7: 0.02, 8: 0.21}


def panel_weights(panels: int) -> dict[int, float]:
    """Weights of the panel demand p of a multi-panel job on domains of ``panels`` panels."""
    def weight(p: int) -> float:
        if p == panels:
            return 2.0
        return 4.0 if p in (2, 4, 8) else 1.0
    return {p: weight(p) for p in range(2, panels + 1)}


@dataclass(frozen=True)
class Nvl72Workload:
    """Parameters of one synthetic multi-panel trace (docs/nvl72.md, "Workload")."""

    domains: int
    panels: int
    jobs: int = 400
    multi_panel_share: float = 0.25
    load: float = 1.1
    median_duration: float = 3600.0
    sigma: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.panels < 1 or self.domains < 1 or self.jobs < 1:
            raise ValueError(f"need domains, panels, jobs >= 1: {self}")
        if not 0 <= self.multi_panel_share <= 1:
            raise ValueError(f"multi_panel_share must be in [0, 1]: {self}")

    @property
    def gpus_per_node(self) -> int:
        """GPUs per NVLink domain, G_dom = 8K (eq. 22)."""
        return PANEL_GPUS * self.panels


def _choice(rng: np.random.Generator, weights: dict[int, float], size: int) -> np.ndarray:
    keys = np.array(list(weights))
    p = np.array(list(weights.values()))
    return rng.choice(keys, size=size, p=p / p.sum())


def generate(spec: Nvl72Workload) -> pd.DataFrame:
    """A validated canonical trace for ``spec`` (deterministic in ``spec.seed``)."""
    rng = np.random.default_rng(spec.seed)
    g = _choice(rng, SUB_PANEL_WEIGHTS, spec.jobs)
    if spec.panels > 1:
        multi = rng.random(spec.jobs) < spec.multi_panel_share
        g[multi] = PANEL_GPUS * _choice(rng, panel_weights(spec.panels), int(multi.sum()))
    duration = np.ceil(spec.median_duration * rng.lognormal(0.0, spec.sigma, spec.jobs))
    rate = spec.load * spec.domains * spec.gpus_per_node / float(np.mean(g * duration))
    submit = np.floor(np.cumsum(rng.exponential(1.0 / rate, spec.jobs)))
    frame = pd.DataFrame(
        {"job_id": np.arange(spec.jobs), "submit_time": submit, "duration": duration,
         "num_instances": 1, "gpus_per_instance": g},
        columns=list(CANONICAL_COLUMNS),
    )
    return validate_trace(frame, source=f"nvl72 synthetic {spec}", gpus_per_node=spec.gpus_per_node)
