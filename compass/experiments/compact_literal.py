"""Whose is COMPASS-ABS's pause per job: the literal Compact's or the correction's? (sections
4.3.4 and 6.5; docs/theory.md)

COMPASS-ABS (``compass-abs``) runs Compact as the paper's three BestFitDrain passes (pool, w4,
w2) and then a slotted repair, because the passes alone break Theorem 1; the literal Compact
is registered as ``compass-abs-paper``. The paper says the migration pause stays under 1 s
per job even at c = 10 s (claim ``mig-pause``); where ours exceeds that, is the excess the
paper's algorithm's or the correction's? This experiment replays the samples of FFT's
break-even (profile key ``experiments.fft_breakeven``: its traces and days, every sample
seed, at the overall eta and the profile's c; ``breakeven.breakeven_samples``) under
``compass-abs-paper`` with COMPASS-ABS's parameters, and sets its moves and pause per job by
operator (``migrations.migrations_by_operator``) beside those of ``compass-abs``'s overall
runs of the same samples, read from the runs table, not run again (``literal_table``); the
report says whose the pause above the paper's bound is (``literal_sentence``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from compass.experiments.breakeven import sample_runs
from compass.experiments.config import ResolvedTrace, RunSettings
from compass.experiments.grid import RunGroup
from compass.experiments.migrations import migrations_by_operator, ordered_operators
from compass.experiments.pipeline import simulate_group
from compass.experiments.results import Results
from compass.experiments.stats import bootstrap_mean

#: The literal Compact (section 4.3.4's pseudo-code) and the corrected one (with the repair).
LITERAL = "compass-abs-paper"
CORRECTED = "compass-abs"
#: The corrected Compact's own step (``compass.schedulers.base.OPERATORS``).
REPAIR = "repair"
#: The table's stem under the tables folder.
LITERAL_TABLE = "compact_literal"
#: The operator label of a run's sum over its operators.
TOTAL = "total"
#: The paper's claim that bounds the pause per job (paper/claims.yaml, ``check.at_most``).
PAUSE_CLAIM = "mig-pause"
#: The table's measures (``migrations_by_operator``'s columns) and their units.
METRICS: dict[str, str] = {"moves_per_job": "moves per job", "pause_per_job": "s per job"}
COLUMNS = ["trace", "metric", "operator", "corrected", "corrected_low", "corrected_high",
           "literal", "literal_low", "literal_high", "difference", "difference_low",
           "difference_high", "n", "unit"]


def literal_settings(run: RunSettings) -> RunSettings:
    """The batches' settings with ``LITERAL`` as the only run, under ``CORRECTED``'s
    parameters (updated by its own, if the profile gives any), so that Compact alone
    differs from the overall runs of ``CORRECTED``."""
    params = {**run.scheduler_params.get(CORRECTED, {}), **run.scheduler_params.get(LITERAL, {})}
    return replace(run, schedulers=(LITERAL,), scheduler_params={LITERAL: params}, variants={},
                   extension=(), extension_estimates=())


def simulate_literal(trace: Mapping[str, Any], run: Mapping[str, Any],
                     samples: Sequence[Sequence[int]], eta: float, cost: float,
                     canonical: Sequence[str]) -> pd.DataFrame:
    """Rule ``compact_literal_runs``: each (day, seed) sample of one trace under ``LITERAL``
    at (``eta``, c = ``cost``), a batch of its own (``pipeline.simulate_group``): the batch
    rows of ``runs.csv``, ``operator_moves`` included (``run``: ``literal_settings``')."""
    resolved, settings = ResolvedTrace.from_record(trace), RunSettings.from_record(run)
    return pd.concat([simulate_group(RunGroup(resolved.name, int(day), int(seed)),
                                     [(eta, cost)], resolved, settings, canonical)
                      for day, seed in samples], ignore_index=True)


def run_values(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per completed run of one trace and scheduler (index: day, seed) and operator
    (columns, ``ordered_operators``, then ``TOTAL``): ``metric`` of
    ``migrations_by_operator``, 0 where the operator moved nothing."""
    ok = runs[runs["status"] == "ok"]
    index = pd.MultiIndex.from_frame(ok[["day", "seed"]])
    moves = migrations_by_operator(ok)
    wide = (moves.pivot_table(index=["day", "seed"], columns="operator", values=metric,
                              aggfunc="sum") if len(moves) else pd.DataFrame(index=index))
    wide = wide.reindex(index=index, columns=ordered_operators(wide.columns)).fillna(0.0)
    return wide.assign(**{TOTAL: wide.sum(axis=1)})


def _interval(prefix: str, values: np.ndarray) -> dict[str, float]:
    """Mean of ``values`` with its 95 % bootstrap interval (NaN without values)."""
    if not values.size:
        return {prefix: math.nan, f"{prefix}_low": math.nan, f"{prefix}_high": math.nan}
    iv = bootstrap_mean(values)
    return {prefix: iv.value, f"{prefix}_low": iv.low, f"{prefix}_high": iv.high}


def compare_compacts(trace: str, corrected: pd.DataFrame, literal: pd.DataFrame
                     ) -> pd.DataFrame:
    """Per measure (``METRICS``) and operator (and ``TOTAL``), over the samples (day, seed)
    both runs of one trace completed: ``corrected``'s and ``literal``'s means (batch rows of
    ``CORRECTED`` and ``LITERAL``) and the paired difference literal - corrected, each with
    its 95 % bootstrap interval, and n (``COLUMNS``)."""
    rows = []
    for metric, unit in METRICS.items():
        mine, paper = run_values(corrected, metric), run_values(literal, metric)
        both = mine.index.intersection(paper.index).sort_values()
        operators = [*ordered_operators({*mine.columns, *paper.columns} - {TOTAL}), TOTAL]
        mine, paper = (f.reindex(index=both, columns=operators, fill_value=0.0)
                       for f in (mine, paper))
        for op in operators:
            c, lit = mine[op].to_numpy(dtype=float), paper[op].to_numpy(dtype=float)
            rows.append({"trace": trace, "metric": metric, "operator": op,
                         **_interval("corrected", c), **_interval("literal", lit),
                         **_interval("difference", lit - c), "n": len(both), "unit": unit})
    return pd.DataFrame(rows, columns=COLUMNS)


def literal_table(res: Results, literal: pd.DataFrame) -> pd.DataFrame:
    """Per trace of FFT's break-even: ``compare_compacts`` of ``CORRECTED``'s overall runs of
    the sweep's samples (``breakeven.sample_runs``) and ``literal``, the rows of rule
    ``compact_literal_runs``."""
    config = res.config.experiments.fft_breakeven
    frames = []
    for trace in config.traces:
        runs = sample_runs(res, config, trace)
        frames.append(compare_compacts(trace, runs[runs["scheduler"] == CORRECTED],
                                       literal[literal["trace"] == trace]))
    return pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)


def paper_pause(claims: Sequence[Any]) -> tuple[float, str]:
    """The paper's bound on the pause per job (``PAUSE_CLAIM``'s ``at_most``, s) and its
    words."""
    claim = next(c for c in claims if c.id == PAUSE_CLAIM)
    return float(claim.check["at_most"]), claim.paper


def _span(row: pd.Series, prefix: str) -> str:
    """A mean (or, for ``difference``, a signed one) with its interval, as the report says it."""
    sign = "+" if prefix == "difference" else ""
    value, low, high = row[prefix], row[f"{prefix}_low"], row[f"{prefix}_high"]
    if math.isnan(low):
        return f"{value:{sign}.3g}"
    return f"{value:{sign}.3g} [{low:{sign}.3g}, {high:{sign}.3g}]"


def side(row: pd.Series, prefix: str, bound: float) -> str:
    """Where a mean lies against ``bound``: "above" (its interval's low end, or the value
    without an interval, above it), "within" (its high end at most it) or "straddles"."""
    value, low, high = row[prefix], row[f"{prefix}_low"], row[f"{prefix}_high"]
    low, high = (value, value) if math.isnan(low) else (low, high)
    return "above" if low > bound else "within" if high <= bound else "straddles"


def whose(total: pd.Series, bound: float, paper: str) -> str:
    """Whose is the pause per job above the paper's bound (``bound`` s, in words ``paper``;
    ``total``: the ``TOTAL`` pause row of one trace): nobody's when the corrected Compact
    stays within it; the paper's algorithm's when the literal Compact alone exceeds it; the
    correction's when the literal stays within and the corrected exceeds it; undecided
    otherwise (an interval straddles the bound)."""
    corrected, literal = side(total, "corrected", bound), side(total, "literal", bound)
    if corrected == "within":
        return f"the corrected Compact stays within the paper's bound ({paper}): no excess"
    head = f"the pause above the paper's bound ({paper}) is "
    if literal == "above":
        return head + "the paper's algorithm's: the literal Compact alone exceeds it"
    if literal == "within" and corrected == "above":
        return head + "the correction's: the literal Compact stays within it"
    return head + "undecided on these samples: an interval straddles the bound"


def literal_sentence(table: pd.DataFrame, bound: float, paper: str, cost: float) -> str:
    """Per trace of ``literal_table``: the total pause and moves per job under the literal
    and the corrected Compact with their intervals and paired difference, the operator
    with the largest literal pause beside its corrected value, the repair's pause, and
    whose the pause above the paper's bound is (``whose``)."""
    out = []
    for trace, part in table.groupby("trace", sort=False):
        by = part.set_index(["metric", "operator"])
        pause, moves = by.loc[("pause_per_job", TOTAL)], by.loc[("moves_per_job", TOTAL)]
        ops = by.loc["pause_per_job"].drop(TOTAL)
        parts = [f"{trace} (c = {cost:g} s, n = {int(pause['n'])}): pause per job literal "
                 f"{_span(pause, 'literal')} s, corrected {_span(pause, 'corrected')} s "
                 f"(literal - corrected {_span(pause, 'difference')} s), moves per job "
                 f"literal {_span(moves, 'literal')}, corrected {_span(moves, 'corrected')} "
                 f"({_span(moves, 'difference')})"]
        if ops["literal"].notna().any() and ops["literal"].max() > 0:
            top = ops["literal"].idxmax()
            parts.append(f"{top} pauses {_span(ops.loc[top], 'literal')} s per job of the "
                         f"literal's, {_span(ops.loc[top], 'corrected')} s of the corrected's")
        if REPAIR in ops.index:
            parts.append(f"the repair {_span(ops.loc[REPAIR], 'corrected')} s")
        parts.append(whose(pause, bound, paper))
        out.append("; ".join(parts))
    return ". ".join(out)
