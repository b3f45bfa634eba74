"""The calibration numbers embedded in compass.traces.calibration equal the CSVs of data/."""

from __future__ import annotations

import functools
import math

import pandas as pd
import pytest

from compass.traces import calibration as cal
from compass.traces.paths import data_file


def _csv(name: str) -> pd.DataFrame:
    return pd.read_csv(data_file(f"calibration/{name}"))


@functools.cache
def derive() -> dict[str, object]:
    """Every embedded constant, recomputed from the calibration CSVs."""
    out: dict[str, object] = {}
    t1 = _csv("paper_table1_instance_share.csv")
    names = {"g=1 (I_=1)": "I=1", "g in {2,4} (I_FF excl. 8)": "I_FF",
             "g in {3,5,6,7} (I_FUF)": "I_FUF", "g=8 (I_=8)": "I=8"}
    out["TABLE1_SHARE_PCT"] = {
        trace.lower(): {names[c]: float(v) for c, v in zip(g["instance_class"], g["share_pct"])}
        for trace, g in t1.groupby("trace", sort=False)
    }
    t2 = _csv("paper_table2_day_composition.csv")
    out["TABLE2_COMPOSITION"] = {
        (trace.lower(), int(day)): dict(zip(g["instance_size_class"], g["ratio"].astype(float)))
        for (trace, day), g in t2.groupby(["trace", "day"], sort=False)
    }
    facts = _csv("paper_trace_facts.csv")
    buckets: dict[str, dict[str, int]] = {}
    for _, r in facts.iterrows():
        metric = r["metric"]
        if metric.startswith("(day,eta) pairs"):
            label = "1.0" if "rho=1.0" in metric else metric.split("rho in ")[1]
            buckets.setdefault(r["trace"].lower(), {})[label] = int(r["value"])
        if metric.startswith("replayed"):
            out.setdefault("REPLAYED_DAY_ETA_PAIRS", {})[r["trace"].lower()] = int(r["value"])
        if metric == "cluster scaling eta values":
            out["ETAS"] = tuple(float(x) for x in r["value"].split(";"))
    out["TABLE3_RHO_BUCKETS"] = buckets

    gpu = _csv("gfs_gpu_request_distribution.csv")
    allj = gpu[gpu["subset"] == "jobs, job_type=all"]
    whole = allj[allj["gpu_request_per_worker"].astype(float) % 1 == 0]
    out["GFS_JOBS_BY_GPU_REQUEST"] = {
        int(float(g)): int(n) for g, n in zip(whole["gpu_request_per_worker"], whole["jobs"])
    }
    frac = allj[allj["gpu_request_per_worker"].astype(float) % 1 != 0]
    out["GFS_FRACTIONAL_GPU_JOBS"] = int(frac["jobs"].sum())
    wk = _csv("gfs_worker_num_distribution.csv")
    out["GFS_WORKER_NUM_JOBS"] = {int(w): int(n) for w, n in zip(wk["worker_num"], wk["jobs"])}
    buckets = _csv("gfs_worker_bucket_shares.csv")
    out["GFS_GPU_SECONDS_SHARE_BY_WORKERS"] = dict(
        zip(buckets["worker_bucket"].astype(str), buckets["gpu_seconds_share"].astype(float)))
    demand = _csv("gfs_demand_bucket_shares.csv")
    demand = demand[demand["gpu_demand_bucket"] != "0"]
    out["GFS_GPU_SECONDS_SHARE_BY_DEMAND"] = dict(
        zip(demand["gpu_demand_bucket"].astype(str), demand["gpu_seconds_share"].astype(float)))
    rows = _csv("gfs_job_rows_shape.csv").set_index("statistic")["value"]
    out["GFS_WIDE_JOB_G8_SHARE"] = float(
        rows["share of worker_num > 30 jobs with gpu_request = 8"])
    out["GFS_MAX_WORKERS_AT_G1"] = int(rows["largest worker_num with gpu_request = 1"])
    dur = _csv("gfs_duration_stats.csv")
    alld = dur[dur["subset"] == "all jobs"]
    q = alld[alld["statistic"].str.startswith("quantile_")]
    out["GFS_DURATION_QUANTILES_S"] = {
        float(s.split("_")[1]): float(v) for s, v in zip(q["statistic"], q["duration_s"])
    }
    b = alld[alld["statistic"].str.startswith("share_jobs_duration_")]
    out["GFS_DURATION_BUCKET_SHARES"] = dict(
        zip(b["statistic"].str.replace("share_jobs_duration_", "", regex=False),
            b["duration_s"].astype(float))
    )
    hp = dur[dur["subset"] == "HP jobs"].set_index("statistic")["duration_s"]
    out["GFS_DURATION_MIN_MAX_S"] = (float(hp["min"]), float(hp["max"]))
    day = _csv("gfs_arrivals_by_day.csv")
    out["GFS_JOBS_BY_DAY"] = tuple(int(x) for x in day.sort_values("submit_day")["jobs"])
    out["GFS_GPU_SECONDS_BY_DAY"] = tuple(
        float(x) for x in day.sort_values("submit_day")["gpu_seconds"])
    load = _csv("gfs_load.csv")
    scalar = load[load["hour_of_day"].isna()].set_index("statistic")["value"]
    out["GFS_WHOLE_GPU_SECONDS_SHARE"] = float(
        scalar["whole-GPU share of submitted GPU-seconds (estimate)"])
    out["GFS_JOBS_AT_LEAST_129_GPUS"] = int(scalar["jobs with total GPU demand >= 129"])
    out["GFS_ACTIVE_GPUS_DAILY_CV"] = float(
        scalar["day-to-day coefficient of variation of the daily mean GPUs active"])
    out["GFS_ACTIVE_GPUS_MEAN"] = float(scalar["mean GPUs active (requested)"])
    out["GFS_ACTIVE_GPUS_BY_HOUR_OF_DAY"] = tuple(
        float(x) for x in load.dropna(subset=["hour_of_day"]).sort_values("hour_of_day")["value"])
    hour = _csv("gfs_arrivals_by_hour_of_day.csv").sort_values("hour_of_day_relative")
    out["GFS_JOBS_BY_HOUR_OF_DAY"] = tuple(int(x) for x in hour["jobs_total"])
    out["GFS_HOUR0_MEAN_JOBS_EXCL_TRACE_HOUR0"] = float(
        hour.loc[hour["hour_of_day_relative"] == 0, "mean_jobs_per_hour_excl_hour0"].iloc[0]
    )
    summ = _csv("gfs_summary.csv").set_index("metric")["value"]
    out["GFS_TOTAL_JOBS"] = int(summ["jobs"])
    out["GFS_TRACE_HOUR0_JOBS"] = int(summ["jobs_submitted_in_trace_hour_0"])
    out["GFS_SPAN_DAYS"] = float(summ["trace_span"])

    vg = _csv("venus_gpu_num_per_job_distribution.csv")
    out["VENUS_GPU_NUM_JOB_SHARE_PCT"] = {
        str(k): float(v) for k, v in zip(vg["gpu_num_bin"], vg["share_jobs_pct"])
    }
    out["VENUS_GPU_TIME_SHARE_PCT"] = {
        str(k): float(v) for k, v in zip(vg["gpu_num_bin"], vg["share_gpu_time_pct"])
    }
    cdf = _csv("helios_duration_cdf.csv")
    vc = cdf[(cdf["trace"] == "Venus") & (cdf["subset"] == "GPU jobs (gpu_num>0)")]
    out["VENUS_DURATION_CDF_PCT"] = {
        int(d): float(p) for d, p in zip(vc["duration_s_le"], vc["cdf_jobs_pct"])
    }
    vd = _csv("venus_arrivals_by_day.csv").sort_values("day_index")
    out["VENUS_GPU_JOBS_BY_DAY"] = tuple(int(x) for x in vd["submit_gpu_job"])
    vh = _csv("venus_arrivals_by_hour_of_day.csv").sort_values("hour_of_day")
    out["VENUS_GPU_JOBS_BY_HOUR_OF_DAY"] = tuple(
        float(x) for x in vh["mean_gpu_jobs_submitted_per_hour"]
    )
    vs = _csv("venus_summary.csv").set_index("metric")["value"]
    out["VENUS_SPAN_DAYS"] = int(vs["days_with_submissions"])
    out["VENUS_MEDIAN_GPU_RUN_TIME_S"] = float(vs["med_run_time_gpu"])
    return out


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("name", sorted(derive()))
def test_embedded_value_equals_csv(name):
    assert _same(getattr(cal, name), derive()[name]), name


