"""Connecting to Ray: emulate the cluster's nodes on this machine, or attach to a cluster.

Emulation (no ``address``): a local Ray instance with one custom resource
``compass_node_<n>`` of G slots per emulated node and no GPUs; every instance trains on one
CPU thread. Attached (``address``, e.g. "auto" or "ray://head:10001"): every Ray node of
the cluster must have been started with its ``compass_node_<n>`` resource (docs/runtime.md);
instances also ask Ray for their g GPUs and train on CUDA when the cluster has GPUs.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import ray

from compass.runtime import Device
from compass.runtime.worker import NAMESPACE, node_resource


@dataclass(frozen=True)
class RayCluster:
    """The Ray cluster a run executes on."""

    nodes: int
    gpus_per_node: int
    #: "cpu" or "cuda": where instances train
    device: str
    #: True when the nodes are emulated by custom resources of a local Ray instance
    emulated: bool
    address: str | None


#: tries at starting a local Ray instance (``start_local``)
LOCAL_START_TRIES = 3


def start_local(nodes: int, gpus_per_node: int, num_cpus: int | None = None) -> None:
    """Start a local Ray instance emulating ``nodes`` x ``gpus_per_node``.

    Ray gives its raylet a fixed 30 s to register; on a machine whose cores are all busy it
    may miss that ("The current node timed out during startup"), so a failed start is shut
    down and tried again, up to ``LOCAL_START_TRIES`` times."""
    for attempt in range(1, LOCAL_START_TRIES + 1):
        try:
            ray.init(num_cpus=num_cpus or os.cpu_count() or 1, num_gpus=0,
                     include_dashboard=False, namespace=NAMESPACE,
                     logging_level=logging.WARNING,
                     resources={node_resource(n): gpus_per_node for n in range(nodes)})
            return
        except Exception as err:  # Ray raises a bare Exception for the start-up timeout
            ray.shutdown()
            if attempt == LOCAL_START_TRIES or "timed out during startup" not in str(err):
                raise
            logging.getLogger(__name__).warning("Ray did not start (%s); trying again", err)


@contextmanager
def connect(nodes: int, gpus_per_node: int, address: str | None = None,
            device: Device = "auto") -> Iterator[RayCluster]:
    """Start (or attach to) Ray for the run; shut down only what this call started.

    When Ray is already initialised in this process (tests, notebooks), that instance is
    used as it is, emulated or not, and left running.
    """
    owned = not ray.is_initialized()
    if owned and address:
        ray.init(address=address, namespace=NAMESPACE, logging_level=logging.WARNING)
    elif owned:
        start_local(nodes, gpus_per_node)
    try:
        resources = ray.cluster_resources()
        missing = [n for n in range(nodes) if resources.get(node_resource(n), 0) < gpus_per_node]
        if missing:
            raise RuntimeError(
                f"the Ray cluster has no {node_resource(missing[0])} resource of "
                f"{gpus_per_node} slots (nodes {missing} missing): start Ray node n with "
                f"ray start --resources '{{\"{node_resource(0)[:-1]}n\": {gpus_per_node}}}' "
                f"--num-gpus {gpus_per_node} (docs/runtime.md)")
        gpus = resources.get("GPU", 0)
        if device == "auto":
            device = "cuda" if gpus >= 1 else "cpu"
        if device == "cuda" and gpus < nodes * gpus_per_node:
            raise RuntimeError(f"device='cuda' needs {nodes * gpus_per_node} GPUs in the Ray "
                               f"cluster, it has {gpus:g}")
        yield RayCluster(nodes, gpus_per_node, device, emulated=gpus == 0, address=address)
    finally:
        if owned:
            ray.shutdown()
