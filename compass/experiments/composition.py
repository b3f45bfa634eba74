"""Section 6.3 (Table 2, Fig. 3): the three days whose workload compositions differ most.

A day's composition is its Table 2 vector: the shares of 1-GPU, 2-7-GPU and 8-GPU instances
among the instances submitted that day. The paper picks "three days whose compositions span
the widest pairwise discrepancy across our traces"; we read that as the triple that
maximises the smallest pairwise L1 distance between the vectors (ties: the larger sum of
the three distances, then the earlier days), over the days of the composition traces with
at least ``min_jobs`` jobs (a day of a handful of jobs has an extreme but meaningless mix).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from compass.experiments.aggregate import metric_means, ordered
from compass.experiments.results import Results
from compass.traces.windows import TABLE2_BUCKETS

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("composition", "composition_days")

#: Columns of the day table holding the Table 2 vector.
SHARE_COLUMNS = [f"share {name}" for name in TABLE2_BUCKETS]


def most_different(vectors: np.ndarray) -> tuple[int, int, int]:
    """Indices (ascending) of the three rows with the largest smallest pairwise L1 distance."""
    n = len(vectors)
    if n < 3:
        raise ValueError(f"need at least 3 candidate days, got {n}")
    d = np.abs(vectors[:, None, :] - vectors[None, :, :]).sum(axis=2)
    best: tuple[float, float, int, int, int] | None = None
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    for i in range(n - 2):
        j, k = np.nonzero(upper & (np.arange(n)[:, None] > i))
        smallest = np.minimum(np.minimum(d[i, j], d[i, k]), d[j, k])
        total = d[i, j] + d[i, k] + d[j, k]
        order = np.lexsort((-total, -smallest))  # by smallest, then total, both descending
        top = order[0]
        score = (float(smallest[top]), float(total[top]))
        if best is None or score > best[:2]:
            best = (*score, i, int(j[top]), int(k[top]))
    assert best is not None
    return best[2], best[3], best[4]


def composition_days(res: Results) -> pd.DataFrame:
    """Table 2: the chosen days with their composition and job count."""
    x = res.config.experiments
    days = pd.concat([res.day_table(t) for t in x.composition_traces], ignore_index=True)
    candidates = days[days["jobs"] >= x.composition_min_jobs].reset_index(drop=True)
    chosen = candidates.iloc[list(most_different(candidates[SHARE_COLUMNS].to_numpy()))]
    return chosen[["trace", "day", *SHARE_COLUMNS, "jobs"]].reset_index(drop=True)


#: Section 6.3's three days (Table 2, Fig. 3): Fig. 3 shows these wherever all are replayed.
PAPER_DAYS = (("venus", 92), ("gfs", 58), ("gfs", 26))


def figure_days(res: Results) -> pd.DataFrame:
    """Fig. 3's days (trace, day): the paper's three (``PAPER_DAYS``) where the composition
    traces replay every one of them, else the three our selection chooses
    (``composition_days``; claim comp-days judges that choice apart)."""
    x = res.config.experiments
    replayed = {(t, d) for t in x.composition_traces if t in res.traces
                for d in res.traces[t].days}
    if set(PAPER_DAYS) <= replayed:
        return pd.DataFrame(PAPER_DAYS, columns=["trace", "day"])
    return composition_days(res)[["trace", "day"]]


def composition_runs(res: Results) -> pd.DataFrame:
    """The runs of Fig. 3: its days (``figure_days``) at the composition eta, every seed of
    each."""
    x = res.config.experiments
    runs = res.select(x.composition_traces, [x.composition_eta], [res.config.migration_cost])
    return runs.merge(figure_days(res), on=["trace", "day"])


def composition(res: Results) -> pd.DataFrame:
    """Fig. 3: AFR, AJCT, AGU per day of ``figure_days`` and scheduler (mean over the day's
    seeds, with its 95 % bootstrap interval over them: none from a single seed), with a
    ``window`` label ("gfs day 26")."""
    chosen = figure_days(res)
    means = metric_means(composition_runs(res), ["trace", "day"], intervals=True)
    means.insert(0, "window", means["trace"] + " day " + means["day"].astype(str))
    return ordered(means, "window", list(chosen["trace"] + " day " + chosen["day"].astype(str)))