def test_every_embedded_constant_is_checked():
    public = {n for n in dir(cal) if n.isupper()}
    assert public == set(derive()) | {"SOURCES"}
    assert set(cal.SOURCES) == public - {"SOURCES"}


ROWS = "sultanul-ovi_GPU-Cluster-Spot-Resource-Dataset-Analysis"
ROW_TABLES = ("outputs/tables/heaviest_gpu_jobs_top200.csv",
              "outputs/tables/longest_jobs_top200.csv",
              "outputs_extra/tables/outliers_high_cpu_per_gpu.csv",
              "outputs_extra/tables/outliers_short_heavy.csv")


def test_tables_we_computed_equal_their_upstream_tables():
    """gfs_job_rows_shape.csv and gfs_worker_bucket_shares.csv from the shipped upstream files."""
    rows = pd.concat([pd.read_csv(data_file(f"{ROWS}/{t}")) for t in ROW_TABLES])
    rows = rows.drop_duplicates("job_name")
    whole = rows[rows["gpu_request"] % 1 == 0]
    wide = whole[whole["worker_num"] > 30]
    assert len(rows) == 1392 and len(wide) == 240
    assert cal.GFS_WIDE_JOB_G8_SHARE == pytest.approx((wide["gpu_request"] == 8).mean(),
                                                      abs=5e-7)
    assert cal.GFS_MAX_WORKERS_AT_G1 == whole.loc[whole["gpu_request"] == 1, "worker_num"].max()
    buckets = pd.read_csv(data_file(f"{ROWS}/outputs_extra/tables/bucket_worker_num.csv"))
    upstream = dict(zip(buckets["worker_bucket"], buckets["gpu_seconds_share"]))
    assert cal.GFS_GPU_SECONDS_SHARE_BY_WORKERS == pytest.approx(upstream, abs=5e-7)
    jobs = dict(zip(buckets["worker_bucket"], buckets["jobs"]))
    assert jobs["1"] == cal.GFS_WORKER_NUM_JOBS[1]
    assert jobs["33 to 128"] == sum(n for w, n in cal.GFS_WORKER_NUM_JOBS.items()
                                    if 33 <= w <= 128)


