"""The appendix D study's settings: the platforms (D domains of K panels), the schedulers,
the metrics of its table and the workload of the pipeline's rule ``nvl72``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Platform:
    """A cluster of ``domains`` NVLink domains of ``panels`` 8-GPU panels."""

    name: str
    domains: int
    panels: int


#: Platforms of the issue, at roughly 144-288 GPUs (8x9 is 8 sub-domains of NVL72).
PLATFORMS = (
    Platform("K=1", 18, 1), Platform("K=2", 9, 2), Platform("K=9", 2, 9),
    Platform("8x9", 8, 9),
)
SCHEDULERS = ("compass-abs-hier", "gfs", "fgd")
METRICS = ("sif_gpu", "sif_panel", "ajct", "agu")
#: The workload of the pipeline's rule ``nvl72``, the same in every profile.
SETTINGS: dict[str, Any] = {"jobs": 400, "seed": 0, "multi_panel_share": 0.25}
