"""What a signal did to a pipeline run, said accurately (README "Interrupted?").

Snakemake ends every run that stops early with "At least one job did not complete
successfully", also when SIGTERM only asked it to finish the running jobs and nothing
failed. The Snakefile's ``onstart`` hook installs ``SignalNote``, which remembers SIGINT and
SIGTERM and passes them on to Snakemake's own handlers; its ``onerror`` hook then says what
happened (jobs failed or interrupted, from the run's log), how to continue, and ends the
process with the signal's conventional status (130 for SIGINT, 143 for SIGTERM) instead
of that message. A run with a failed job keeps Snakemake's message and status.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

#: What Snakemake passes its hooks: the run's log file(s).
Logs = str | Path | Sequence[str | Path] | None

#: What Snakemake writes to the run's log for each job that ended with an error, and for
#: each of those that a signal ended.
_ERROR = re.compile(r"^Error in rule \S+:", re.M)
_KILLED = re.compile(r"died with <Signals\.SIG(?:INT|TERM): \d+>")
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class SignalNote:
    """The signals a Snakemake run received (``install`` it when the run starts)."""

    received: list[str] = field(default_factory=list)

    def install(self) -> None:
        """Record SIGINT and SIGTERM, then do what was done before (Snakemake's handlers)."""
        for number in _SIGNALS:
            previous = signal.getsignal(number)
            if previous is signal.SIG_IGN:  # e.g. SIGINT of a background job: stays ignored
                continue
            signal.signal(number, self._handler(previous))

    def _handler(self, previous: Any) -> Any:
        def handle(number: int, frame: FrameType | None) -> None:
            self.received.append(signal.Signals(number).name)
            if callable(previous):
                previous(number, frame)
            else:  # the default action: restore it and signal ourselves again
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)
        return handle

    def message(self, logs: Logs) -> str | None:
        """What stopped the run and how to continue (None when no signal arrived)."""
        if not self.received:
            return None
        name = self.received[0]
        text = _read(logs)
        errors, killed = len(_ERROR.findall(text)), len(_KILLED.findall(text))
        failed = max(errors - killed, 0)
        if name == "SIGTERM" and not killed:
            what = ("Stopped by SIGTERM: Snakemake let the jobs that were running finish and "
                    "started no more")
        elif name == "SIGTERM":
            what = f"Stopped by SIGTERM: {killed} running job(s) received it too and stopped"
        else:
            what = ("Interrupted by SIGINT (Ctrl-C): Snakemake stopped at once; the outputs of "
                    "the jobs that were running are marked incomplete, finished or not, and "
                    "are redone on the next run")
        failures = (f"{failed} job(s) failed (see 'Error in rule' above)" if failed
                    else "no job failed")
        return (f"{what}; {failures}. The run is not complete: run the same command again "
                "to continue, only what is missing or incomplete is redone (README, "
                "\"Interrupted?\").")

    def exit_status(self, logs: Logs) -> int | None:
        """128 + the signal's number when it alone stopped the run; None if a job failed."""
        if not self.received:
            return None
        text = _read(logs)
        if len(_ERROR.findall(text)) > len(_KILLED.findall(text)):
            return None
        return 128 + signal.Signals[self.received[0]].value

    def finish(self, logs: Logs) -> None:
        """The ``onerror`` hook: print the note and, when only a signal stopped the run,
        exit with its status (Snakemake's lock is released on the way out)."""
        note = self.message(logs)
        if note is None:
            return
        files = ", ".join(map(str, _paths(logs)))
        print(f"\n{note}\nComplete log: {files}", file=sys.stderr, flush=True)
        status = self.exit_status(logs)
        if status is not None:
            raise SystemExit(status)


def _paths(logs: Logs) -> list[Path]:
    if not logs:
        return []
    return [Path(logs)] if isinstance(logs, (str, Path)) else [Path(p) for p in logs]


def _read(logs: Logs) -> str:
    text = []
    for path in _paths(logs):
        try:
            text.append(path.read_text(errors="replace"))
        except OSError:
            pass
    return "\n".join(text)
