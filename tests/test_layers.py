"""Data flows one way: the package's layers, lowest first, and the rule that a module imports
only its own layer or a lower one.

    model, cluster < oracle < traces < schedulers < sim < runtime
    < the public API (compass, compass.api, compass.sweeping)
    < experiments (the main experiments < the verdict wing < the studies wing)
    < plotting < cli

Every import statement of every module of ``compass`` is read from its source (a
function-level import counts as much as a top-level one), and so is every module path a
string of code names (``"compass.sim.drr_training:drr_arguments"``, a plugin or builder named
by string; docstrings describe, they do not import). The physical runtime, the simulator's
sibling, shares the dispatch, the timeline and the record columns with it but never imports
the simulator; no module reaches itself through its imports; importing the schedulers or a
simulator batch's entry loads nothing above what it needs.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

import compass
import compass.experiments

ROOT = Path(compass.__file__).parent
#: The layers, lowest first: a module of layer i imports modules of layers <= i only. A name
#: covers the module and everything below it, the longest name deciding (so the wings of
#: ``compass.experiments`` sit above its main experiments); ``compass`` itself is the public
#: API's package (its lazy re-exports).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("compass.model", "compass.cluster"),
    ("compass.oracle",),
    ("compass.traces",),
    ("compass.schedulers",),
    ("compass.sim",),
    ("compass.runtime",),
    ("compass", "compass.api", "compass.sweeping"),
    ("compass.experiments",),
    ("compass.experiments.verdict",),
    ("compass.experiments.studies",),
    ("compass.plotting",),
    ("compass.cli",),
)
#: A module path inside a string of code: ``compass.x.y``, optionally ``:attribute``.
MODULE_IN_STRING = re.compile(r"\bcompass(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def layer(module: str) -> int:
    """The layer of a compass module (the longest name of ``LAYERS`` that covers it)."""
    best, found = -1, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            covers = module == name or (name != "compass" and module.startswith(f"{name}."))
            if covers and len(name) > best:
                best, found = len(name), index
    if found < 0:
        found = LAYERS.index(("compass", "compass.api", "compass.sweeping"))
        assert module == "compass" or module.count(".") == 1, f"{module} is in no layer"
    return found


@cache
def is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of compass (by its file; nothing imported)."""
    parts = name.split(".")
    if parts[0] != "compass":
        return False
    path = ROOT.joinpath(*parts[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def module_named(text: str) -> str:
    """The compass module a dotted path names: its longest prefix that is a module
    (``compass.simulate`` names the package ``compass``, an attribute of it)."""
    parts = text.split(".")
    while len(parts) > 1 and not is_module(".".join(parts)):
        parts.pop()
    return ".".join(parts)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (of the module, a class, a function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def imported_modules(source: str, package: str) -> set[str]:
    """Every compass module an import statement of ``source`` names (relative ones
    resolved; ``from a import b`` names ``a.b`` where that is a module, else ``a``), and
    every one a string of its code names, marked ``(string)``."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if is_module(full) else base)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docs):
            found.update(f"{module_named(m)} (string)"
                         for m in MODULE_IN_STRING.findall(node.value))
    return {m for m in found if m == "compass" or m.startswith("compass.")}


def modules() -> dict[str, Path]:
    """Every module of compass by its dotted name (a package by its own name)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("compass", *path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports_of(name: str, path: Path) -> set[str]:
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    return imported_modules(path.read_text(), package)


def upward(name: str, found: set[str]) -> list[str]:
    """The modules of ``found`` in a layer above ``name``'s."""
    return sorted(m for m in found if layer(m.removesuffix(" (string)")) > layer(name))


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_imports_a_higher_layer(name: str) -> None:
    found = imports_of(name, modules()[name])
    assert not upward(name, found), f"{name} (layer {layer(name)}) names {upward(name, found)}"


def test_every_module_is_in_a_layer_and_the_wings_sit_in_order() -> None:
    assert {layer(m) for m in modules()} == set(range(len(LAYERS)))
    main, verdict, studies = (layer(f"compass.experiments.{m}")
                              for m in ("runs", "verdict.claims", "studies.openb.runs"))
    assert main < verdict < studies < layer("compass.plotting")
    assert layer("compass") == layer("compass.api") < main


def test_the_import_reader_sees_functions_relative_imports_and_strings() -> None:
    source = ('"""See compass.cli."""\n'
              "def f():\n    from compass.sim.simulator import Simulator\n"
              "from . import gfs\nfrom compass import experiments, simulate\n"
              "import compass.runtime\n"
              'BUILDER = "compass.sim.drr_training:drr_arguments"\n')
    found = imported_modules(source, "compass.schedulers")
    assert found == {"compass.sim.simulator", "compass.schedulers.gfs", "compass.experiments",
                     "compass", "compass.runtime", "compass.sim.drr_training (string)"}
    assert upward("compass.schedulers.drr", found) == [
        "compass", "compass.experiments", "compass.runtime", "compass.sim.drr_training (string)",
        "compass.sim.simulator"]


def test_no_runtime_module_imports_the_simulator() -> None:
    for name, path in modules().items():
        if name.startswith("compass.runtime"):
            assert "compass.sim.simulator" not in imports_of(name, path), name


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (its modules in order, the first repeated), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str]:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], node, nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, node])):
                return found
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return []


