"""The ``compass`` command: simulate a trace, SIF of a demand vector, the demo, trace tools."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from compass.api import simulate
from compass.fragmentation import inherent_partial_nodes, wcc_holds, witness_packing
from compass.schedulers import available
from compass.simulator import DEFAULT_MIGRATION_COST
from compass.traces import TraceError, demo_trace, load_trace
from compass.traces.fetch import (
    DEFAULT_DEST,
    REMOTE_TRACES,
    FetchError,
    UnverifiedTrace,
    fetch_trace,
    verify_trace,
)
from compass.traces.fidelity import calibration_checks
from compass.traces.synthetic import KINDS, SYNTHETIC_PREFIX, synthesize
from compass.traces.windows import class_shares, day_summary

DEMO_TRACE = "demo"


def _trace_arg(value: str) -> pd.DataFrame | Path:
    return demo_trace() if value == DEMO_TRACE else Path(value)


def _write_result(result, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    result.jobs.to_csv(out / "jobs.csv", index=False)
    result.timeline.to_csv(out / "timeline.csv", index=False)
    result.migrations.to_csv(out / "migrations.csv", index=False)
    summary = {k: (None if isinstance(v, float) and math.isnan(v) else v)
               for k, v in result.summary.items()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")


def cmd_simulate(args: argparse.Namespace) -> int:
    result = simulate(
        _trace_arg(args.trace), args.scheduler, nodes=args.nodes,
        migration_cost=args.migration_cost, seed=args.seed, pause_rule=args.pause_rule,
        progress=not args.quiet,
    )
    _write_result(result, Path(args.out))
    s = result.summary
    print(f"{s['scheduler']}: AFR={s['afr']:.4f} AJCT={s['ajct']:.1f}s AGU={s['agu']:.4f} "
          f"migrations={s['migrations']} -> {args.out}")
    return 0


def _parse_counts(items: Sequence[str]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for item in items:
        try:
            g, n = (int(x) for x in item.split("=", 1))
        except ValueError:
            raise SystemExit(f"compass sif: expected SIZE=COUNT (e.g. 8=2), got {item!r}") from None
        counts[g] = counts.get(g, 0) + n
    return counts


def cmd_sif(args: argparse.Namespace) -> int:
    counts = _parse_counts(args.counts)
    phi = inherent_partial_nodes(counts, nodes=args.nodes)
    print(f"instances: {dict(sorted(counts.items()))}")
    print(f"Phi* (minimum partial nodes): {phi}")
    print(f"WCC holds: {wcc_holds(counts)}")
    print("witness packing:")
    for k, bin_ in enumerate(witness_packing(counts, nodes=args.nodes)):
        print(f"  node {k}: {list(bin_)} ({sum(bin_)} GPUs)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Every registered scheduler on the built-in SYNTHETIC demo workload."""
    trace = demo_trace(num_jobs=args.jobs, seed=args.seed, max_instances=min(8, args.nodes))
    out = Path(args.out)
    rows = []
    for name in args.schedulers or available():
        result = simulate(trace, name, nodes=args.nodes, seed=args.seed,
                          migration_cost=args.migration_cost, progress=not args.quiet)
        _write_result(result, out / name)
        rows.append({k: result.summary[k] for k in
                     ("scheduler", "afr", "ajct", "agu", "migrations", "max_partial_nodes")})
    table = pd.DataFrame(rows)
    table.to_csv(out / "summary.csv", index=False)
    print(f"Demo workload (SYNTHETIC, {args.jobs} jobs, seed {args.seed}) on {args.nodes} nodes:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"results in {out}/")
    return 0


def cmd_trace_synth(args: argparse.Namespace) -> int:
    """Write a SYNTHETIC calibrated trace as a canonical CSV."""
    frame = synthesize(args.kind, days=args.days, start_day=args.start_day, seed=args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    days = frame["submit_time"] // 86_400
    print(f"SYNTHETIC trace {SYNTHETIC_PREFIX}{args.kind} (seed {args.seed}): {len(frame)} jobs, "
          f"days {int(days.min())}..{int(days.max())} -> {out}")
    return 0


def cmd_trace_stats(args: argparse.Namespace) -> int:
    """Load report, Table 1 shares, per-day composition, N(eta) and rho; checks if synthetic."""
    frame, report = load_trace(args.file, args.format, return_report=True)
    print(report)
    sources = sorted(frame["source"].astype(str).unique())
    synthetic = all(s.startswith(SYNTHETIC_PREFIX) for s in sources)
    print(("SYNTHETIC trace: " if synthetic else "trace source: ") + ", ".join(sources))
    shares = class_shares(frame)
    print("instance shares (Table 1): " + ", ".join(f"{k} {v:.4f}" for k, v in shares.items()))
    days = day_summary(frame, etas=args.eta)
    print("per day (J[T1, T2] = one day; p_eta and N(eta) by eq. 12-13; rho = WCC coverage):")
    print(days.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.out:
        days.to_csv(args.out, index=False)
    if synthetic and len(sources) == 1:
        checks = calibration_checks(frame)
        print("calibration targets vs this SYNTHETIC trace:")
        print(checks.drop(columns="source").to_string(index=False))
    return 0


def cmd_trace_fetch(args: argparse.Namespace) -> int:
    """Download and verify a real trace (needs internet)."""
    try:
        path = fetch_trace(args.name, args.dest, force=args.force, timeout=args.timeout)
    except FetchError as e:
        print(f"compass: {e}", file=sys.stderr)
        return 2
    print(f"{args.name}: {path} (load it with format='{REMOTE_TRACES[args.name].format}')")
    return 0


def cmd_trace_verify(args: argparse.Namespace) -> int:
    """Check a local real trace against the published file's git blob id."""
    try:
        found = verify_trace(args.name, args.file, dest=args.dest)
    except UnverifiedTrace as e:
        print(f"compass: {e}", file=sys.stderr)
        return 2
    print(f"verified: {found.message}")
    return 0


def cmd_run_physical(args: argparse.Namespace) -> int:
    """Run a trace as real training jobs on Ray (emulated nodes unless --address)."""
    from compass.runtime import PHYSMIX, run_physical
    from compass.runtime.journal import JournalError

    if args.resume and not args.workdir:
        raise SystemExit("compass run-physical: --resume needs the --workdir of the run")
    if args.resume and args.force_new:
        raise SystemExit("compass run-physical: --resume continues the run in --workdir, "
                         "--force-new starts another: pass one of them")
    trace = args.trace if args.trace == PHYSMIX else _trace_arg(args.trace)
    try:
        result = run_physical(
            trace, args.scheduler, nodes=args.nodes, gpus_per_node=args.gpus_per_node,
            time_scale=args.time_scale, steps_per_trace_second=args.steps_per_trace_second,
            max_jobs=args.jobs, address=args.address, device=args.device,
            workdir=args.workdir, resume=args.resume, force_new=args.force_new, seed=args.seed,
            progress=not args.quiet,
        )
    except (JournalError, FileExistsError) as e:
        print(f"compass: {e}", file=sys.stderr)
        return 2
    result.write(args.out)
    s = result.summary
    source = s["trace_source"]
    if source.startswith(SYNTHETIC_PREFIX):
        source = f"SYNTHETIC {source.removeprefix(SYNTHETIC_PREFIX)}"

    def num(key: str, spec: str) -> str:  # AFR and AGU are undefined when nothing queued
        return "n/a" if math.isnan(s[key]) else format(s[key], spec)

    print(f"{s['scheduler']} ({s['mode']}, {s['device']}, {s['jobs']} jobs of {source}): "
          f"AFR={num('afr', '.4f')} AJCT={s['ajct']:.1f}s AGU={num('agu', '.4f')} "
          f"migrations={s['migrations']} mean migration latency="
          f"{num('mean_migration_latency_s', '.2f')}s (measured) restarts={s['restarts']} "
          f"unreadable checkpoints={s['corrupt_checkpoints']} -> {args.out} "
          f"(journal: {s['workdir']})")
    if s["moved_aside"]:
        print(f"the previous run's journal and checkpoints were moved to {s['moved_aside']}")
    return 0


def _add_physical_command(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("run-physical", help="run a trace as real PyTorch jobs on Ray (sec. 5.1)")
    r.add_argument("--trace", default="physmix",
                   help=f"'physmix' (SYNTHETIC Phys-Mix), '{DEMO_TRACE}' or a canonical CSV")
    r.add_argument("--scheduler", default="compass-abs", choices=available())
    r.add_argument("--nodes", type=int, default=4)
    r.add_argument("--gpus-per-node", type=int, default=8)
    r.add_argument("--jobs", type=int, default=None,
                   help="run only the first JOBS jobs (physmix default: 12)")
    r.add_argument("--time-scale", type=float, default=120.0,
                   help="trace seconds per wall second")
    r.add_argument("--steps-per-trace-second", type=float, default=0.05,
                   help="training steps per trace second of a job's duration")
    r.add_argument("--address", default=None,
                   help="attach to this Ray cluster (e.g. 'auto') instead of emulating nodes")
    r.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    r.add_argument("--workdir", default=None,
                   help="journal and checkpoints (shared storage on a real cluster; default: "
                        "a new folder under results/physical/work/, printed at the end)")
    r.add_argument("--out", default="results/physical/run", help="output folder")
    r.add_argument("--resume", action="store_true",
                   help="continue the run journaled in --workdir after a controller crash")
    r.add_argument("--force-new", action="store_true",
                   help="start a new run in --workdir, moving another run's journal and "
                        "checkpoints aside into <workdir>/previous-<time>/")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run_physical)


def _add_trace_commands(sub: argparse._SubParsersAction) -> None:
    trace = sub.add_parser("trace", help="trace tools: synthesize, describe, fetch, verify")
    tsub = trace.add_subparsers(dest="trace_command", required=True)

    t = tsub.add_parser("synth", help="write a SYNTHETIC calibrated trace (canonical CSV)")
    t.add_argument("--kind", required=True, choices=KINDS)
    t.add_argument("--days", type=int, default=None,
                   help="number of days (default: the calibrated span; physmix: 1)")
    t.add_argument("--start-day", type=int, default=0, help="first day index")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--out", required=True, help="output CSV")
    t.set_defaults(func=cmd_trace_synth)

    t = tsub.add_parser("stats", help="shares, composition, N(eta) and rho per day of a trace")
    t.add_argument("file")
    t.add_argument("--format", default="auto",
                   choices=["auto", "canonical", "helios", "alibaba-spot", "alibaba-openb"])
    t.add_argument("--eta", type=float, nargs="+", default=[0.85, 0.90, 0.95])
    t.add_argument("--out", help="also write the per-day table to this CSV")
    t.set_defaults(func=cmd_trace_stats)

    t = tsub.add_parser("fetch", help="download and verify a real trace (needs internet)")
    t.add_argument("name", choices=sorted(REMOTE_TRACES))
    t.add_argument("--dest", default=str(DEFAULT_DEST), help="folder (default: data/raw)")
    t.add_argument("--force", action="store_true", help="download again even if present")
    t.add_argument("--timeout", type=float, default=60.0, help="seconds per connection")
    t.set_defaults(func=cmd_trace_fetch)

    t = tsub.add_parser("verify", help="check a local real trace is the published file "
                                       "(git blob id; a cut file or wrong header is refused)")
    t.add_argument("name", choices=sorted(REMOTE_TRACES))
    t.add_argument("--file", default=None, help="the file (default: its place under --dest)")
    t.add_argument("--dest", default=str(DEFAULT_DEST), help="folder (default: data/raw)")
    t.set_defaults(func=cmd_trace_verify)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="compass", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("simulate", help="replay a canonical trace under one scheduler")
    s.add_argument("--trace", required=True, help=f"canonical CSV, or '{DEMO_TRACE}'")
    s.add_argument("--scheduler", default="gfs", choices=available())
    s.add_argument("--nodes", type=int, required=True)
    s.add_argument("--out", required=True, help="output folder")
    s.add_argument("--migration-cost", type=float, default=DEFAULT_MIGRATION_COST,
                   help="c in seconds")
    s.add_argument("--pause-rule", default="per-event", choices=["per-event", "per-migration"])
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)

    f = sub.add_parser("sif", help="Phi*, the WCC and a witness packing for SIZE=COUNT pairs")
    f.add_argument("counts", nargs="+", metavar="SIZE=COUNT")
    f.add_argument("--nodes", type=int, default=None, help="bound the number of nodes")
    f.set_defaults(func=cmd_sif)

    d = sub.add_parser("demo", help="all schedulers on the built-in synthetic workload")
    d.add_argument("--out", default="results/demo")
    d.add_argument("--nodes", type=int, default=16)
    d.add_argument("--jobs", type=int, default=400)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--migration-cost", type=float, default=DEFAULT_MIGRATION_COST,
                   help="c in seconds")
    d.add_argument("--schedulers", nargs="*", choices=available())
    d.add_argument("--quiet", action="store_true")
    d.set_defaults(func=cmd_demo)

    sub.add_parser("schedulers", help="list registered schedulers").set_defaults(
        func=lambda a: print("\n".join(available())) or 0)
    _add_trace_commands(sub)
    _add_physical_command(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except TraceError as e:
        print(f"compass: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
