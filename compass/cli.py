"""The ``compass`` command: simulate a trace, SIF of a demand vector, the demo, trace tools.

A user error (bad input, option or file) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from compass import __version__
from compass.api import UndefinedMetric, simulate
from compass.model import G_DEFAULT, PAPER_ETAS
from compass.oracle.fragmentation import inherent_partial_nodes, wcc_holds, witness_packing
from compass.schedulers import available, cards, load_plugins, scheduler_class
from compass.schedulers.params import ParameterError, parameters, parse_params
from compass.sim.run_inputs import build_scheduler
from compass.sim.simulator import DEFAULT_MIGRATION_COST, SimulationError
from compass.sim.table_files import DEFAULT_FORMAT, FORMATS, table_path, write_frame
from compass.sweeping import ALIASES, DEFAULT_CACHE, SETTINGS, CacheReport, sweep
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
from compass.traces.formats import formats
from compass.traces.loading import DEMO, Days, parse_columns
from compass.traces.scaling import load_scaled
from compass.traces.synthetic import KINDS, SYNTHETIC_PREFIX
from compass.traces.windows import BUSY_MIN_PODS, class_shares, day_summary


class UsageError(Exception):
    """A user error the command reports as one line (exit status 2)."""


#: Errors of the input, not of the program: reported as one line, exit status 2.
USER_ERRORS = (UsageError, TraceError, ParameterError, SimulationError, OSError)


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line (the usage stays in ``--help``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Formatter(argparse.HelpFormatter):
    """Each option's help ends with its default, or says it is required (flags: neither)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.required and action.option_strings:
            return f"{text} (required)"
        if ("(default" in text or action.default in (None, argparse.SUPPRESS)
                or action.nargs == 0):
            return text
        return f"{text} (default: %(default)s)"


def _command(sub: argparse._SubParsersAction, name: str, text: str) -> argparse.ArgumentParser:
    """A sub-command whose ``--help`` shows ``text`` and every option's default; like every
    command it takes ``--plugin``."""
    parser = sub.add_parser(name, help=text, description=text, formatter_class=_Formatter)
    _add_plugin_option(parser)
    return parser


def _add_plugin_option(parser: argparse.ArgumentParser) -> None:
    """``--plugin MODULE`` (repeatable) and ``--debug``: read by ``_global_options`` before
    the parser is built, so that the plugin's schedulers are among the choices; listed here
    for ``--help`` and so that the full parser accepts them at any place."""
    parser.add_argument("--plugin", action="append", default=argparse.SUPPRESS,
                        metavar="MODULE",
                        help="import MODULE first: the schedulers it registers can be named "
                             "(repeatable; installed packages with a 'compass.schedulers' "
                             "entry point are loaded without it) (default: none)")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="on an error, print the full traceback instead of one line")


def _global_options(argv: Sequence[str]) -> argparse.Namespace:
    """``--plugin`` and ``--debug``, wherever ``argv`` names them."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--plugin", action="append", default=[])
    pre.add_argument("--debug", action="store_true")
    return pre.parse_known_args(argv)[0]


def _load_plugins(modules: Sequence[str]) -> None:
    """Import the ``--plugin`` modules (and the installed ones); a plugin that fails to
    import, for whatever reason, is a user error naming it."""
    try:
        load_plugins(modules)
    except ImportError as err:
        raise UsageError(str(err)) from None
    except Exception as err:  # a plugin module that raises while it is imported
        raise UsageError(f"plugin {', '.join(modules) or '(installed)'} failed to load: "
                         f"{type(err).__name__}: {err}") from err


def _number(kind: Callable[[str], Any], low: float, strict: bool) -> Callable[[str], Any]:
    """An argparse type: ``kind`` (int or float) that is finite and > ``low`` (>= unless
    ``strict``)."""
    what = ("an integer" if kind is int else "a number") + (" > " if strict else " >= ")

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}{low:g}, got {text!r}") from None
        if not math.isfinite(value) or value < low or (strict and value == low):
            raise argparse.ArgumentTypeError(f"expected {what}{low:g}, got {text!r}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


POSITIVE_INT, NONNEGATIVE_INT = _number(int, 0, True), _number(int, 0, False)
POSITIVE, NONNEGATIVE = _number(float, 0, True), _number(float, 0, False)


def _fraction(text: str) -> float:
    """An argparse type for a load factor eta in (0, 1]."""
    value = POSITIVE(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a load factor in (0, 1], got {text!r}")
    return value


def _scheduler_name(text: str) -> str:
    """An argparse type: a registered scheduler name (the error says how a plugin comes in)."""
    try:
        return scheduler_class(text).name
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


_scheduler_name.__name__ = "scheduler"


def _add_scheduler_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--scheduler", default=default, type=_scheduler_name, metavar="NAME",
                        help=f"scheduler: {', '.join(available())}")


def _add_param_option(parser: argparse.ArgumentParser, note: str = "") -> None:
    parser.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE",
        help="a scheduler parameter, repeatable; VALUE is typed by the parameter (int, "
             f"float, true/false, text){note}; 'compass schedulers --params' lists them "
             "(default: the scheduler's own defaults)")


def _trace_arg(value: str) -> str | Path:
    """``--trace``: the demo workload's name, or a path."""
    return value if value == DEMO else Path(value)


