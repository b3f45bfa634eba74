"""First-fit: each instance on the lowest-index node with room (a plain reference policy)."""

from __future__ import annotations

import heapq

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import Placement, Scheduler, fill_in_order
from compass.schedulers.registry import register


def first_fit_gang(state: ClusterState, g: int, w: int) -> tuple[int, ...] | None:
    """First-fit nodes for w instances of g GPUs.

    The lowest-index node with f >= g stays first while it still has room, so first-fit of
    identical instances fills nodes with f >= g in index order, floor(f / g) each; the
    index order is a merge of the free-GPU buckets g..G, O(G + k log G) for k nodes (on
    K > 1 domains plus one memoised panel test per node visited, ``fill_in_order``).
    """
    if state.instance_capacity(g) < w:
        return None
    buckets = [state.nodes_with_free(f) for f in range(g, state.gpus_per_node + 1)]
    return fill_in_order(state, g, w, ((state.free(n), n) for n in heapq.merge(*buckets)))


@register
class FirstFit(Scheduler):
    """First-fit by node index; no migration."""

    name = "first-fit"
    role = "variant"
    rank = 0

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        nodes = first_fit_gang(state, job.gpus_per_instance, job.num_instances)
        return None if nodes is None else Placement(job.job_id, nodes)
