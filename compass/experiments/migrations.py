"""Migration accounting by operator: which step of a scheduler moves what, and
what its moves cost the jobs.

Every move in the simulator's migration log names the operator that issued it
(``compass.schedulers.base.OPERATORS``: COMPASS-ABS's Place filler draws, Remove, rehome,
the pool / w4 / w2 passes of Compact (section 4.3.4), the repair step; COMPASS-ABS+'s admit
and lazy-compact; FFT's repack, DRR's drain, SIFOpt's witness). Only *charged* moves count:
a move of a job admitted or departing at the same instant costs no checkpoint-restart.

A checkpoint-restart is one (job, instant) with charged moves; under the paper's per-event
pause rule it costs the job c seconds however many of its instances moved. When moves of
several operators restart a job at the same instant (rare: 1 of 114 restarts of COMPASS-ABS
on the 300-job demo trace), the restart and its pause are shared equally among those moves,
so that the operators' restarts and pauses add up to the run's ``migrations`` and total
pause exactly.

``operator_moves`` condenses one run's log into a compact JSON cell of the batch row
(``runs.run_batch``, column ``operator_moves``); ``migrations_by_operator`` expands those
cells into the tidy table ``migrations_by_operator`` (notebook 05); ``operator_shares``
pools it into each scheduler's share of moves by operator (the report's ``mig-pause`` row).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import pandas as pd

from compass.schedulers.base import OPERATORS

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("migrations_by_operator", "operator_shares")

#: Name of the moves no operator tagged.
UNTAGGED = "untagged"
#: The per-operator numbers a batch row keeps, in the order of each JSON list.
OPERATOR_FIELDS = ("instance_moves", "migrated_jobs", "pause_s")
#: Columns of ``migrations_by_operator`` after the run's key.
TABLE_COLUMNS = ("operator", "instance_moves", "migrated_jobs", "moves_per_job",
                 "pause_per_job", "share")


def operator_moves(log: pd.DataFrame, cost: float, pause_rule: str = "per-event"
                   ) -> dict[str, tuple[int, float, float]]:
    """Per operator, from a run's migration log (``SimulationResult.migrations``): charged
    instance moves, checkpoint-restarts and seconds of pause they caused, with ``cost`` = c
    and the simulator's ``pause_rule`` ("per-event": c per restart; "per-migration": c per
    moved instance). Operators in ``OPERATORS`` order; those without a charged move absent."""
    charged = log[log["charged"].astype(bool)]
    operator = charged["operator"].fillna("").replace("", UNTAGGED)
    moves_in_restart = charged.groupby(["time", "job_id"])["operator"].transform("size")
    share = 1.0 / moves_in_restart  # each move's part of its checkpoint-restart
    pause = cost * (share if pause_rule == "per-event" else 1.0)
    frame = pd.DataFrame({"operator": operator, "share": share, "pause": pause})
    sums = frame.groupby("operator").agg(moves=("share", "size"), restarts=("share", "sum"),
                                         pause=("pause", "sum"))
    return {op: (int(sums.at[op, "moves"]), float(sums.at[op, "restarts"]),
                 float(sums.at[op, "pause"])) for op in ordered_operators(sums.index)}


def ordered_operators(names: Iterable[str]) -> list[str]:
    """Operator names in ``OPERATORS`` order, then ``UNTAGGED``, then any other by name."""
    seen = set(names)
    order = [op for op in (*OPERATORS, UNTAGGED) if op in seen]
    return order + sorted(seen - set(order))


def encode(moves: dict[str, tuple[int, float, float]]) -> str:
    """A batch cell: JSON ``{operator: [instance_moves, migrated_jobs, pause_s]}``."""
    return json.dumps({op: [n, round(r, 6), round(p, 6)] for op, (n, r, p) in moves.items()},
                      separators=(",", ":"))


def decode(cell: object) -> dict[str, tuple[int, float, float]]:
    """The dictionary of ``encode``; an empty or missing cell (no moves, failed run) is {}."""
    if not isinstance(cell, str) or not cell:
        return {}
    return {op: (int(v[0]), float(v[1]), float(v[2])) for op, v in json.loads(cell).items()}


def run_keys(runs: pd.DataFrame) -> list[str]:
    """The columns that name a run (``seed`` where the batch files have it)."""
    return [c for c in ("trace", "day", "seed", "eta", "cost", "scheduler") if c in runs]


def migrations_by_operator(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per completed run and operator with a charged move: instance moves,
    checkpoint-restarts (``migrated_jobs``), both per replayed job (``moves_per_job`` counts
    instance moves), the pause per job the operator caused (the operators' values add up to
    the run's ``pause_per_job``) and its share of the run's instance moves. Runs without a
    move have no row."""
    keys = run_keys(runs)
    rows = []
    for run in runs[runs["status"] == "ok"].to_dict("records"):
        moves = decode(run["operator_moves"])
        total = sum(n for n, _, _ in moves.values())
        for op, (n, restarts, pause) in moves.items():
            rows.append({**{k: run[k] for k in keys}, "operator": op, "instance_moves": n,
                         "migrated_jobs": restarts, "moves_per_job": n / run["jobs"],
                         "pause_per_job": pause / run["jobs"], "share": n / total})
    return pd.DataFrame(rows, columns=[*keys, *TABLE_COLUMNS])


def operator_shares(table: pd.DataFrame, by: Sequence[str] = ("scheduler",)) -> pd.DataFrame:
    """Pooled over the runs of ``table`` (``migrations_by_operator``): per ``by`` group and
    operator, the instance moves and their share of the group's moves, largest first."""
    pooled = table.groupby([*by, "operator"], sort=False)["instance_moves"].sum().reset_index()
    pooled["share"] = pooled["instance_moves"] / pooled.groupby(list(by))[
        "instance_moves"].transform("sum")
    return pooled.sort_values([*by, "share"], ascending=[True] * len(by) + [False],
                              ignore_index=True)
