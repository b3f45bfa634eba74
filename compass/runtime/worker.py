"""The Ray actor of one instance, pinned to its node with its g GPUs (section 5.1).

Node pinning uses one custom Ray resource per cluster node, ``compass_node_<n>``, worth the
node's G GPU slots: an instance of g GPUs asks for g of them, so Ray can only start it on
node n and never over-commits a node. On a real cluster every Ray node is started with its
own ``compass_node_<n>`` resource and ``--num-gpus G``, and the actor also asks for
``num_gpus=g``; on one machine the nodes are emulated by the custom resources alone. The
actor reports the node Ray actually gave it, which the controller checks against the
scheduler's decision.

Actors are named ``<run>/j<job>/k<instance>/g<generation>`` and detached, so they outlive a
controller that crashes: a restarted controller finds them by name and adopts them.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import asdict
from typing import Any

import ray
import torch

from compass.runtime.trainer import InstanceSpec, Trainer, join_group

NODE_RESOURCE_PREFIX = "compass_node_"
#: Ray namespace of every named actor of the runtime
NAMESPACE = "compass"


def node_resource(node: int) -> str:
    """The custom Ray resource that stands for cluster node ``node``."""
    return f"{NODE_RESOURCE_PREFIX}{node}"


def actor_name(run_id: str, job_id: int, instance: int, generation: int) -> str:
    return f"{run_id}/j{job_id}/k{instance}/g{generation}"


class InstanceWorker:
    """One instance: joins its job's group, restores the checkpoint, trains in a thread."""

    def __init__(self, spec: InstanceSpec) -> None:
        torch.set_num_threads(1)
        self.spec = spec
        self.trainer = Trainer(spec)
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started: dict[str, Any] | None = None
        #: when the process was up with model and optimiser built (latency breakdown)
        self._born = time.time()

    def start(self) -> dict[str, Any]:
        """Join the group, restore, start training; return the node Ray placed us on, the
        restored step, the unreadable checkpoints skipped (``faults``: file, error; and
        ``resumed_from``) and when training resumed. Idempotent: a controller that adopts
        the actor after a restart calls it again and gets the same answer."""
        if self._started is None:
            join_group(self.spec)
            restored = self.trainer.restore()
            self._thread = threading.Thread(target=self._train, daemon=True)
            self._thread.start()
            self._started = {"node": assigned_node(), "step": self.trainer.step,
                             "resumed_from": restored.resumed_from,
                             "faults": [asdict(f) for f in restored.faults],
                             "born_wall": self._born, "ready_wall": time.time()}
        return self._started

    def poll(self) -> dict[str, Any]:
        t = self.trainer
        return {"step": t.step, "done": t.done, "error": self.error}

    def stop(self) -> int:
        """Checkpoint-and-stop: every rank stops after the same step; rank 0 saves.

        An instance that never started (nothing restored) refuses, so it cannot overwrite
        the job's checkpoint with fresh parameters."""
        self._stop.set()
        if self._thread is None:
            raise RuntimeError(f"job {self.spec.job_id} rank {self.spec.rank} never started")
        self._thread.join()
        if self.error is not None:
            raise RuntimeError(f"job {self.spec.job_id} rank {self.spec.rank}: {self.error}")
        if self.spec.rank == 0:
            self.trainer.save()
        return self.trainer.step

    def _train(self) -> None:
        try:
            self.trainer.run(self._stop)
        except Exception:  # reported by poll(): the controller restarts the job
            self.error = traceback.format_exc(limit=3)


def assigned_node() -> int:
    """The cluster node whose ``compass_node_<n>`` resource Ray gave this actor."""
    nodes = [int(k[len(NODE_RESOURCE_PREFIX):])
             for k in ray.get_runtime_context().get_assigned_resources()
             if k.startswith(NODE_RESOURCE_PREFIX)]
    if len(nodes) != 1:
        raise RuntimeError(f"actor holds {len(nodes)} node resources, expected one")
    return nodes[0]


_RemoteWorker = ray.remote(max_restarts=0)(InstanceWorker)


def launch(spec: InstanceSpec, *, name: str, node: int, gpus: int, device: str) -> Any:
    """Create the actor of one instance on ``node`` with ``gpus`` GPU slots (non-blocking)."""
    return _RemoteWorker.options(
        name=name, namespace=NAMESPACE, lifetime="detached", num_cpus=0,
        num_gpus=gpus if device.startswith("cuda") else 0,
        resources={node_resource(node): gpus},
    ).remote(spec)


def find(name: str) -> Any | None:
    """The live actor called ``name``, or None."""
    try:
        return ray.get_actor(name, namespace=NAMESPACE)
    except ValueError:
        return None
