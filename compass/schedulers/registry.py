"""Scheduler registry: names -> classes, and the cards the pipeline and figures read.

The package's own scheduler modules are discovered (``pkgutil``), not listed; outside
schedulers come in as plugins: a module named on the command line (``--plugin``) or in a
profile (``plugins:``), or a package that declares an entry point in the group
``compass.schedulers`` (docs/extending.md).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable
from importlib import import_module, metadata
from typing import Any

from compass.schedulers.base import Role, Scheduler, SchedulerCard

#: The entry-point group through which an installed package adds schedulers.
ENTRY_POINT_GROUP = "compass.schedulers"

_REGISTRY: dict[str, type[Scheduler]] = {}


def register(cls: type[Scheduler]) -> type[Scheduler]:
    """Class decorator: register a scheduler under its ``name``.

    Registering the same class again (a notebook cell run twice defines a new class object
    of the same module and qualified name) replaces it; another class under a taken name
    is refused.
    """
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    cls.card()  # refuses an unknown role
    old = _REGISTRY.get(cls.name)
    if old is not None and _identity(old) != _identity(cls):
        raise ValueError(f"scheduler name {cls.name!r} is already registered by "
                         f"{old.__module__}.{old.__qualname__}")
    _REGISTRY[cls.name] = cls
    return cls


def _identity(cls: type) -> tuple[str, str]:
    return cls.__module__, cls.__qualname__


def available() -> list[str]:
    """Registered scheduler names, sorted."""
    return sorted(_REGISTRY)


def scheduler_class(name: str) -> type[Scheduler]:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(available())
        raise ValueError(f"unknown scheduler {name!r}; available: {known} (an outside "
                         "scheduler comes in with --plugin MODULE or the profile's "
                         "plugins:)") from None


def create(name: str, **params: Any) -> Scheduler:
    """A fresh scheduler instance (no state is shared between runs)."""
    return scheduler_class(name)(**params)


def cards() -> list[SchedulerCard]:
    """Every registered scheduler's card, in the figures' order (role, rank, name)."""
    return sorted((cls.card() for cls in _REGISTRY.values()), key=lambda c: c.sort_key)


def names_with_role(*roles: Role) -> tuple[str, ...]:
    """Registered names whose role is one of ``roles``, in the order of ``roles`` and then
    of the cards."""
    found = cards()
    return tuple(c.name for role in roles for c in found if c.role == role)


def discover(package: str = "compass.schedulers") -> None:
    """Import every module of ``package`` (importing a module registers its schedulers)."""
    root = import_module(package)
    for info in pkgutil.iter_modules(root.__path__, f"{package}."):
        import_module(info.name)


def load_plugin(module: str) -> list[str]:
    """Import ``module`` (its ``@register`` classes register themselves) and return the
    names it added."""
    before = set(_REGISTRY)
    import_module(module)
    return sorted(set(_REGISTRY) - before)


def load_plugins(modules: Iterable[str] = ()) -> list[str]:
    """Load the entry points of ``ENTRY_POINT_GROUP`` (each a module, or a scheduler class
    that is then registered) and ``modules``; the names added, sorted."""
    before = set(_REGISTRY)
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        loaded = point.load()
        if isinstance(loaded, type) and issubclass(loaded, Scheduler):
            register(loaded)
    for module in modules:
        load_plugin(module)
    return sorted(set(_REGISTRY) - before)
