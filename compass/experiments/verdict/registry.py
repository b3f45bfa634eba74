"""What the studies add to the claims and the report, registered by the studies themselves
and discovered, as the schedulers are (``compass.schedulers.registry``): the verdict wing
never imports a study.

* **measure kinds**: a study's ``measures`` module calls ``register_measures`` with the
  kinds its claims file names (paper/claims_openb.yaml: ``openb_replay_lead``, ...);
  ``measure_function`` finds a kind among the claims' own (``measures.MEASURES``) and the
  registered ones;
* **report sections**: a study's ``sections`` module decorates the functions that write
  its lines of paper/REPRODUCTION.md with ``report_section(slot)``; ``report_sections``
  lists those of a slot (``SLOTS``: where in the report they go).

``discover`` imports every module named ``measures`` or ``sections`` in the subpackages of
``compass.experiments`` (a new study registers by adding them, nothing else changes).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Literal, get_args

import pandas as pd

from compass.experiments.results import Results
from compass.experiments.verdict.claims import SENSITIVE_KINDS, Measured

#: A measure kind: the claims' evidence (``measures.Evidence``) and the claim's
#: ``measure`` arguments in, our value out.
MeasureFunction = Callable[..., Measured]
#: Where a study's report lines go: among the findings right after the verdict counts
#: (``real data``: comparisons on real traces), after the findings (``findings``), after
#: "The paper beside ours" (``beside the paper``), at the end after "Cost" (``end``).
ReportSlot = Literal["real data", "findings", "beside the paper", "end"]
SLOTS: tuple[ReportSlot, ...] = get_args(ReportSlot)
#: The modules of a study that ``discover`` imports: they register when imported.
HOOKS = ("measures", "sections")


@dataclass(frozen=True)
class ReportInputs:
    """What a report section reads: the results folder, the claims table (every variant),
    the tables folder and the report's own path (for links)."""

    res: Results
    claims: pd.DataFrame
    tables: Path
    out: Path


ReportSection = Callable[[ReportInputs], list[str]]

_MEASURES: dict[str, MeasureFunction] = {}
_COMPARED: set[str] = set()
_SECTIONS: dict[ReportSlot, dict[str, ReportSection]] = {slot: {} for slot in SLOTS}
_discovered = False


def register_measures(kinds: Mapping[str, MeasureFunction],
                      compared: Sequence[str] = ()) -> None:
    """Register a study's measure kinds; a kind registered by another function is refused
    (registering the same function again, as a reloaded module does, is allowed).
    ``compared``: those of ``kinds`` that measure COMPASS-ABS against the strongest of the
    evidence's baselines (``compared_kinds``)."""
    unknown = set(compared) - set(kinds)
    if unknown:
        raise ValueError(f"compared kinds {sorted(unknown)} are not among the kinds registered")
    _COMPARED.update(compared)
    for kind, function in kinds.items():
        old = _MEASURES.get(kind)
        if old is not None and _identity(old) != _identity(function):
            raise ValueError(f"measure kind {kind!r} is already registered by "
                             f"{old.__module__}.{old.__qualname__}")
        _MEASURES[kind] = function


def report_section(slot: ReportSlot) -> Callable[[ReportSection], ReportSection]:
    """Decorator: register a function that writes a study's lines into the report at
    ``slot``; a slot's sections come in the order they were registered."""
    if slot not in SLOTS:
        raise ValueError(f"unknown report slot {slot!r}; slots: {', '.join(SLOTS)}")

    def add(function: ReportSection) -> ReportSection:
        _SECTIONS[slot][".".join(_identity(function))] = function
        return function
    return add


def _identity(function: Callable[..., object]) -> tuple[str, str]:
    return function.__module__, function.__qualname__


def discover(package: str = "compass.experiments") -> None:
    """Once per process: import every ``HOOKS`` module of the subpackages of ``package``
    (importing one registers what it adds)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    root = import_module(package)
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        parent, _, name = info.name.rpartition(".")
        if name in HOOKS and parent != package and parent != __package__:
            import_module(info.name)


def registered_measures() -> dict[str, MeasureFunction]:
    """Every measure kind the studies register, by kind (``discover`` first)."""
    discover()
    return dict(_MEASURES)


def compared_kinds() -> tuple[str, ...]:
    """The measure kinds judged against the strongest baseline, which
    ``by_baseline.without_fft`` judges again without FFT: the claims' own comparisons
    (``SENSITIVE_KINDS``) and those the studies register as ``compared``."""
    discover()
    return (*SENSITIVE_KINDS, *sorted(_COMPARED - set(SENSITIVE_KINDS)))


def report_sections(slot: ReportSlot) -> list[ReportSection]:
    """The report sections the studies register at ``slot``, in registration order."""
    discover()
    return list(_SECTIONS[slot].values())
