"""One claim measured and judged (``assess``): the verdict rules of paper/claims.yaml applied
to a measure's value (``claims.judge``), with what a value alone cannot say: a claim with
nothing to test is "not applicable" with the reason, one its contrast schedulers pass too is
no test, and a case-study claim is judged on each window that shows the phenomenon."""

from __future__ import annotations

from compass.experiments.verdict.claims import Claim, Measured, Verdict, fmt, judge
from compass.experiments.verdict.measures import Evidence, measure_function


def assess(claim: Claim, ev: Evidence) -> tuple[Measured, Verdict]:
    """Measure one claim and judge it."""
    args = {k: v for k, v in claim.measure.items() if k != "kind"}
    measured = measure_function(claim.measure["kind"])(ev, **args)
    if claim.measure["kind"] == "not_measured":
        return measured, Verdict("not measured", measured.text)
    if measured.windows is not None:
        return measured, _judge_windows(claim, measured)
    return measured, _judge_one(claim, measured)


def _judge_one(claim: Claim, measured: Measured) -> Verdict:
    """One measured value's verdict: "not applicable" with its reason where the data hold
    nothing to test, "no data" without a value, else ``judge`` (a comparison with its
    metric's margin, ``Measured.margin``)."""
    if measured.inapplicable:
        return Verdict("not applicable", measured.inapplicable)
    if measured.value is None:
        return Verdict("no data", measured.text)
    verdict = judge(claim.check, measured.value, claim.unit, measured.interval, measured.margin)
    if measured.contrast is not None and verdict.status == "holds":
        who, value = measured.contrast
        if judge(claim.check, value, claim.unit).status == "holds":
            unit = f" {claim.unit}" if claim.unit else ""
            return Verdict("not applicable", f"{who} pass it too ({fmt(value)}{unit}): the "
                           "data do not set the claim's schedulers apart")
    return verdict


def _judge_windows(claim: Claim, measured: Measured) -> Verdict:
    """A case-study claim's verdict over the windows that show the phenomenon: "not
    applicable" with none, their common verdict when they agree, else "inconclusive" with
    each window's reading."""
    if not measured.windows:
        return Verdict("not applicable", "no replayed window shows fragmentation-induced "
                       "blocking under the baselines")
    each = [(name, _judge_one(claim, m)) for name, m in measured.windows]
    tested = [(name, v) for name, v in each if v.status != "not applicable"]
    if not tested:
        return Verdict("not applicable", "; ".join(f"{name}: {v.detail}" for name, v in each))
    readings = "; ".join(f"{name}: {v.status}" + (f" ({v.detail})" if v.detail else "")
                         for name, v in each)
    statuses = {v.status for _, v in tested}
    if len(statuses) == 1:
        return Verdict(statuses.pop(), readings)
    return Verdict("inconclusive", f"the windows disagree: {readings}")
