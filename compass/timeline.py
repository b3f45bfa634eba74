"""The timeline: one row of fragmentation and load figures after every instant (metrics input).

Shared by the simulator and the physical runtime so both write the same table. Phi* comes
from ``state_phi_star``: the eq. 21 closed form while the WCC holds, the memoised exact
oracle otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from compass.cluster import ClusterState
from compass.fragmentation import (
    MAX_GPUS_PER_NODE,
    DomainLayout,
    InfeasiblePacking,
    LayoutTotals,
    combine_levels,
    domain_layout,
    state_phi_star,
)
from compass.model import Job
from compass.panels import domain_panels

TIMELINE_COLUMNS = (
    "time", "partial_nodes", "phi_star", "sif", "used_gpus", "gpu_util", "empty_nodes",
    "queue_len", "head_demand", "running_jobs", "wcc",
)
#: Extra timeline columns of multi-panel clusters (G = 8K, K > 1; eq. 26, docs/nvl72.md).
PANEL_COLUMNS = (
    "partial_panels", "phi_star_gpu", "sif_gpu", "panel_partial_domains", "phi_star_panel",
    "sif_panel",
)


class OracleError(RuntimeError):
    """The recorded state contradicts the oracle (SIF < 0): a bug, never a policy choice."""


class PanelLayoutError(RuntimeError):
    """A domain's instances have no layout on its panels (a sub-panel instance was split)."""


class TimelineRecorder:
    """Appends one ``TIMELINE_COLUMNS`` row (plus ``PANEL_COLUMNS`` when K > 1) per instant."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        panels = domain_panels(state.gpus_per_node)
        #: K > 1: nodes are NVLink domains of K panels (appendix D); else None
        self.panels = panels if panels is not None and panels > 1 else None
        self._rows: list[tuple] = []
        self._exact = state.gpus_per_node <= MAX_GPUS_PER_NODE
        if self.panels is not None:  # panel layouts per domain, updated where they change
            state.track_changes()
            state.pop_changed()
            self._layouts: list[DomainLayout] = []
            self._totals = LayoutTotals(self.panels)
            for n in range(state.nodes):
                self._layouts.append(self._layout(n, math.nan))
                self._totals.add(self._layouts[n])

    def record(self, t: float, queue: Sequence[Job]) -> None:
        """Append the row of the state as it is after the instant at time ``t``."""
        s = self.state
        used = s.used_gpus
        if self._exact:
            phi, wcc = state_phi_star(s.counts, used, s.nodes, s.gpus_per_node)
        else:  # no exact oracle for domains wider than 16 GPUs; panel columns cover them
            phi, wcc = math.nan, None
        partial = s.partial_nodes
        if partial < phi:
            raise OracleError(
                f"SIF < 0 at t={t}: {partial} partial nodes < Phi* = {phi} (oracle bug)"
            )
        nodes = s.nodes
        row = (
            t, partial, phi, (partial - phi) / nodes, used, used / (nodes * s.gpus_per_node),
            s.empty_nodes, len(queue), queue[0].total_gpus if queue else 0,
            s.running_job_count, wcc,
        )
        if self.panels is not None:
            row += self._panel_row(t)
        self._rows.append(row)

    def frame(self) -> pd.DataFrame:
        extra = PANEL_COLUMNS if self.panels is not None else ()
        return pd.DataFrame(self._rows, columns=list(TIMELINE_COLUMNS + extra))

    def _panel_row(self, t: float) -> tuple:
        """The PANEL_COLUMNS values, from the layouts of the domains that changed."""
        totals = self._totals
        for n in self.state.pop_changed():
            layout = self._layout(n, t)
            totals.remove(self._layouts[n])
            totals.add(layout)
            self._layouts[n] = layout
        h = combine_levels(totals, self.state.counts_by_size(), self.state.nodes)
        return (h.partial_panels, h.phi_star_gpu, h.sif_gpu, h.panel_partial_domains,
                h.phi_star_panel, h.sif_panel)

    def _layout(self, node: int, t: float) -> DomainLayout:
        """Domain ``node``'s panel layout; every domain must have one."""
        sizes = tuple(sorted(self.state.instances_on(node).values()))
        try:
            return domain_layout(sizes, self.panels)
        except InfeasiblePacking as err:
            raise PanelLayoutError(
                f"at t={t} domain {node} has no panel layout ({err})"
            ) from None
