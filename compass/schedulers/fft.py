"""FFT (Mo, Xu, Lau, ICS'25): round-start global repacking by an ILP, best-fit inside a round.

Source: the paper's sections 5.4 and 6.6 (an ILP reorganises all running jobs at the start of
each round; arrivals inside a round go best-fit) and FFT's abstract
(CDS-Macau/CDS-Macau.github.io ``content/publication/conference-paper/FFT.md``); no code is
public. Rules: docs/baselines.md, "FFT". Assumptions [A]:

* all GPUs are equal, so FFT's throughput heterogeneity and fairness compensation vanish and
  the round's cost-minimisation becomes a defragmenting repack;
* round length L = 360 s (Gavel's); rounds start at t = 0, L, 2L, ... (the engine's timer;
  a round after one that did nothing, with no arrival or departure between, is skipped: it
  would see the same state, ``skip_idle_instants``);
* the ILP (``repack``), ``objective="used-nodes"`` (default, the spec's): min used nodes,
  then migrated instances, then low node indices, then [A, ours] fewer partial nodes;
  ``objective="partial-nodes"`` [ours]: min partial nodes, then migrated instances, then
  low node indices, with partial nodes <= Phi* as a constraint (no packing has fewer, so
  the optimum is unchanged; the relaxation is far tighter: on day 26 of gfs-synth the
  solver alone took 60.7 CPU-s before, the whole run 26.0 after). Gap 0, at most
  ``node_limit`` branch-and-bound nodes (10,000; no wall-clock limit unless ``time_limit``
  is set, so decisions never depend on machine speed), HiGHS in process
  (``solver="cbc"``: CBC warm-started from the current placement, the default until issue
  16); if the best solution found does not lower the objective's first term, nothing
  migrates; a round already at that term's bound
  (ceil(T / G) used nodes, Phi* partial nodes) skips the solver;
* queued jobs are not admitted inside the ILP (the normal best-fit pass follows it);
* counts are realised into moves by the spec's selection rule (``realise``), ordered so that
  every intermediate state fits; if no such order exists the round migrates nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from compass.cluster import ClusterState
from compass.model import Job
from compass.oracle.fragmentation import state_phi_star
from compass.oracle.milp import SOLVERS, Solver
from compass.schedulers.base import Move, Placement, Scheduler, tag_moves
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.realise import realise
from compass.schedulers.registry import register
from compass.schedulers.repack import NODE_LIMIT, repack


@dataclass
class FFTStats:
    """What the rounds did (for reports): rounds run (idle ones skipped), ILP solves, solves
    a limit stopped before a proof of optimality (``timeouts``), repacks, moves, and repacks
    dropped because their moves had no valid one-by-one order."""

    rounds: int = 0
    solves: int = 0
    timeouts: int = 0
    repacks: int = 0
    moves: int = 0
    unordered: int = 0
    solve_seconds: float = 0.0


#: What the round's ILP minimises first (``FFT.objective``).
FftObjective = Literal["used-nodes", "partial-nodes"]
FFT_OBJECTIVES: tuple[FftObjective, ...] = ("used-nodes", "partial-nodes")


@register
class FFT(Scheduler):
    """Round-based: ILP repack at each round start, best-fit FIFO inside the round."""

    name = "fft"
    role = "baseline"
    display = "FFT"
    color = "#56b4e9"
    rank = 5
    #: rounds and best-fit read the state alone (idle rounds and instants are skipped)
    skip_idle_instants = True

    def __init__(
        self, *, round_s: float = 360.0, time_limit: float | None = None,
        node_limit: int = NODE_LIMIT, solver: Solver = "highs",
        objective: FftObjective = "used-nodes", seed: int = 0,
    ) -> None:
        super().__init__(seed=seed)
        if round_s <= 0 or (time_limit is not None and time_limit <= 0) or node_limit < 1:
            raise ValueError("round_s and time_limit must be > 0 and node_limit >= 1")
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
        if objective not in FFT_OBJECTIVES:
            raise ValueError(f"objective must be one of {FFT_OBJECTIVES}, got {objective!r}")
        self.timer_period = round_s
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.solver: Solver = solver
        self.objective: FftObjective = objective
        self.stats = FFTStats()

    @property
    def round_s(self) -> float:
        """Seconds between rounds (the timer period)."""
        assert self.timer_period is not None
        return self.timer_period

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self.stats = FFTStats()

    def on_timer(self, state: ClusterState, now: float) -> tuple[Move, ...]:
        """Round start: repack if the ILP lowers the used-node count ("used-nodes") or the
        partial-node count ("partial-nodes"); spec section 5."""
        self.stats.rounds += 1
        if self.objective == "used-nodes":
            current = state.nodes - state.empty_nodes
            bound = -(-state.used_gpus // state.gpus_per_node)
        else:
            current = state.partial_nodes
            bound = state_phi_star(state.counts, state.used_gpus, state.nodes,
                                   state.gpus_per_node)[0]
        if current <= bound:  # the ILP could not lower it
            return ()
        started = time.perf_counter()
        solution = repack(state, self.time_limit, self.solver, node_limit=self.node_limit,
                          objective="fft" if self.objective == "used-nodes" else self.objective,
                          max_partial=None if self.objective == "used-nodes" else bound)
        self.stats.solve_seconds += time.perf_counter() - started
        self.stats.solves += 1
        self.stats.timeouts += solution is None or not solution.optimal
        if solution is None:
            return ()
        reached = solution.used if self.objective == "used-nodes" else solution.partial
        if reached >= current:
            return ()
        moves = realise(state, solution.target)
        if moves is None:
            self.stats.unordered += 1
            return ()
        self.stats.repacks += 1
        self.stats.moves += len(moves)
        return tag_moves(moves, "repack")

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Inside a round: best-fit (section 1), no migration."""
        nodes = best_fit_gang(state, job.gpus_per_instance, job.num_instances)
        return None if nodes is None else Placement(job.job_id, nodes)
