"""Trace formats by name: each module of this package registers one (``register_format``).

A format is a name, the signature columns by which ``auto`` detection recognises a file's
header, and a loader from a path to the canonical frame plus a ``LoadReport``. The
modules here are discovered, not listed: a new format is one module (or a plugin module
that calls ``register_format``; docs/extending.md).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

import pandas as pd

from compass.traces.ingest import LoadReport

Loader = Callable[..., tuple[pd.DataFrame, LoadReport]]


@dataclass(frozen=True)
class TraceFormat:
    """A loader format: ``load(path, gpus_per_node=..., **options)`` -> (frame, report)."""

    name: str
    signature: frozenset[str]
    load: Loader
    description: str
    #: how the format's file departs from the upstream log (e.g. "derived: durations
    #: clamped at 48 h"): every label of a replay of it says so; empty: the upstream file
    derived: str = ""


_FORMATS: dict[str, TraceFormat] = {}


def register_format(fmt: TraceFormat) -> TraceFormat:
    """Register ``fmt`` under its name; registering an equal format again is tolerated (a
    module or notebook cell run twice), another one under a taken name is refused."""
    old = _FORMATS.get(fmt.name)
    if old is not None and (old.signature, old.load.__qualname__, old.load.__module__) != (
            fmt.signature, fmt.load.__qualname__, fmt.load.__module__):
        raise ValueError(f"trace format {fmt.name!r} is already registered")
    if not fmt.signature:
        raise ValueError(f"trace format {fmt.name!r} has no signature columns")
    _FORMATS[fmt.name] = fmt
    return fmt


def formats() -> dict[str, TraceFormat]:
    """The registered formats by name, sorted."""
    return dict(sorted(_FORMATS.items()))


def trace_format(name: str) -> TraceFormat:
    """The format ``name``; an unknown name is refused with the registered ones."""
    try:
        return _FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown trace format {name!r}; choose 'auto' or one of "
                         f"{sorted(_FORMATS)}") from None


def _discover() -> None:
    for info in pkgutil.iter_modules(__path__, f"{__name__}."):
        import_module(info.name)


_discover()
