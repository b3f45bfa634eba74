"""Schedulers by name: ``available()`` lists them, ``create(name, **params)`` builds one."""

from compass.schedulers.base import Move, Placement, Scheduler, greedy_gang
from compass.schedulers.registry import available, create, register, scheduler_class

# Importing the modules registers their schedulers.
from compass.schedulers import (  # noqa: E402,F401  isort: skip
    cafgd, compass_abs, drr, fft, fgd, first_fit, gfs, hierarchical, mcg, sifopt,
    hierarchical_paper, compass_abs_plus, backfill,
)

__all__ = [
    "Move",
    "Placement",
    "Scheduler",
    "available",
    "create",
    "greedy_gang",
    "register",
    "scheduler_class",
]
