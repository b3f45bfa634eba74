"""GFS: best-fit placement as the paper describes it (section 5.4; baselines.md section 1).

Source: Xu-Sheng-lin/GFS-asplos-26, ``policy/placer/consolidate.py``
(``ConsolidatePlacement.gpu_select``): among nodes with f_n >= g take the one with the
smallest f_n, the first in node order on ties, instance by instance. No migration, no
workload knowledge; spot quotas, preemption and GFS's forecaster are not modelled.
"""

from __future__ import annotations

from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.panels import PANEL_GPUS, multi_panels
from compass.schedulers.base import Placement, Scheduler, fill_in_order
from compass.schedulers.registry import register


def best_fit_gang(state: ClusterState, g: int, w: int) -> tuple[int, ...] | None:
    """Best-fit nodes for w instances of g GPUs: argmin (f_n, n) per instance.

    Placing on the best node (free f) leaves it with f - g < f free and no node has free in
    [g, f), so it stays the best while f - g >= g: best-fit of identical instances fills the
    nodes in (free, index) order, each taking floor(f / g), and the job fits iff that fill
    reaches w before the buckets run out. O(G + k) for k nodes; on K > 1 domains plus one
    memoised panel test per node visited (``fill_in_order``), every node with f_n >= g in
    the worst case.
    """
    G = state.gpus_per_node
    if G > PANEL_GPUS and multi_panels(G):  # K > 1 needs G = 8K >= 16: one comparison first
        if state.instance_capacity(g) < w:
            return None
        return fill_in_order(state, g, w, state.iter_nodes_by_free(g))
    buckets = state.free_buckets()
    if w == 1:  # the first node of the first non-empty bucket
        for f in range(g, G + 1):
            if bucket := buckets[f]:
                return (bucket[0],)
        return None
    nodes: list[int] = []
    for f in range(g, G + 1):
        per = f // g
        for n in buckets[f]:
            if per >= w:
                nodes += [n] * w
                return tuple(nodes)
            nodes += [n] * per
            w -= per
    return None  # fewer than w instances of g fit (the capacity, sum floor(f / g), < w)


@register
class GFS(Scheduler):
    """Best-fit (GFS): the node that leaves the fewest free GPUs, lowest index on ties."""

    name = "gfs"
    role = "baseline"
    display = "GFS"
    color = "#0173b2"
    rank = 1

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        nodes = best_fit_gang(state, job.gpus_per_instance, job.num_instances)
        return None if nodes is None else Placement(job.job_id, nodes)