def _days(text: str) -> Days:
    """An argparse type: ``FIRST-LAST`` day indices (both included), one day, or ``busy``."""
    if text == "busy":
        return "busy"
    first, _, last = text.partition("-")
    try:
        days = (int(first), int(last or first))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST, a day or 'busy', got {text!r}"
                                         ) from None
    if not 0 <= days[0] <= days[1]:
        raise argparse.ArgumentTypeError(f"expected 0 <= FIRST <= LAST, got {text!r}")
    return days


def _columns(text: str) -> dict[str, str]:
    """An argparse type: ``old=new,...`` pairs (``compass.traces.loading.parse_columns``)."""
    try:
        return parse_columns(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _add_format_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", default="auto", choices=["auto", *formats()],
                        help="trace format (auto: the one whose columns the header holds)")
    parser.add_argument("--columns", type=_columns, default={}, metavar="OLD=NEW,...",
                        help="rename header columns before the format is read "
                             "(default: none)")


def _add_run_trace_options(parser: argparse.ArgumentParser) -> None:
    """``--gpus-per-node`` and ``--days``, shared by simulate and sweep."""
    parser.add_argument("--gpus-per-node", type=POSITIVE_INT, default=G_DEFAULT,
                        help="GPUs per node G")
    parser.add_argument("--days", type=_days, default=None, metavar="FIRST-LAST|busy",
                        help="a window of days (indices from 0, both included; 'busy': "
                             "from the first to the last day with >= "
                             f"{BUSY_MIN_PODS} submissions, the window the pipeline sizes the "
                             "openb replay by): --eta sizes over it, and the jobs submitted "
                             "after it are dropped and counted; earlier ones stay, as the "
                             "load running into it (default: the whole trace)")


def _add_table_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table-format", default=DEFAULT_FORMAT, choices=FORMATS,
                        help="file format of the run's tables (parquet: typed, smaller and "
                             "faster to read for large runs)")


