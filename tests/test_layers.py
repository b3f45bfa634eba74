"""Data flows one way (traces -> simulator -> metrics -> experiments): no scheduler module
imports the simulator or anything above it, at module level or inside a function; the
physical runtime, the simulator's sibling, shares the dispatch, the timeline and the record
columns (``compass.sim.records``) with it but never imports the simulator.

Every import statement of every ``compass.schedulers`` (``compass.runtime``) module is read
from its source (a function-level import counts as much as a top-level one), and importing
the schedulers package must not load an upper layer transitively either.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import compass.experiments
import compass.runtime
import compass.schedulers

PACKAGE = Path(compass.schedulers.__file__).parent
RUNTIME = Path(compass.runtime.__file__).parent
#: The layers a scheduler may use: the model, the cluster state, the oracle (``compass.oracle``:
#: phi*, its MILP, the panel rules), other schedulers, and the traces below the simulator.
ALLOWED = ("compass.model", "compass.cluster", "compass.oracle", "compass.schedulers",
           "compass.traces")


def imported_modules(source: str, package: str) -> set[str]:
    """Every module an import statement of ``source`` names (relative ones resolved)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.add(base)  # and what it imports, which may be modules (from compass import x)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def first_level(modules: set[str]) -> set[str]:
    """The compass modules named, cut to their first level (compass.sim, ...)."""
    return {".".join(m.split(".")[:2]) for m in modules if m.startswith("compass.")}


def upward(modules: set[str]) -> list[str]:
    """The compass modules (first level: compass.sim, ...) outside ``ALLOWED``."""
    return sorted(m for m in first_level(modules) if not m.startswith(ALLOWED))


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.stem)
def test_no_scheduler_module_imports_an_upper_layer(path: Path) -> None:
    modules = imported_modules(path.read_text(), "compass.schedulers")
    assert not upward(modules), f"{path.name} imports {upward(modules)}"


@pytest.mark.parametrize("path", sorted(RUNTIME.glob("*.py")), ids=lambda p: p.stem)
def test_no_runtime_module_imports_the_simulator(path: Path) -> None:
    modules = imported_modules(path.read_text(), "compass.runtime")
    assert "compass.sim.simulator" not in modules, f"{path.name} imports compass.sim.simulator"


def test_the_import_reader_sees_function_level_and_relative_imports() -> None:
    source = ("def f():\n    from compass.sim.simulator import Simulator\n"
              "from . import gfs\nfrom compass import experiments\nimport compass.runtime\n")
    modules = imported_modules(source, "compass.schedulers")
    assert upward(modules) == ["compass.experiments", "compass.runtime", "compass.sim"]
    assert "compass.schedulers.gfs" in modules


def test_importing_the_schedulers_loads_no_upper_layer() -> None:
    code = ("import sys, compass.schedulers; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('compass.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert "compass.schedulers.drr" in out
    assert not upward(set(out)), upward(set(out))


def test_a_simulator_batch_does_not_load_the_report_or_the_experiments() -> None:
    """``compass.experiments`` imports its modules on first use (PEP 562): the batch entry
    (``compass.experiments.pipeline``) loads neither the report nor the openb readers."""
    code = ("import sys, compass.experiments.pipeline; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('compass.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert "compass.experiments.runs" in out
    loaded = {"compass.experiments.report", "compass.experiments.openb",
              "compass.experiments.sweeps"} & set(out)
    assert not loaded, loaded


def test_every_public_name_of_the_experiments_is_what_it_names() -> None:
    """Each name of ``compass.experiments.__all__`` resolves to its object, not to a module,
    whether or not the module of the same name was imported first (``composition``,
    ``physical``); submodules resolve by attribute too."""
    code = ("import types, compass.experiments.composition, compass.experiments.physical; "
            "from compass import experiments as X; "
            "bad = [n for n in X.__all__ if isinstance(getattr(X, n), types.ModuleType)]; "
            "assert not bad, bad; assert X.openb.__name__ == 'compass.experiments.openb'; "
            "from compass.experiments import Results, composition; print(composition.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["composition"]


EXPERIMENTS = Path(compass.experiments.__file__).parent


def experiment_imports() -> dict[str, set[str]]:
    """Each module of ``compass.experiments`` -> the modules of that package it imports (any
    import statement, at module level or inside a function)."""
    names = {p.stem for p in EXPERIMENTS.glob("*.py") if p.stem != "__init__"}
    graph = {}
    for name in names:
        found = imported_modules((EXPERIMENTS / f"{name}.py").read_text(), "compass.experiments")
        graph[name] = {m.split(".")[2] for m in found
                       if m.startswith("compass.experiments.") and m.split(".")[2] in names}
        graph[name].discard(name)
    return graph


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


def test_no_import_circle_in_the_experiments() -> None:
    """The claims, measures, verdicts and report modules and the openb readers import one
    way: no module of ``compass.experiments`` reaches itself through its imports."""
    graph = experiment_imports()
    assert {"claims", "measures", "verdicts", "report"} <= set(graph)
    assert "claims" in graph["openb"]  # the openb measures return the claims' type
    assert not cycle(graph), " -> ".join(cycle(graph))


def test_the_experiments_public_names_are_their_modules_all() -> None:
    """``compass.experiments`` exports exactly what its modules' ``__all__`` list, each name
    from the one module that lists it and defines it; no other module of the package lists a
    name (so a new module with an ``__all__`` is exported without touching the package)."""
    from compass import experiments as X

    declared = {}
    for path in sorted(p for p in EXPERIMENTS.glob("*.py") if p.stem != "__init__"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                declared[path.stem] = tuple(ast.literal_eval(node.value))
    assert X._HOMES == declared
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
    """The package reads ``__all__`` from the source; a module without one exports nothing."""
    from compass.experiments import _homes

    (tmp_path / "fresh.py").write_text('"""x"""\nimport os\n__all__ = ["alpha", "beta"]\n')
    (tmp_path / "quiet.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "__init__.py").write_text('__all__ = ["ignored"]\n')
    assert _homes(tmp_path) == {"fresh": ("alpha", "beta")}
