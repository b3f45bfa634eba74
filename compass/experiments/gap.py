"""Where COMPASS-ABS's AJCT gap comes from (sections 5.5, 6.1 and 6.5): its lead over FFT and
over the strongest of the five other baselines, per trace of the overall experiment,
decomposed into migration pauses, queueing while enough GPUs were free for the head of the
queue, the rest of the queueing, and what remains (run time), each part with its paired
interval over the samples.

A job's completion time is its queueing time, its run time and the pauses its migrations
cost (c per migrated instant, section 6.5), so a lead in AJCT is the sum of the leads in
mean queueing time, mean pause per job and the remainder. The queueing part is apportioned
by each run's fragmentation-induced share of its blocked time (``blocking``: the queue
waited while idle GPUs covered the head's demand, so best-fit could have placed it where
the scheduler's structure refused): the share of the queueing that happened while enough
GPUs were free. The comparison baseline is held fixed (the strongest on the point
estimate), so that the parts add up on every resample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from compass.experiments.comparisons import overall_runs
from compass.experiments.results import Results
from compass.experiments.stats import bootstrap_mean
from compass.experiments.tables import write_table

#: The table's stem under the tables folder.
GAP_TABLE = "gap_decomposition"
#: The parts of an AJCT lead, in order; they add up to ``lead``.
PARTS = ("pauses", "queue_while_free", "queue_other", "rest")
COLUMNS = ["trace", "against", "baseline", "part", "value", "ci_low", "ci_high", "n"]


def components(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run: AJCT, its pause per job, and its mean queueing time split into the part
    spent while enough GPUs were free for the head (``frag_blocked_s / blocked_s`` of it)
    and the rest."""
    share = (runs["frag_blocked_s"] / runs["blocked_s"]).where(runs["blocked_s"] > 0, 0.0)
    return runs.assign(pauses=runs["pause_per_job"],
                       queue_while_free=runs["mean_queue_time"] * share.fillna(0.0),
                       queue_other=runs["mean_queue_time"] * (1 - share.fillna(0.0)))


def decompose(runs: pd.DataFrame, reference: str, baseline: str) -> dict[str, np.ndarray]:
    """Per sample (day, seed) both completed: the lead (baseline minus reference, positive
    when the reference is faster) in AJCT and in each part of ``PARTS``."""
    parts = components(runs[runs["scheduler"].isin([reference, baseline])])
    table = parts.pivot_table(index=["day", "seed"], columns="scheduler",
                              values=["ajct", "pauses", "queue_while_free", "queue_other"],
                              aggfunc="first").dropna()
    if table.empty or reference not in table["ajct"] or baseline not in table["ajct"]:
        return {}
    diff = {k: (table[k][baseline] - table[k][reference]).to_numpy(dtype=float)
            for k in ("ajct", "pauses", "queue_while_free", "queue_other")}
    diff["rest"] = diff["ajct"] - diff["pauses"] - diff["queue_while_free"] - diff["queue_other"]
    return {"lead": diff.pop("ajct"), **diff}


def _strongest(runs: pd.DataFrame, baselines: Sequence[str]) -> str | None:
    """The baseline with the lowest mean AJCT over the runs (the point estimate's)."""
    means = runs[runs["scheduler"].isin(list(baselines))].groupby("scheduler")["ajct"].mean()
    return str(means.idxmin()) if len(means) else None


def gap_table(res: Results, set_aside: str = "fft") -> pd.DataFrame:
    """Per trace of the overall experiment, against ``set_aside`` (FFT) and against the
    strongest of the other baselines: the AJCT lead and each part (``PARTS``) with its 95 %
    bootstrap interval over the samples (``COLUMNS``)."""
    cfg = res.config
    runs = overall_runs(res)
    rows = []
    for trace, part in runs.groupby("trace", sort=False):
        others = [b for b in cfg.baselines if b != set_aside]
        targets = [("fft", set_aside if set_aside in cfg.baselines else None),
                   ("strongest of the others", _strongest(part, others))]
        for against, baseline in targets:
            if baseline is None:
                continue
            diff = decompose(part, cfg.reference, baseline)
            for name in ("lead", *PARTS):
                values = diff.get(name, np.array([]))
                iv = bootstrap_mean(values) if values.size else None
                rows.append({"trace": trace, "against": against, "baseline": baseline,
                             "part": name, "value": iv.value if iv else math.nan,
                             "ci_low": iv.low if iv else math.nan,
                             "ci_high": iv.high if iv else math.nan, "n": int(values.size)})
    return pd.DataFrame(rows, columns=COLUMNS)


def gap_sentence(table: pd.DataFrame) -> str:
    """One sentence per trace and comparison: the lead and its parts with intervals."""
    def span(r: pd.Series) -> str:
        if math.isnan(r["ci_low"]):
            return f"{r['value']:+,.0f} s"
        return f"{r['value']:+,.0f} [{r['ci_low']:+,.0f}, {r['ci_high']:+,.0f}] s"
    out = []
    for (trace, against), part in table.groupby(["trace", "against"], sort=False):
        by = part.set_index("part")
        out.append(f"{trace}, against {against} ({by['baseline'].iloc[0]}): lead "
                   f"{span(by.loc['lead'])} = pauses {span(by.loc['pauses'])} + queueing while "
                   f"enough GPUs were free {span(by.loc['queue_while_free'])} + other "
                   f"queueing {span(by.loc['queue_other'])} + rest {span(by.loc['rest'])}")
    return "; ".join(out)


def write_gap(res: Results, tables: str | Path) -> list[Path]:
    """paper/tables/gap_decomposition.csv (and .md)."""
    return write_table(gap_table(res), tables, GAP_TABLE,
                       "Where COMPASS-ABS's AJCT lead comes from, per trace of the overall "
                       "experiment (s per job; positive: COMPASS-ABS faster): pauses, queueing "
                       "while enough GPUs were free for the head, other queueing, the rest. "
                       + res.label())
