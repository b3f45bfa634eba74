"""Helios ``cluster_log.csv`` (Venus; ``compass.traces.helios``)."""

from compass.traces.formats import TraceFormat, register_format
from compass.traces.helios import FORMAT, load_helios

register_format(TraceFormat(
    FORMAT, frozenset({"job_id", "gpu_num", "node_num", "submit_time", "duration"}),
    load_helios, "Helios/Venus cluster_log.csv (SenseTime, SC'21)"))
