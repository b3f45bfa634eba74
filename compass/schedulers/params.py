"""Scheduler parameters given as text (``KEY=VALUE``), typed by the scheduler's constructor.

The command line passes ``--param water=0.9 --param quantize_scores=true``; each value is
converted to the type its keyword argument declares (int, float, bool, str or a Literal of
strings), so that a typo or a wrong type is refused with the parameter's name, never passed on.
"""

from __future__ import annotations

import inspect
import math
import numbers
import re
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Any

import numpy as np

from compass.schedulers.registry import scheduler_class

#: Set by its own option (``--seed``), never by ``KEY=VALUE``.
RESERVED = frozenset({"seed"})
_BOOLEANS = {"true": True, "false": False}


class ParameterError(ValueError):
    """A ``KEY=VALUE`` that names no parameter of the scheduler or has the wrong type."""


@dataclass(frozen=True)
class Parameter:
    """One keyword argument of a scheduler's constructor."""

    name: str
    annotation: Any
    default: Any

    @property
    def type_name(self) -> str:
        """The type as a user reads it (``float``, ``'cbc' | 'highs'``)."""
        choices = _literal_choices(self.annotation)
        if choices is not None:
            return " | ".join(map(repr, choices.values()))
        if isinstance(self.annotation, type):
            return self.annotation.__name__
        return re.sub(r"\b(?:\w+\.)+(\w+)", r"\1", str(self.annotation))  # drop module paths


def parameters(scheduler: str) -> dict[str, Parameter]:
    """The keyword arguments of ``scheduler``'s constructor, ``seed`` excepted, and the
    parameters a run turns into constructor arguments (``Scheduler.build_parameters``)."""
    cls = scheduler_class(scheduler)
    hints = typing.get_type_hints(cls.__init__)
    out = {
        name: Parameter(name, hints.get(name, Any), p.default)
        for name, p in inspect.signature(cls).parameters.items()
        if name not in RESERVED and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    out.update({name: Parameter(name, annotation, default)
                for name, (annotation, default) in cls.build_parameters.items()})
    return out


def parse_params(scheduler: str, items: Iterable[str]) -> dict[str, Any]:
    """``{"key": value}`` from ``KEY=VALUE`` texts, each value converted to its declared type
    (``check_params``)."""
    texts: dict[str, str] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ParameterError(f"expected KEY=VALUE, got {item!r}")
        if key in RESERVED:
            raise ParameterError(f"{key!r} has its own option (--{key}), not --param")
        texts[key] = text.strip()
    return check_params(scheduler, texts)


def check_params(scheduler: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` given through the API, checked as ``parse_params`` checks the command
    line's: an unknown key or a value of the wrong type is a ``ParameterError`` naming the
    scheduler and the parameter. A text value is converted as the command line converts it
    (``convert``); any other value must be of the declared type (an int for a float)."""
    known = parameters(scheduler)
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key in RESERVED:
            raise ParameterError(f"{key!r} is its own argument ({key}=), not a parameter")
        if key not in known:
            names = ", ".join(known) or "none"
            raise ParameterError(f"{scheduler} has no parameter {key!r}; its parameters: {names}")
        try:
            out[key] = (convert(value, known[key].annotation) if isinstance(value, str)
                        else _typed(value, known[key].annotation))
        except ParameterError as err:
            raise ParameterError(f"{scheduler} parameter {key!r}: {err}") from None
    return out


def _typed(value: Any, annotation: Any) -> Any:
    """``value`` if it is of ``annotation``'s type (an int is a float; a bool is neither);
    an annotation the command line cannot give passes any value."""
    choices = _literal_choices(annotation)
    if choices is not None:
        if value not in choices.values():
            raise ParameterError(f"expected one of {', '.join(map(repr, choices.values()))}, "
                                 f"got {value!r}")
        return value
    wanted = {bool: (bool, np.bool_), int: (numbers.Integral,),
              float: (numbers.Real,)}.get(annotation)
    if wanted is None:
        members = [a for a in typing.get_args(annotation) if a is not NoneType]
        if value is None and NoneType in typing.get_args(annotation):
            return value
        if len(members) == 1:
            return _typed(value, members[0])
        return value
    boolean = isinstance(value, (bool, np.bool_))
    if boolean != (annotation is bool) or not isinstance(value, wanted):
        what = {bool: "true or false", int: "an integer", float: "a number"}[annotation]
        raise ParameterError(f"expected {what}, got {value!r}")
    if annotation is float and not math.isfinite(value):
        raise ParameterError(f"expected a finite number, got {value!r}")
    return {bool: bool, int: int, float: float}[annotation](value)


def convert(text: str, annotation: Any) -> Any:
    """``text`` as a value of ``annotation``: bool (true/false), int, float, str, a Literal,
    or a union holding one of them (a union with str keeps the text)."""
    choices = _literal_choices(annotation)
    if choices is not None:
        if text not in choices:
            names = ", ".join(map(repr, choices.values()))
            raise ParameterError(f"expected one of {names}, got {text!r}")
        return choices[text]
    if annotation is Any:
        return infer(text)
    if annotation is bool:
        if text.lower() not in _BOOLEANS:
            raise ParameterError(f"expected true or false, got {text!r}")
        return _BOOLEANS[text.lower()]
    if annotation is int:
        try:
            return int(text)
        except ValueError:
            raise ParameterError(f"expected an integer, got {text!r}") from None
    if annotation is float:
        try:
            value = float(text)
        except ValueError:
            raise ParameterError(f"expected a number, got {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ParameterError(f"expected a finite number, got {text!r}")
        return value
    if annotation is str:
        return text
    members = [a for a in typing.get_args(annotation) if a is not NoneType]
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        if str in members:
            return text
        if len(members) == 1:
            return convert(text, members[0])
    raise ParameterError(f"type {annotation} cannot be given on the command line")


def infer(text: str) -> bool | int | float | str:
    """A value of unknown type: true/false, then int, then float, else the text itself."""
    if text.lower() in _BOOLEANS:
        return _BOOLEANS[text.lower()]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _literal_choices(annotation: Any) -> dict[str, Any] | None:
    """A Literal's values by their text, or None for any other annotation."""
    if typing.get_origin(annotation) is typing.Literal:
        return {str(a): a for a in typing.get_args(annotation)}
    return None