def cmd_simulate(args: argparse.Namespace) -> int:
    """One run through ``compass.simulate``, which sizes the cluster and records the run."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetric)
        result = simulate(
            _trace_arg(args.trace), args.scheduler, nodes=args.nodes, eta=args.eta,
            gpus_per_node=args.gpus_per_node, days=args.days, format=args.format,
            columns=args.columns, label=args.trace, migration_cost=args.migration_cost,
            seed=args.seed, pause_rule=args.pause_rule, progress=not args.quiet,
            scheduler_params=parse_params(args.scheduler, args.param),
        )
    result.write(args.out, args.table_format, timeline=not args.no_timeline)
    s = result.summary

    def num(key: str, spec: str) -> str:
        return "n/a" if math.isnan(s[key]) else format(s[key], spec)

    sized = f" on {s['nodes']} nodes (N({args.eta:g}))" if args.eta is not None else ""
    print(f"{s['scheduler']}{sized}: AFR={num('afr', '.4f')} AJCT={s['ajct']:.1f}s "
          f"AGU={num('agu', '.4f')} JCT p50/p95/p99={num('jct_p50', '.0f')}/"
          f"{num('jct_p95', '.0f')}/{num('jct_p99', '.0f')}s "
          f"slowdown={num('mean_bounded_slowdown', '.2f')} migrations={s['migrations']} "
          f"-> {args.out}")
    report = result.load_report
    if report is not None and report.rows_dropped:
        reasons = ", ".join(f"{n} {why}" for why, n in report.dropped.items() if n)
        print(f"note: {report.rows_dropped} of {report.rows_read} rows of the trace were "
              f"dropped ({reasons}); {report.rows_kept} replayed", file=sys.stderr)
    for warning in caught:
        print(f"note: {warning.message}", file=sys.stderr)
    return 0


def _grid_item(text: str) -> tuple[str, list[str]]:
    """An argparse type: ``KEY=V1,V2,...`` (one axis of ``compass sweep``)."""
    key, sep, values = text.partition("=")
    items = [v.strip() for v in values.split(",") if v.strip()]
    if not sep or not key.strip() or not items:
        raise argparse.ArgumentTypeError(f"expected KEY=V1,V2,..., got {text!r}")
    return key.strip(), items


def _typed_grid(axes: Sequence[tuple[str, list[str]]]) -> dict[str, list[Any]]:
    """Each setting's values typed; a scheduler parameter's stay text, typed by the sweep
    as the API types them (``compass.schedulers.params.check_params``)."""
    grid: dict[str, list[Any]] = {}
    for key, items in axes:
        name = ALIASES.get(key, key)
        kind = SETTINGS.get(name, str)
        try:
            grid[name] = [kind(v) for v in items]
        except ValueError:
            raise UsageError(f"sweep: {key} takes {kind.__name__} values, got "
                             f"{items}") from None
    return grid


def cmd_sweep(args: argparse.Namespace) -> int:
    """Every combination of the grid under every scheduler -> one table row per run; says
    how many rows came from the cache."""
    grid = _typed_grid(args.grid)
    traces = ({name: _trace_arg(name) for name in args.trace} if len(args.trace) > 1
              else _trace_arg(args.trace[0]))
    if args.workloads is not None and args.trace != [DEMO]:
        raise UsageError(f"sweep: --workloads draws the synthetic '{DEMO}' workload; "
                         f"give --trace {DEMO}")
    try:
        table = sweep(traces, args.schedulers, grid, samples=args.samples,
                      workloads=None if args.workloads is None else range(args.workloads),
                      processes=args.processes, nodes=args.nodes, eta=args.eta,
                      gpus_per_node=args.gpus_per_node, days=args.days,
                      on_error=args.on_error, cache=None if args.no_cache else args.cache,
                      format=args.format, columns=args.columns)
    except ParameterError:
        raise
    except ValueError as err:
        raise UsageError(f"sweep: {err}") from None
    out = Path(args.out).with_suffix(f".{args.table_format}")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_frame(table, out)
    several = table["trace"].nunique() > 1
    shown = [c for c in ("trace" if several else "", "scheduler", "seed", *grid, "nodes",
                         "status", "afr", "ajct", "agu", "migrations", "from_cache")
             if c in table]
    print(table[list(dict.fromkeys(shown))].to_string(
        index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"{CacheReport.of(table)} -> {out}")
    failed = table[table["status"] != "ok"]
    for row in failed.itertuples():
        print(f"warning: {row.scheduler} on {row.trace} seed {row.seed} failed: {row.error}",
              file=sys.stderr)
    return 0


def _parse_counts(items: Sequence[str]) -> dict[int, int]:
    """``{g: count}`` from SIZE=COUNT texts: g in 1..G, count a whole number >= 0."""
    counts: dict[int, int] = {}
    for item in items:
        try:
            g, n = (int(x) for x in item.split("=", 1))
        except ValueError:
            raise UsageError(f"sif: expected SIZE=COUNT (e.g. 8=2), got {item!r}") from None
        if not 1 <= g <= G_DEFAULT:
            raise UsageError(f"sif: instance size must be in 1..{G_DEFAULT} (GPUs per node), "
                             f"got {g} in {item!r}")
        if n < 0:
            raise UsageError(f"sif: count must be >= 0, got {n} in {item!r}")
        counts[g] = counts.get(g, 0) + n
    return counts


def cmd_sif(args: argparse.Namespace) -> int:
    """Phi*, the WCC and a witness packing (section 3) of SIZE=COUNT pairs."""
    counts = _parse_counts(args.counts)
    try:
        phi = inherent_partial_nodes(counts, nodes=args.nodes)
        witness = witness_packing(counts, nodes=args.nodes)
    except ValueError as err:  # InfeasiblePacking: the demand exceeds --nodes
        raise UsageError(f"sif: {err}") from None
    print(f"instances: {dict(sorted(counts.items()))}")
    print(f"Phi* (minimum partial nodes): {phi}")
    print(f"WCC holds: {wcc_holds(counts)}")
    print("witness packing:")
    for k, bin_ in enumerate(witness):
        print(f"  node {k}: {list(bin_)} ({sum(bin_)} GPUs)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Every registered scheduler on the built-in SYNTHETIC demo workload."""
    trace = demo_trace(num_jobs=args.jobs, seed=args.seed, max_instances=min(8, args.nodes))
    out = Path(args.out)
    rows = []
    names = args.schedulers or available()
    params = {name: parse_params(name, args.param) for name in names}  # all refused first
    for name in names:
        result = simulate(trace, name, nodes=args.nodes, seed=args.seed,
                          scheduler_params=params[name], migration_cost=args.migration_cost,
                          progress=not args.quiet, label=f"{DEMO} ({args.jobs} jobs)")
        result.write(out / name, args.table_format)
        rows.append({k: result.summary[k] for k in
                     ("scheduler", "afr", "ajct", "agu", "migrations", "max_partial_nodes")})
    table = pd.DataFrame(rows)
    write_frame(table, table_path(out, "summary", args.table_format))
    print(f"Demo workload (SYNTHETIC, {args.jobs} jobs, seed {args.seed}) on {args.nodes} nodes:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"results in {out}/")
    return 0


def cmd_trace_synth(args: argparse.Namespace) -> int:
    """Write a SYNTHETIC calibrated trace as a canonical CSV."""
    frame = load_scaled(args.kind, args.load_scale, days=args.days, start_day=args.start_day,
                        seed=args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    days = frame["submit_time"] // 86_400
    scale = "" if args.load_scale == 1 else f", arrivals x{args.load_scale:g}"
    print(f"SYNTHETIC trace {SYNTHETIC_PREFIX}{args.kind} (seed {args.seed}{scale}): "
          f"{len(frame)} jobs, days {int(days.min())}..{int(days.max())} -> {out}")
    return 0


def cmd_trace_stats(args: argparse.Namespace) -> int:
    """Load report, Table 1 shares, per-day composition, N(eta) and rho; checks if synthetic."""
    frame, report = load_trace(args.file, args.format, columns=args.columns,
                               return_report=True)
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
        raise UsageError(str(e)) from None
    print(f"{args.name}: {path} (load it with format='{REMOTE_TRACES[args.name].format}')")
    return 0


def cmd_trace_verify(args: argparse.Namespace) -> int:
    """Check a local real trace against the published file's git blob id."""
    try:
        found = verify_trace(args.name, args.file, dest=args.dest)
    except UnverifiedTrace as e:
        raise UsageError(str(e)) from None
    print(f"verified: {found.message}")
    return 0


def cmd_run_physical(args: argparse.Namespace) -> int:
    """Run a trace as real training jobs on Ray (emulated nodes unless --address)."""
    from compass.runtime import PHYSMIX, PHYSMIX_MIGRATE, run_physical
    from compass.runtime.journal import JournalError

    if args.resume and not args.workdir:
        raise UsageError("run-physical: --resume needs the --workdir of the run")
    if args.resume and args.force_new:
        raise UsageError("run-physical: --resume continues the run in --workdir, "
                         "--force-new starts another: pass one of them")
    # refuse a bad --param before Ray starts
    build_scheduler(args.scheduler, nodes=args.nodes, gpus_per_node=args.gpus_per_node,
                    seed=args.seed, params=parse_params(args.scheduler, args.param))
    trace = args.trace if args.trace in (PHYSMIX, PHYSMIX_MIGRATE) else _trace_arg(args.trace)
    try:
        result = run_physical(
            trace, args.scheduler, nodes=args.nodes, gpus_per_node=args.gpus_per_node,
            time_scale=args.time_scale, steps_per_trace_second=args.steps_per_trace_second,
            max_jobs=args.jobs, address=args.address, device=args.device,
            workdir=args.workdir, resume=args.resume, force_new=args.force_new, seed=args.seed,
            scheduler_params=parse_params(args.scheduler, args.param), progress=not args.quiet,
        )
    except (JournalError, FileExistsError) as e:
        raise UsageError(f"run-physical: {e}") from None
    except ImportError as err:  # the runtime extra is not installed
        raise UsageError(f"run-physical: {err}; or: python3 tasks.py env --physical") from None
    result.write(args.out, args.table_format)
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
    r = _command(sub, "run-physical", "run a trace as real PyTorch jobs on Ray (sec. 5.1)")
    r.add_argument("--trace", default="physmix",
                   help=f"'physmix' (SYNTHETIC Phys-Mix), 'physmix-migrate' (SYNTHETIC, jobs "
                        f"that make COMPASS-ABS migrate; use --time-scale 60), '{DEMO}' "
                        "or a canonical CSV")
    _add_scheduler_option(r, "compass-abs")
    _add_param_option(r)
    r.add_argument("--nodes", type=POSITIVE_INT, default=4, help="nodes of the cluster")
    r.add_argument("--gpus-per-node", type=POSITIVE_INT, default=8, help="GPUs per node")
    r.add_argument("--jobs", type=POSITIVE_INT, default=None,
                   help="run only the first JOBS jobs (default: all; physmix: 12)")
    r.add_argument("--time-scale", type=POSITIVE, default=120.0,
                   help="trace seconds per wall second")
    r.add_argument("--steps-per-trace-second", type=POSITIVE, default=0.05,
                   help="training steps per trace second of a job's duration")
    r.add_argument("--address", default=None,
                   help="attach to this Ray cluster (e.g. 'auto') (default: emulate the nodes "
                        "on this machine)")
    r.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                   help="where instances train; auto is cuda when the Ray cluster has GPUs")
    r.add_argument("--workdir", default=None,
                   help="journal and checkpoints (shared storage on a real cluster) (default: "
                        "a new folder under results/physical/work/, printed at the end)")
    r.add_argument("--out", default="results/physical/run", help="output folder")
    _add_table_format_option(r)
    r.add_argument("--resume", action="store_true",
                   help="continue the run journaled in --workdir after a controller crash")
    r.add_argument("--force-new", action="store_true",
                   help="start a new run in --workdir, moving another run's journal and "
                        "checkpoints aside into <workdir>/previous-<time>/")
    r.add_argument("--seed", type=int, default=0, help="seed of the scheduler")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run_physical)


