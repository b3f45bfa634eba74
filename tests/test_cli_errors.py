"""The `compass` command's contract with its user: help, version, typed --param, and every
user error as one line on stderr with exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from compass import __version__
from compass.cli import build_parser, main
from compass.schedulers import available
from compass.schedulers.params import ParameterError, convert, infer, parameters, parse_params

HEADER = "job_id,submit_time,duration,num_instances,gpus_per_instance\n"


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """``main(argv)`` as the console script runs it: status, stdout, stderr."""
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own exits (usage errors, --help, --version)
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _trace(tmp_path: Path, body: bytes, name: str = "t.csv") -> str:
    path = tmp_path / name
    path.write_bytes(HEADER.encode() + body)
    return str(path)


BAD_FILES = {  # name: (file body after the header, what the message must say)
    "too_large_for_cluster": (b"0,0,10,1000000000,1\n",
                              "job 0 (w=1000000000, g=1) cannot fit an empty cluster of 4 nodes"),
    "w_overflow": (b"0,0,10,1e23,1\n", "column 'num_instances': numeric overflow: 1e23 does "
                                       "not fit a 64-bit integer"),
    "negative_submit": (b"0,-10,10,1,1\n", "column 'submit_time': must be >= 0, got -10.0"),
    "negative_duration": (b"0,0,-10,1,1\n", "column 'duration': must be > 0, got -10.0"),
    "g_too_large": (b"0,0,10,1,9\n", "must be in 1..8 (GPUs per node), got 9"),
    "non_utf8": (b"0,0,10,1,\xff\xfe\n", "not UTF-8 text: byte 0xff at line 2"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["simulate", "trace stats"])
def test_bad_trace_files_are_one_line_errors(tmp_path, capsys, case, command):
    body, expected = BAD_FILES[case]
    if command == "trace stats" and case == "too_large_for_cluster":
        pytest.skip("trace stats has no cluster: a large w is a valid trace there")
    path = _trace(tmp_path, body)
    argv = (["simulate", "--trace", path, "--nodes", "4", "--out", str(tmp_path / "o"),
             "--quiet"] if command == "simulate" else ["trace", "stats", path])
    status, out, err = _run(argv, capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("compass: ")
    assert expected in err and "np." not in err and "Traceback" not in err


def test_binary_garbage_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "garbage.csv"
    path.write_bytes(random.Random(1).randbytes(2048))
    for argv in (["simulate", "--trace", str(path), "--nodes", "2", "--out", str(tmp_path)],
                 ["trace", "stats", str(path)]):
        status, _, err = _run(argv, capsys)
        assert status == 2 and err.count("\n") == 1 and "not UTF-8 text" in err


USAGE_ERRORS = {  # argv: what the one line must say
    ("sif", "9=1"): "instance size must be in 1..8 (GPUs per node), got 9",
    ("sif", "0=1"): "instance size must be in 1..8",
    ("sif", "1=-1"): "count must be >= 0, got -1",
    ("sif", "8:2"): "expected SIZE=COUNT",
    ("sif", "1=1e23"): "expected SIZE=COUNT",
    ("sif", "8=3", "--nodes", "2"): "total demand 24 GPUs does not fit into 2 nodes",
    ("sif", "8=1", "--nodes", "0"): "argument --nodes: expected an integer > 0, got '0'",
    ("bogus",): "invalid choice: 'bogus'",
    ("simulate", "--trace", "demo", "--out", "o"): "one of the arguments --nodes --eta is required",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "1e23"): "expected an integer > 0",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--migration-cost", "-1"):
        "argument --migration-cost: expected a number >= 0, got '-1'",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--migration-cost", "1e400"):
        "expected a number >= 0, got '1e400'",
    ("simulate", "--trace", "missing.csv", "--out", "o", "--nodes", "2"): "file not found",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--param", "bogus=1"):
        "gfs has no parameter 'bogus'",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--param", "novalue"):
        "expected KEY=VALUE, got 'novalue'",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--scheduler", "fft",
     "--param", "solver=gurobi"): "fft parameter 'solver': expected one of 'highs', 'cbc'",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--scheduler", "drr",
     "--param", "re_time=-1"): "scheduler drr: need re_time > 0",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--scheduler", "fgd",
     "--param", "increase_step=1.5"): "'increase_step': expected an integer, got '1.5'",
    ("simulate", "--trace", "demo", "--out", "o", "--nodes", "2", "--param", "seed=3"):
        "'seed' has its own option (--seed)",
    ("demo", "--param", "water=0.5"): "has no parameter 'water'",
    ("trace", "synth", "--kind", "physmix", "--days", "0", "--out", "x.csv"):
        "argument --days: expected an integer > 0",
    ("trace", "stats", "x.csv", "--eta", "2"): "expected a load factor in (0, 1]",
    ("run-physical", "--param", "bogus=1"): "compass-abs has no parameter 'bogus'",
    ("run-physical", "--resume"): "--resume needs the --workdir",
}


@pytest.mark.parametrize("argv", list(USAGE_ERRORS), ids=" ".join)
def test_usage_errors_are_one_line_with_status_2(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(list(argv), capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert USAGE_ERRORS[argv] in err


def test_console_script_reports_without_traceback(tmp_path):
    """The installed entry point (a fresh interpreter), not only main(): bad file, bad sif."""
    path = _trace(tmp_path, b"0,0,10,1e23,1\n")
    for args in (["simulate", "--trace", path, "--nodes", "2", "--out", str(tmp_path)],
                 ["sif", "9=1"]):
        proc = subprocess.run([sys.executable, "-m", "compass.cli", *args],
                              capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_version_and_bare_command_print_help(capsys):
    status, out, _ = _run(["--version"], capsys)
    assert status == 0 and out.strip() == f"compass {__version__}"
    status, out, err = _run([], capsys)
    assert status == 0 and err == "" and out.startswith("usage: compass")
    assert all(name in out for name in ("simulate", "sif", "demo", "trace", "run-physical"))
    status, out, _ = _run(["trace"], capsys)
    assert status == 0 and out.startswith("usage: compass trace") and "synth" in out


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_every_option_has_help_and_shows_its_default():
    for parser in _parsers(build_parser()):
        text = parser.format_help()
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            where = f"{parser.prog} {action.dest}"
            assert action.help, f"{where} has no help text"
            if not action.option_strings or action.nargs == 0:
                continue  # positionals and flags have no default to show
            help_text = parser._get_formatter()._expand_help(action)
            assert "(default" in help_text or "(required)" in help_text, where
        assert "(default: None)" not in text, parser.prog


def test_param_values_are_typed_by_the_scheduler(tmp_path, capsys):
    out = tmp_path / "run"
    status, stdout, err = _run(["simulate", "--trace", "demo", "--nodes", "8", "--out", str(out),
                                "--scheduler", "cafgd", "--param", "water=0.9", "--param",
                                "quantize_scores=true", "--param", "short_window=200",
                                "--quiet"], capsys)
    assert status == 0, err
    recorded = json.loads((out / "summary.json").read_text())["scheduler_params"]
    assert recorded["water"] == 0.9 and recorded["quantize_scores"] is True
    assert recorded["short_window"] == 200 and isinstance(recorded["short_window"], int)


def test_param_parsing_against_each_schedulers_signature():
    assert parse_params("fft", ["solver=highs", "round_s=60"]) == {
        "solver": "highs", "round_s": 60.0}
    assert parse_params("drr", ["policy=learned", "training_trace=t.csv", "re_num=3"]) == {
        "policy": "learned", "training_trace": "t.csv", "re_num": 3}
    assert parse_params("cafgd", ["integer_ramp=False"]) == {"integer_ramp": False}
    with pytest.raises(ParameterError, match="cannot be given on the command line"):
        parse_params("fgd", ["distribution=1"])
    with pytest.raises(ParameterError, match="expected true or false"):
        parse_params("sifopt", ["keep_optimal=yes"])
    with pytest.raises(ParameterError, match="expected a finite number"):
        convert("nan", float)
    assert [infer(t) for t in ("true", "3", "2.5", "x")] == [True, 3, 2.5, "x"]
    for name in available():  # every parameter is a keyword the constructor accepts
        assert "seed" not in parameters(name)


def test_schedulers_lists_parameters(capsys):
    status, out, _ = _run(["schedulers", "--params"], capsys)
    assert status == 0 and "    water: float = 0.95" in out
    assert "    solver: 'highs' | 'cbc' = 'highs'" in out
