"""The columns of a run's result, one name per quantity: what a run was (``RUN``) and what it
measured (``METRICS``), shared by summary.json (``compass.simulate``), the sweep table
(``compass.sweep``) and the pipeline's runs.csv.

Each output adds only its own bookkeeping (``STATUS``; the sweep's ``SWEEP_EXTRA``; the
pipeline's day, sizing and timeline diagnostics, docs/pipeline.md). docs/simulator.md
("Result columns") lists every column here with its meaning (tested). This module imports
nothing of compass: ``compass.sim.metrics`` computes ``METRICS`` by these names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    """One column of a run's result: its name, unit and what it means."""

    name: str
    unit: str
    meaning: str


#: What the run was: the trace, the scheduler and the settings the cluster ran under.
RUN = (
    Column("trace", "", "the trace's label: its path, 'demo', a sweep's name for it, or "
                        "the pipeline's trace name"),
    Column("trace_source", "", "the trace's `source` values (synthetic or real), joined"),
    Column("scheduler", "", "the scheduler's registry name (a pipeline variant's label)"),
    Column("scheduler_params", "", "the scheduler's parameters as run (summary.json; the "
                                   "sweep table has one column per swept parameter)"),
    Column("seed", "", "the scheduler's seed"),
    Column("eta", "", "load factor that sized the cluster to N(eta) of eq. 13 (empty when "
                      "the run was given nodes)"),
    Column("nodes", "count", "nodes of the cluster"),
    Column("gpus_per_node", "count", "GPUs per node G"),
    Column("cost", "s", "migration cost c (section 6.5): seconds a migrated job pauses "
                        "(`migration_cost=` of `compass.simulate`)"),
    Column("pause_rule", "", "`per-event` (c once per job per instant with moves) or "
                             "`per-migration` (c per moved instance)"),
    Column("dropped_jobs", "count", "the trace's rows loading dropped (e.g. a pod without "
                                    "GPUs, or submitted after the day window); 0 for a frame"),
)

#: What the run measured (``compass.sim.metrics.summarize``), in this order.
METRICS = (
    Column("afr", "share", "average fragmentation rate: mean SIF over T_peak (eq. 15); "
                           "empty when no job ever queued"),
    Column("ajct", "s", "average job completion time, submit to end (eq. 16)"),
    Column("agu", "share", "average GPU utilisation over T_peak (eq. 17); empty when no job "
                           "ever queued"),
    Column("jct_p50", "s", "median job completion time"),
    Column("jct_p95", "s", "95th percentile of job completion time"),
    Column("jct_p99", "s", "99th percentile of job completion time"),
    Column("mean_queue_time", "s", "mean time from submit to start"),
    Column("queue_p50", "s", "median queueing time"),
    Column("queue_p95", "s", "95th percentile of queueing time"),
    Column("queue_p99", "s", "99th percentile of queueing time"),
    Column("mean_bounded_slowdown", "", "mean over jobs of max(1, JCT / max(duration, "
                                        "10 s)): the bounded slowdown"),
    Column("migrations", "count", "charged migration instants, summed over jobs"),
    Column("instance_moves", "count", "moved instances, summed over jobs"),
    Column("migrations_per_job", "count", "mean charged migrations per job"),
    Column("pause_per_job", "s", "mean migration pause per job"),
    Column("jobs", "count", "jobs replayed"),
    Column("peak_seconds", "s", "length of T_peak (eq. 14): time with a non-empty queue"),
    Column("horizon_seconds", "s", "time from the first to the last event"),
    Column("max_sif", "share", "largest SIF (share of nodes avoidably partial) of the run"),
    Column("max_nsif", "count", "largest N x SIF = partial nodes - Phi* of the run"),
    Column("max_partial_nodes", "count", "largest number of partial nodes"),
    Column("mean_gpu_util", "share", "GPU utilisation averaged over the whole run"),
)

#: Whether a run of a sweep or a pipeline batch finished: ``ok``, ``error`` (``error`` holds
#: the exception) or ``empty`` (a pipeline window without jobs).
STATUS = (
    Column("status", "", "`ok`, `error` (the run raised; see `error`) or `empty` (a "
                         "pipeline window without jobs)"),
    Column("error", "", "the exception of a failed run, as `Type: message`"),
)

#: The sweep table's own columns.
SWEEP_EXTRA = (
    Column("from_cache", "", "true when the row was read from the sweep cache, not run now"),
    Column("wall_s", "s", "wall-clock seconds the run took (when it ran)"),
)

RUN_NAMES = tuple(c.name for c in RUN)
METRIC_NAMES = tuple(c.name for c in METRICS)
#: Every column of the schema, in the order the outputs use.
ALL = (*RUN, *STATUS, *METRICS, *SWEEP_EXTRA)
