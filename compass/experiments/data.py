"""Trace data for the experiments: real file or SYNTHETIC stand-in, day windows, day table.

The paper replays one day window J[T1, T2] at a time on a cluster of N(eta) nodes (section
5.2, eq. 12-13). A profile may shorten each window to hours [h0, h1) of the day. Sizing
measures p_eta either inside the window (``demand: window``, our default) or over the whole
support of D(t) (``demand: support``, the literal reading, where the day's longest jobs
decide the size): docs/pipeline.md explains the choice and its effect.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from compass.experiments.config import DaySelection, RealTrace, ResolvedTrace, TraceSpec
from compass.traces import CANONICAL_COLUMNS, load_trace
from compass.traces import windows as W
from compass.traces.fetch import KNOWN_TRACES, UnverifiedTrace, published_name, verify_trace
from compass.traces.synthetic import day_plans, synthesize

#: Columns a day file keeps: the canonical schema plus where each job came from.
DAY_COLUMNS = [*CANONICAL_COLUMNS, "source"]


def resolve_trace(spec: TraceSpec, root: Path = Path(".")) -> ResolvedTrace:
    """Use the first present real source when the profile allows it, else the synthetic kind.

    The sources are tried in the profile's order (Venus: the full HeliosData log when it was
    fetched, else the derived table data/ ships). None present is not an error: the trace
    falls back to SYNTHETIC data with a note that the Snakefile prints and the report
    repeats. A present one must be the published file (``check_real_file``), else the plan
    stops, unless the profile trusts it.
    """
    note = None
    if spec.sources and spec.use_real == "auto":
        for index, real in enumerate(spec.sources):
            path = root / real.path
            if not path.exists():
                continue
            unverified = check_real_file(spec, path, real)
            frame = load_trace(path, real.format, **real.options)
            present = sorted({w.day for w in W.day_windows(frame)
                              if not W.jobs_in_window(frame, w).empty})
            note = (f"UNVERIFIED: {unverified}; replayed because the profile sets "
                    "trust_local: true, and labelled \"unverified local file\" everywhere"
                    if unverified else None)
            return ResolvedTrace(spec, "real", select_days(spec.days, present), note,
                                 unverified=unverified is not None, source_index=index)
        paths = " or ".join(s.path for s in spec.sources)
        note = (f"FALLBACK: real trace {paths} not found; {spec.name} uses SYNTHETIC "
                f"{spec.synthetic} (fetch it with `compass trace fetch {spec.name}`)")
    days = [p.day for p in day_plans(spec.synthetic)]
    return ResolvedTrace(spec, "synthetic", select_days(spec.days, days), note)


def check_real_file(spec: TraceSpec, path: Path, real: RealTrace | None = None) -> str | None:
    """None when ``path`` is the published file of its source (``verify_trace`` under
    ``published_name``: the shipped table of its format, else trace ``spec.name``); else why
    not, when the profile sets ``trust_local``. Raises ``UnverifiedTrace`` (not published,
    not trusted) or ``TraceError`` (cut mid-line, wrong header: never replayed)."""
    real = real if real is not None else spec.sources[0]
    trust = real.trust_local
    name = published_name(spec.name, real.format)
    if name not in KNOWN_TRACES:
        why = (f"{path}: no published file of a trace named {spec.name!r} to check it against "
               f"(published: {', '.join(sorted(KNOWN_TRACES))})")
        if not trust:
            raise UnverifiedTrace(f"{why}; set trust_local: true in the profile to replay it, "
                                  "labelled \"unverified local file\"")
        return why
    return verify_trace(name, path, trust_local=trust).problem


def select_days(selection: DaySelection, present: Sequence[int]) -> tuple[int, ...]:
    """Days a profile asks for: a list, ``"all"``, or ``{start, stop, step}``.

    A listed day past a synthetic trace's span is kept (synthetic days wrap); ``all`` and
    ranges take the days the trace has.
    """
    if selection == "all":
        return tuple(present)
    if isinstance(selection, dict):
        stop = selection.get("stop")
        picked = range(selection.get("start", 0), present[-1] + 1 if stop is None else stop,
                       selection.get("step", 1))
        have = set(present)
        return tuple(d for d in picked if d in have)
    return tuple(int(d) for d in selection)


def write_canonical(trace: ResolvedTrace, path: Path) -> None:
    """Check the real file again (``check_real_file``: it may have been replaced since the
    plan), load it once (the loader's drop rules apply) and keep it as canonical CSV."""
    spec, real = trace.spec, trace.source
    assert real is not None, "only real traces have a canonical CSV"
    if (check_real_file(spec, Path(real.path), real) is not None) != trace.unverified:
        raise UnverifiedTrace(f"{real.path} changed since the pipeline was planned (verified "
                              "then and not now, or the reverse): run the pipeline again")
    frame = load_trace(real.path, real.format, **real.options)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame[DAY_COLUMNS].to_csv(path, index=False)


def load_full(trace: ResolvedTrace, seed: int, canonical: Path | None = None) -> pd.DataFrame:
    """The whole trace, every day of its span (real: the canonical CSV ``write_canonical``
    wrote; synthetic: generated)."""
    if trace.origin == "real":
        if canonical is None:
            raise ValueError(f"{trace.name}: a real trace is read from its canonical CSV")
        return pd.read_csv(canonical)
    return synthesize(trace.spec.synthetic, seed=seed)


def load_days(trace: ResolvedTrace, seed: int, days: Sequence[int],
              canonical: Path | None = None) -> dict[int, pd.DataFrame]:
    """The jobs of each day window (hours [h0, h1) of the day), canonical columns + source.

    Synthetic days are generated one at a time (a day is the same whichever range it is
    generated in); a real trace is read once from its canonical CSV.
    """
    spec = trace.spec
    if trace.origin == "real":
        full = load_full(trace, seed, canonical)
        frames = {d: full for d in days}
    else:
        frames = {d: synthesize(spec.synthetic, days=1, start_day=d, seed=seed) for d in days}
    return {d: W.jobs_in_window(frames[d], window(spec, d))[DAY_COLUMNS].reset_index(drop=True)
            for d in days}


def window(spec: TraceSpec, day: int) -> W.Window:
    """The replayed window of ``day``: hours [h0, h1) of it."""
    h0, h1 = spec.hours
    return W.Window(day * W.DAY_SECONDS + h0 * 3600.0, day * W.DAY_SECONDS + h1 * 3600.0, day)


def cluster_nodes(jobs: pd.DataFrame, spec: TraceSpec, day: int, eta: float,
                  demand: str) -> W.ClusterSize:
    """N(eta) of eq. 13 for the day's jobs, or the profile's fixed size (``nodes``)."""
    size = W.cluster_size(jobs, eta, within=window(spec, day) if demand == "window" else None)
    if spec.nodes is None:
        return size
    if spec.nodes < size.maxjob_nodes:
        raise ValueError(f"{spec.name} day {day}: fixed size {spec.nodes} nodes cannot hold "
                         f"its largest job ({size.maxjob_nodes} nodes)")
    return W.ClusterSize(eta, size.p_eta, size.demand_nodes, size.maxjob_nodes, spec.nodes)


def day_table(days: dict[int, pd.DataFrame], spec: TraceSpec, etas: Sequence[float],
              demand: str) -> pd.DataFrame:
    """One row per day: jobs, Table 2 composition, N(eta) per eta and WCC coverage rho."""
    rows = []
    for day, jobs in days.items():
        row: dict[str, object] = {"trace": spec.name, "day": day, "jobs": len(jobs),
                                  "instances": int(jobs["num_instances"].sum())}
        row.update({f"share {k}": v for k, v in W.composition(jobs).items()})
        for eta in etas:
            row[f"nodes_{eta:g}"] = cluster_nodes(jobs, spec, day, eta, demand).nodes if len(
                jobs) else 0
        row["rho"] = W.wcc_coverage(jobs, window(spec, day)) if len(jobs) else 1.0
        rows.append(row)
    return pd.DataFrame(rows)


def write_day_table(trace: ResolvedTrace, seed: int, etas: Sequence[float], demand: str,
                    canonical: Path | None, path: Path) -> None:
    """Write the day table (``day_table``) of a trace's replayed days."""
    days = load_days(trace, seed, trace.days, canonical)
    path.parent.mkdir(parents=True, exist_ok=True)
    day_table(days, trace.spec, etas, demand).to_csv(path, index=False)
