"""Worst-fit: each instance on the node with the most free GPUs (lowest index on ties).

An example of a scheduler that lives outside the compass package: installed with pip, it is
found through the entry-point group ``compass.schedulers``; without installing, pass
``--plugin compass_worst_fit`` (with ``src/`` on PYTHONPATH) or list it under ``plugins:``
in a pipeline profile. Worst-fit spreads load, so it is expected to fragment more than
best-fit (``gfs``): a useful lower reference in a fragmentation study.
"""

from __future__ import annotations

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers import Placement, Scheduler, greedy_gang, register


def most_free_first(free: int, node: int) -> tuple[int, int]:
    """The node rule: more free GPUs first, then the lower index."""
    return -free, node


@register
class WorstFit(Scheduler):
    """No migration, FIFO with head-of-line blocking; places where the most GPUs are free."""

    name = "worst-fit"
    display = "Worst-fit (plugin)"
    color = "#000000"

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        nodes = greedy_gang(state, job, most_free_first)
        return None if nodes is None else Placement(job.job_id, nodes)
