"""Alibaba GFS ``job_info_df.csv`` (``compass.traces.alibaba_spot``)."""

from compass.traces.alibaba_spot import FORMAT, load_alibaba_spot
from compass.traces.formats import TraceFormat, register_format

register_format(TraceFormat(
    FORMAT, frozenset({"job_name", "gpu_request", "worker_num", "submit_time", "duration"}),
    load_alibaba_spot, "Alibaba GFS spot trace job_info_df.csv"))
