"""The paper's experiments (section 6): one function per experiment, tidy DataFrames out.

Start from a profile's results folder, which the Snakemake pipeline fills::

    from compass import experiments as X
    res = X.Results.load("results/quick")
    means = X.overall(res)               # Fig. 1: trace, scheduler, metric, value, interval
    X.leads(means, "compass-abs", res.config.baselines, ["trace"])

| paper | function |
|---|---|
| Table 1 | ``table1`` (rule ``table1``) |
| 6.1, Fig. 1 | ``overall``, ``overall_leads`` (intervals), ``metric_windows``, ``window_leads`` |
| 6.2, Fig. 2 | ``eta_sweep`` |
| 6.3, Table 2, Fig. 3 | ``composition_days``, ``composition`` |
| 6.4, Table 3 | ``wcc_days``, ``coverage_pairs``, ``top1_table`` |
| 6.5, Fig. 4 | ``cost_sweep``; moves by operator: ``migrations_by_operator``, ``operator_shares`` |
| 6.6, Figs. 5-7 | ``CaseStudy`` (``case_summary``, ``case_head_blocking``) |
| 5.1, Phys-Mix on Ray | ``physical``, ``migration_latencies`` |
| every notebook | ``claims_shown``: the verdicts of the claims it shows (claims.csv) |
| every figure | ``compare``, ``lead_story``, ``series_story``, ``top1_story``: its reading |
| the paper's stated values | ``paper_values`` (paper/paper_values.yaml) |
| the baselines' order | ``ranking_table`` (paper/paper_rankings.yaml) |
| beyond the paper | ``Results.with_extension``, ``extension_leads``: COMPASS-ABS+ (ours) |

The main experiments are this package's modules (grid -> runs -> comparisons -> aggregate
-> tables); two wings sit above them: ``verdict`` (the claims, their measures and
verdicts, the paper beside ours, the report: paper/REPRODUCTION.md) and ``studies``
(openb, extension, nvl72, regime: each its own config, runs and measures, registering what
it adds to the verdicts). ``compass.experiments.pipeline`` holds what the Snakemake rules
call. docs/pipeline.md describes the whole.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path
from typing import Any


def _declared(source: str) -> tuple[str, ...]:
    """The names a module's top-level ``__all__ = (...)`` (or ``[...]``) lists, read from its
    source: the package learns every module's public names without importing any."""
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)):
            return tuple(ast.literal_eval(node.value))
    return ()


def _homes(folder: Path) -> dict[str, tuple[str, ...]]:
    """Each module of the package or of its wings (``verdict``, ``studies``) that declares
    ``__all__`` -> the names it lists; modules by their dotted path below the package."""
    found = {".".join(p.relative_to(folder).with_suffix("").parts): _declared(p.read_text())
             for p in sorted(folder.rglob("*.py")) if p.stem not in ("__init__", "__main__")}
    return {module: names for module, names in found.items() if names}


#: The module each public name lives in, from the modules' ``__all__``: adding a module with
#: an ``__all__`` is all it takes. They are imported on first use (PEP 562), so that a step
#: importing one module (a simulator batch: ``compass.experiments.runs``) does not load
#: every experiment, the report and the studies with it.
_HOMES: dict[str, tuple[str, ...]] = _homes(Path(__file__).parent)
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

# Functions named as their module (``composition``, ``physical``) are imported now: a later
# import of the module sets the package's attribute of that name to the module, which would
# hide a function bound lazily.
globals().update({name: getattr(importlib.import_module(f"{__name__}.{name}"), name)
                  for name, module in _WHERE.items() if name == module})

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """A public name (``X.overall``), imported from its module on first use, or a submodule
    (``X.verdict``), imported on first use."""
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
