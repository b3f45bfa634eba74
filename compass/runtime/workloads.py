"""The Phys-Mix training jobs of the physical runtime: one tiny PyTorch model per family.

Section 5.3 deploys CV, NLP, LLM, recommender and multi-modal training jobs on the 4 x 8
testbed. The runtime keeps each family's structure at toy scale (a small CNN, a Transformer
classifier, a causal Transformer LM, a DeepFM-style model, a CLIP-style two-tower contrastive
model) so that migrations checkpoint and restore real parameters and optimiser state, while
one CPU thread can train dozens of them. Data is generated: the batch of step ``s`` of rank
``r`` depends only on (seed, r, s), so a restored job sees the same batches an uninterrupted
one would (the checkpoint round trip is exact). Models are not the paper's (ResNet, BERT,
GPT-2, ...): they stand in for them.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

FAMILIES = ("CV", "NLP", "LLM", "Recommender", "Multi-modal")
BATCH_SIZE = 16
_VOCAB = 256
_SEQ = 16
_WIDTH = 32


def family_of(job_id: int, workload: str | None = None) -> str:
    """The family of a trace row: its ``workload`` column (Phys-Mix), else by job id."""
    if workload is not None and workload in FAMILIES:
        return workload
    if workload is not None and not (isinstance(workload, float) and math.isnan(workload)):
        raise ValueError(f"job {job_id}: unknown workload family {workload!r}; "
                         f"expected one of {FAMILIES}")
    return FAMILIES[job_id % len(FAMILIES)]


def step_budget(duration: float, steps_per_trace_second: float) -> int:
    """Training steps of a job of ``duration`` trace seconds (at least one)."""
    return max(1, math.ceil(duration * steps_per_trace_second))


def batch_generator(seed: int, rank: int, step: int) -> torch.Generator:
    """The generator of one batch: a function of (seed, rank, step) only."""
    state = np.random.SeedSequence([seed, rank, step]).generate_state(1, dtype=np.uint64)[0]
    return torch.Generator().manual_seed(int(state))


class Workload(nn.Module):
    """A model whose ``forward`` takes a generated batch and returns the training loss."""

    def batch(self, gen: torch.Generator, size: int = BATCH_SIZE) -> tuple[torch.Tensor, ...]:
        raise NotImplementedError


class TinyCNN(Workload):
    """CV (ResNet/ViT stand-in): image classification on 3 x 16 x 16 inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(),
            nn.Linear(8 * 16, 10),
        )

    def batch(self, gen, size=BATCH_SIZE):
        return (torch.randn(size, 3, 16, 16, generator=gen),
                torch.randint(10, (size,), generator=gen))

    def forward(self, x, y):
        return nn.functional.cross_entropy(self.net(x), y)


class TinyEncoder(Workload):
    """NLP (BERT stand-in): a one-layer Transformer encoder classifying token sequences."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(_VOCAB, _WIDTH)
        self.layer = nn.TransformerEncoderLayer(_WIDTH, 2, 2 * _WIDTH, dropout=0.0,
                                                batch_first=True)
        self.head = nn.Linear(_WIDTH, 4)

    def batch(self, gen, size=BATCH_SIZE):
        return (torch.randint(_VOCAB, (size, _SEQ), generator=gen),
                torch.randint(4, (size,), generator=gen))

    def forward(self, tokens, y):
        return nn.functional.cross_entropy(self.head(self.layer(self.embed(tokens)).mean(1)), y)


class TinyLM(Workload):
    """LLM (GPT-2 stand-in): a one-layer causal Transformer trained on next-token loss."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(_VOCAB, _WIDTH)
        self.layer = nn.TransformerEncoderLayer(_WIDTH, 2, 2 * _WIDTH, dropout=0.0,
                                                batch_first=True)
        self.head = nn.Linear(_WIDTH, _VOCAB)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(_SEQ))

    def batch(self, gen, size=BATCH_SIZE):
        return (torch.randint(_VOCAB, (size, _SEQ + 1), generator=gen),)

    def forward(self, tokens):
        h = self.layer(self.embed(tokens[:, :-1]), src_mask=self.mask, is_causal=True)
        return nn.functional.cross_entropy(self.head(h).reshape(-1, _VOCAB),
                                           tokens[:, 1:].reshape(-1))


class TinyDeepFM(Workload):
    """Recommender (DeepFM/DLRM stand-in): FM interactions plus an MLP over sparse fields."""

    FIELDS = 8

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(1000, 8)
        self.linear = nn.Embedding(1000, 1)
        self.mlp = nn.Sequential(nn.Linear(self.FIELDS * 8, 32), nn.ReLU(), nn.Linear(32, 1))

    def batch(self, gen, size=BATCH_SIZE):
        return (torch.randint(1000, (size, self.FIELDS), generator=gen),
                torch.randint(2, (size,), generator=gen).float())

    def forward(self, ids, y):
        e = self.embed(ids)
        fm = 0.5 * (e.sum(1).pow(2) - e.pow(2).sum(1)).sum(1)
        logit = self.linear(ids).sum((1, 2)) + fm + self.mlp(e.flatten(1)).squeeze(1)
        return nn.functional.binary_cross_entropy_with_logits(logit, y)


class TinyCLIP(Workload):
    """Multi-modal (CLIP stand-in): image and text towers trained with a contrastive loss."""

    def __init__(self) -> None:
        super().__init__()
        self.image = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, _WIDTH))
        self.text = nn.EmbeddingBag(_VOCAB, _WIDTH, mode="mean")

    def batch(self, gen, size=BATCH_SIZE):
        return (torch.randn(size, 3, 8, 8, generator=gen),
                torch.randint(_VOCAB, (size, _SEQ), generator=gen))

    def forward(self, images, tokens):
        a = nn.functional.normalize(self.image(images), dim=1)
        b = nn.functional.normalize(self.text(tokens), dim=1)
        logits = a @ b.T / 0.07
        target = torch.arange(len(a), device=a.device)
        return 0.5 * (nn.functional.cross_entropy(logits, target)
                      + nn.functional.cross_entropy(logits.T, target))


_MODELS: dict[str, type[Workload]] = {
    "CV": TinyCNN, "NLP": TinyEncoder, "LLM": TinyLM, "Recommender": TinyDeepFM,
    "Multi-modal": TinyCLIP,
}


def build_model(family: str, seed: int) -> Workload:
    """The family's model with parameters initialised from ``seed`` (global RNG untouched)."""
    try:
        cls = _MODELS[family]
    except KeyError:
        raise ValueError(f"unknown workload family {family!r}; "
                         f"expected one of {FAMILIES}") from None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return cls()
