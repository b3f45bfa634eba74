"""Training DRR's learned placement: replay best-fit DRR on a slice through the simulator.

The policy itself (features, scorer, gradient descent) is ``compass.schedulers.drr_policy``;
producing its examples needs a simulator run of the best-fit teacher, so training lives
here, above the simulator, and DRR receives the trained policy (docs/baselines.md, DRR).
``drr_arguments`` turns the profile's ``scheduler_params.drr`` (``policy: learned``,
``training_trace``, ``policy_config``) into DRR's constructor arguments.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from compass.model import Job
from compass.schedulers import Scheduler
from compass.schedulers.drr import DRR
from compass.schedulers.drr_policy import (
    Decisions,
    LearnedPlacement,
    PolicyConfig,
    PolicyReport,
    RecordingScheduler,
    TrainedPolicy,
    agreement,
    split_holdout,
    submission_days,
    train,
)
from compass.sim.simulator import SimulationConfig, Simulator
from compass.traces.schema import jobs_from_frame, read_trace, validate_trace

#: A training slice: a canonical frame or the path of a canonical CSV.
TrainingTrace = pd.DataFrame | str | Path


def record_decisions(jobs: Sequence[Job], teacher: Scheduler, nodes: int,
                     gpus_per_node: int) -> Decisions:
    """Replay ``jobs`` under ``teacher`` on ``nodes`` nodes and return its decisions."""
    recorder = RecordingScheduler(teacher)
    Simulator(jobs, recorder, SimulationConfig(nodes=nodes, gpus_per_node=gpus_per_node)).run()
    return recorder.decisions(gpus_per_node)


def fit_policy(jobs: Sequence[Job], teacher: Scheduler, nodes: int, gpus_per_node: int,
               config: PolicyConfig, seed: int) -> tuple[LearnedPlacement, PolicyReport]:
    """Record ``teacher`` (best-fit placement) on the training jobs, train, measure agreement.

    Jobs that cannot fit ``nodes`` nodes at all are dropped from the slice (counted).
    """
    fits = [j for j in jobs
            if j.num_instances <= nodes * (gpus_per_node // j.gpus_per_instance)]
    decisions = record_decisions(fits, teacher, nodes, gpus_per_node)
    fit, held = split_holdout(decisions, config.holdout)
    weights = train(fit, config, seed) if len(fit) else None
    measured_on: Literal["holdout", "training", "none"] = (
        "holdout" if len(held) else "training" if len(fit) else "none")
    score = math.nan if weights is None else agreement(weights, held if len(held) else fit)
    report = PolicyReport(len(fits), len(jobs) - len(fits), len(decisions), len(fit),
                          len(held), score, measured_on)
    return LearnedPlacement(weights), report


def train_policy(training_trace: TrainingTrace, *, nodes: int, gpus_per_node: int,
                 seed: int = 0, config: PolicyConfig | Mapping[str, Any] | None = None,
                 **drr: Any) -> TrainedPolicy:
    """Train DRR's placement on ``training_trace`` replayed under best-fit DRR (with the
    drain parameters ``drr``: re_time, util_threshold, re_num) on ``nodes`` nodes."""
    config = config if isinstance(config, PolicyConfig) else PolicyConfig(**(config or {}))
    if isinstance(training_trace, pd.DataFrame):
        frame = validate_trace(training_trace, source="DRR training_trace",
                               gpus_per_node=gpus_per_node)
        label = "<DataFrame>"
    else:
        frame, label = read_trace(training_trace, gpus_per_node=gpus_per_node), str(training_trace)
    jobs = jobs_from_frame(frame)
    placement, report = fit_policy(jobs, DRR(seed=seed, **drr), nodes, gpus_per_node, config,
                                   seed)
    return TrainedPolicy(placement, report, config, label, submission_days(jobs), nodes,
                         gpus_per_node)


def drr_arguments(params: Mapping[str, Any], *, nodes: int, gpus_per_node: int,
                  seed: int) -> dict[str, Any]:
    """DRR's constructor arguments from ``scheduler_params.drr``: ``policy`` ("best-fit" or
    "learned"), with "learned" its ``training_trace`` and optional ``policy_config``, are
    replaced by a policy trained for this cluster (``learned``); the rest pass through."""
    out = dict(params)
    policy = out.pop("policy", "best-fit")
    trace, config = out.pop("training_trace", None), out.pop("policy_config", None)
    if policy not in ("best-fit", "learned"):
        raise ValueError(f"policy must be 'best-fit' or 'learned', got {policy!r}")
    if (policy == "learned") != (trace is not None):
        raise ValueError("training_trace is required by, and only by, policy='learned'")
    if config is not None and policy != "learned":
        raise ValueError("policy_config applies only to policy='learned'")
    if policy == "learned":
        drain = {k: out[k] for k in ("re_time", "util_threshold", "re_num") if k in out}
        out["learned"] = train_policy(trace, nodes=nodes, gpus_per_node=gpus_per_node,
                                      seed=seed, config=config, **drain)
    return out
