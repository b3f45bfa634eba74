"""An interrupted pipeline run (README "Interrupted?"; issue 17, item 4).

SIGTERM lets the running jobs finish and ends with an accurate note and status 143 instead
of Snakemake's "At least one job did not complete successfully"; SIGINT stops the jobs and
ends with 130; the next run redoes outputs left incomplete by itself (profiles/default sets
``rerun-incomplete``). ``SignalNote`` is checked on its own, then end to end on the smoke
profile's quick ``day_table`` jobs.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments.interrupts import SignalNote

ROOT = Path(__file__).parents[1]
ACCURATE = "Snakemake let the jobs that were running finish and started no more"
GENERIC = "At least one job did not complete successfully"


def _log(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "run.snakemake.log"
    path.write_text(text)
    return [str(path)]


KILLED = ("Command 'python x.py' died with <Signals.SIGINT: 2>.\n"
          "Error in rule simulate:\n    jobid: 4\n")
FAILED = "Error in rule simulate:\n    jobid: 5\n"


def test_no_signal_no_note(tmp_path):
    note = SignalNote()
    assert note.message(_log(tmp_path, FAILED)) is None and note.exit_status(None) is None
    note.finish(_log(tmp_path, FAILED))  # returns: Snakemake's own error stands


def test_sigterm_alone_gets_an_accurate_note_and_status_143(tmp_path, capsys):
    note = SignalNote(["SIGTERM"])
    logs = _log(tmp_path, "Will exit after finishing currently running jobs (scheduler).\n")
    assert ACCURATE in note.message(logs) and "no job failed" in note.message(logs)
    with pytest.raises(SystemExit) as done:
        note.finish(logs)
    assert done.value.code == 143
    err = capsys.readouterr().err
    assert "run the same command again" in err and logs[0] in err


def test_sigint_notes_the_stopped_jobs_and_exits_130(tmp_path):
    note = SignalNote(["SIGINT"])
    logs = _log(tmp_path, KILLED * 2)
    assert "Interrupted by SIGINT" in note.message(logs) and "no job failed" in note.message(logs)
    assert note.exit_status(logs) == 130
    assert "2 running job(s) received it too" in SignalNote(["SIGTERM"]).message(logs)


def test_a_failed_job_keeps_snakemakes_error(tmp_path):
    note = SignalNote(["SIGTERM"])
    logs = _log(tmp_path, KILLED + FAILED)
    assert "1 job(s) failed" in note.message(logs)
    assert note.exit_status(logs) is None
    note.finish(logs)  # no SystemExit: Snakemake's error and status stand


def test_install_records_and_passes_signals_on():
    saved = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    seen = []
    try:
        signal.signal(signal.SIGTERM, lambda n, f: seen.append(n))  # Snakemake's, say
        signal.signal(signal.SIGINT, signal.default_int_handler)
        note = SignalNote()
        note.install()
        os.kill(os.getpid(), signal.SIGTERM)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        assert seen == [signal.SIGTERM] and note.received == ["SIGTERM", "SIGINT"]
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        SignalNote().install()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # ignored stays ignored
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


# ---------------------------------------------------------------- end to end
needs_snakemake = pytest.mark.skipif(importlib.util.find_spec("snakemake") is None,
                                     reason="needs snakemake")
TARGETS = [f"results/smoke/traces/{t}/days.csv" for t in ("venus", "gfs", "physmix")]


def _start(workdir: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(workdir), "--cores", "1",
           "--configfile", str(ROOT / "config" / "smoke.yaml"), *extra, "--", *TARGETS]

    def defaults() -> None:  # a test runner may ignore SIGINT in its children
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=defaults)


def _interrupt(workdir: Path, number: int, group: bool) -> tuple[int, str]:
    """Start the three day tables, signal once the first job runs; (status, output)."""
    proc = _start(workdir)
    out = []
    for line in proc.stdout:  # type: ignore[union-attr]
        out.append(line)
        if line.startswith("localrule day_table") or line.startswith("rule day_table"):
            time.sleep(1.0)
            (os.killpg if group else os.kill)(proc.pid, number)
            break
    out.append(proc.stdout.read())  # type: ignore[union-attr]
    return proc.wait(timeout=300), "".join(out)


def _incomplete(workdir: Path) -> list[str]:
    folder = workdir / ".snakemake" / "incomplete"
    return [base64.b64decode(f.name).decode() for f in folder.iterdir()] if folder.is_dir() else []


@needs_snakemake
def test_sigterm_finishes_the_running_job_and_says_so(tmp_path):
    status, out = _interrupt(tmp_path, signal.SIGTERM, group=False)
    assert status == 143, out
    assert ACCURATE in out and "no job failed" in out and GENERIC not in out
    made = [t for t in TARGETS if (tmp_path / t).is_file()]
    # the job running at the signal finished (on a loaded machine the first may already have
    # ended and the second be running) and no further job started
    assert 1 <= len(made) < len(TARGETS) and not _incomplete(tmp_path)
    assert not (tmp_path / ".snakemake" / "locks").exists() or not any(
        (tmp_path / ".snakemake" / "locks").iterdir())
    again = _start(tmp_path)
    rest = again.communicate(timeout=300)[0]
    assert again.returncode == 0, rest
    assert all((tmp_path / t).is_file() for t in TARGETS)


@needs_snakemake
def test_an_output_left_incomplete_is_redone_by_the_next_run(tmp_path):
    """Ctrl-C (SIGINT to the process group) stops the running job; if it had written part of
    its output, Snakemake alone would refuse the next run (--rerun-incomplete); the workflow
    profile makes the next run redo it."""
    status, out = _interrupt(tmp_path, signal.SIGINT, group=True)
    assert status == 130, out
    assert "Interrupted by SIGINT" in out and GENERIC not in out
    marked = _incomplete(tmp_path)
    assert len(marked) == 1 and marked[0] in TARGETS
    partial = tmp_path / marked[0]
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_text("trace,day,jo")  # as if the job had been cut while writing
    refused = _start(tmp_path, "--workflow-profile", "none", "-n")
    assert "IncompleteFilesException" in refused.communicate(timeout=300)[0]
    again = _start(tmp_path)
    rest = again.communicate(timeout=300)[0]
    assert again.returncode == 0, rest
    table = pd.read_csv(partial)
    trace = partial.parent.name  # whichever day table the signal cut: one row per its day
    days = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["traces"][trace]["days"]
    assert sorted(table["day"]) == sorted(days) and {"trace", "jobs"} <= set(table.columns)
    assert not _incomplete(tmp_path)