def test_the_circle_finder_finds_a_circle_and_only_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circle_between_modules() -> None:
    """No module reaches itself through the modules it imports (a package's ``__init__``
    importing its own modules is not a circle: the modules are what it is made of)."""
    every = modules()
    graph = {name: {m for m in imports_of(name, path) if m in every and m != name
                    and not name.startswith(f"{m}.")}
             for name, path in every.items()}
    assert not cycle(graph), " -> ".join(cycle(graph))


def _loaded(statement: str) -> set[str]:
    code = (f"import sys; {statement}; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('compass'))))")
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout.split())


def test_importing_the_schedulers_loads_no_upper_layer() -> None:
    out = _loaded("import compass.schedulers")
    assert "compass.schedulers.drr" in out
    above = sorted(m for m in out if m != "compass" and layer(m) > layer("compass.schedulers"))
    assert not above, above


def test_a_simulator_batch_does_not_load_the_wings() -> None:
    """``compass.experiments`` imports its modules on first use (PEP 562): the batch entry
    (``compass.experiments.pipeline``) loads neither wing nor the comparisons."""
    out = _loaded("import compass.experiments.pipeline")
    assert "compass.experiments.runs" in out
    loaded = {m for m in out if m.startswith(("compass.experiments.verdict",
                                              "compass.experiments.studies"))}
    assert not loaded and "compass.experiments.comparisons" not in out, loaded


def test_every_public_name_of_the_experiments_is_what_it_names() -> None:
    """Each name of ``compass.experiments.__all__`` resolves to its object, not to a module,
    whether or not the module of the same name was imported first (``composition``,
    ``physical``); submodules resolve by attribute too."""
    code = ("import types, compass.experiments.composition, compass.experiments.physical; "
            "from compass import experiments as X; "
            "bad = [n for n in X.__all__ if isinstance(getattr(X, n), types.ModuleType)]; "
            "assert not bad, bad; assert X.verdict.__name__ == 'compass.experiments.verdict'; "
            "from compass.experiments import Results, composition; print(composition.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["composition"]


EXPERIMENTS = Path(compass.experiments.__file__).parent


def test_the_experiments_public_names_are_their_modules_all() -> None:
    """``compass.experiments`` exports exactly what its modules' ``__all__`` list (those of
    its wings too), each name from the one module that lists it and defines it; no other
    module of the package lists a name (so a new module with an ``__all__`` is exported
    without touching the package)."""
    from compass import experiments as X

    declared = {}
    for path in sorted(p for p in EXPERIMENTS.rglob("*.py")
                       if p.stem not in ("__init__", "__main__")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                module = ".".join(path.relative_to(EXPERIMENTS).with_suffix("").parts)
                declared[module] = tuple(ast.literal_eval(node.value))
    assert X._HOMES == declared
    assert {"verdict.verdicts", "studies.extension.measures"} <= set(declared)
    names = [n for ns in declared.values() for n in ns]
    assert len(names) == len(set(names)), "a name listed by two modules"
    assert sorted(X.__all__) == sorted(names)
    for module, listed in declared.items():
        loaded = importlib.import_module(f"compass.experiments.{module}")
        assert set(loaded.__all__) == set(listed)
        for name in listed:
            assert hasattr(loaded, name), f"{module}.__all__ lists {name}, which it lacks"
            assert getattr(X, name) is getattr(loaded, name)


def test_a_module_that_declares_all_is_exported(tmp_path: Path) -> None:
    """The package reads ``__all__`` from the source, in subpackages too; a module without
    one exports nothing."""
    from compass.experiments import _homes

    (tmp_path / "fresh.py").write_text('"""x"""\nimport os\n__all__ = ["alpha", "beta"]\n')
    (tmp_path / "quiet.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "__init__.py").write_text('__all__ = ["ignored"]\n')
    (tmp_path / "wing").mkdir()
    (tmp_path / "wing" / "deep.py").write_text('__all__ = ("gamma",)\n')
    assert _homes(tmp_path) == {"fresh": ("alpha", "beta"), "wing.deep": ("gamma",)}
