"""The extension study's figure: the bound-slack curve (``figures/fig_bound_slack.png``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from compass.experiments.studies.extension.config import PAUSE_GOAL


def plot_slack_curve(curve: pd.DataFrame, path: str | Path) -> Path:
    """Pause per job against AFR and against AJCT's change from the trace's smallest k (the
    traces' AJCTs differ tenfold), one line per trace through its k (each point labelled),
    the pause goal dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    curve = curve.sort_values(["trace", "bound_slack"])
    curve = curve.assign(ajct_change=curve["ajct"] - curve.groupby("trace")["ajct"]
                         .transform("first"))
    for ax, metric, name in ((axes[0], "afr", "AFR"),
                             (axes[1], "ajct_change", "AJCT change from the smallest k (s)")):
        for trace, g in curve.groupby("trace"):
            ax.plot(g[metric], g["pause_per_job"], marker="o", label=f"{trace}-synth")
            for r in g.itertuples():
                ax.annotate(f"k={r.bound_slack}", (getattr(r, metric), r.pause_per_job),
                            fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.axhline(PAUSE_GOAL, color="k", ls="--", lw=0.8)
        ax.set(xlabel=name)
    axes[0].set(ylabel="pause per job (s)")
    axes[0].legend(fontsize=7)
    fig.suptitle("COMPASS-ABS+: the price of the bound N x SIF <= 2 + k "
                 "(goal days, SYNTHETIC)", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path

