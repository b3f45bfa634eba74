"""Schedulers that failed on every run: said on the terminal and at the head of the report.

Under ``on_error: record`` a scheduler that raises is recorded run by run (``runs.run_batch``)
and the pipeline goes on; one that raised on *every* run has no value in any table, figure
or claim, so ``collect_runs`` warns on the terminal and the report opens with it. Under
``on_error: raise`` its first failure stops the pipeline already.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # the batch entry (pipeline.py) imports this module; Results is heavier
    from compass.experiments.results import Results


def dead_schedulers(runs: pd.DataFrame) -> list[str]:
    """The schedulers (or variants) with at least one run and none that completed: every
    run raised (a window without jobs counts neither way)."""
    tried = runs[runs["status"] != "empty"]
    ok = tried.groupby("scheduler", sort=False)["status"].apply(lambda s: (s == "ok").any())
    return [str(name) for name, any_ok in ok.items() if not any_ok]


def warn_dead(runs: pd.DataFrame) -> None:
    """One warning per scheduler that failed on every run, printed to the step's log and to
    the terminal that runs the pipeline (the log holds stderr; ``sys.__stderr__`` is the
    terminal's)."""
    lines = []
    for name in dead_schedulers(runs):
        mine = runs[runs["scheduler"] == name]
        error = mine["error"].dropna().astype(str)
        lines.append(f"WARNING: scheduler {name} failed on every run ({len(mine)} runs); "
                     f"its results are missing from every table and figure: "
                     f"{error.iloc[0] if len(error) else 'no error recorded'}")
    for stream in dict.fromkeys([sys.stderr, sys.__stderr__]):
        for line in lines:
            print(line, file=stream, flush=True)


def dead_section(res: Results) -> list[str]:
    """The report's warning, before everything else, when a scheduler failed on every run;
    nothing otherwise."""
    dead = dead_schedulers(res.runs)
    if not dead:
        return []
    return ["> **Warning: " + ", ".join(f"`{d}`" for d in dead) + " failed on every run** "
            "and appear(s) in no table, figure or claim below; see \"Failed runs\".", ""]
