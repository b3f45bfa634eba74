"""Scheduler registry: names -> classes."""

from __future__ import annotations

from typing import Any

from compass.schedulers.base import Scheduler

_REGISTRY: dict[str, type[Scheduler]] = {}


def register(cls: type[Scheduler]) -> type[Scheduler]:
    """Class decorator: register a scheduler under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"scheduler name {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def available() -> list[str]:
    """Registered scheduler names, sorted."""
    return sorted(_REGISTRY)


def scheduler_class(name: str) -> type[Scheduler]:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(available())
        raise ValueError(f"unknown scheduler {name!r}; available: {known}") from None


def create(name: str, **params: Any) -> Scheduler:
    """A fresh scheduler instance (no state is shared between runs)."""
    return scheduler_class(name)(**params)
