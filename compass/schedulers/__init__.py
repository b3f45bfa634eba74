"""Schedulers by name: ``available()`` lists them, ``create(name, **params)`` builds one.

Every module of this package is imported here (``registry.discover``): a new scheduler is
one module with a ``@register`` class, named nowhere else.
"""

from compass.schedulers.base import (
    ROLES,
    Move,
    Placement,
    Role,
    Scheduler,
    SchedulerCard,
    greedy_gang,
)
from compass.schedulers.registry import (
    ENTRY_POINT_GROUP,
    PLUGINS_ENV,
    available,
    cards,
    create,
    discover,
    load_outside,
    load_plugins,
    names_with_role,
    register,
    scheduler_class,
)

discover()

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLUGINS_ENV",
    "Move",
    "Placement",
    "ROLES",
    "Role",
    "Scheduler",
    "SchedulerCard",
    "available",
    "cards",
    "create",
    "discover",
    "greedy_gang",
    "load_outside",
    "load_plugins",
    "names_with_role",
    "register",
    "scheduler_class",
]
