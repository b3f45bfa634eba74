"""``python -m compass.experiments.studies.extension --out results/extension`` runs the
extension study's goal experiment and writes CSV and Markdown (``--part estimates``,
``--part bound-slack``: the other two). It reads no profile."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from compass.experiments.studies.extension.config import BASELINES, SLACK_FIGURE
from compass.experiments.studies.extension.figure import plot_slack_curve
from compass.experiments.studies.extension.measures import (
    ablation_table,
    goal_table,
    slack_curve,
    smallest_slack,
    write_estimate_leads,
)
from compass.experiments.studies.extension.runs import estimate_runs, goal_runs, slack_runs
from compass.experiments.tables import markdown


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=Path("results/extension"))
    parser.add_argument("--part", choices=["goal", "estimates", "bound-slack"],
                        default="goal", help="the goal experiment (default); COMPASS-ABS+ "
                        "and gfs-backfill under each runtime estimate (table in --tables); "
                        "the bound-slack curve (figure in --figures)")
    parser.add_argument("--tables", type=Path, default=Path("paper/tables"))
    parser.add_argument("--figures", type=Path, default=Path("figures"))
    parser.add_argument("--no-baselines", action="store_true",
                        help="estimates: leads over gfs-backfill only (cheaper)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.part == "estimates":
        runs = estimate_runs(args.seeds, baselines=() if args.no_baselines else BASELINES)
        runs.to_csv(args.out / "estimate_runs.csv", index=False)
        write_estimate_leads(runs, args.tables)
        return
    if args.part == "bound-slack":
        curve = slack_curve(slack_runs(args.seeds))
        curve.to_csv(args.out / "bound_slack.csv", index=False)
        plot_slack_curve(curve, args.figures / f"{SLACK_FIGURE}.png")
        print(curve.to_string(index=False), smallest_slack(curve), sep="\n")
        return
    runs = goal_runs(args.seeds)
    runs.to_csv(args.out / "goal_runs.csv", index=False)
    for name, table in (("goal", goal_table(runs)), ("ablation", ablation_table(runs))):
        table.to_csv(args.out / f"{name}.csv", index=False)
        (args.out / f"{name}.md").write_text(markdown(table) + "\n")


if __name__ == "__main__":
    main()
