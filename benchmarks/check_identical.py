"""Frame-identity regression harness: every registered scheduler, several streams, exact frames.

Not a test (it takes minutes): a speed change must leave every decision unchanged, so

    python benchmarks/check_identical.py record REF_DIR     # at the commit to compare against
    python benchmarks/check_identical.py compare REF_DIR    # after the change

``record`` runs every case (stream x scheduler x parameter variant) through
``compass.simulate`` and writes its ``jobs``, ``timeline`` and ``migrations`` frames and its
summary to ``REF_DIR/<case>.pkl``; ``compare`` reruns them and requires equal columns, dtypes
and values (NaN equal to NaN, nothing approximate). ``--only SUBSTRING`` restricts the cases,
``--list`` prints them. ``--idle-rows`` compares timelines without the rows that equal the
row before them (all columns but time) and summary floats to 1e-12 relative: what an engine
that skips idle timer instants (``Scheduler.skip_idle_instants``) may change, and no more.
The streams are SYNTHETIC: gfs-synth day 26 at N(eta = 0.9) = 379
(128 nodes until its largest job grew to 174 whole nodes: every case then recorded the same
refusal), venus-synth day 92 on 21 nodes, Phys-Mix, random demo-mix streams on 4 to 32
nodes, a filled steady stream on 1,000 nodes and multi-panel NVL72 streams for the
panel-aware ones. A case that fails records its error; an equal error is "same", so check
that a stream's cases run.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

import compass
from compass.schedulers import available

#: Schedulers defined only for 8-GPU nodes (the ABS) and those for multi-panel domains.
G8_ONLY = {"compass-abs", "compass-abs-paper"}
PANEL_ONLY = {"compass-abs-hier", "compass-abs-hier-paper"}
#: Parameter variants run besides the defaults (each a code path of its own).
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "fgd": [{"quantize_scores": True}],
    "cafgd": [{"quantize_scores": True, "integer_ramp": True,
               "clamp_lifecycle_weight": False}, {"hold_window": 0.0},
              {"hold_rule": "unbounded"}],
    "mcg": [{"backfill": True}, {"lb_weight": 0.5}],
    "compass-abs": [{"one_gpu_overflow": True}, {"compact_on_arrival": False}],
    "compass-abs-paper": [{"one_gpu_overflow": True}],
    "fft": [{"solver": "highs"}],
    "sifopt": [{"keep_optimal": False}],
}
#: Slow schedulers get only the smaller streams on the 1,000-node case.
SLOW = {"fft", "sifopt"}


@dataclass(frozen=True)
class Stream:
    """A named trace with its cluster: ``make()`` returns the canonical frame."""

    name: str
    make: Callable[[], pd.DataFrame]
    nodes: int
    gpus_per_node: int = 8
    schedulers: Callable[[str], bool] = field(default=lambda s: s not in PANEL_ONLY)
    kwargs: dict[str, Any] = field(default_factory=dict)


def _synth_day(kind: str, day: int) -> Callable[[], pd.DataFrame]:
    def make() -> pd.DataFrame:
        from compass.traces import synthesize

        frame = synthesize(kind, days=1, start_day=day, seed=0)
        return frame[list(compass.traces.CANONICAL_COLUMNS)]
    return make


def _demo(num_jobs: int, seed: int, interarrival: float, max_instances: int):
    def make() -> pd.DataFrame:
        return compass.traces.demo_trace(num_jobs=num_jobs, seed=seed,
                                         mean_interarrival=interarrival,
                                         max_instances=max_instances)
    return make


def _nvl72(domains: int, panels: int, jobs: int, seed: int):
    def make() -> pd.DataFrame:
        from compass.traces.nvl72 import Nvl72Workload, generate

        return generate(Nvl72Workload(domains=domains, panels=panels, jobs=jobs, seed=seed))
    return make


def _steady(nodes: int, jobs: int):
    def make() -> pd.DataFrame:
        sys.path.insert(0, str(Path(__file__).parent))
        from benchmarks_common import filled_stream

        return filled_stream(nodes, jobs)
    return make


def streams() -> list[Stream]:
    fast_only = lambda s: s not in PANEL_ONLY and s not in SLOW  # noqa: E731
    out = [
        Stream("gfs-synth-d26-n379", _synth_day("gfs-synth", 26), 379),  # N(0.9), as run
        Stream("venus-synth-d92", _synth_day("venus-synth", 92), 21),
        Stream("physmix-d0", _synth_day("physmix", 0), 13),
        Stream("steady-n1000", _steady(1000, 4000), 1000, schedulers=fast_only),
        Stream("steady-n1000-slow", _steady(1000, 1500), 1000,
               schedulers=lambda s: s in SLOW),
        Stream("nvl72-k9", _nvl72(6, 9, 250, 0), 6, 72,
               schedulers=lambda s: s not in G8_ONLY),
        Stream("nvl72-k4", _nvl72(5, 4, 250, 1), 5, 32,
               schedulers=lambda s: s not in G8_ONLY),
    ]
    for seed, (nodes, interarrival, w) in enumerate([(4, 150.0, 4), (4, 60.0, 4), (8, 90.0, 8),
                                                     (16, 40.0, 8), (32, 25.0, 8)]):
        out.append(Stream(f"random-n{nodes}-s{seed}", _demo(300, seed, interarrival, w), nodes))
    out.append(Stream("random-n6-per-migration", _demo(250, 7, 70.0, 6), 6,
                      kwargs={"pause_rule": "per-migration", "migration_cost": 3.0}))
    return out


@dataclass(frozen=True)
class Case:
    stream: Stream
    scheduler: str
    params: dict[str, Any]

    @property
    def name(self) -> str:
        tag = "-".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.stream.name}__{self.scheduler}" + (f"__{tag}" if tag else "")


def cases() -> Iterator[Case]:
    for stream in streams():
        for name in available():
            if not stream.schedulers(name):
                continue
            for params in [{}, *VARIANTS.get(name, [])]:
                yield Case(stream, name, params)


def run(case: Case, frames: dict[str, pd.DataFrame]) -> dict[str, Any]:
    key = case.stream.name
    if key not in frames:
        frames[key] = case.stream.make()
    try:
        result = compass.simulate(frames[key], case.scheduler, nodes=case.stream.nodes,
                                  gpus_per_node=case.stream.gpus_per_node,
                                  scheduler_params=case.params, **case.stream.kwargs)
    except Exception as err:  # a refusal is an outcome too: it must stay the same
        return {"error": f"{type(err).__name__}: {err}"}
    summary = {k: v for k, v in result.summary.items() if k != "trace"}
    return {"jobs": result.jobs, "timeline": result.timeline, "migrations": result.migrations,
            "summary": summary}


def without_repeated_rows(timeline: pd.DataFrame) -> pd.DataFrame:
    """The timeline without rows equal to the row before them in every column but time."""
    values = timeline.drop(columns="time")
    repeated = (values.eq(values.shift()) | (values.isna() & values.shift().isna())).all(axis=1)
    repeated.iloc[:1] = False
    return timeline[~repeated.to_numpy()].reset_index(drop=True)


def differences(ref: dict[str, Any], new: dict[str, Any], idle_rows: bool = False) -> list[str]:
    """What differs between two recorded cases (empty: frame-identical; ``idle_rows``: up to
    repeated timeline rows, summary floats to 1e-12)."""
    if "error" in ref or "error" in new:
        same = ref.get("error") == new.get("error")
        return [] if same else [f"error: {ref.get('error')!r} != {new.get('error')!r}"]
    out = []
    for part in ("jobs", "timeline", "migrations"):
        a, b = ref[part], new[part]
        if idle_rows and part == "timeline":
            a, b = without_repeated_rows(a), without_repeated_rows(b)
        if list(a.columns) != list(b.columns):
            out.append(f"{part}: columns {list(a.columns)} != {list(b.columns)}")
            continue
        if len(a) != len(b):
            out.append(f"{part}: {len(a)} rows != {len(b)}")
        for col in a.columns:
            if a[col].dtype != b[col].dtype:
                out.append(f"{part}.{col}: dtype {a[col].dtype} != {b[col].dtype}")
            n = min(len(a), len(b))
            x, y = a[col].iloc[:n].tolist(), b[col].iloc[:n].tolist()
            for i, (u, v) in enumerate(zip(x, y)):
                if not (u == v or (_isnan(u) and _isnan(v))) or type(u) is not type(v):
                    out.append(f"{part}.{col}: first difference at row {i}: {u!r} != {v!r}")
                    break
    for k in sorted(set(ref["summary"]) | set(new["summary"])):
        u, v = ref["summary"].get(k), new["summary"].get(k)
        close = idle_rows and isinstance(u, float) and isinstance(v, float) and \
            math.isclose(u, v, rel_tol=1e-12)
        if not (u == v or close or (_isnan(u) and _isnan(v))):
            out.append(f"summary.{k}: {u!r} != {v!r}")
    return out


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["record", "compare"])
    p.add_argument("directory", type=Path)
    p.add_argument("--only", action="append", default=[],
                   help="run cases whose name contains this (repeatable)")
    p.add_argument("--skip", action="append", default=[],
                   help="skip cases whose name contains this (repeatable)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--idle-rows", action="store_true",
                   help="timelines equal up to rows that repeat the row before them")
    args = p.parse_args(argv)
    selected = [c for c in cases()
                if (not args.only or any(s in c.name for s in args.only))
                and not any(s in c.name for s in args.skip)]
    if args.list:
        print("\n".join(c.name for c in selected))
        return 0
    args.directory.mkdir(parents=True, exist_ok=True)
    frames: dict[str, pd.DataFrame] = {}
    failed = 0
    for case in selected:
        path = args.directory / f"{case.name}.pkl"
        t0 = time.process_time()
        new = run(case, frames)
        cpu = time.process_time() - t0
        if args.mode == "record":
            path.write_bytes(pickle.dumps(new, protocol=pickle.HIGHEST_PROTOCOL))
            what = new["error"] if "error" in new else f"{len(new['jobs'])} jobs"
            print(f"recorded {case.name} ({what}, {cpu:.1f} s CPU)", flush=True)
            continue
        if not path.exists():
            print(f"MISSING  {case.name}: no reference in {args.directory}", flush=True)
            failed += 1
            continue
        diff = differences(pickle.loads(path.read_bytes()), new, args.idle_rows)
        failed += bool(diff)
        status = "DIFFERS " if diff else "same    "
        print(f"{status} {case.name} ({cpu:.1f} s CPU)", flush=True)
        for line in diff[:8]:
            print(f"    {line}")
    if args.mode == "compare":
        print(f"{len(selected) - failed} of {len(selected)} cases frame-identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
