"""Cost of drawing one SYNTHETIC gfs-synth day, the load matching included.

Not a test: run ``python benchmarks/bench_synthesize.py``. Draws day 55 (4,700 jobs) for
seeds 1..--repeat after warming the cached model and prints the CPU seconds of each draw
(best and median); ``compass.traces.load_match.match_load`` takes most of it. Writes
benchmarks/results/synthesize.csv.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import pandas as pd

from compass.traces.synthetic import synthesize

RESULTS = Path(__file__).parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--day", type=int, default=55)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    synthesize("gfs-synth", days=1, seed=0)  # warm the cached model
    rows = []
    for seed in range(1, args.repeat + 1):
        start = time.process_time()
        frame = synthesize("gfs-synth", days=1, start_day=args.day, seed=seed)
        rows.append({"trace": "gfs-synth", "day": args.day, "seed": seed, "jobs": len(frame),
                     "cpu_s": time.process_time() - start, "machine": platform.node()})
    table = pd.DataFrame(rows)
    RESULTS.mkdir(exist_ok=True)
    table.to_csv(RESULTS / "synthesize.csv", index=False)
    print(table.to_string(index=False))
    print(f"best {table['cpu_s'].min():.2f} CPU-s, median {table['cpu_s'].median():.2f}")


if __name__ == "__main__":
    main()