def _add_trace_commands(sub: argparse._SubParsersAction) -> None:
    trace = _command(sub, "trace", "trace tools: synthesize, describe, fetch, verify")
    tsub = trace.add_subparsers(dest="trace_command", metavar="COMMAND")
    trace.set_defaults(func=_print_help(trace))

    t = _command(tsub, "synth", "write a SYNTHETIC calibrated trace (canonical CSV)")
    t.add_argument("--kind", required=True, choices=KINDS, help="which calibrated trace")
    t.add_argument("--days", type=POSITIVE_INT, default=None,
                   help="number of days (default: the calibrated span; physmix: 1)")
    t.add_argument("--start-day", type=NONNEGATIVE_INT, default=0, help="first day index")
    t.add_argument("--seed", type=int, default=0, help="seed of the generator")
    t.add_argument("--load-scale", type=POSITIVE, default=1.0,
                   help="arrival rate as a multiple of the calibrated one (e.g. 4 for a "
                        "cluster four times the size N(eta) of the calibrated trace)")
    t.add_argument("--out", required=True, help="output CSV")
    t.set_defaults(func=cmd_trace_synth)

    t = _command(tsub, "stats", "shares, composition, N(eta) and rho per day of a trace")
    t.add_argument("file", help="the trace file")
    _add_format_options(t)
    t.add_argument("--eta", type=_fraction, nargs="+", default=list(PAPER_ETAS),
                   help="load factors of the cluster sizes N(eta) (eq. 12-13) (default: the "
                        f"paper's, {' '.join(f'{e:.2f}' for e in PAPER_ETAS)})")
    t.add_argument("--out", help="also write the per-day table to this CSV (default: do not)")
    t.set_defaults(func=cmd_trace_stats)

    t = _command(tsub, "fetch", "download and verify a real trace (needs internet)")
    t.add_argument("name", choices=sorted(REMOTE_TRACES), help="which trace")
    t.add_argument("--dest", default=str(DEFAULT_DEST), help="folder")
    t.add_argument("--force", action="store_true", help="download again even if present")
    t.add_argument("--timeout", type=POSITIVE, default=60.0, help="seconds per connection")
    t.set_defaults(func=cmd_trace_fetch)

    t = _command(tsub, "verify", "check a local real trace is the published file (git blob "
                 "id; a cut file or wrong header is refused)")
    t.add_argument("name", choices=sorted(REMOTE_TRACES), help="which trace")
    t.add_argument("--file", default=None, help="the file (default: its place under --dest)")
    t.add_argument("--dest", default=str(DEFAULT_DEST), help="folder")
    t.set_defaults(func=cmd_trace_verify)


