# Download a real trace, verified, into data/raw/ (compass trace fetch; docs/traces.md).
# Never part of the default target: the pipeline falls back to SYNTHETIC traces when the
# files are absent. Ask for one explicitly:
#   snakemake --cores 1 data/raw/venus/cluster_log.csv data/raw/gfs/job_info_df.csv

import sys


rule fetch_venus:
    output:
        "data/raw/venus/cluster_log.csv",
    conda:
        ENVIRONMENT
    log:
        L.log("fetch_venus"),
    params:
        python=sys.executable,
    localrule: True
    resources:
        mem_mb=1000,
        runtime=60,
    shell:
        "{params.python} -m compass.cli trace fetch venus 2> {log}"


rule fetch_gfs:
    output:
        "data/raw/gfs/job_info_df.csv",
    conda:
        ENVIRONMENT
    log:
        L.log("fetch_gfs"),
    params:
        python=sys.executable,
    localrule: True
    resources:
        mem_mb=1000,
        runtime=60,
    shell:
        "{params.python} -m compass.cli trace fetch gfs 2> {log}"
