"""Jobs, instances and the demand classes of the paper (sections 2.1, 4.1-4.2).

A DLT job is ``w`` identical instances of ``g`` GPUs each; every instance must sit on a
single node (node locality) and all instances start together (gang scheduling).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

#: GPUs per node (the 8-GPU baseboard of section 2.2); a parameter everywhere.
G_DEFAULT = 8
#: The cluster-scaling levels eta of eq. 13 that the paper sizes its clusters at (sections
#: 5.2, 6.2, 6.4): the one place the triple is written.
PAPER_ETAS = (0.85, 0.90, 0.95)

#: An instance is named by its job and its index inside the job: ``(job_id, k)``.
InstanceKey = tuple[int, int]

#: Fragmentation-friendly multi-GPU sizes (section 4.1): they divide G = 8.
FF_SIZES = frozenset({2, 4, 8})
#: Fragmentation-unfriendly sizes (section 4.1).
FUF_SIZES = frozenset({3, 5, 6, 7})


class DemandClass(StrEnum):
    """Per-instance demand class of section 4.1 (I_=1, I_FF, I_FUF)."""

    ONE = "1-GPU"
    FF = "FF"
    FUF = "FUF"


def demand_class(g: int) -> DemandClass:
    """Class of an instance of ``g`` GPUs on 8-GPU nodes."""
    if g == 1:
        return DemandClass.ONE
    if g in FF_SIZES:
        return DemandClass.FF
    if g in FUF_SIZES:
        return DemandClass.FUF
    raise ValueError(f"instance size g={g} is outside 1..8")


def slot_width(g: int) -> int:
    """Slot width w*(g) of eq. 3: 2 for g = 2, 4 for g in {3, 4}, 8 for g in 5..8."""
    if g == 2:
        return 2
    if g in (3, 4):
        return 4
    if 5 <= g <= 8:
        return 8
    raise ValueError(f"slot width is defined for g in 2..8, got g={g}")


@dataclass(frozen=True, slots=True)
class Job:
    """One row of the canonical trace: ``num_instances`` instances of ``gpus_per_instance``."""

    job_id: int
    submit_time: float
    duration: float
    num_instances: int
    gpus_per_instance: int

    @property
    def total_gpus(self) -> int:
        """G_j = w_j * g_j (eq. 12)."""
        return self.num_instances * self.gpus_per_instance

    def instances(self) -> list[InstanceKey]:
        """Keys of the job's instances, in index order."""
        return [(self.job_id, k) for k in range(self.num_instances)]
