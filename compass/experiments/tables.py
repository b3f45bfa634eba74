"""Tables as CSV (for machines) and Markdown (for people), with a caption naming the data."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("markdown", "write_table")


def _cell(value: object, digits: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if abs(value) >= 10 ** (digits - 1):
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


def markdown(frame: pd.DataFrame, caption: str | None = None, digits: int = 4) -> str:
    """A GitHub Markdown table of ``frame`` (floats to ``digits`` significant digits)."""
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(_cell(v, digits) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    lines = ([f"*{caption}*", ""] if caption else []) + [head, rule, *body]
    return "\n".join(lines) + "\n"


def write_table(frame: pd.DataFrame, folder: str | Path, stem: str,
                caption: str | None = None) -> list[Path]:
    """Write ``<stem>.csv`` and ``<stem>.md`` into ``folder``; return both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv, md = folder / f"{stem}.csv", folder / f"{stem}.md"
    frame.to_csv(csv, index=False)
    md.write_text(markdown(frame, caption))
    return [csv, md]
