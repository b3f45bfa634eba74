"""``compass.sweep``: a grid of runs of one or several traces -> a tidy table (one row per run).

A grid maps each swept key to its values; every combination runs on every trace, under
every scheduler and ``samples`` scheduler seeds (0, 1, ...). A key is a simulation setting
(``SETTINGS``: ``eta`` sizes the cluster by N(eta) of eq. 13, ``nodes`` fixes it, ``cost``
(or ``migration_cost``, ``c``) is c of section 6.5, ``pause_rule``) or else a scheduler
parameter, given to the schedulers that have it (the others run once for all its values,
with the column empty). Workload variance comes from several traces (a mapping of names to
traces) or from a synthetic workload's seeds (``workloads``); the ``trace`` column names
each. Every run is one ``compass.simulate`` call (the API sizes the cluster and records the
run), and its row holds the run columns and every metric of ``compass.sim.result_schema``.

Rows are cached on disk by everything that decides them: the trace's content, the
scheduler, its parameters, the settings, the seed, compass's version and the source code
that runs (every file of the compass package and of each outside package that defines a
class of the scheduler, a plugin's whole package): editing a plugin replays its runs. The
table's ``from_cache`` column and ``CacheReport.of(table)`` (from ``table.attrs["cache"]``)
say which rows came from the cache.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import marshal
import math
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

import compass
from compass.api import simulate
from compass.model import G_DEFAULT
from compass.schedulers import Scheduler, scheduler_class
from compass.schedulers.params import check_params, parameters
from compass.sim.result_schema import METRIC_NAMES, RUN_NAMES
from compass.sim.simulator import DEFAULT_MIGRATION_COST
from compass.traces import CANONICAL_COLUMNS, demo_trace
from compass.traces.loading import DEMO, Days, RunTrace, run_trace

#: Grid keys that set the simulation, not a scheduler: name -> type.
SETTINGS: dict[str, type] = {"eta": float, "nodes": int, "cost": float, "pause_rule": str}
#: Other spellings of a setting.
ALIASES = {"migration_cost": "cost", "c": "cost"}
#: Where rows are cached unless ``cache`` says otherwise.
DEFAULT_CACHE = Path(".compass-cache") / "sweep"
#: What a failing run does: stop the sweep, or become a row with ``status="error"``.
OnError = Literal["raise", "record"]
#: A trace a sweep runs: a canonical frame, "demo" or the path of a trace file.
TraceLike = pd.DataFrame | str | Path


@dataclass(frozen=True)
class Run:
    """One run of a sweep: a trace, a scheduler with its parameters, a seed, the settings."""

    trace: str
    scheduler: str
    seed: int
    settings: tuple[tuple[str, Any], ...]
    params: tuple[tuple[str, Any], ...]

    def key(self, trace_digest: str, gpus_per_node: int, code: str) -> str:
        """The cache key: a digest of everything the run's result depends on, the code
        that runs (``code_digest``) included."""
        record = {"trace": trace_digest, "gpus_per_node": gpus_per_node, "code": code,
                  "version": compass.__version__, "scheduler": self.scheduler,
                  "seed": self.seed, "settings": list(self.settings),
                  "params": list(self.params)}
        return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()
                              ).hexdigest()[:32]


@dataclass(frozen=True)
class CacheReport:
    """How the rows of a sweep came about: read from the cache, run now, or failed."""

    runs: int
    from_cache: int
    ran: int
    failed: int
    folder: str | None

    @classmethod
    def of(cls, table: pd.DataFrame) -> CacheReport:
        """The report of the sweep that returned ``table`` (its ``attrs["cache"]``)."""
        return cls(**table.attrs["cache"])

    def __str__(self) -> str:
        where = f"cache {self.folder}" if self.folder else "cache off"
        failed = f", {self.failed} failed" if self.failed else ""
        return (f"{self.runs} runs: {self.from_cache} from the cache, {self.ran} run now"
                f"{failed} ({where})")


def sweep(
    trace: TraceLike | Mapping[str, TraceLike] | Callable[[int], pd.DataFrame],
    schedulers: Sequence[str],
    grid: Mapping[str, Iterable[Any]] | None = None,
    *,
    samples: int = 1,
    workloads: Sequence[int] | None = None,
    processes: int = 1,
    nodes: int | None = None,
    eta: float | None = None,
    gpus_per_node: int = G_DEFAULT,
    days: Days | None = None,
    on_error: OnError = "raise",
    cache: str | Path | None = DEFAULT_CACHE,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every combination of ``grid`` x traces x ``schedulers`` x ``samples`` seeds.

    ``trace`` is one trace (a frame, "demo" or a file in any format; ``days`` keeps the
    jobs submitted on those days), a mapping of names to traces, or, with ``workloads``
    (seeds), "demo" or a function ``seed -> frame`` that makes a synthetic workload: one
    trace per seed, named ``name:seed``. The cluster is sized by ``nodes`` or ``eta``
    (given here or swept in the grid; exactly one of them). ``processes`` > 1 runs in that
    many worker processes; ``cache=None`` turns the disk cache off. ``on_error="record"``
    keeps a failing run as a row with ``status="error"`` and its ``error`` (never cached)
    instead of stopping the sweep. Returns one row per run: ``trace``, ``scheduler``,
    ``seed``, the settings, the swept parameters, ``status``, ``error``, every metric,
    ``from_cache`` and ``wall_s``; ``CacheReport.of(table)`` counts them.
    """
    if samples < 1 or processes < 1:
        raise ValueError("samples and processes must be >= 1")
    if not schedulers:
        raise ValueError("name at least one scheduler")
    if on_error not in ("raise", "record"):
        raise ValueError(f"on_error must be 'raise' or 'record', got {on_error!r}")
    loaded = {name: run_trace(t, format, columns=columns, gpus_per_node=gpus_per_node,
                              days=days, label=name)
              for name, t in _traces(trace, workloads).items()}
    axes = _axes(grid or {}, schedulers)
    sizing = [k for k in ("nodes", "eta") if k in axes] + [
        k for k, v in (("nodes", nodes), ("eta", eta)) if v is not None]
    if len(sizing) != 1:
        raise ValueError(f"size the cluster by exactly one of nodes or eta (here or in the "
                         f"grid); got {sizing or 'neither'}")
    fixed = {"nodes": nodes} if nodes is not None else {"eta": eta} if eta is not None else {}
    runs = [r for name in loaded for r in _runs(axes, fixed, schedulers, samples, name)]
    digests = {name: _digest(t) for name, t in loaded.items()}
    code = {name: code_digest(scheduler_class(name)) for name in schedulers}
    keys = {run: run.key(digests[run.trace], gpus_per_node, code[run.scheduler])
            for run in runs}
    folder = None if cache is None else Path(cache)
    rows: dict[Run, dict[str, Any]] = {}
    for run in runs:
        cached = _read(folder, keys[run])
        if cached is not None:
            rows[run] = {**cached, "from_cache": True}
    todo = [run for run in runs if run not in rows]
    jobs = [(loaded[run.trace], run, gpus_per_node, on_error) for run in todo]
    if processes > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(min(processes, len(jobs))) as pool:
            done = list(pool.map(_run_one, jobs))
    else:
        done = [_run_one(job) for job in jobs]
    for run, row in zip(todo, done):
        if row["status"] == "ok":
            _write(folder, keys[run], row)
        rows[run] = {**row, "from_cache": False}
    table = _table([rows[run] for run in runs], axes)
    failed = int((table["status"] != "ok").sum())
    report = CacheReport(len(runs), len(runs) - len(todo), len(todo) - failed, failed,
                         None if folder is None else str(folder))
    table.attrs["cache"] = asdict(report)  # plain values: parquet keeps attrs as JSON
    return table


