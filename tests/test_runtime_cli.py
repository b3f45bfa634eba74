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


def test_resume_and_force_new_exclude_each_other(tmp_path, capsys):
    assert main(["run-physical", "--resume", "--force-new", "--workdir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--force-new" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("files", "flags", "says"), [
    ({"journal.sqlite": b""}, ["--resume"], "empty (0 bytes), nothing to resume"),
    ({"journal.sqlite": b"garbage" * 50}, ["--resume"], "file is not a database"),
    ({"checkpoints/job-0.pt": b"old"}, [], "1 checkpoint file(s)"),
])
def test_a_refused_work_directory_is_a_clear_error(tmp_path, capsys, files, flags, says):
    """Refused before Ray starts: the message names the file and the next step."""
    pytest.importorskip("torch")
    pytest.importorskip("ray")
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    assert main(["run-physical", "--workdir", str(tmp_path), "--quiet", *flags]) == 2
    err = capsys.readouterr().err
    assert says in err and str(tmp_path) in err and "--force-new" in err


def test_a_local_ray_start_that_times_out_is_tried_again(monkeypatch):
    """Ray gives its raylet a fixed 30 s; on a busy machine start_local tries again."""
    pytest.importorskip("ray")
    from compass.runtime import engine

    calls = []

    def init(fail_first, message):
        def fake(**kw):
            calls.append(kw["resources"])
            if sum(c != "shutdown" for c in calls) <= fail_first:
                raise Exception(message)
        return fake

    monkeypatch.setattr(engine.ray, "shutdown", lambda: calls.append("shutdown"))
    timeout = "The current node timed out during startup. This could happen because ..."
    monkeypatch.setattr(engine.ray, "init", init(engine.LOCAL_START_TRIES - 1, timeout))
    engine.start_local(4, 8, num_cpus=2)
    resources = {f"compass_node_{n}": 8 for n in range(4)}
    assert calls == [resources, "shutdown"] * (engine.LOCAL_START_TRIES - 1) + [resources]
    for fail_first, message in ((engine.LOCAL_START_TRIES, timeout), (1, "another error")):
        calls.clear()
        monkeypatch.setattr(engine.ray, "init", init(fail_first, message))
        with pytest.raises(Exception, match=message.split(".")[0]):
            engine.start_local(4, 8)
        tries = engine.LOCAL_START_TRIES if message == timeout else 1
        assert calls.count("shutdown") == tries
