"""config/schema.yaml, generated from the typed profile (``compass.experiments.profile``).

Each block of the profile is an object of its keys (no others), each key's type its field's
(``Annotated`` constraints, ``Literal`` enums, unions as ``oneOf``), its description and
default from ``key``; every block, and every type ``Schema`` names, is an entry of ``$defs``.
tests/test_config_schema.py fails when the committed file is not this module's output:

    python -m compass.experiments.config_schema > config/schema.yaml
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import Field, fields, is_dataclass
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml

from compass.experiments.profile import (
    Profile,
    Schema,
    default,
    hints,
    key_info,
    profile_dict,
    required,
    role,
)

HEADER = """\
# JSON Schema of a pipeline profile (config/*.yaml). Generated from the typed profile
# (compass/experiments/profile.py): do not edit, regenerate with
#     python -m compass.experiments.config_schema > config/schema.yaml
# The Snakefile validates the profile against it; docs/pipeline.md explains every key.
"""
#: JSON types of the Python scalars.
SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def profile_schema() -> dict[str, Any]:
    """The JSON Schema of a ``Profile``."""
    defs: dict[str, Any] = {}
    body = _object(Profile, defs)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "COMPASS-ABS reproduction pipeline profile", **body, "$defs": defs}


class _Dumper(yaml.SafeDumper):
    """YAML with lists of scalars, and maps of a few scalars without a description, on one
    line; everything else a block; a map used twice (a key's old name) written twice."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_list(self, data: list) -> yaml.Node:
        flat = all(not isinstance(v, (dict, list)) for v in data)
        return self.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)

    def represent_dict(self, data: dict) -> yaml.Node:
        flat = ("description" not in data and len(data) <= 3
                and all(not isinstance(v, (dict, list)) for v in data.values()))
        return self.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flat)


_Dumper.add_representer(list, _Dumper.represent_list)
_Dumper.add_representer(dict, _Dumper.represent_dict)


def schema_text() -> str:
    """config/schema.yaml: ``profile_schema`` as YAML under its header."""
    return HEADER + yaml.dump(profile_schema(), Dumper=_Dumper, sort_keys=False, width=92,
                              allow_unicode=True)


def _def_name(cls: type) -> str:
    """A block's entry in ``$defs``: its class name in snake case, without the suffix Block,
    Config or Spec (``CostSweepBlock``: cost_sweep)."""
    name = re.sub(r"(Block|Config|Spec)$", "", cls.__name__)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _ref(name: str, make: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """A reference to ``$defs[name]``, made (``make()``) on first use."""
    if name not in defs:
        defs[name] = {}  # in order of first use, before what it uses
        defs[name] = make()
    return {"$ref": f"#/$defs/{name}"}


def _object(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    """A block's schema: its keys, those it requires and each key's earlier name."""
    properties, needed, either = {}, [], []
    for f in fields(cls):
        if role(f) is not None:
            continue
        properties[f.name] = _key(f, hints(cls)[f.name], defs)
        old = key_info(f)["old"]
        if old is not None:
            assert required(f), f"{cls.__name__}.{f.name}: an old name of an optional key"
            properties[old] = properties[f.name]
            either = [{"required": [f.name]}, {"required": [old]}]
        elif required(f):
            needed.append(f.name)
    out: dict[str, Any] = {"type": "object", "additionalProperties": False}
    out |= {"required": needed} if needed else {}
    out |= {"oneOf": either} if either else {}
    return out | {"properties": properties}


def _key(f: Field, tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """A key's schema: its type's with the key's rules (on the non-null member of an
    optional type), its description and default."""
    info = key_info(f)
    members = get_args(tp) if get_origin(tp) in (Union, UnionType) else (tp,)
    shapes = [_type(m, defs) for m in members if m is not NoneType]
    body = shapes[0] | info["rules"] if len(shapes) == 1 else {"oneOf": shapes} | info["rules"]
    if NoneType in members and info["null"]:
        body = {"oneOf": [{"type": "null"}, *(shapes if len(shapes) > 1 else [body])]}
    doc = info["doc"]
    if not required(f) and default(f) is not None:
        shown = json.dumps(profile_dict(default(f)))
        doc = f"{doc.rstrip('.')}; default {shown}" if doc else f"default {shown}"
    return ({"description": doc} if doc else {}) | body


def _type(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of a type."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        mark = next(m for m in args[1:] if isinstance(m, Schema))
        def make() -> dict[str, Any]:
            return dict(mark.rules) if mark.exact else _type(args[0], defs) | mark.rules
        return _ref(mark.name, make, defs) if mark.name else make()
    if is_dataclass(tp):
        return _ref(_def_name(tp), lambda: _object(tp, defs), defs)
    if origin in (Union, UnionType):
        alternatives = [{"type": "null"} if a is NoneType else _type(a, defs) for a in args]
        return {"oneOf": alternatives}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (tuple, list):
        out = {"type": "array", "items": _type(args[0], defs)}
        fixed = origin is tuple and Ellipsis not in args
        return out | ({"minItems": len(args), "maxItems": len(args)} if fixed else {})
    if origin in (Mapping, dict):
        names, values = args
        return ({"type": "object"} | ({} if names is str else {"propertyNames": _type(names, defs)})
                | ({} if values is Any else {"additionalProperties": _type(values, defs)}))
    if tp is Any:
        return {}
    return {"type": SCALARS[tp]}


if __name__ == "__main__":
    print(schema_text(), end="")
