"""Selecting the earlier GFS joint from a profile: a trace whose synthetic kind is
gfs-synth-indep validates, plans and runs beside the joint's gfs-synth (issue 13, item 5)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from compass.experiments.config import RunSettings
from compass.experiments.data import load_days
from compass.experiments.grid import RunKey
from compass.experiments.pipeline import make_plan
from compass.experiments.runs import run_batch

ROOT = Path(__file__).parents[1]


def _profile() -> dict:
    raw = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
    raw["traces"]["gfs-indep"] = {"synthetic": "gfs-synth-indep", "real": None,
                                  "use_real": "never", "days": [26, 113], "hours": [0, 24],
                                  "nodes": None}
    raw["experiments"]["overall"]["traces"] = ["venus", "gfs", "gfs-indep", "physmix"]
    return raw


def test_a_profile_selects_the_earlier_joint():
    jsonschema = pytest.importorskip("jsonschema")
    raw = _profile()
    jsonschema.validate(raw, yaml.safe_load((ROOT / "config" / "schema.yaml").read_text()))
    plan = make_plan(raw, ROOT)
    trace = plan.traces["gfs-indep"]
    assert trace.origin == "synthetic" and trace.label == "SYNTHETIC gfs-synth-indep"
    assert {k.day for k in plan.grid if k.trace == "gfs-indep"} == {26, 113}
    assert {k.eta for k in plan.grid if k.trace == "gfs-indep"} == {0.9}


def test_both_joints_run_on_the_same_day():
    plan = make_plan(_profile(), ROOT)
    run = RunSettings(("compass-abs", "gfs"), 0, {}, "per-event", "raise", "window")
    rows = {}
    for name in ("gfs", "gfs-indep"):
        trace = plan.traces[name]
        trace = replace(trace, spec=replace(trace.spec, hours=(0.0, 3.0)))
        jobs = load_days(trace, 0, [113])[113]
        rows[name] = (jobs, run_batch(jobs, RunKey(name, 113, 0.9, 8.0), trace, run,
                                      log=lambda line: None))
    (joint, a), (indep, b) = rows["gfs"], rows["gfs-indep"]
    assert len(joint) == len(indep)  # same streams: same job count and arrivals
    assert joint["submit_time"].tolist() == sorted(indep["submit_time"])
    assert a["status"].eq("ok").all() and b["status"].eq("ok").all()
    assert set(a["trace_source"]) == {"synthetic:gfs-synth"}
    assert set(b["trace_source"]) == {"synthetic:gfs-synth-indep"}