def _traces(trace: Any, workloads: Sequence[int] | None) -> dict[str, TraceLike]:
    """The sweep's traces by name (the ``trace`` column)."""
    if workloads is not None:
        if not workloads:
            raise ValueError("workloads: name at least one seed")
        if isinstance(trace, str) and trace == DEMO:
            return {f"{DEMO}:{s}": demo_trace(seed=s) for s in workloads}
        if callable(trace):
            name = getattr(trace, "__name__", "workload")
            return {f"{name}:{s}": trace(s) for s in workloads}
        raise ValueError("workloads= needs trace='demo' or a function seed -> trace frame")
    if isinstance(trace, Mapping):
        if not trace:
            raise ValueError("name at least one trace")
        return {str(k): v for k, v in trace.items()}
    if isinstance(trace, pd.DataFrame):
        return {"<DataFrame>": trace}
    return {str(trace): trace}


def _axes(grid: Mapping[str, Iterable[Any]], schedulers: Sequence[str]) -> dict[str, list]:
    """The grid with aliases resolved; a key no scheduler has is refused, and a parameter's
    values are checked as the API checks them (``check_params``)."""
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
        if name not in SETTINGS:
            owner = next(s for s in schedulers if name in known[s])
            values = [check_params(owner, {name: v})[name] for v in values]
        axes[name] = values
    return axes


