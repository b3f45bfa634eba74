"""compass: SIF, COMPASS-ABS and its baselines on an event-driven GPU-cluster simulator.

Data flows one way: ``traces`` -> ``simulator`` (a ``Scheduler`` over a ``ClusterState``)
-> ``metrics`` -> experiments. The entry points most users need are re-exported here,
imported on first use so that ``import compass.model`` stays light.
"""

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "simulate": "compass.api",
    "SimulationResult": "compass.api",
    "sweep": "compass.sweeping",
    "inherent_partial_nodes": "compass.oracle.fragmentation",
    "wcc_holds": "compass.oracle.fragmentation",
    "load_trace": "compass.traces",
    "Job": "compass.model",
    "ClusterState": "compass.cluster",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'compass' has no attribute {name!r}")
