"""Scheduler registry: names -> classes, and the cards the pipeline and figures read.

The package's own scheduler modules are discovered (``pkgutil``), not listed; outside
schedulers come in as plugins: a module named on the command line (``--plugin``) or in a
profile (``plugins:``), or a package that declares an entry point in the group
``compass.schedulers`` (docs/extending.md).
"""

from __future__ import annotations

import os
import pkgutil
from collections.abc import Iterable
from importlib import import_module, metadata
from typing import Any

from compass.schedulers.base import Role, Scheduler, SchedulerCard

#: The entry-point group through which an installed package adds schedulers.
ENTRY_POINT_GROUP = "compass.schedulers"
#: Environment variable naming plugin modules (comma-separated) every process loads.
PLUGINS_ENV = "COMPASS_PLUGINS"

_REGISTRY: dict[str, type[Scheduler]] = {}
_outside_loaded = False


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
    """Registered scheduler names, sorted (installed plugins and ``COMPASS_PLUGINS`` first
    loaded, ``load_outside``)."""
    load_outside()
    return sorted(_REGISTRY)


def scheduler_class(name: str) -> type[Scheduler]:
    if name not in _REGISTRY:
        load_outside()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(available())
        raise ValueError(f"unknown scheduler {name!r}; available: {known} (an outside "
                         "scheduler comes in with --plugin MODULE, the profile's plugins: "
                         f"or an entry point in the group {ENTRY_POINT_GROUP!r})") from None


def create(name: str, **params: Any) -> Scheduler:
    """A fresh scheduler instance (no state is shared between runs)."""
    return scheduler_class(name)(**params)


def cards() -> list[SchedulerCard]:
    """Every registered scheduler's card, in the figures' order (role, rank, name)."""
    return sorted((cls.card() for cls in _REGISTRY.values()), key=lambda c: c.sort_key)


def names_with_role(*roles: Role) -> tuple[str, ...]:
    """The package's own schedulers whose role is one of ``roles``, in the order of
    ``roles`` and then of the cards. A plugin's role shows in its card (figures) but never
    enlists it in the pipeline's lanes: a profile names it under ``schedulers``."""
    own = [c for c in cards() if _REGISTRY[c.name].__module__.startswith(f"{__package__}.")]
    return tuple(c.name for role in roles for c in own if c.role == role)


def discover(package: str = __package__) -> None:
    """Import every module of ``package`` (importing a module registers its schedulers)."""
    root = import_module(package)
    for info in pkgutil.iter_modules(root.__path__, f"{package}."):
        import_module(info.name)


def load_plugins(modules: Iterable[str] = ()) -> list[str]:
    """Import ``modules`` (their ``@register`` classes register themselves) after the
    installed plugins; the names added, sorted. The modules are added to ``PLUGINS_ENV``,
    so that processes started from this one (the pipeline's jobs, its notebooks, a
    sweep's workers) load them too."""
    before = set(_REGISTRY)
    load_outside()
    modules = [m for m in modules if m]
    for module in modules:
        try:
            import_module(module)
        except ImportError as err:
            raise ImportError(f"plugin {module!r} cannot be imported: {err}") from err
    if modules:
        named = [m for m in os.environ.get(PLUGINS_ENV, "").split(",") if m]
        os.environ[PLUGINS_ENV] = ",".join(dict.fromkeys([*named, *modules]))
    return sorted(set(_REGISTRY) - before)


def load_outside() -> None:
    """Once per process: load the entry points of ``ENTRY_POINT_GROUP`` (each a module, or a
    scheduler class that is then registered) and the modules named in ``PLUGINS_ENV``."""
    global _outside_loaded
    if _outside_loaded:
        return
    _outside_loaded = True
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = point.load()
        except ImportError as err:
            dist = point.dist.name if point.dist is not None else "an unknown distribution"
            raise ImportError(f"the scheduler plugin {point.name!r} ({point.value}, installed "
                              f"by {dist}) cannot be imported: {err}") from err
        if isinstance(loaded, type) and issubclass(loaded, Scheduler):
            register(loaded)
    for module in os.environ.get(PLUGINS_ENV, "").split(","):
        if module:
            import_module(module)
