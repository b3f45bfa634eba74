"""A small synthetic workload built into the package: the embedded default of ``compass demo``.

SYNTHETIC: the shares below follow the GFS row of the paper's Table 1 loosely (1-GPU
dominant, 8-GPU second, few FF {2, 4} and rare FUF {3, 5, 6, 7} instances); durations are
log-normal and arrivals Poisson. It is a smoke workload, not a calibrated trace.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Per-job size g and its probability (SYNTHETIC, not calibrated).
DEMO_SIZE_SHARES = {1: 0.55, 2: 0.07, 4: 0.08, 8: 0.26, 3: 0.01, 5: 0.01, 6: 0.01, 7: 0.01}


def demo_trace(
    num_jobs: int = 400,
    seed: int = 0,
    mean_interarrival: float = 220.0,
    median_duration: float = 1800.0,
    max_instances: int = 8,
) -> pd.DataFrame:
    """A seeded synthetic trace in the canonical schema (column ``source`` = 'synthetic')."""
    rng = np.random.default_rng(seed)
    sizes = np.array(list(DEMO_SIZE_SHARES))
    probs = np.array(list(DEMO_SIZE_SHARES.values()))
    g = rng.choice(sizes, size=num_jobs, p=probs / probs.sum())
    w = np.minimum(rng.geometric(0.55, size=num_jobs), max_instances)
    w = np.where(g == 1, np.minimum(w, 4), w)
    submit = np.cumsum(rng.exponential(mean_interarrival, size=num_jobs))
    duration = np.maximum(np.round(rng.lognormal(np.log(median_duration), 1.0, num_jobs)), 1.0)
    return pd.DataFrame(
        {
            "job_id": np.arange(num_jobs, dtype=np.int64),
            "submit_time": np.round(submit, 3),
            "duration": duration,
            "num_instances": w.astype(np.int64),
            "gpus_per_instance": g.astype(np.int64),
            "source": "synthetic",
        }
    )
