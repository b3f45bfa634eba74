"""Golden outputs: every registered scheduler's jobs, timeline and migration frames on small
SYNTHETIC streams, compared exactly (as CSV text) with the files in tests/data/golden/.

The files were written by the code before the speed work of issue 16; a change that alters
any decision, time or column shows here. After an intended change of behaviour, regenerate
only the schedulers it concerns and say so in the commit:

    python tests/test_golden_outputs.py --write cafgd
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

import compass
from compass.schedulers import available, scheduler_class
from compass.traces import demo_trace

GOLDEN = Path(__file__).parent / "data" / "golden"
PANEL_ONLY = ("compass-abs-hier", "compass-abs-hier-paper")
#: The ABS needs 8-GPU nodes; FFT's and SIFOpt's ILPs enumerate bins of at most 16 GPUs.
NOT_ON_PANELS = ("compass-abs", "compass-abs-paper", "compass-abs-plus", "fft", "sifopt")
#: Streams: a loaded 8-GPU demo mix and a multi-panel one (domains of K = 4 panels).
STREAMS = {
    "demo-n6": dict(nodes=6, gpus_per_node=8),
    "nvl72-k4": dict(nodes=4, gpus_per_node=32),
}


def stream(name: str) -> pd.DataFrame:
    if name == "demo-n6":
        return demo_trace(num_jobs=300, seed=11, mean_interarrival=70.0, max_instances=6)
    from compass.traces.nvl72 import Nvl72Workload, generate

    return generate(Nvl72Workload(domains=4, panels=4, jobs=150, seed=3))


def own() -> list[str]:
    """The package's own schedulers (an installed plugin, such as examples/compass-worst-fit
    in CI, has no golden files here)."""
    return [s for s in available()
            if scheduler_class(s).__module__.startswith("compass.schedulers.")]


def cases() -> list[tuple[str, str]]:
    out = [("demo-n6", s) for s in own() if s not in PANEL_ONLY]
    out += [("nvl72-k4", s) for s in own() if s not in NOT_ON_PANELS]
    return out


def frames(stream_name: str, scheduler: str) -> dict[str, str]:
    """The three frames of one run as CSV text."""
    result = compass.simulate(stream(stream_name), scheduler, **STREAMS[stream_name])
    return {part: getattr(result, part).to_csv(index=False)
            for part in ("jobs", "timeline", "migrations")}


def path(stream_name: str, scheduler: str, part: str) -> Path:
    return GOLDEN / f"{stream_name}__{scheduler}__{part}.csv"


@pytest.mark.parametrize(("stream_name", "scheduler"), cases())
def test_outputs_equal_the_golden_files(stream_name, scheduler):
    for part, text in frames(stream_name, scheduler).items():
        golden = path(stream_name, scheduler, part).read_text()
        if text != golden:
            new, old = text.splitlines(), golden.splitlines()
            row = next((i for i, (a, b) in enumerate(zip(new, old)) if a != b),
                       min(len(new), len(old)))
            pytest.fail(f"{scheduler} on {stream_name}: {part} differs first at CSV line {row}:"
                        f"\n  golden: {old[row] if row < len(old) else '<end>'}"
                        f"\n  now:    {new[row] if row < len(new) else '<end>'}")


def test_every_scheduler_has_golden_files():
    names = {s for _, s in cases()}
    assert names == set(own()) and "compass-abs" in names
    for stream_name, scheduler in cases():
        for part in ("jobs", "timeline", "migrations"):
            assert path(stream_name, scheduler, part).exists()


def test_golden_runs_exercise_queueing_and_migrations():
    """The streams are loaded enough to queue jobs and to make the migrating schedulers move."""
    jobs = pd.read_csv(path("demo-n6", "gfs", "jobs"))
    assert (jobs["queue_time"] > 0).mean() > 0.2
    for scheduler in ("compass-abs", "fft", "sifopt", "drr"):
        assert len(pd.read_csv(path("demo-n6", scheduler, "migrations"))) > 0, scheduler
    assert len(pd.read_csv(path("nvl72-k4", "compass-abs-hier", "migrations"))) > 0


def main(argv: list[str]) -> None:
    """Write the golden files of the schedulers named in ``argv`` (all if none)."""
    wanted = set(argv[argv.index("--write") + 1:])
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for stream_name, scheduler in cases():
        if wanted and scheduler not in wanted:
            continue
        for part, text in frames(stream_name, scheduler).items():
            path(stream_name, scheduler, part).write_text(text)
        print(f"wrote {stream_name} {scheduler}")


if __name__ == "__main__" and "--write" in sys.argv:
    main(sys.argv)
