"""Synthetic traces: calibrated, deterministic, labelled, with Table 2 and WCC-stress days."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compass.traces import calibration as cal
from compass.traces import physmix
from compass.traces.fidelity import calibration_checks
from compass.traces.models import SizeModel, gfs_backlog_jobs, trace_model
from compass.traces.paths import data_file
from compass.traces.synthetic import day_plans, synthesize, wcc_stress_rate
from compass.traces.windows import (
    TABLE1_CLASSES,
    TABLE2_BUCKETS,
    composition,
    day_window,
    jobs_in_window,
    wcc_coverage,
)


def _table1(trace: str) -> dict[str, float]:
    raw = cal.TABLE1_SHARE_PCT[trace]
    return {k: v / sum(raw.values()) for k, v in raw.items()}


# ------------------------------------------------------------------ the models
@pytest.mark.parametrize("trace", ["venus", "gfs"])
def test_model_instance_shares_equal_table1(trace):
    shares = trace_model(trace).sizes.instance_shares(TABLE1_CLASSES)
    assert shares == pytest.approx(_table1(trace), abs=0.001)


def test_gfs_model_keeps_both_published_marginals():
    sizes = trace_model("gfs").sizes
    jobs = sum(cal.GFS_JOBS_BY_GPU_REQUEST.values())
    for g, n in cal.GFS_JOBS_BY_GPU_REQUEST.items():
        assert sizes.p[sizes.g == g].sum() == pytest.approx(n / jobs)
    hist = cal.GFS_WORKER_NUM_JOBS
    total = sum(hist.values())
    assert sizes.p[sizes.w == 1].sum() == pytest.approx(hist[1] / total, abs=2e-4)
    assert sizes.mean_instances() == pytest.approx(
        sum(w * n for w, n in hist.items()) / total, rel=1e-3)


def test_venus_model_keeps_the_gpu_num_bins():
    sizes = trace_model("venus").sizes
    gpus = sizes.g * sizes.w
    assert sizes.p[gpus == 1].sum() == pytest.approx(0.51838)
    assert sizes.p[(gpus >= 3) & (gpus <= 4)].sum() == pytest.approx(0.07419)
    assert sizes.p[gpus > 64].sum() == pytest.approx(0.01291)


def test_duration_models_pass_through_their_knots():
    gfs = trace_model("gfs").durations
    for q, s in cal.GFS_DURATION_QUANTILES_S.items():
        assert gfs.quantile(q) == pytest.approx(s)
    venus = trace_model("venus").durations
    assert venus.quantile(0.55054) == pytest.approx(256)
    assert venus.quantile(0.001) == pytest.approx(1.0)


def test_gfs_arrivals_drop_backlog_and_fractional_jobs():
    arrivals = trace_model("gfs").arrivals
    whole = 1 - cal.GFS_FRACTIONAL_GPU_JOBS / cal.GFS_TOTAL_JOBS
    assert gfs_backlog_jobs() == 3638
    assert arrivals.jobs_on(0) == round((8587 - 3638) * whole)
    assert arrivals.jobs_on(58) == round(cal.GFS_JOBS_BY_DAY[58] * whole)
    last = arrivals.hours_on(184)  # the span ends 0.06 day (1.44 h) into day 184
    assert last[2:].sum() == 0 and last[1] > 0 and last.sum() == pytest.approx(1)
    assert arrivals.jobs_on(185) == arrivals.jobs_on(0)  # days past the table wrap


def test_push_hits_the_targets_exactly():
    model = SizeModel(np.array([1, 2, 8, 8]), np.array([1, 1, 1, 3]),
                      np.array([0.4, 0.3, 0.2, 0.1]))
    pushed = model.pushed({"1 GPU": 0.5, "2-7 GPU": 0.25, "8 GPU": 0.25}, TABLE2_BUCKETS)
    assert pushed.instance_shares(TABLE2_BUCKETS) == pytest.approx(
        {"1 GPU": 0.5, "2-7 GPU": 0.25, "8 GPU": 0.25})
    with pytest.raises(ValueError, match="no mass"):
        SizeModel(np.array([1]), np.array([1]), np.array([1.0])).pushed(
            {"1 GPU": 0.5, "2-7 GPU": 0.5, "8 GPU": 0.0}, TABLE2_BUCKETS)


# ------------------------------------------------------------------ generated traces
@pytest.mark.parametrize("kind, days, seed", [("venus-synth", 28, 0), ("venus-synth", 28, 1),
                                              ("gfs-synth", 28, 0), ("gfs-synth", 28, 1),
                                              ("physmix", 3, 0)])
def test_generated_trace_meets_its_calibration_targets(kind, days, seed):
    checks = calibration_checks(synthesize(kind, days=days, seed=seed))
    failed = checks[~checks["ok"]]
    assert failed.empty, failed.to_string()


#: Rows a full gfs-synth span misses, measured and described in docs/traces.md ("Load"):
#: matching every day's GPU-seconds moves long durations off 2-8 GPU jobs onto 1-GPU jobs
#: and, on light days, onto gangs of 129+ instances;
#: the daily mean of GPUs active varies about twice as much as the real one; its hour-of-day
#: swing is flat (the largest gap is about the real swing). Each is held to a wider bound
#: here (the generated value within ``bound`` of the target).
FULL_SPAN_GAPS = {
    "hour-of-day profile of GPUs active, largest |generated - real| (x mean)": 0.12,
    "GPU-time share of jobs with w 2 to 8": 0.06,
    "GPU-time share of jobs with w 129 plus": 0.025,
    "GPU-time share of jobs with 2 to 4 GPUs": 0.04,
    "GPU-time share of jobs with 5 to 8 GPUs": 0.05,
    "day-to-day variation of daily mean GPUs active (CV)": 0.2,
}


@pytest.mark.parametrize("kind, span", [("venus-synth", 180), ("gfs-synth", 184.06)])
def test_full_span_meets_targets_including_span(kind, span):
    checks = calibration_checks(synthesize(kind, seed=3)).set_index("statistic")
    failed = checks[~checks["ok"]]
    assert set(failed.index) <= set(FULL_SPAN_GAPS), failed.to_string()
    for name, row in failed.iterrows():
        assert abs(row["generated"] - row["target"]) <= FULL_SPAN_GAPS[name], name
    assert checks.loc["span in days", "target"] == span


def test_every_frame_says_synthetic():
    for kind in ("venus-synth", "gfs-synth", "physmix"):
        frame = synthesize(kind, days=1, seed=0)
        assert set(frame["source"]) == {f"synthetic:{kind}"}
        assert frame["source_id"].str.startswith(f"{kind}/s0/d0/").all()
    with pytest.raises(ValueError, match="not one synthetic trace"):
        calibration_checks(synthesize("physmix", days=1).assign(source="venus"))


def test_deterministic_per_seed_and_day():
    a = synthesize("gfs-synth", days=3, start_day=4, seed=7)
    pd.testing.assert_frame_equal(a, synthesize("gfs-synth", days=3, start_day=4, seed=7))
    assert not a.equals(synthesize("gfs-synth", days=3, start_day=4, seed=8))
    day5 = synthesize("gfs-synth", days=1, start_day=5, seed=7)
    same = a[a["submit_time"] // 86_400 == 5].drop(columns="job_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(day5.drop(columns="job_id"), same)


@pytest.mark.parametrize("trace, day", list(cal.TABLE2_COMPOSITION))
def test_table2_days_have_the_paper_composition(trace, day):
    frame = synthesize(f"{trace}-synth", days=1, start_day=day, seed=0)
    assert set(frame["scenario"]) == {"table2"}
    assert composition(frame) == pytest.approx(cal.TABLE2_COMPOSITION[(trace, day)], abs=0.005)


def test_stress_days_break_the_wcc_for_the_planned_share():
    plans = [p for p in day_plans("venus-synth", days=90, seed=0) if p.scenario == "wcc-stress"]
    assert len(plans) >= 3
    for plan in plans[:4]:
        frame = synthesize("venus-synth", days=1, start_day=plan.day, seed=0)
        rho = wcc_coverage(jobs_in_window(frame, day_window(plan.day)), day_window(plan.day))
        assert plan.target_rho - 0.03 <= rho <= plan.target_rho + 1e-4
        assert plan.target_rho < 0.99


def test_day_plans_follow_table3_rates():
    venus = day_plans("venus-synth", seed=0)
    assert len(venus) == 180 and venus[92].scenario == "table2"
    stress = np.mean([p.scenario == "wcc-stress" for p in venus])
    assert wcc_stress_rate("venus") == pytest.approx(51 / 564)
    assert abs(stress - 51 / 564) < 0.06
    gfs = day_plans("gfs-synth", days=60, seed=0)
    assert {p.scenario for p in gfs} == {"base", "table2"} and wcc_stress_rate("gfs") == 0
    assert [p.day for p in gfs if p.scenario == "table2"] == [26, 58]


def test_physmix_fits_the_testbed():
    frame = synthesize("physmix", days=2, seed=0)
    assert len(frame) == 2 * 150 and set(frame["workload"]) == {t.workload for t in
                                                                 physmix.TEMPLATES}
    nodes = -(-frame["num_instances"] // (8 // frame["gpus_per_instance"]))
    assert nodes.max() <= physmix.PHYSMIX_NODES
    shares = physmix.template_model().instance_shares(TABLE1_CLASSES)
    assert shares == pytest.approx(physmix.physmix_class_targets())


@pytest.mark.parametrize("kwargs, match", [({"kind": "philly"}, "unknown synthetic kind"),
                                           ({"kind": "gfs-synth", "days": 0}, "days"),
                                           ({"kind": "gfs-synth", "start_day": -1}, "start_day")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        synthesize(**kwargs)


@pytest.mark.parametrize("model, tolerance", [("gfs-indep", 0.012), ("gfs", 0.04)])
def test_gfs_joint_shape_matches_the_real_gpu_demand_buckets(model, tolerance):
    """Out of sample: per-job G = w g of the GFS models against the full table's buckets.

    Neither model's shapes are fitted to bucket_gpu_demand.csv's job shares (computed by the
    same third party over all 466,867 jobs; the GFS coupling fits its GPU-second shares,
    which act on durations only). The joint, fitted also to the wide jobs' class mix, keeps
    more 8-GPU jobs single-instance and is further off (largest gap 3.6 points, at 5-8 GPUs;
    docs/traces.md).
    """
    path = data_file("sultanul-ovi_GPU-Cluster-Spot-Resource-Dataset-Analysis"
                     "/outputs_extra/tables/bucket_gpu_demand.csv")
    real = pd.read_csv(path).set_index("gpu_demand_bucket")["jobs"].drop("0")
    sizes = trace_model(model).sizes
    gpus = sizes.g * sizes.w
    for label, jobs in real.items():
        lo, _, hi = label.replace(" plus", " to 100000").partition(" to ")
        inside = (gpus >= int(lo)) & (gpus <= int(hi or lo))
        assert sizes.p[inside].sum() == pytest.approx(jobs / real.sum(), abs=tolerance), label


def test_package_exports_load_lazily():
    import compass.traces as traces

    assert traces.synthesize is synthesize and callable(traces.fetch_trace)
    assert traces.calibration_checks is calibration_checks
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = traces.nope
