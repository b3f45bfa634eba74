"""FFT (Mo, Xu, Lau, ICS'25): round-start global repacking by an ILP, best-fit inside a round.

Source: the paper's sections 5.4 and 6.6 (an ILP reorganises all running jobs at the start of
each round; arrivals inside a round go best-fit) and FFT's abstract
(CDS-Macau/CDS-Macau.github.io ``content/publication/conference-paper/FFT.md``); no code is
public. Rules: docs/baselines.md, "FFT". Assumptions [A]:

* all GPUs are equal, so FFT's throughput heterogeneity and fairness compensation vanish and
  the round's cost-minimisation becomes a defragmenting repack;
* round length L = 360 s (Gavel's); rounds start at t = 0, L, 2L, ... (the engine's timer);
* the ILP (``repack``): min used nodes, then migrated instances, then low node indices, then
  [A, ours] fewer partial nodes; time limit 10 s, gap 0, CBC warm-started from the current
  placement (SciPy's HiGHS interface takes no warm start); if the best solution found does
  not lower the used-node count, nothing migrates; a round whose used-node count already
  equals the bound ceil(T / G) skips the solver (the ILP could not lower it);
* queued jobs are not admitted inside the ILP (the normal best-fit pass follows it);
* counts are realised into moves by the spec's selection rule (``realise``), ordered so that
  every intermediate state fits; if no such order exists the round migrates nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compass.cluster import ClusterState
from compass.milp import SOLVERS, Solver
from compass.model import Job
from compass.schedulers.base import Move, Placement, Scheduler
from compass.schedulers.gfs import best_fit_gang
from compass.schedulers.realise import realise
from compass.schedulers.registry import register
from compass.schedulers.repack import repack


@dataclass
class FFTStats:
    """What the rounds did (for reports): rounds, ILP solves, time-outs, repacks, moves, and
    repacks dropped because their moves had no valid one-by-one order."""

    rounds: int = 0
    solves: int = 0
    timeouts: int = 0
    repacks: int = 0
    moves: int = 0
    unordered: int = 0
    solve_seconds: float = 0.0


@register
class FFT(Scheduler):
    """Round-based: ILP repack at each round start, best-fit FIFO inside the round."""

    name = "fft"

    def __init__(
        self, *, round_length: float = 360.0, time_limit: float = 10.0,
        solver: Solver = "cbc", seed: int = 0,
    ) -> None:
        super().__init__(seed=seed)
        if round_length <= 0 or time_limit <= 0:
            raise ValueError("round_length and time_limit must be > 0")
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
        self.timer_period = round_length
        self.time_limit = time_limit
        self.solver: Solver = solver
        self.stats = FFTStats()

    def params(self) -> dict[str, Any]:
        return {"round_length": self.timer_period, "time_limit": self.time_limit,
                "solver": self.solver, "seed": self.seed}

    def reset(self, state: ClusterState, workload: Sequence[Job]) -> None:
        self.stats = FFTStats()

    def on_timer(self, state: ClusterState, now: float) -> tuple[Move, ...]:
        """Round start: repack if the ILP lowers the used-node count (spec section 5)."""
        self.stats.rounds += 1
        used = state.nodes - state.empty_nodes
        if used <= -(-state.used_gpus // state.gpus_per_node):
            return ()
        started = time.perf_counter()
        solution = repack(state, self.time_limit, self.solver)
        self.stats.solve_seconds += time.perf_counter() - started
        self.stats.solves += 1
        self.stats.timeouts += solution is None or not solution.optimal
        if solution is None or solution.used >= used:
            return ()
        moves = realise(state, solution.target)
        if moves is None:
            self.stats.unordered += 1
            return ()
        self.stats.repacks += 1
        self.stats.moves += len(moves)
        return moves

    def place(self, job: Job, state: ClusterState, now: float) -> Placement | None:
        """Inside a round: best-fit (section 1), no migration."""
        nodes = best_fit_gang(state, job.gpus_per_instance, job.num_instances)
        return None if nodes is None else Placement(job.job_id, nodes)
