"""Cluster readiness without a cluster (README, "On a SLURM cluster"; CI runs the smoke
pipeline through a real SLURM with .ci/slurm-smoke.sh): every rule declares the memory and
time a batch system needs, and workflow/cluster/local_submit.py, the submit command of
CI's fallback, reads Snakemake's job properties, refuses a job without them and runs the
job script detached."""

from __future__ import annotations

import importlib.util
import json
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
_spec = importlib.util.spec_from_file_location(
    "local_submit", ROOT / "workflow" / "cluster" / "local_submit.py")
local_submit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(local_submit)

#: a job's properties as Snakemake 9 writes them into its job script (Job.properties):
#: a rule's job (inputs, outputs and params shortened) ...
SIMULATE = {
    "type": "single", "rule": "simulate", "local": False,
    "input": ["results/smoke/canonical/gfs.csv"],
    "output": ["results/smoke/runs/gfs/part3.csv"],
    "wildcards": {"root": "results/smoke", "trace": "gfs", "part": "3"},
    "params": {"samples": "[...]"}, "log": ["results/smoke/logs/simulate/gfs/part3.log"],
    "threads": 1,
    "resources": {"mem_mb": 4000, "mem_mib": 3815, "tmpdir": "/tmp", "runtime": 120},
    "jobid": 7,
}
#: ... and a group job's, copied from CI's fallback run (every rule in a group of its own)
GROUP = {"type": "group", "groupid": "day_table", "local": False, "input": [],
         "output": ["results/smoke/regimes/paper-regime/traces/venus/days.csv"], "threads": 1,
         "resources": {"runtime": 30, "disk_mib": 47684, "disk_mb": 50000, "mem_mb": 2000,
                       "mem_mib": 1908, "mem": "2 GB", "disk": "50 GB"},
         "jobid": "ffaba067-696b-5dcc-b124-6f3cb6354ebb"}


def jobscript(properties: dict, body: str = "true") -> str:
    return f"#!/bin/sh\n# properties = {json.dumps(properties)}\n{body}\n"


def rule_blocks(path: Path) -> dict[str, str]:
    """Each rule of a Snakemake file: its name (``name:`` for a generated one) -> its text."""
    lines = path.read_text().splitlines()
    blocks = {}
    for i, line in enumerate(lines):
        head = re.match(r"(\s*)rule\s*(\w*)\s*:\s*$", line)
        if not head:
            continue
        indent, end = len(head.group(1)), i + 1
        while end < len(lines) and (not lines[end].strip()
                                    or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        block = "\n".join(lines[i + 1:end])
        name = head.group(2) or re.search(r"name:\s*\n\s*(.+)", block).group(1).strip()
        blocks[name] = block
    return blocks


def test_every_rule_declares_memory_and_time():
    """What a cluster job needs, declared by every rule that runs something (the `all`
    target runs nothing), those behind a profile's switch included; the text is read, so
    that rules defined only under some profiles are covered too."""
    rules = {name: block for path in WORKFLOW for name, block in rule_blocks(path).items()}
    assert {"simulate", "report", "table1", "physical", "openb_replay", "fetch_gfs",
            'f"notebook_{_name}"', 'f"claims_{regime_slug(_regime)}"'} <= set(rules)
    running = {n: b for n, b in rules.items() if re.search(r"^\s+(script|shell|run):", b, re.M)}
    assert set(rules) - set(running) == {"all"}
    for name, block in running.items():
        resources = re.search(r"^(\s+)resources:\n((?:\1\s+.*\n?)+)", block, re.M)
        assert resources, f"rule {name} declares no resources"
        declared = set(re.findall(r"^\s+(\w+)=", resources.group(2), re.M))
        assert {"mem_mb", "runtime"} <= declared, f"rule {name} declares only {declared}"


def test_the_submit_script_reads_job_properties():
    assert local_submit.job_properties(jobscript(SIMULATE)) == SIMULATE
    assert local_submit.limits(SIMULATE) == (1, 4000, 120)
    assert local_submit.limits(GROUP) == (1, 2000, 30)
    with pytest.raises(ValueError, match="not a Snakemake job script"):
        local_submit.job_properties("#!/bin/sh\ntrue\n")


def test_the_submit_script_refuses_a_job_without_memory_or_time():
    bare = {**SIMULATE, "resources": {"tmpdir": "/tmp", "mem_mb": 1000}}
    with pytest.raises(ValueError, match="'simulate' declares no runtime"):
        local_submit.limits(bare)
    group = {**GROUP, "resources": {"tmpdir": "/tmp"}}
    with pytest.raises(ValueError, match="group job 'day_table' declares no mem_mb and no runtime"):
        local_submit.limits(group)


def test_the_submit_script_runs_the_job_detached(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COMPASS_SECRET", "not for the job")
    script = tmp_path / "snakejob.simulate.7.sh"
    script.write_text(jobscript(SIMULATE, 'echo "${COMPASS_SECRET:-bare}" > done'))
    assert local_submit.main([str(script)]) == 0
    pid = int(capsys.readouterr().out)
    for _ in range(100):
        if (tmp_path / "done").exists() and (tmp_path / "done").read_text():
            break
        time.sleep(0.05)
    assert (tmp_path / "done").read_text() == "bare\n" and pid > 0
    log = tmp_path / ".snakemake" / "local-submit" / "snakejob.simulate.7.sh.log"
    assert log.read_text().startswith("local_submit: threads=1 mem_mb=4000 runtime=120\n")
    script.write_text(jobscript({**SIMULATE, "resources": {}}))
    assert local_submit.main([str(script)]) == 1
    assert "declares no mem_mb and no runtime" in capsys.readouterr().err
