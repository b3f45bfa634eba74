"""`compass run-physical`: its arguments, and a clear error without the runtime extra."""

import sys

import pytest

from compass.cli import build_parser, main
from compass.runtime import run_physical


def test_run_physical_defaults_emulate_the_paper_testbed():
    args = build_parser().parse_args(["run-physical"])
    assert (args.trace, args.scheduler, args.nodes, args.gpus_per_node) == (
        "physmix", "compass-abs", 4, 8)
    assert args.address is None and not args.resume and args.device == "auto"


def test_run_physical_attaches_with_address():
    args = build_parser().parse_args(["run-physical", "--address", "auto", "--resume",
                                      "--time-scale", "1", "--workdir", "/shared/run"])
    assert (args.address, args.resume, args.time_scale, args.workdir) == (
        "auto", True, 1.0, "/shared/run")


def test_resume_needs_the_runs_workdir(capsys):
    with pytest.raises(ValueError, match="workdir"):
        run_physical("physmix", resume=True)
    assert main(["run-physical", "--resume"]) == 2
    assert "--resume needs the --workdir" in capsys.readouterr().err


def test_missing_ray_says_how_to_install(monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "ray" or m.startswith("compass.runtime.")]:
        if name != "compass.runtime.journal":
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'compass\[runtime\]'"):
        run_physical("physmix", nodes=2, workdir=tmp_path)