def test_gfs_load_rows_equal_their_upstream_tables():
    """gfs_load.csv and the daily GPU-seconds from the shipped upstream tables."""
    tables = f"{ROWS}/outputs_extra/tables"
    daily = pd.read_csv(data_file(f"{tables}/daily_capacity_pressure.csv"))
    assert cal.GFS_GPU_SECONDS_BY_DAY == pytest.approx(tuple(daily["gpu_seconds"]), rel=1e-12)
    assert tuple(daily["jobs"]) == cal.GFS_JOBS_BY_DAY
    demand = pd.read_csv(data_file(f"{tables}/bucket_gpu_demand.csv")).set_index(
        "gpu_demand_bucket")
    assert cal.GFS_WHOLE_GPU_SECONDS_SHARE == pytest.approx(
        1 - demand.loc["0", "gpu_seconds_share"], abs=5e-7)
    assert cal.GFS_JOBS_AT_LEAST_129_GPUS == demand.loc["129 plus", "jobs"]
    shares = demand["gpu_seconds_share"].drop("0")
    assert cal.GFS_GPU_SECONDS_SHARE_BY_DEMAND == pytest.approx(dict(shares), abs=5e-7)
    hourly = pd.read_csv(data_file(f"{tables}/hourly_concurrency.csv"))
    day, hour = hourly["hour"] // 24, hourly["hour"] % 24
    kept = hourly[(day >= 7) & (day <= 183)]
    by_hour = kept.groupby(hour[kept.index])["gpus_active_requested"].mean()
    assert cal.GFS_ACTIVE_GPUS_BY_HOUR_OF_DAY == pytest.approx(
        tuple(by_hour / by_hour.mean()), abs=5e-7)
    daily_mean = kept.groupby(day[kept.index])["gpus_active_requested"].mean()
    assert cal.GFS_ACTIVE_GPUS_DAILY_CV == pytest.approx(
        daily_mean.std() / daily_mean.mean(), abs=5e-7)
    assert cal.GFS_ACTIVE_GPUS_MEAN == pytest.approx(daily_mean.mean(), abs=0.05)
