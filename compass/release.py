"""Release metadata from one place: pyproject.toml (``version``, ``[tool.compass.release]``).

CITATION.cff (how to cite the artifact) and .zenodo.json (the archive's metadata: Zenodo
reads it when a GitHub release is archived and mints a DOI) carry the version, the release
date, the repository URL and the DOI; this module copies them from pyproject.toml, so that
no two files disagree (tests/test_packaging.py checks both), and says what a release still
lacks. docs/release.md is the checklist.

    python -m compass.release --write    # CITATION.cff and .zenodo.json from pyproject.toml
    python -m compass.release --check    # what is missing for a release (exit 1 if any)
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import yaml

#: The repository's root (this file lives in compass/).
ROOT = Path(__file__).resolve().parents[1]
#: CITATION.cff's keys filled from pyproject.toml: key -> the release field it takes.
CITATION_KEYS = {"version": "version", "date-released": "date", "repository-code": "repository",
                 "doi": "doi"}


def release_info(root: Path = ROOT) -> dict[str, str]:
    """The version and ``[tool.compass.release]`` of pyproject.toml ("" where unset)."""
    project = tomllib.loads((root / "pyproject.toml").read_text())
    release = project.get("tool", {}).get("compass", {}).get("release", {})
    return {"version": project["project"]["version"],
            **{k: str(release.get(k, "")) for k in ("date", "repository", "doi")}}


def missing(info: dict[str, str]) -> list[str]:
    """What a release still lacks, in words."""
    return [f"[tool.compass.release] {key} in pyproject.toml" for key in
            ("date", "repository", "doi") if not info[key]]


def citation_text(text: str, info: dict[str, str]) -> str:
    """CITATION.cff's ``text`` with its top-level release keys set from ``info`` (those
    unset removed), comments and order kept; a new key goes after ``version``."""
    lines = text.splitlines()
    for key, field in CITATION_KEYS.items():
        at = [i for i, line in enumerate(lines) if re.match(rf"{key}:", line)]
        value = info[field]
        new = f"{key}: {json.dumps(value)}" if value else None
        if at:
            lines[at[0]:at[0] + 1] = [new] if new else []
        elif new:
            lines.insert(next(i for i, line in enumerate(lines)
                              if line.startswith("version:")) + 1, new)
    return "\n".join(lines) + "\n"


def zenodo(citation: dict[str, Any], info: dict[str, str]) -> dict[str, Any]:
    """.zenodo.json from CITATION.cff (title, abstract, authors, licence, keywords, the
    paper) and the release fields."""
    paper = citation["preferred-citation"]
    record: dict[str, Any] = {
        "title": citation["title"], "description": " ".join(citation["abstract"].split()),
        "upload_type": "software", "license": citation["license"],
        "version": info["version"], "keywords": citation["keywords"],
        "creators": [{"name": a["name"]} if "name" in a else
                     {"name": f"{a['family-names']}, {a['given-names']}"}
                     for a in citation["authors"]],
        "related_identifiers": [{"identifier": paper["url"], "relation": "isSupplementTo",
                                 "resource_type": "publication-preprint"}],
    }
    if info["date"]:
        record["publication_date"] = info["date"]
    if info["repository"]:
        record["related_identifiers"].append({"identifier": info["repository"],
                                              "relation": "isDerivedFrom",
                                              "resource_type": "software"})
    return record


def expected(root: Path = ROOT) -> tuple[str, str]:
    """What CITATION.cff and .zenodo.json hold when they agree with pyproject.toml."""
    info = release_info(root)
    citation = citation_text((root / "CITATION.cff").read_text(), info)
    return citation, json.dumps(zenodo(yaml.safe_load(citation), info), indent=2) + "\n"


def main(argv: list[str], root: Path = ROOT) -> int:
    """``--write`` or ``--check`` (see the module's docstring)."""
    if argv == ["--write"]:
        citation, record = expected(root)
        (root / "CITATION.cff").write_text(citation)
        (root / ".zenodo.json").write_text(record)
        return 0
    if argv == ["--check"]:
        lacks = missing(release_info(root))
        print("\n".join(f"missing: {m}" for m in lacks) or "ready for a release")
        return 1 if lacks else 0
    print("usage: python -m compass.release --write | --check")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
