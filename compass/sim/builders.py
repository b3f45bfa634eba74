"""Builders: how a scheduler's run parameters become its constructor arguments where that
needs more than the scheduler layer (DRR's ``policy: learned`` is a policy trained through
the simulator for the run's cluster). The layer above the schedulers registers them by
scheduler name, so that no scheduler names a module above it; a plugin scheduler registers
its own with ``register_builder``. ``run_inputs.build_scheduler`` calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: ``builder(params, nodes=, gpus_per_node=, seed=)`` -> the constructor's arguments.
Builder = Callable[..., dict[str, Any]]


def _drr(params: Mapping[str, Any], *, nodes: int, gpus_per_node: int,
         seed: int) -> dict[str, Any]:
    """DRR's (``drr_training.drr_arguments``), imported on use: training loads the
    simulator, which a run that builds no DRR never needs."""
    from compass.sim.drr_training import drr_arguments

    return drr_arguments(params, nodes=nodes, gpus_per_node=gpus_per_node, seed=seed)


_BUILDERS: dict[str, Builder] = {"drr": _drr}


def register_builder(scheduler: str, builder: Builder) -> None:
    """Build the scheduler registered as ``scheduler`` through ``builder`` from now on."""
    _BUILDERS[scheduler] = builder


def builder_of(scheduler: str) -> Builder | None:
    """The builder of a scheduler name, or None when its parameters go in unchanged."""
    return _BUILDERS.get(scheduler)
