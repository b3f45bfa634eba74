"""Cost tables the docs print, generated from docs/measurements.yaml (never typed).

A doc marks a table with the ids of its entries and this module fills it in:

    <!-- cost-table: quick-wall quick-cpu quick-verdicts -->
    (generated)
    <!-- /cost-table -->

Each row gives what was measured, the quoted value, whether it measured today's plan of its
profile (an entry's ``plan``: its fingerprint, which tests/test_measurements.py checks is
today's, or ``older``), where it ran and when. ``python3 tasks.py measure`` regenerates
every table after it writes entries; ``python -m compass.experiments.cost_tables`` alone
regenerates them; tests/test_measurements.py fails on a table that is not what this module
makes of the YAML.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

#: A generated table: its ids, then its text up to the closing mark.
BLOCK = re.compile(r"(<!-- cost-table: (?P<ids>[^>]*?) -->\n)(?P<body>.*?)(<!-- /cost-table -->)",
                   re.S)
#: An entry measured on an earlier plan of its profile than today's.
OLDER = "older"
#: The files whose tables ``main`` regenerates (relative to the repository).
DOCS = ("README.md", "ARTIFACT.md", "docs/pipeline.md")


def load_entries(path: str | Path) -> dict[str, dict[str, Any]]:
    """docs/measurements.yaml's entries by id."""
    return {e["id"]: e for e in yaml.safe_load(Path(path).read_text())["measurements"]}


def plan_cell(entry: Mapping[str, Any]) -> str:
    """Whether ``entry`` measured its profile's plan of today."""
    if not entry.get("profile"):
        return "-"
    if entry.get("plan") in (None, OLDER):
        return f"an older {entry['profile']} plan"
    return f"today's {entry['profile']} plan (`{entry['plan']}`)"


def render(ids: Sequence[str], entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The Markdown table of the entries ``ids`` (an id without an entry: a row saying it
    was not measured)."""
    lines = ["| measured | value | plan | machine, cores, load | date, commit |",
             "|---|---|---|---|---|"]
    for name in ids:
        if name not in entries:
            lines.append(f"| `{name}` | not measured | - | - | - |")
            continue
        e = entries[name]
        where = (f"{e.get('machine', '-')}, {e.get('cores', '-')} cores, load {e.get('load')}"
                 if e["kind"] == "measured" else "computed from " + ", ".join(e["from"]))
        lines.append(" | ".join(["", e["figure"].replace("|", "/"), " / ".join(e["quoted"]),
                                 plan_cell(e), where, f"{e['date']}, {e['commit'] or '-'}",
                                 ""]).strip())
    return "\n".join(lines) + "\n"


def regenerate(text: str, entries: Mapping[str, Mapping[str, Any]]) -> str:
    """``text`` with every marked table made anew from ``entries``."""
    return BLOCK.sub(lambda m: m[1] + render(m["ids"].split(), entries) + m[4], text)


def generated_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s generated tables lie (start, end)."""
    return [m.span("body") for m in BLOCK.finditer(text)]


def main(root: Path = Path(".")) -> int:
    """Regenerate the tables of ``DOCS`` under ``root``; print the files it changed."""
    entries = load_entries(root / "docs" / "measurements.yaml")
    for name in DOCS:
        path = root / name
        text = path.read_text()
        new = regenerate(text, entries)
        if new != text:
            path.write_text(new)
            print(f"regenerated the cost tables of {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
