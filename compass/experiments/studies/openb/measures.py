"""The measure kinds of paper/claims_openb.yaml, read from the openb study's results
(``results.OpenbResults``) and registered with the claims' measures
(``compass.experiments.verdict.registry``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from compass.experiments.aggregate import MEASURE_LOWER_IS_BETTER, top1
from compass.experiments.stats import LEVEL, Interval
from compass.experiments.studies.openb.config import LABEL, REPLAY_METRICS, OpenbConfig
from compass.experiments.studies.openb.results import OpenbResults
from compass.experiments.verdict.claims import Measured, fmt
from compass.experiments.verdict.registry import register_measures


def _measured(value: Any, text: str) -> Measured:
    return Measured(value, f"{LABEL}: {text}")


def _fmt(x: float) -> str:
    return fmt(float(x))


def _results(ev: Any) -> OpenbResults | None:
    """The openb results of the report's results folder, or None when they are absent."""
    if OpenbConfig.from_profile(ev.res.config.spec) is None:
        return None
    return OpenbResults.load(ev.res.layout.root)


def _replay_wins(ev: Any) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    ok = res.replay_runs[res.replay_runs["status"] == "ok"].assign(window="whole replay")
    ref = res.config.reference
    flags = top1(ok, ref, res.config.baselines, ["window"], REPLAY_METRICS)
    flags = flags[flags["defined"]]
    if flags.empty:
        return _measured(None, "the reference or every baseline failed")
    values = ok.set_index("scheduler")
    lost = []
    for m in flags.loc[~flags["top1"], "metric"]:
        theirs = values.loc[[b for b in res.config.baselines if b in values.index], m]
        best = theirs.idxmin() if MEASURE_LOWER_IS_BETTER[m] else theirs.idxmax()
        lost.append(f"{m} ({best} {_fmt(theirs[best])} vs {_fmt(values.loc[ref, m])})")
    won = int(flags["top1"].sum())
    text = f"{won} of {len(flags)} on the whole replay"
    return _measured((won, len(flags)), text + ("; not best on " + ", ".join(lost)
                                                if lost else ""))


def _replay_lead(ev: Any, metric: str) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    # the study's baselines among the evidence's (narrowed without FFT by ``by_baseline``)
    baselines = [b for b in res.config.baselines if b in ev.res.config.baselines]
    if not baselines:
        return _measured(None, "none of the study's baselines is among the comparison's")
    row = res.replay_leads(baselines).set_index("measure").loc[metric]
    if not np.isfinite(row["low"]):
        return _measured(None, f"fewer than two busy days with a {metric} value")
    interval = Interval(float(row["lead"]), float(row["low"]), float(row["high"]), int(row["n"]))
    return Measured(interval.value, f"{LABEL}: lead {_fmt(row['lead'])} ({LEVEL:.0%} "
                    f"interval {_fmt(row['low'])} to {_fmt(row['high'])}; vs "
                    f"{row['strongest_baseline']}, {row['n']} busy days)", interval=interval)


def _sif_bound(ev: Any, experiment: str) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    ref = res.config.reference
    if experiment == "replay":
        runs = res.replay_runs
        values = runs.loc[runs["scheduler"] == ref, "max_nsif_wcc"].dropna()
        where = "any instant of the replay with the WCC holding"
    else:
        p = res.packing
        mine = p[(p["scheduler"] == ref) & p["wcc"].fillna(False).astype(bool)]
        values = mine["sif"] * res.packing_meta["nodes"]
        where = f"{len(mine)} packing states (both stages) with the WCC holding"
    if values.empty:
        return _measured(None, f"no {experiment} state of {ref} with the WCC holding")
    return _measured(float(values.max()), f"max N x SIF {_fmt(float(values.max()))} over {where}")


def _packing_lead(ev: Any, stage: str, measure: str) -> Measured:
    res = _results(ev)
    if res is None:
        return _measured(None, "no openb block in this profile")
    leads = res.packing_leads()
    rows = leads[(leads["stage"] == stage) & (leads["measure"] == measure)]
    rows = rows.sort_values("multi_gpu_share")
    if rows.empty or rows["lead"].isna().all():
        return _measured(None, f"no packing lead at {stage}")
    parts = [f"{r.multi_gpu_share:.0%} multi-GPU: {_fmt(r.lead)} [{_fmt(r.low)}, {_fmt(r.high)}]"
             f" vs {r.strongest_baseline}" for r in rows.itertuples()]
    worst = float(rows["lead"].min())
    return _measured(worst, f"worst lead {_fmt(worst)}; by multi-GPU share of the GPUs: "
                     + "; ".join(parts) + f" ({int(rows['n'].min())} seeds)")


#: The measure kinds of paper/claims_openb.yaml, registered with the claims' measures.
OPENB_MEASURES: dict[str, Callable[..., Measured]] = {
    "openb_replay_wins": _replay_wins, "openb_replay_lead": _replay_lead,
    "openb_sif_bound": _sif_bound, "openb_packing_lead": _packing_lead,
}
register_measures(OPENB_MEASURES, compared=("openb_replay_lead",))
