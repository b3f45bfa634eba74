"""``compass-abs-hier-paper``: the literal hierarchical COMPASS-ABS of appendix D.3.

Kept beside the corrected ``compass-abs-hier`` (``hierarchical.py``) so that Theorem 2 is
tested on the algorithm the paper states (docs/nvl72.md, "Literal vs corrected"). A
cluster of ``nodes`` NVLink domains of G_dom = 8K GPUs (eq. 22) runs two levels:

* **GPU level**: one ``AbsSpace`` over the N_p = nodes * K panels (panel ``d * K + j`` is
  panel j of domain d) runs the literal section-4.3 operators of ``compass-abs-paper``
  (Place, Remove, Compact = BestFitDrain over pool, w4, w2; no repair) for sub-panel
  instances. Panels the panel level holds or reserves are *phantom* width-8 anchors there
  (key ``(-1, panel)``), which no GPU-level operator moves or uses.
* **Panel level**: a ``PanelSpace`` (the ABS of section 4.2 under G -> K, 1-GPU -> 1-panel,
  D.1) over the domains runs the same operators of ``compass_abs``: multi-panel instances
  (g = 8p) are anchors of panel-slots of width w_p*(p) (eq. 23), 8-GPU instances are the
  1-panel fillers (eq. 25), and Compact is BestFitDrain over panel-pool, panel-w4, panel-w2.

Interpretations of the text, each marked [A] (docs/nvl72.md lists them too):

* [A1] The GPU level is the literal ``compass-abs-paper``: D.3 hands sub-panel events to
  "the GPU-level COMPASS-ABS of Section 4.3", whose Compact is the three passes.
* [A2] For K >= 2 every 8-GPU instance is a panel-level 1-panel instance (D.1, eq. 25 and
  D.3's "g_i = 8 instances serving as panel-fillers"), though D.3's first bullet
  (g_i <= 8) also names them; for K = 1 the panel level is empty (D.5), 8-GPU instances
  are GPU-level width-8 anchors and the scheduler makes ``compass-abs-paper``'s decisions.
* [A3] The panel level is the verbatim substitution of D.1: domains are its nodes, each
  panel-empty, a panel-pool domain (only 1-panel instances) or panel-slotted. Place of an
  anchor: the panel-slotted domain with the least residual D(d) >= w (line 5), else the
  lowest-index panel-empty domain with room >= w. The 1-panel rule: an open panel-slot
  vacancy, else the fullest partial panel-pool domain, else the lowest panel-empty domain
  with a free panel; else the job waits (section 4.3's waiting rule), even if panel-slotted
  domains have free panels. The "panel-pool region" inside a domain of D.4/D.5 (K = 9: "one
  width-8 panel-slot together with one residual panel acting as a panel-pool") is not
  this substitution, and D.3 defines no operator for it; we do not build it.
* [A4] Panels holding sub-panel instances are outside the panel-level ABS (D.3: the levels
  "act on disjoint populations of items") but occupy panels of their domain: they lower
  its residual D(d) and its pool room, as strays lower D(n) at the GPU level, and the
  panel level never moves them. A domain without panel-level items is panel-empty.
* [A5] Widths: eq. 23 for p < K; p = K is the width-K degenerate panel-slot of D.3, also
  where eq. 23 would give another width (K = 3, 5). K in {6, 7} (eq. 23 gives width 8 > K
  to 5 <= p < K) and K >= 10 (no width for 9 <= p < K) are refused with a ValueError.
* [A6] Both Compacts run after every event (Algorithm 1 at both levels), the GPU level's
  first; the panel-level room counts every occupied or reserved panel. Width-8 and
  width-K panel-slots never move (as width-8 slots at the GPU level).
* [A7] Which free panels of its domain a panel-level item takes is not part of the panel
  ABS (only counts are): the GPU level sees the domain's lowest free panels blocked, as
  many as the panel level holds or reserves there.

Every other choice (ties, filler draws, strays, ``compact_on_arrival``) is
``compass_abs``'s, applied unchanged at both levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from compass.cluster import ClusterState
from compass.model import InstanceKey, Job, slot_width
from compass.oracle.panels import PANEL_GPUS, domain_panels, instance_panels
from compass.schedulers.abs_space import AbsSpace, require
from compass.schedulers.base import Move, Placement
from compass.schedulers.compass_abs import (
    CompassAbsPaper,
    draw_fillers,
    place_instances,
    rehome_strays,
    remove_instances,
    settle,
)
from compass.schedulers.hierarchical import domain_moves
from compass.schedulers.registry import register


def panel_slot_width(p: int, panels: int) -> int:
    """Panel-slot width of a p-panel anchor on a domain of K = ``panels`` panels: w_p*(p)
    of eq. 23 (the values of eq. 3), and K for the domain-filling p = K (D.3) [A5].

    Raises ValueError where appendix D gives no width that fits the domain.
    """
    if p == panels:
        return panels
    if not 2 <= p < panels:
        raise ValueError(f"a multi-panel instance of p = {p} panels does not fit K = {panels}")
    if p > PANEL_GPUS:
        raise ValueError(f"eq. 23 defines w_p*(p) for p <= 8 only and D.3 makes only p = K = "
                         f"{panels} a degenerate slot: p = {p} has no panel-slot width")
    width = slot_width(p)
    if width > panels:
        raise ValueError(f"eq. 23 gives p = {p} the panel-slot width {width} > K = {panels} "
                         "and D.3 makes only p = K a degenerate slot")
    return width


class PanelSpace(AbsSpace):
    """The panel-level ABS Sigma_panel of D.1: section 4.2's space over ``domains`` nodes of
    capacity K = ``panels`` (``gpus_per_node`` counts panels here), panel-slot widths by
    ``panel_slot_width``; the panels held by the GPU level are the space's *foreign* units
    (``set_foreign``, [A4]), which lower the residual D(d) and the pool room."""

    def __init__(self, domains: int, panels: int) -> None:
        super().__init__(domains, panels, partial(panel_slot_width, panels=panels))

    def units(self, n: int) -> int:
        """Panels the panel level holds or reserves on domain n: slot widths, pool, strays."""
        return self.profiled(n) + len(self.pool_on(n)) + len(self.strays_on(n))


def place_panel_anchors(space: PanelSpace, job: Job) -> list[int] | None:
    """Panel-level Place of a multi-panel job (``job`` in panel units, g = p): the anchor
    branch of ``compass_abs.place_instances`` with the widths of eq. 23 [A3, A5]."""
    width = space.width(job.gpus_per_instance)
    slots = []
    for key in job.instances():
        node = space.best_slotted(width)
        if node is None:
            node = space.lowest_empty(width)
        if node is None:
            return None
        slots.append(space.open_slot(key, job.gpus_per_instance, node))
    for slot in slots:
        draw_fillers(space, slot)
    return [slot.node for slot in slots]


@register
class HierarchicalCompassAbsPaper(CompassAbsPaper):
    """Hierarchical COMPASS-ABS as appendix D.3 states it: literal GPU level on panels,
    panel-slots of eq. 23 with 8-GPU panel fillers on domains."""

    name = "compass-abs-hier-paper"
    role = "variant"
    rank = 3

    def __init__(self, *, seed: int = 0, compact_on_arrival: bool = True,
                 one_gpu_overflow: bool = False) -> None:
        super().__init__(seed=seed, compact_on_arrival=compact_on_arrival,
                         one_gpu_overflow=one_gpu_overflow)
        self.panels = 1
        self._panel_space: PanelSpace | None = None

    @property
    def panel_space(self) -> PanelSpace:
        """The panel-level ABS of the current run."""
        if self._panel_space is None:
            raise RuntimeError(f"{self.name}: reset() must be called before scheduling")
        return self._panel_space

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        panels = domain_panels(state.gpus_per_node)
        if panels is None:
            raise ValueError(f"{self.name}: domains need 8K GPUs, got {state.gpus_per_node}")
        try:
            for p in range(2, panels + 1):
                panel_slot_width(p, panels)  # refuses K in {6, 7} and K >= 10 [A5]
        except ValueError as err:
            raise ValueError(f"{self.name}: K = {panels} is not covered: {err}") from None
        self.panels = panels
        self._space = AbsSpace(state.nodes * panels, PANEL_GPUS)
        self._panel_space = PanelSpace(state.nodes, panels)

    # ------------------------------------------------------------- the two levels
    def on_panel_level(self, job: Job) -> bool:
        """Multi-panel jobs, and 8-GPU jobs when K >= 2, are panel-level events [A2]."""
        g = job.gpus_per_instance
        return g > PANEL_GPUS or (g == PANEL_GPUS and self.panels > 1)

    def panel_view(self, job: Job) -> Job:
        """The job in panel units: g = p for multi-panel, 1 for an 8-GPU (1-panel) job."""
        return replace(job, gpus_per_instance=instance_panels(job.gpus_per_instance) or 1)

    def phantom_panels(self, domain: int) -> list[int]:
        """Panels of the domain the GPU level sees blocked by the panel level."""
        return [n for n in self._panels_of(domain) if self._is_phantom(n)]

    def _panels_of(self, domain: int) -> range:
        return range(domain * self.panels, (domain + 1) * self.panels)

    def _is_phantom(self, n: int) -> bool:
        slots = self.space.slots_on(n)
        return bool(slots) and slots[0].anchor[0] < 0

    def _sync_foreign(self) -> None:
        """Tell the panel level which panels the GPU level now occupies [A4]."""
        gpu = self.space
        for d in range(self.panel_space.nodes):
            count = sum(gpu.used(n) > 0 and not self._is_phantom(n) for n in self._panels_of(d))
            if count != self.panel_space.foreign(d):
                self.panel_space.set_foreign(d, count)

    def _sync_phantoms(self) -> None:
        """Block, per domain, as many GPU-level panels as the panel level holds [A7]."""
        gpu = self.space
        for d in range(self.panel_space.nodes):
            blocked, need = self.phantom_panels(d), self.panel_space.units(d)
            free = [n for n in self._panels_of(d) if gpu.kind(n) == "empty"]
            for n in free[:max(0, need - len(blocked))]:
                gpu.open_slot((-1, n), PANEL_GPUS, n)
            for n in blocked[need:]:
                gpu.dissolve_slot((-1, n))

    def _compact_levels(self, state: ClusterState, placed: dict[InstanceKey, int],
                        compact: bool) -> list[Move]:
        """Algorithm 1's Compact at both levels (D.3), GPU level first [A6]; returns the
        moves in order, as domain moves."""
        gpu, panel = self.space, self.panel_space
        if compact:
            settle(gpu, self.repair)
        else:
            rehome_strays(gpu)
        gpu_moves = domain_moves(gpu.commit(), state, placed, self.panels, self.name)
        self._sync_foreign()
        panel.begin()
        if compact:
            settle(panel, False)
        else:
            rehome_strays(panel)
        panel_moves = panel.commit()
        self._sync_phantoms()
        return [*gpu_moves, *panel_moves]

    # ---------------------------------------------------------------- protocol
    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Place at the job's level (D.3's dispatch), then Compact both levels."""
        gpu, panel = self.space, self.panel_space
        gpu.begin()
        panel.begin()
        if self.on_panel_level(job):
            view = self.panel_view(job)
            domains = (place_instances(panel, view) if view.gpus_per_instance == 1
                       else place_panel_anchors(panel, view))
            if domains is None:
                panel.rollback()
                return None
            first, placed = panel.commit(), {}
            self._sync_phantoms()
        else:
            panels = place_instances(gpu, job, self.one_gpu_overflow)
            if panels is None:
                gpu.rollback()
                return None
            domains = [n // self.panels for n in panels]
            first, placed = (), dict(zip(job.instances(), domains, strict=True))
        moves = self._compact_levels(state, placed, self.compact_on_arrival)
        return Placement(job.job_id, tuple(domains), (*first, *moves))

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        """Remove at the job's level, then Compact both levels."""
        gpu, panel = self.space, self.panel_space
        gpu.begin()
        panel.begin()
        first: tuple[Move, ...] = ()
        if self.on_panel_level(job):
            remove_instances(panel, self.panel_view(job))
            first = panel.commit()
            self._sync_phantoms()
        else:
            remove_instances(gpu, job)
        return (*first, *self._compact_levels(state, {}, True))

    def instances_on(self, domain: int) -> dict[InstanceKey, int]:
        """The domain's instances and sizes by both levels' accounts."""
        gpu, panel, out = self.space, self.panel_space, {}
        for n in self._panels_of(domain):
            for s in gpu.slots_on(n):
                if s.anchor[0] >= 0:
                    out[s.anchor] = s.g
                out.update(dict.fromkeys(s.fillers, 1))
            out.update(dict.fromkeys(gpu.pool_on(n) + gpu.strays_on(n), 1))
        for s in panel.slots_on(domain):
            out[s.anchor] = PANEL_GPUS * s.g
            out.update(dict.fromkeys(s.fillers, PANEL_GPUS))
        out.update(dict.fromkeys(panel.pool_on(domain) + panel.strays_on(domain), PANEL_GPUS))
        return out

    def check(self, state: ClusterState) -> None:
        """Both levels agree with the cluster, instance by instance, and with each other
        (phantoms = panels the panel level holds, foreign = the GPU level's panels)."""
        panel = self.panel_space
        panel.check_space()
        for d in range(state.nodes):
            mine, theirs = self.instances_on(d), dict(state.instances_on(d))
            require(mine == theirs, f"{self.name}: domain {d} holds {theirs}, levels {mine}")
            require(len(self.phantom_panels(d)) == panel.units(d),
                    f"{self.name}: domain {d}: {len(self.phantom_panels(d))} phantom panels "
                    f"for {panel.units(d)} panel-level panels")
            gpu_panels = sum(self.space.used(n) > 0 for n in self._panels_of(d))
            require(gpu_panels - len(self.phantom_panels(d)) == panel.foreign(d),
                    f"{self.name}: domain {d}: foreign panels out of date")