def _runs(axes: Mapping[str, list], fixed: Mapping[str, Any], schedulers: Sequence[str],
          samples: int, trace: str) -> list[Run]:
    """The distinct runs of one trace, in grid order: a scheduler without a swept parameter
    runs once for all of its values."""
    out: dict[Run, None] = {}
    keys = list(axes)
    for point in itertools.product(*(axes[k] for k in keys)):
        values = dict(zip(keys, point))
        settings = {**fixed, **{k: v for k, v in values.items() if k in SETTINGS}}
        for name in schedulers:
            own = parameters(name)
            params = {k: v for k, v in values.items() if k not in SETTINGS and k in own}
            for seed in range(samples):
                out[Run(trace, name, seed, tuple(sorted(settings.items())),
                        tuple(sorted(params.items())))] = None
    return list(out)


def _run_one(job: tuple[RunTrace, Run, int, OnError]) -> dict[str, Any]:
    """One run's row (a module-level function: worker processes call it)."""
    trace, run, gpus_per_node, on_error = job
    settings = dict(run.settings)
    started = time.perf_counter()
    head = {"trace": run.trace, "scheduler": run.scheduler, "seed": run.seed, **settings,
            **dict(run.params)}
    try:
        result = simulate(trace, run.scheduler, nodes=settings.get("nodes"),
                          eta=settings.get("eta"), gpus_per_node=gpus_per_node,
                          migration_cost=settings.get("cost", DEFAULT_MIGRATION_COST),
                          pause_rule=settings.get("pause_rule", "per-event"), seed=run.seed,
                          scheduler_params=dict(run.params), label=run.trace)
    except Exception as exc:  # recorded when asked (on_error="record"), else raised
        if on_error == "raise":
            raise
        print(traceback.format_exc(), file=sys.stderr, flush=True)
        return {**head, "status": "error", "error": f"{type(exc).__name__}: {exc}",
                "wall_s": time.perf_counter() - started}
    s = result.summary
    run_columns = {k: s[k] for k in RUN_NAMES if k != "scheduler_params"}
    row = {**run_columns, **head, "nodes": s["nodes"], "status": "ok", "error": "",
           **{k: s[k] for k in METRIC_NAMES}, "wall_s": time.perf_counter() - started}
    return {k: math.nan if v is None else v for k, v in row.items()}  # as the cache reads it


def _table(rows: list[dict[str, Any]], axes: Mapping[str, list]) -> pd.DataFrame:
    """The rows as a frame: run columns first, then the parameters, status and metrics."""
    table = pd.DataFrame(rows)
    first = [k for k in RUN_NAMES if k in table] + [k for k in axes if k not in SETTINGS]
    first += ["status", "error", *METRIC_NAMES, "from_cache", "wall_s"]
    table = table.reindex(columns=list(dict.fromkeys(first)))
    table["error"] = table["error"].fillna("")
    return table


def _digest(trace: RunTrace) -> str:
    """The trace's content (its canonical columns, in order), its day window (N(eta) is
    measured over it) and the rows loading dropped."""
    hashed = pd.util.hash_pandas_object(trace.frame[list(CANONICAL_COLUMNS)], index=False)
    digest = hashlib.sha256(hashed.to_numpy().tobytes())
    digest.update(repr((trace.window, trace.report.rows_dropped)).encode())
    return digest.hexdigest()


def code_digest(cls: type[Scheduler]) -> str:
    """A digest of the source code a run of ``cls`` executes: every ``.py`` file of the
    compass package (the simulator, the metrics, the schedulers) and of each outside
    package (or module) that defines a class of ``cls``'s hierarchy, e.g. a plugin's whole
    package. A class defined where no file holds it (a notebook cell, ``exec``) is hashed
    by its own code (``_class_code``)."""
    sources: dict[str, bytes] = {}
    roots = {Path(compass.__file__).parent}
    for klass in cls.__mro__:
        if not (isinstance(klass, type) and issubclass(klass, Scheduler)):
            continue
        top = sys.modules.get(klass.__module__.split(".")[0])
        found = getattr(top, "__path__", None) or [getattr(top, "__file__", None) or ""]
        paths = [Path(p) for p in found if p and Path(p).exists()]
        if paths:
            roots.update(paths)
        else:
            sources[f"{klass.__module__}.{klass.__qualname__}"] = _class_code(klass)
    for root in roots:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        sources.update((f"{root.name}/{f.relative_to(root) if f != root else ''}",
                        f.read_bytes()) for f in files)
    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name] + b"\0")
    return digest.hexdigest()


def _class_code(klass: type) -> bytes:
    """A class's source, or where there is none (``exec``) its methods' compiled code and
    its plain class attributes."""
    try:
        return inspect.getsource(klass).encode()
    except (OSError, TypeError):
        items = sorted(vars(klass).items())
        code = [marshal.dumps(v.__code__) for _, v in items if hasattr(v, "__code__")]
        plain = repr([(k, v) for k, v in items
                      if isinstance(v, (bool, int, float, str, tuple, type(None)))])
        return b"".join(code) + plain.encode()


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
