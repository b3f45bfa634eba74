"""Phys-Mix-migrate: a short Phys-Mix job list whose arrivals and departures make COMPASS-ABS
migrate, so that a physical run shows section 5.1's checkpoint-and-restart migrations.

SYNTHETIC. The first jobs of a generated Phys-Mix day rarely make COMPASS-ABS move anything
on 4 x 8 GPUs (their arrivals are hours apart and most jobs fit without fragmenting), so a
physical run of them shows no migration. This list was designed from the simulator: random
lists of Phys-Mix shapes (g GPUs x w instances of ``compass.traces.physmix.TEMPLATES``),
arrivals a few minutes apart, durations of 30 to 120 minutes, were replayed by
``compass.simulate(..., "compass-abs", nodes=4)`` and kept when

* the simulator migrates at least 5 times and the queue waits (AFR and AGU are defined);
* the same holds, with at least 4 migrations, when every job runs up to 25 minutes longer
  and each migration costs 10 to 45 minutes (20 random draws): a physical run at
  ``TIME_SCALE`` = 60 (one trace minute per wall second) adds actor start-up to each job
  and a checkpoint-restart latency to each migration, which shift departures; the
  decisions must survive that.

The list below migrates 9 times in the simulator at c = 25 min: Place, Remove and
Compact's repair move jobs 0 (three times), 1 (twice), 2, 5, 6 and 8. It keeps at least 4
migrations under delays of up to 160 minutes per job and costs of 6 to 70 minutes, the
start-up and latencies measured on a 2-core machine under a load of 10
(tests/test_runtime_scenario.py). Shapes and families are Phys-Mix templates; the times
are ours.
"""

from __future__ import annotations

import pandas as pd

from compass.traces.schema import CANONICAL_COLUMNS, validate_trace

#: the trace's ``source``, as the synthetic generator labels its traces (SYNTHETIC)
SOURCE = "synthetic:physmix-migrate"
#: nodes x 8 GPUs it was designed for (the paper's testbed, section 5.1)
NODES = 4
#: trace seconds per wall second it was designed for: one trace minute per wall second
TIME_SCALE = 60.0

#: (submit minute, duration minutes, instances, GPUs per instance, family, template model)
JOBS: tuple[tuple[float, float, int, int, str, str], ...] = (
    (0, 40, 1, 1, "CV", "ResNet-50"),
    (10, 85, 1, 3, "Multi-modal", "CLIP RN50x4, 3 GPUs"),
    (10, 90, 1, 2, "Recommender", "DLRM"),
    (20, 105, 1, 8, "LLM", "GPT-2 medium"),
    (25, 35, 1, 4, "NLP", "BERT-large fine-tune"),
    (40, 55, 1, 1, "NLP", "BERT-base fine-tune"),
    (55, 70, 1, 1, "Recommender", "DeepFM"),
    (60, 80, 1, 3, "Multi-modal", "CLIP RN50x4, 3 GPUs"),
    (60, 70, 1, 4, "CV", "ViT-B/16"),
    (75, 55, 1, 4, "Multi-modal", "CLIP ViT-B/32"),
)


def physmix_migrate() -> pd.DataFrame:
    """The scenario as a canonical trace (seconds) with ``workload``, ``model`` and
    ``source`` (``SOURCE``) columns."""
    rows = [(k, submit * 60.0, duration * 60.0, w, g)
            for k, (submit, duration, w, g, _, _) in enumerate(JOBS)]
    frame = pd.DataFrame(rows, columns=list(CANONICAL_COLUMNS))
    frame["source"] = SOURCE
    frame["workload"] = [job[4] for job in JOBS]
    frame["model"] = [job[5] for job in JOBS]
    return validate_trace(frame, source=SOURCE)