def _print_help(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """A command's ``func`` that prints its help (a bare ``compass`` or ``compass trace``)."""
    return lambda args: parser.print_help() or 0


def cmd_schedulers(args: argparse.Namespace) -> int:
    """The registered names with their role and display name (the cards, in the figures'
    order); with ``--params`` each one's parameters, types and defaults."""
    available()  # the installed plugins first
    for card in cards():
        print(f"{card.name}  [{card.role}] {card.display}")
        name = card.name
        if args.params:
            for p in parameters(name).values():
                print(f"    {p.name}: {p.type_name} = {p.default!r}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="compass", formatter_class=_Formatter,
                description="COMPASS-ABS reproduction: replay GPU-cluster traces under "
                            "schedulers, Phi* and SIF of a demand, trace tools.",
                epilog="'compass COMMAND --help' describes a command. A user error is one "
                       "line on stderr and exit status 2.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _add_plugin_option(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    p.set_defaults(func=_print_help(p))

    s = _command(sub, "simulate", "replay a trace under one scheduler")
    s.add_argument("--trace", required=True,
                   help=f"trace file in any format of --format, or '{DEMO}'")
    _add_format_options(s)
    _add_scheduler_option(s, "gfs")
    _add_param_option(s)
    size = s.add_mutually_exclusive_group(required=True)
    size.add_argument("--nodes", type=POSITIVE_INT, help="nodes of the cluster (default: none)")
    size.add_argument("--eta", type=_fraction,
                      help="size the cluster by N(eta) of eq. 13 (p_eta of the trace's "
                           "concurrent GPU demand) instead of --nodes (default: none)")
    _add_run_trace_options(s)
    s.add_argument("--out", required=True, help="output folder")
    _add_table_format_option(s)
    s.add_argument("--no-timeline", action="store_true",
                   help="do not write the timeline (one row per event instant: large runs)")
    s.add_argument("--migration-cost", type=NONNEGATIVE, default=DEFAULT_MIGRATION_COST,
                   help="c: seconds a migrated job pauses")
    s.add_argument("--pause-rule", default="per-event", choices=["per-event", "per-migration"],
                   help="charge c once per job per instant with moves, or per moved instance")
    s.add_argument("--seed", type=int, default=0, help="seed of the scheduler")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)

    w = _command(sub, "sweep", "a grid of runs of one trace -> one table row per run")
    w.add_argument("--trace", required=True, nargs="+",
                   help=f"trace files in any format of --format, or '{DEMO}'; several "
                        "traces are sampled like seeds (the table's 'trace' column)")
    _add_format_options(w)
    w.add_argument("--schedulers", nargs="+", required=True, type=_scheduler_name,
                   metavar="NAME", help="the schedulers, each run at every grid point")
    w.add_argument("--grid", action="append", type=_grid_item, default=[],
                   metavar="KEY=V1,V2,...",
                   help="one swept axis, repeatable: eta, nodes, cost (migration_cost), "
                        "pause_rule or a scheduler parameter (default: no axis)")
    w.add_argument("--nodes", type=POSITIVE_INT, default=None,
                   help="nodes of the cluster (default: none; size by --eta or a swept eta "
                        "or nodes instead)")
    w.add_argument("--eta", type=_fraction, default=None,
                   help="size the cluster by N(eta) of eq. 13 instead of --nodes (default: none)")
    w.add_argument("--samples", type=POSITIVE_INT, default=1,
                   help="scheduler seeds per grid point (0, 1, ...)")
    w.add_argument("--workloads", type=POSITIVE_INT, default=None,
                   help=f"with --trace {DEMO}: this many synthetic workloads (seeds 0, 1, "
                        "...), each a trace of the table (default: one)")
    w.add_argument("--on-error", default="raise", choices=["raise", "record"],
                   help="a run that fails stops the sweep, or is recorded as a row with "
                        "status 'error' and a warning")
    _add_run_trace_options(w)
    w.add_argument("--processes", type=POSITIVE_INT, default=1, help="worker processes")
    w.add_argument("--cache", default=str(DEFAULT_CACHE),
                   help="folder of cached runs (one file per configuration)")
    w.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    w.add_argument("--out", required=True,
                   help="output table, one row per run (its suffix becomes --table-format's)")
    _add_table_format_option(w)
    w.set_defaults(func=cmd_sweep)

    f = _command(sub, "sif", "Phi*, the WCC and a witness packing for SIZE=COUNT pairs")
    f.add_argument("counts", nargs="+", metavar="SIZE=COUNT",
                   help=f"COUNT instances of SIZE GPUs (SIZE in 1..{G_DEFAULT})")
    f.add_argument("--nodes", type=POSITIVE_INT, default=None,
                   help="bound the number of nodes (default: unbounded)")
    f.set_defaults(func=cmd_sif)

    d = _command(sub, "demo", "all schedulers on the built-in synthetic workload")
    d.add_argument("--out", default="results/demo", help="output folder")
    _add_table_format_option(d)
    d.add_argument("--nodes", type=POSITIVE_INT, default=16, help="nodes of the cluster")
    d.add_argument("--jobs", type=POSITIVE_INT, default=400, help="jobs of the workload")
    d.add_argument("--seed", type=int, default=0, help="seed of the workload and schedulers")
    d.add_argument("--migration-cost", type=NONNEGATIVE, default=DEFAULT_MIGRATION_COST,
                   help="c: seconds a migrated job pauses")
    d.add_argument("--schedulers", nargs="*", type=_scheduler_name, metavar="NAME",
                   help="which schedulers, by name as --scheduler of simulate (default: all "
                        "registered)")
    _add_param_option(d, note=", given to every scheduler run (each must have it)")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    d.set_defaults(func=cmd_demo)

    c = _command(sub, "schedulers", "list registered schedulers")
    c.add_argument("--params", action="store_true",
                   help="also list each scheduler's parameters (for --param), type and default")
    c.set_defaults(func=cmd_schedulers)
    _add_trace_commands(sub)
    _add_physical_command(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command of ``argv``: a user error is one line and status 2; any other error
    (a scheduler that raises) one line and status 1, the traceback with ``--debug``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    options = _global_options(argv)
    try:
        _load_plugins(options.plugin)
        args = build_parser().parse_args(argv)
        return args.func(args)
    except USER_ERRORS as e:
        if options.debug:
            raise
        print("compass: " + " ".join(str(e).splitlines()), file=sys.stderr)
        return 2
    except Exception as e:  # a bug, ours or a plugin's: one line unless --debug
        if options.debug:
            raise
        print(f"compass: error: {type(e).__name__}: " + " ".join(str(e).splitlines())
              + " (run again with --debug for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
