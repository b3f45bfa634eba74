"""``compass.sweep``: a grid of runs of one trace -> a tidy table (one row per run).

A grid maps each swept key to its values; every combination runs under every scheduler
and ``samples`` scheduler seeds (0, 1, ...). A key is a simulation setting (``SETTINGS``:
``eta`` sizes the cluster by N(eta) of eq. 13, ``nodes`` fixes it, ``migration_cost`` (or
``cost``) is c of section 6.5, ``pause_rule``) or else a scheduler parameter, given to the
schedulers that have it (the others run once for all its values, with the column empty).
Each run's row holds the settings, the parameters and every metric of
``compass.sim.metrics.summarize``; rows are cached on disk by configuration (the trace's
content, the scheduler, its parameters, the settings, the seed and compass's version), so
that a sweep run again, or grown, replays only what it has not run. The key does not see a
scheduler's code: after changing it, clear the cache folder (or pass ``cache=None``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from compass import __version__
from compass.api import simulate
from compass.model import G_DEFAULT
from compass.schedulers.params import parameters
from compass.sim.simulator import DEFAULT_MIGRATION_COST
from compass.traces import CANONICAL_COLUMNS, validate_trace
from compass.traces.loading import read_run_trace
from compass.traces.windows import cluster_size

#: Grid keys that set the simulation, not a scheduler: name -> type.
SETTINGS: dict[str, type] = {"eta": float, "nodes": int, "migration_cost": float,
                             "pause_rule": str}
#: Other spellings of a setting.
ALIASES = {"cost": "migration_cost", "c": "migration_cost"}
#: Where rows are cached unless ``cache`` says otherwise.
DEFAULT_CACHE = Path(".compass-cache") / "sweep"


@dataclass(frozen=True)
class Run:
    """One run of a sweep: a scheduler with its parameters, a seed and the settings."""

    scheduler: str
    seed: int
    settings: tuple[tuple[str, Any], ...]
    params: tuple[tuple[str, Any], ...]

    def key(self, trace_digest: str, gpus_per_node: int) -> str:
        """The cache key: a digest of everything the run's result depends on."""
        record = {"trace": trace_digest, "gpus_per_node": gpus_per_node, "version": __version__,
                  "scheduler": self.scheduler, "seed": self.seed,
                  "settings": list(self.settings), "params": list(self.params)}
        return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()
                              ).hexdigest()[:32]


