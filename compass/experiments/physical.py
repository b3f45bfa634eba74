"""Phys-Mix from real runs (section 5.1): the physical runs' headline numbers beside c.

The ``physical`` rule runs the profile's Phys-Mix jobs as PyTorch training on Ray
(``compass.runtime``) under each scheduler and writes ``results/<profile>/physical/``.
Everything here is measured on the machine that ran it (emulated nodes train on CPU), so it
varies from run to run; the label says so.
"""

from __future__ import annotations

import pandas as pd

from compass.experiments.results import Results

#: Columns of ``physical``: the simulator's headline metrics plus what only a real run has.
PHYSICAL_COLUMNS = (
    "scheduler", "afr", "ajct", "agu", "migrations", "mean_migration_latency_s", "c",
    "restarts", "jobs", "wall_s",
)


def physical(res: Results) -> pd.DataFrame:
    """One row per scheduler run physically, in the profile's order; empty when the profile
    runs none. ``c`` is the simulator's migration cost, set beside the measured latency."""
    path = res.layout.physical_summary
    if res.config.experiments.physical is None or not path.exists():
        return pd.DataFrame(columns=list(PHYSICAL_COLUMNS))
    runs = pd.read_csv(path)
    runs["c"] = res.config.migration_cost
    return runs[list(PHYSICAL_COLUMNS)].reset_index(drop=True)


def physical_label(res: Results) -> str:
    """Caption: what ran, where, on which data (SYNTHETIC or real), and that it is measured."""
    spec = res.config.experiments.physical
    if spec is None:
        return "no physical runs in this profile (experiments.physical is null)"
    if not res.layout.physical_summary.exists():
        return ("no physical runs: rule physical has not run (it is skipped where the "
                "runtime extra, Ray and PyTorch, is missing)")
    runs = pd.read_csv(res.layout.physical_summary)
    modes = ", ".join(sorted({f"{m} nodes, {d} training" for m, d in
                              zip(runs["mode"], runs["device"])}))
    return (f"MEASURED on Ray ({modes}): the first {spec.max_jobs} jobs of day {spec.day} of "
            f"{res.traces[spec.trace].label}, {spec.nodes} x 8 GPUs, time scale "
            f"{spec.time_scale:g} | profile {res.config.profile}")


def migration_latencies(res: Results) -> pd.DataFrame:
    """Every measured checkpoint-restart (scheduler, job, latency_s and its parts)."""
    spec = res.config.experiments.physical
    frames = []
    for name in spec.schedulers if spec is not None else ():
        path = res.layout.physical / name / "migrations.csv"
        if path.exists() and path.stat().st_size:
            frames.append(pd.read_csv(path).assign(scheduler=name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
