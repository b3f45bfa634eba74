"""Alibaba openb pod list with times (``compass.traces.alibaba_openb``)."""

from compass.traces.alibaba_openb import FORMAT, load_alibaba_openb
from compass.traces.formats import TraceFormat, register_format

register_format(TraceFormat(
    FORMAT, frozenset({"name", "num_gpu", "gpu_milli"}), load_alibaba_openb,
    "Alibaba openb pod list (FGD, ATC'23; openb_pod_list_default.csv)"))
