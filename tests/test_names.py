"""One name per idea: no two modules of compass share a name unless they are the same part
of the same kind of thing (each study's ``config``, ``runs``, ``measures``, like the main
experiments'), and no two public classes share a name."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import compass

ROOT = Path(compass.__file__).parent
#: Module names that several packages use for the same part: a study's settings, runs,
#: measures, results and report sections (as the main experiments and the verdict wing
#: name theirs), a registry with discovery (schedulers, the verdict wing's), and the NVL72
#: topic (its workload in ``traces``, its study in ``experiments.studies``).
SHARED_PARTS = {"__init__", "__main__", "config", "runs", "measures", "results", "sections",
                "registry", "nvl72"}


def _names() -> dict[str, list[str]]:
    """Each module or package name -> where it occurs (paths below compass)."""
    found = defaultdict(list)
    for path in ROOT.rglob("*.py"):
        found[path.stem].append(str(path.relative_to(ROOT)))
    for path in ROOT.rglob("*"):
        if path.is_dir() and (path / "__init__.py").is_file():
            found[path.name].append(str(path.relative_to(ROOT)) + "/")
    return found


def test_no_two_modules_share_a_name_for_different_things() -> None:
    repeated = {name: places for name, places in _names().items()
                if len(places) > 1 and name not in SHARED_PARTS}
    assert not repeated, repeated


def test_no_two_public_classes_share_a_name() -> None:
    found = defaultdict(list)
    for path in ROOT.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name].append(str(path.relative_to(ROOT)))
    repeated = {name: places for name, places in found.items() if len(places) > 1}
    assert not repeated, repeated


def test_type_aliases_do_not_reuse_a_class_name() -> None:
    """A module-level alias (``Role = Literal[...]``) named as a class or another module's
    alias of a different type reads as the same thing: each is spelt once."""
    aliases, classes = defaultdict(set), set()
    for path in ROOT.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id[:1].isupper() and not node.targets[0].id.isupper()
                  and isinstance(node.value, ast.Subscript)):
                aliases[node.targets[0].id].add(ast.unparse(node.value))
    assert not set(aliases) & classes, set(aliases) & classes
    different = {name: kinds for name, kinds in aliases.items() if len(kinds) > 1}
    assert not different, different
