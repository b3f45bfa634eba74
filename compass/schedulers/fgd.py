"""FGD: fragmentation gradient descent (Weng et al., ATC'23; paper s. 5.4; baselines.md s. 2).

Sources: hkust-adsl/kubernetes-scheduler-simulator ``pkg/simulator/plugin/fgd_score.go``
(score = fragmentation before - after on the candidate node), ``pkg/utils/frag.go``
(``GetTypicalPods``), ``scripts/generate_config_and_run.py`` (popularity threshold 95,
step 1, ``gpuResWeight`` 0) and the vendored ``generic_scheduler.go`` (``selectHost``: best
score, smallest node name on ties).

Rule: each instance goes to argmin over nodes with f_n >= g of (dF_p(f_n, g), n), one at a
time on a tentative view (gang, all or nothing); FIFO queue with head-of-line blocking. On
multi-panel domains (G = 8K, K > 1) only nodes that keep a panel layout are candidates
([A], appendix D.1; ``PanelFit`` in ``base.py``).
No migration (the repository's descheduler is off in its experiments).

Assumptions ([A], docs/baselines.md):
* the typical-pods distribution p is counted per instance over the whole simulated window,
  i.e. every job passed to ``reset`` (FGD knows the window's mix in advance); it is recorded
  in ``params()["typical_pods"]``; ``distribution=`` injects a fixed p instead;
* count ties in the typical-pods ranking go to the smaller size;
* exact dF by default; ``quantize_scores=True`` reproduces the plugin's integer score
  int(100 * sigmoid(-dF)), whose ties fall to the lowest node index;
* every scheduler sits behind the one FIFO gang queue of the paper (the simulator drops
  failed pods instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compass.cluster import ClusterState
from compass.model import Job
from compass.schedulers.base import NodeKey, Placement, Scheduler, greedy_gang
from compass.schedulers.fragmentation_gradient import (
    FragmentationGradient,
    SizeDistribution,
    checked_distribution,
    instance_histogram,
    typical_sizes,
)
from compass.schedulers.registry import register


@register
class FGD(Scheduler):
    """Min fragmentation gradient under the window's typical-pods mix, lowest index on ties."""

    name = "fgd"
    role = "baseline"
    display = "FGD"
    color = "#029e73"
    rank = 2

    def __init__(
        self,
        *,
        seed: int = 0,
        popularity_threshold: float = 95.0,
        increase_step: int = 1,
        quantize_scores: bool = False,
        distribution: SizeDistribution | None = None,
    ) -> None:
        super().__init__(seed=seed)
        if not 0 < popularity_threshold <= 100 or increase_step < 1:
            raise ValueError("popularity_threshold must be in (0, 100] and increase_step >= 1")
        self.popularity_threshold = popularity_threshold
        self.increase_step = increase_step
        self.quantize_scores = quantize_scores
        self.distribution = None if distribution is None else dict(distribution)
        self.gradient: FragmentationGradient | None = None
        self._keys: dict[int, NodeKey] = {}

    def params(self) -> dict[str, Any]:
        return {
            **super().params(),
            "distribution_source": "injected" if self.distribution is not None
            else "whole simulated window (all jobs passed to reset), per instance",
            "typical_pods": None if self.gradient is None else self.gradient.distribution,
        }

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        """Compute the typical-pods distribution p once, before the replay (spec s. 2)."""
        G = state.gpus_per_node
        if self.distribution is not None:
            p = checked_distribution(self.distribution, G)
        else:
            p = typical_sizes(instance_histogram(workload), self.popularity_threshold / 100,
                              self.increase_step)
        self.gradient = FragmentationGradient.of(p, G)
        self._keys = {g: self.gradient.node_key(g, self.quantize_scores) for g in range(1, G + 1)}

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        if self.gradient is None:
            raise RuntimeError("fgd: place() before reset()")
        nodes = greedy_gang(state, job, self._keys[job.gpus_per_instance])
        return None if nodes is None else Placement(job.job_id, nodes)
