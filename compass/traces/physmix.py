"""Phys-Mix: the paper's physical-cluster workload (section 5.3), synthesized for 4 x 8 GPUs.

CV, NLP, LLM, recommender and multi-modal training jobs, each a template with a fixed shape
(g GPUs per instance, w instances) and a median run time. SYNTHETIC: the paper gives only
the five categories and says their demand is "aligned with" Venus and GFS; the templates
below are ours, and their weights are pushed so the expected per-instance class shares are
the mean of the two Table 1 rows. Every job fits the 4-node cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compass.traces import calibration as cal
from compass.traces.models import SizeModel
from compass.traces.windows import TABLE1_CLASSES

#: Nodes x GPUs of the paper's physical testbed (section 5.1).
PHYSMIX_NODES = 4
#: Spread of each template's run time around its median (log-normal sigma).
DURATION_SIGMA = 0.5


@dataclass(frozen=True)
class Template:
    """One kind of training job."""

    workload: str
    model: str
    gpus_per_instance: int
    instances: int
    median_minutes: float
    weight: float


TEMPLATES: tuple[Template, ...] = (
    Template("CV", "ResNet-50", 1, 1, 30, 3.0),
    Template("CV", "ResNet-101", 2, 1, 45, 1.0),
    Template("CV", "ViT-B/16", 4, 1, 60, 1.0),
    Template("CV", "ViT-L/16", 8, 1, 90, 1.0),
    Template("NLP", "BERT-base fine-tune", 1, 1, 20, 3.0),
    Template("NLP", "BERT-large fine-tune", 4, 1, 60, 1.0),
    Template("NLP", "BERT-large pre-train", 8, 1, 120, 1.0),
    Template("LLM", "GPT-2 medium", 8, 1, 120, 1.0),
    Template("LLM", "GPT-2 large", 8, 2, 150, 1.0),
    Template("LLM", "GPT-2 XL, 6-stage pipeline", 6, 1, 120, 0.2),
    Template("Recommender", "DeepFM", 1, 1, 15, 3.0),
    Template("Recommender", "DLRM", 2, 1, 40, 1.0),
    Template("Multi-modal", "CLIP ViT-B/32", 4, 1, 60, 1.0),
    Template("Multi-modal", "CLIP ViT-L/14", 8, 2, 180, 1.0),
    Template("Multi-modal", "CLIP RN50x4, 3 GPUs", 3, 1, 60, 0.2),
)


def physmix_class_targets() -> dict[str, float]:
    """Per-instance class shares Phys-Mix aims at: the mean of Table 1's GFS and Venus rows."""
    rows = [cal.TABLE1_SHARE_PCT[t] for t in ("gfs", "venus")]
    mean = {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}
    total = sum(mean.values())
    return {k: v / total for k, v in mean.items()}


def template_model() -> SizeModel:
    """Template weights pushed to the class targets; entry k of the model is TEMPLATES[k]."""
    g = np.array([t.gpus_per_instance for t in TEMPLATES])
    w = np.array([t.instances for t in TEMPLATES])
    p = np.array([t.weight for t in TEMPLATES])
    return SizeModel(g, w, p / p.sum()).pushed(physmix_class_targets(), TABLE1_CLASSES)


def sample_jobs(rng_shape: np.random.Generator, rng_duration: np.random.Generator,
                n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` Phys-Mix jobs: (g, w, duration in whole seconds, workload)."""
    k = template_model().sample_index(rng_shape, n)
    median = np.array([t.median_minutes * 60 for t in TEMPLATES])[k]
    duration = np.maximum(np.round(median * np.exp(DURATION_SIGMA * rng_duration.normal(size=n))),
                          60.0)
    workload = np.array([t.workload for t in TEMPLATES], dtype=object)[k]
    g = np.array([t.gpus_per_instance for t in TEMPLATES])[k]
    w = np.array([t.instances for t in TEMPLATES])[k]
    return g, w, duration, workload
