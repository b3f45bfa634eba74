"""The timeline: one row of fragmentation and load figures after every instant (metrics input).

Shared by the simulator and the physical runtime so both write the same table. Phi* is
``state_phi_star``'s: the eq. 21 closed form while the WCC holds (evaluated for all rows at
once when the frame is built), the memoised exact oracle otherwise.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from operator import itemgetter

import numpy as np
import pandas as pd

from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.fragmentation import (
    MAX_GPUS_PER_NODE,
    WCC_GPUS_PER_NODE,
    DomainLayout,
    InfeasiblePacking,
    LayoutTotals,
    combine_levels,
    domain_layout,
    state_phi_star,
)
from compass.oracle.panels import multi_panels
from compass.sim.records import PANEL_COLUMNS, TIMELINE_COLUMNS, column


class OracleError(RuntimeError):
    """The recorded state contradicts the oracle (SIF < 0): a bug, never a policy choice."""


class PanelLayoutError(RuntimeError):
    """A domain's instances have no layout on its panels (a sub-panel instance was split)."""


#: ``ClusterState.census``'s fields: partial nodes, used GPUs, empty nodes, running jobs, then
#: the counts per size 0..G.
_PARTIAL, _USED, _EMPTY, _RUNNING, _COUNTS = range(5)


class TimelineRecorder:
    """One ``TIMELINE_COLUMNS`` row (plus ``PANEL_COLUMNS`` when K > 1) per instant.

    ``record`` keeps only what the state shows at the instant (counts per size, partial and
    empty nodes, load, queue); Phi*, SIF, utilisation and the WCC flag are derived for all
    rows at once in ``frame``: eq. 21's closed form, vectorised, wherever the WCC holds, and
    the memoised exact oracle once per distinct count vector elsewhere. The figures are kept
    as columns of numbers (the census packed as int64s, which numpy reads as they are), not
    as a tuple per row: no object per instant for the cyclic garbage collector to track.
    """

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        #: K > 1: nodes are NVLink domains of K panels (appendix D); else None
        self.panels = multi_panels(state.gpus_per_node)
        self._times: list[float] = []
        self._queued: list[int] = []
        self._head: list[int] = []
        #: ``state.census()`` of every instant, packed one after the other as int64s
        self._census_rows = bytearray()
        self._pack = struct.Struct(f"{_COUNTS + state.gpus_per_node + 1}q").pack
        self._census = state.census
        self._panel_rows: list[tuple] = []
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
        """Keep the row of the state as it is after the instant at time ``t``."""
        head = next(iter(queue), None)
        self.record_queue(t, len(queue), 0 if head is None else head.total_gpus)

    def record_queue(self, t: float, queued: int, head_demand: int) -> None:
        """``record`` given the queue's length and its head's GPUs (0 without a queue)."""
        self._times.append(t)
        self._queued.append(queued)
        self._head.append(head_demand)
        self._census_rows += self._pack(*self._census())
        if self.panels is not None:
            self._panel_rows.append(self._panel_row(t))

    def frame(self) -> pd.DataFrame:
        """The timeline; raises ``OracleError`` at the first row with SIF < 0."""
        extra = PANEL_COLUMNS if self.panels is not None else ()
        times = self._times
        if not times:
            return pd.DataFrame([], columns=list(TIMELINE_COLUMNS + extra))
        s = self.state
        # a copy: a view would pin the buffer, and recording may go on after a frame
        census = np.frombuffer(self._census_rows, dtype=np.int64).reshape(len(times), -1).copy()
        partial, used, empty, running = census[:, :_COUNTS].T
        phi, wcc = self._phi_star(census[:, _COUNTS:], used)
        bad = np.flatnonzero(partial < phi)
        if bad.size:
            i = int(bad[0])
            raise OracleError(f"SIF < 0 at t={times[i]}: {int(partial[i])} partial nodes < "
                              f"Phi* = {phi[i].item()} (oracle bug)")
        columns = {
            "time": column(times), "partial_nodes": partial, "phi_star": phi,
            "sif": (partial - phi) / s.nodes,
            "used_gpus": used,
            "gpu_util": used / (s.nodes * s.gpus_per_node),
            "empty_nodes": empty, "queue_len": column(self._queued),
            "head_demand": column(self._head), "running_jobs": running, "wcc": wcc,
        }
        if self.panels is not None:
            panel_rows = self._panel_rows
            columns.update((name, list(map(itemgetter(i), panel_rows)))
                           for i, name in enumerate(PANEL_COLUMNS))
        return pd.DataFrame(columns)

    def _phi_star(self, counts: np.ndarray, used: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray | list[None]]:
        """Phi* per row and the WCC flag (None unless G = 8), as ``state_phi_star`` gives
        them: eq. 21 where the WCC holds, else the exact oracle once per count vector
        (``counts``: one row per instant, sizes 0..G)."""
        s = self.state
        rows = len(counts)
        if not self._exact:  # no exact oracle for domains wider than 16 GPUs
            return np.full(rows, math.nan), [None] * rows
        if s.gpus_per_node == WCC_GPUS_PER_NODE:
            n = counts
            holds = n[:, 3] + 3 * n[:, 5] + 2 * n[:, 6] + n[:, 7] - n[:, 1] <= 0
            phi = (used % WCC_GPUS_PER_NODE != 0).astype(np.int64)
            todo = np.flatnonzero(~holds).tolist()
        else:
            holds = [None] * rows
            phi = np.zeros(rows, dtype=np.int64)
            todo = range(rows)
        exact: dict[tuple[int, ...], int] = {}
        for i in todo:
            c = tuple(counts[i].tolist())
            if c not in exact:
                exact[c] = state_phi_star(c, int(used[i]), s.nodes, s.gpus_per_node)[0]
            phi[i] = exact[c]
        return phi, holds

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