def sweep(
    trace: pd.DataFrame | str | Path,
    schedulers: Sequence[str],
    grid: Mapping[str, Iterable[Any]] | None = None,
    *,
    samples: int = 1,
    processes: int = 1,
    nodes: int | None = None,
    eta: float | None = None,
    gpus_per_node: int = G_DEFAULT,
    cache: str | Path | None = DEFAULT_CACHE,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every combination of ``grid`` x ``schedulers`` x ``samples`` seeds on ``trace``.

    The cluster is sized by ``nodes`` or ``eta`` (given here or swept in the grid; exactly
    one of them). ``processes`` > 1 runs in that many worker processes; ``cache=None``
    turns the disk cache off. Returns one row per run (columns: ``scheduler``, ``seed``,
    the settings, ``nodes``, the swept parameters, then every metric).
    """
    if samples < 1 or processes < 1:
        raise ValueError("samples and processes must be >= 1")
    if not schedulers:
        raise ValueError("name at least one scheduler")
    frame = (read_run_trace(trace, format, columns=columns, gpus_per_node=gpus_per_node)
             if isinstance(trace, (str, Path))
             else validate_trace(trace, gpus_per_node=gpus_per_node))
    axes = _axes(grid or {}, schedulers)
    sizing = [k for k in ("nodes", "eta") if k in axes] + [
        k for k, v in (("nodes", nodes), ("eta", eta)) if v is not None]
    if len(sizing) != 1:
        raise ValueError(f"size the cluster by exactly one of nodes or eta (here or in the "
                         f"grid); got {sizing or 'neither'}")
    fixed = {"nodes": nodes} if nodes is not None else {"eta": eta} if eta is not None else {}
    runs = _runs(axes, fixed, schedulers, samples)
    digest = _digest(frame)
    folder = None if cache is None else Path(cache)
    rows: dict[Run, dict[str, Any]] = {}
    todo = []
    for run in runs:
        cached = _read(folder, run.key(digest, gpus_per_node))
        if cached is not None:
            rows[run] = cached
        else:
            todo.append(run)
    jobs = [(frame, run, gpus_per_node) for run in todo]
    if processes > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(min(processes, len(jobs))) as pool:
            done = list(pool.map(_run_one, jobs))
    else:
        done = [_run_one(job) for job in jobs]
    for run, row in zip(todo, done):
        _write(folder, run.key(digest, gpus_per_node), row)
        rows[run] = row
    return _table([rows[run] for run in runs], axes)


def _axes(grid: Mapping[str, Iterable[Any]], schedulers: Sequence[str]) -> dict[str, list]:
    """The grid with aliases resolved; a key no scheduler has is refused."""
    axes: dict[str, list] = {}
    known = {name: parameters(name) for name in schedulers}
    for key, values in grid.items():
        name = ALIASES.get(key, key)
        values = list(values)
        if not values:
            raise ValueError(f"grid key {key!r} has no values")
        if name not in SETTINGS and not any(name in p for p in known.values()):
            raise ValueError(f"grid key {key!r} is neither a setting {sorted(SETTINGS)} nor a "
                             f"parameter of {list(schedulers)}")
        if name in axes:
            raise ValueError(f"grid names {name!r} twice")
        axes[name] = values
    return axes


def _runs(axes: Mapping[str, list], fixed: Mapping[str, Any], schedulers: Sequence[str],
          samples: int) -> list[Run]:
    """The distinct runs, in grid order: a scheduler without a swept parameter runs once
    for all of its values."""
    out: dict[Run, None] = {}
    keys = list(axes)
    for point in itertools.product(*(axes[k] for k in keys)):
        values = dict(zip(keys, point))
        settings = {**fixed, **{k: v for k, v in values.items() if k in SETTINGS}}
        for name in schedulers:
            own = parameters(name)
            params = {k: v for k, v in values.items() if k not in SETTINGS and k in own}
            for seed in range(samples):
                out[Run(name, seed, tuple(sorted(settings.items())),
                        tuple(sorted(params.items())))] = None
    return list(out)


def _run_one(job: tuple[pd.DataFrame, Run, int]) -> dict[str, Any]:
    """One run's row (a module-level function: worker processes call it)."""
    frame, run, gpus_per_node = job
    settings = dict(run.settings)
    nodes = settings.get("nodes")
    if nodes is None:
        nodes = cluster_size(frame, settings["eta"], gpus_per_node).nodes
    started = time.perf_counter()
    result = simulate(frame, run.scheduler, nodes=int(nodes), gpus_per_node=gpus_per_node,
                      migration_cost=settings.get("migration_cost", DEFAULT_MIGRATION_COST),
                      pause_rule=settings.get("pause_rule", "per-event"), seed=run.seed,
                      scheduler_params=dict(run.params))
    metrics = {k: v for k, v in result.summary.items() if k not in result.metadata}
    return {"scheduler": run.scheduler, "seed": run.seed, **settings, "nodes": int(nodes),
            "migration_cost": result.metadata["migration_cost"],
            "pause_rule": result.metadata["pause_rule"], **dict(run.params), **metrics,
            "wall_s": time.perf_counter() - started}


def _table(rows: list[dict[str, Any]], axes: Mapping[str, list]) -> pd.DataFrame:
    """The rows as a frame: run columns first, then the metrics."""
    table = pd.DataFrame(rows)
    first = ["scheduler", "seed", *[k for k in ("eta", "nodes", "migration_cost", "pause_rule")
                                    if k in table], *[k for k in axes if k not in SETTINGS]]
    return table[first + [c for c in table.columns if c not in first]]


def _digest(frame: pd.DataFrame) -> str:
    """The trace's content (its canonical columns, in order)."""
    hashed = pd.util.hash_pandas_object(frame[list(CANONICAL_COLUMNS)], index=False)
    return hashlib.sha256(hashed.to_numpy().tobytes()).hexdigest()


def _read(folder: Path | None, key: str) -> dict[str, Any] | None:
    path = None if folder is None else folder / f"{key}.json"
    if path is None or not path.exists():
        return None
    row = json.loads(path.read_text())
    return {k: math.nan if v is None else v for k, v in row.items()}


def _write(folder: Path | None, key: str, row: Mapping[str, Any]) -> None:
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    clean = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
    tmp = folder / f"{key}.json.tmp"
    tmp.write_text(json.dumps(clean, default=str))
    tmp.replace(folder / f"{key}.json")
