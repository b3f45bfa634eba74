"""Hierarchical COMPASS-ABS on NVLink domains of K panels (appendix D.3; docs/nvl72.md).

A cluster of ``nodes`` domains of G = 8K GPUs is seen by the GPU level as N_p = nodes * K
panels of 8 GPUs: panel ``d * K + j`` is panel j of domain d. One ``AbsSpace`` over all
panels runs the corrected GPU-level COMPASS-ABS (``compass_abs``: Place, Remove and the
repaired Compact) for every sub-panel event (g <= 8), so 8-GPU instances are width-8
anchors there and play the 1-panel fillers of the panel level.

Multi-panel instances (g = 8p, 2 <= p <= K, eq. 23) hold p whole panels of one domain.
The GPU level sees each held panel as a *phantom* width-8 anchor (key ``(-1 - job_id,
k * K + i)`` for panel i of instance k): full panels, which neither BestFitDrain (classes
pool, w4, w2) nor the slotted repair ever move, so the GPU level packs the sub-panel
instances around them. The panel-level Place picks, for each instance, the domain with the
fewest empty panels that still has p (best fit; ties: lowest index) and there its
lowest-index empty panels; a domain-filling instance (p = K) is the width-K degenerate
slot of D.3. After the GPU-level Compact of every event, a panel-level Compact drains
*panel items* from sparse panel-partial domains into fuller ones (``panel_compact``, the
BestFitDrain idea of D.3 on one class): multi-panel instances whole, and every other
occupied panel whole (an 8-GPU instance, as D.3's panel filler, but also any slotted or
pool panel with its instances, which the paper does not move; see docs/nvl72.md). Not
built: panel-level slot widths w_p*(p) and the classes panel-w4 / panel-w2.

Moves of the GPU level become simulator moves only when the panel changes domain (the
``ClusterState`` knows domains, not panels); an instance's successive moves within one
event are followed, so only real domain changes are returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from compass.cluster import ClusterState
from compass.model import InstanceKey, Job
from compass.oracle.panels import PANEL_GPUS, domain_panels, instance_panels
from compass.schedulers.abs_space import AbsSpace, AbsViolation, Spot
from compass.schedulers.base import Move, Placement
from compass.schedulers.compass_abs import (
    CompassAbs,
    place_instances,
    rehome_strays,
    remove_instances,
    settle,
)
from compass.schedulers.registry import register


def phantom_keys(job: Job, panels: int) -> list[list[InstanceKey]]:
    """The GPU-level phantom anchors of each instance of a multi-panel job."""
    p = instance_panels(job.gpus_per_instance)
    return [[(-1 - job.job_id, k * panels + i) for i in range(p)]
            for k in range(job.num_instances)]


def domain_moves(moves: Sequence[Move], state: ClusterState, placed: dict[InstanceKey, int],
                 panels: int, name: str) -> tuple[Move, ...]:
    """Panel moves of the GPU level -> domain moves (panel n is in domain n // K), dropping
    those that stay in their domain; an instance's successive moves are followed.
    ``placed`` gives the domains of the instances placed in this event."""
    where = dict(placed)
    out = []
    for move in moves:
        if move.instance[0] < 0:
            raise AbsViolation(f"{name}: phantom anchor {move.instance} moved")
        dst = move.dst // panels
        src = where.get(move.instance)
        if src is None:
            src = state.node_of(move.instance)
        if dst != src:
            out.append(Move(move.instance, dst, move.operator))
            where[move.instance] = dst
    return tuple(out)


@register
class HierarchicalCompassAbs(CompassAbs):
    """COMPASS-ABS on domains of K panels: GPU-level COMPASS-ABS on panels, panel-level
    best-fit Place and drain (D.3; docs/nvl72.md)."""

    name = "compass-abs-hier"
    role = "variant"
    rank = 2

    def __init__(self, *, seed: int = 0, compact_on_arrival: bool = True,
                 one_gpu_overflow: bool = False) -> None:
        super().__init__(seed=seed, compact_on_arrival=compact_on_arrival,
                         one_gpu_overflow=one_gpu_overflow)
        self.panels = 1

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        panels = domain_panels(state.gpus_per_node)
        if panels is None:
            raise ValueError(f"{self.name}: domains need 8K GPUs, got {state.gpus_per_node}")
        self.panels = panels
        self._space = AbsSpace(state.nodes * panels, PANEL_GPUS)

    def domain(self, panel: int) -> int:
        """The domain of a panel."""
        return panel // self.panels

    def empty_panels(self, domain: int) -> list[int]:
        """The domain's panels that hold nothing, lowest first."""
        first = domain * self.panels
        return [n for n in range(first, first + self.panels) if self.space.kind(n) == "empty"]

    # -------------------------------------------------------------- panel level
    def _place_multi_panel(self, job: Job) -> list[int] | None:
        """Panel-level Place: best-fit domain by empty panels for each instance."""
        space, domains = self.space, []
        for keys in phantom_keys(job, self.panels):
            fits = [(len(e), d, e) for d in range(space.nodes // self.panels)
                    if len(e := self.empty_panels(d)) >= len(keys)]
            if not fits:
                return None
            _, d, empty = min(fits)
            for key, panel in zip(keys, empty, strict=False):
                space.open_slot(key, PANEL_GPUS, panel)
            domains.append(d)
        return domains

    def real_key(self, anchor: InstanceKey) -> InstanceKey:
        """The instance an anchor stands for (a phantom's multi-panel instance, else itself)."""
        job, idx = anchor
        return anchor if job >= 0 else (-1 - job, idx // self.panels)

    def _panel_items(self, domain: int) -> list[list[int]]:
        """The domain's movable panel items, largest first: each multi-panel instance (its p
        panels) and each other occupied panel without strays, moved whole (an 8-GPU
        instance, D.3's 1-panel filler, or any slotted or pool panel)."""
        space, multi, items = self.space, {}, []
        first = domain * self.panels
        for n in range(first, first + self.panels):
            slots = space.slots_on(n)
            if slots and slots[0].anchor[0] < 0:
                multi.setdefault(self.real_key(slots[0].anchor), []).append(n)
            elif space.used(n) and not space.strays_on(n):
                items.append([n])
        return sorted([*multi.values(), *items], key=lambda panels: (-len(panels), panels))

    def _panel_drain_step(self) -> tuple[list[int], int] | None:
        """One move of the panel-level drain: from the sparsest panel-partial domain (ties:
        lowest index), its largest item, to the fullest other panel-partial domain that is
        at least as full and has room (ties: lowest index). None when no move exists."""
        K = self.panels
        occupied = [K - len(self.empty_panels(d)) for d in range(self.space.nodes // K)]
        partial = sorted((d for d, o in enumerate(occupied) if 0 < o < K),
                         key=lambda d: (occupied[d], d))
        for src in partial:
            for panels in self._panel_items(src):
                fits = [d for d in partial if d != src and occupied[d] >= occupied[src]
                        and K - occupied[d] >= len(panels)]
                if fits:
                    return panels, max(fits, key=lambda d: (occupied[d], -d))
        return None

    def _move_panel(self, src: int, dst: int) -> list[Move]:
        """Move a panel's whole contents onto the empty panel ``dst``; the space records the
        1-GPU moves, the anchors' moves are returned (they follow, into the same panel)."""
        space, anchors = self.space, []
        for key in space.pool_on(src):
            space.move_one(key, Spot("pool", dst))
        for slot in space.slots_on(src):
            fillers = sorted(slot.fillers)
            space.dissolve_slot(slot.anchor)
            moved = space.open_slot(slot.anchor, slot.g, dst)
            for key in fillers:
                space.move_one(key, space.filler_spot(moved))
            anchors.append(Move(self.real_key(slot.anchor), dst, "panel-compact"))
        return anchors

    def panel_compact(self) -> list[Move]:
        """Panel-level Compact (D.3, one drain class): move panel items from sparse
        panel-partial domains into fuller ones. Each move raises sum_d occupied(d)^2 (it
        goes to a domain at least as full), so the loop ends. Call it outside a
        transaction; returns the moves in order, with panel destinations."""
        space, moves = self.space, []
        while (step := self._panel_drain_step()) is not None:
            panels, dst = step
            space.begin()
            space.operator = "panel-compact"
            anchors = [m for src, target in zip(panels, self.empty_panels(dst), strict=False)
                       for m in self._move_panel(src, target)]
            moves += [*space.commit(), *anchors]
        return moves

    # ---------------------------------------------------------------- protocol
    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Sub-panel jobs by the GPU-level Place; multi-panel jobs by the panel level."""
        space = self.space
        space.begin()
        if job.gpus_per_instance > PANEL_GPUS:
            domains = self._place_multi_panel(job)
        else:
            panels = place_instances(space, job, self.one_gpu_overflow)
            domains = None if panels is None else [self.domain(n) for n in panels]
        if domains is None:
            space.rollback()
            return None
        if self.compact_on_arrival:
            settle(space, self.repair)
        else:
            rehome_strays(space)
        moves = [*space.commit(), *(self.panel_compact() if self.compact_on_arrival else ())]
        placed = dict(zip(job.instances(), domains, strict=True))
        return Placement(job.job_id, tuple(domains),
                         domain_moves(moves, state, placed, self.panels, self.name))

    def on_departure(self, job: Job, state: ClusterState, now: float) -> Sequence[Move]:
        """GPU-level Remove + Compact; a multi-panel job frees its phantom anchors."""
        space = self.space
        space.begin()
        if job.gpus_per_instance > PANEL_GPUS:
            for keys in phantom_keys(job, self.panels):
                for key in keys:
                    space.dissolve_slot(key)
        else:
            remove_instances(space, job)
        settle(space, self.repair)
        moves = [*space.commit(), *self.panel_compact()]
        return domain_moves(moves, state, {}, self.panels, self.name)

    def check(self, state: ClusterState) -> None:
        """Each domain's GPUs in use agree with the panels' (the GPU level checks itself
        against a panel view only through this sum)."""
        space = self.space
        for d in range(state.nodes):
            used = sum(space.used(n) for n in range(d * self.panels, (d + 1) * self.panels))
            if used != state.gpus_per_node - state.free(d):
                raise AbsViolation(f"{self.name}: domain {d} uses {used} GPUs by the panels, "
                                   f"{state.gpus_per_node - state.free(d)} by the cluster")
