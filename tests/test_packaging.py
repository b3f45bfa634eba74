"""What a reviewer checks first: licence, citation metadata, and a lock that matches pyproject.

CITATION.cff is validated against the Citation File Format 1.2.0 JSON schema
(tests/data/cff-1.2.0.schema.json: https://citation-file-format.github.io/1.2.0/schema.json,
CC-BY-4.0, as shipped by cffconvert 2.0.0, whose own pins clash with JupyterLab's jsonschema).
"""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from pathlib import Path

import pytest

import compass

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK = (ROOT / "requirements.lock").read_text()
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s\\]+) \\$")


def _tasks():
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mit_licence_is_declared_and_shipped():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "data/README.md" in text
    assert any(r.startswith("setuptools>=77") for r in PYPROJECT["build-system"]["requires"])
    assert not any("License ::" in c for c in project.get("classifiers", []))  # SPDX only


def test_citation_cff_is_valid_and_names_the_paper():
    yaml = pytest.importorskip("yaml")
    jsonschema = pytest.importorskip("jsonschema")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    schema = json.loads((ROOT / "tests" / "data" / "cff-1.2.0.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(cff)]
    assert not errors, errors
    assert cff["version"] == compass.__version__ and cff["license"] == "MIT"
    paper = cff["preferred-citation"]
    assert paper["title"].startswith("COMPASS-ABS: Reducing Fragmentation in Shared GPU")
    assert [(a["given-names"], a["family-names"]) for a in paper["authors"]] == [
        ("Yukai", "Zhou"), ("Hongfan", "Wu")]
    assert paper["year"] == 2026 and "2609.18519" in paper["url"]


def test_citation_and_zenodo_carry_the_release_fields_of_pyproject():
    """version, date-released, repository-code and doi have one source, pyproject.toml:
    CITATION.cff and .zenodo.json are what ``compass.release`` makes of it, and ``--check``
    names every release field still empty."""
    pytest.importorskip("yaml")
    from compass.release import expected, missing, release_info

    citation, record = expected(ROOT)
    assert (ROOT / "CITATION.cff").read_text() == citation, "run python -m compass.release --write"
    assert (ROOT / ".zenodo.json").read_text() == record, "run python -m compass.release --write"
    info = release_info(ROOT)
    assert json.loads(record)["version"] == info["version"] == compass.__version__
    assert len(missing(info)) == sum(not info[k] for k in ("date", "repository", "doi"))
    filled = {**info, "date": "2027-01-31", "repository": "https://example.org/compass"}
    assert missing(filled) == ["[tool.compass.release] doi in pyproject.toml"]


def test_schema_check_catches_a_broken_citation():
    yaml = pytest.importorskip("yaml")
    jsonschema = pytest.importorskip("jsonschema")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    schema = json.loads((ROOT / "tests" / "data" / "cff-1.2.0.schema.json").read_text())
    del cff["preferred-citation"]["authors"]
    cff["license"] = "not-a-licence"
    assert len(list(jsonschema.Draft7Validator(schema).iter_errors(cff))) == 2


def _pins() -> dict[str, str]:
    pins = {}
    for line in LOCK.splitlines():
        if (m := PIN.match(line)) is not None:
            pins[re.sub(r"[-_.]+", "-", m[1]).lower()] = m[2]
    return pins


def test_lock_pins_every_range_of_pyproject_with_hashes():
    from packaging.requirements import Requirement

    pins = _pins()
    assert len(pins) > 50
    lines = LOCK.splitlines()
    for i, line in enumerate(lines):  # every requirement exactly pinned, with its hashes
        if line and not line.startswith(("#", " ")):
            assert PIN.match(line), line
            assert lines[i + 1].strip().startswith("--hash=sha256:"), line
    assert "file://" not in LOCK and "--index-url" not in LOCK and "--find-links" not in LOCK
    project = PYPROJECT["project"]
    wanted = [*project["dependencies"]]
    for extra in ("dev", "notebooks", "pipeline"):
        wanted += project["optional-dependencies"][extra]
    for text in wanted:
        req = Requirement(text)
        if req.name == "compass":
            continue  # the pipeline extra includes the notebooks extra
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        assert name in pins, f"{name} is not in requirements.lock: run python3 tasks.py lock"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"{name}=={pins[name]} is outside pyproject's {req.specifier}: "
            "run python3 tasks.py lock")
    assert "jupyterlab" in pins and "ipywidgets" in pins


def test_tasks_options_and_lock_constraints():
    tasks = _tasks()
    assert tasks.parse(["env", "--physical"]) == ("env", {"--physical"}, [])
    assert tasks.parse(["--unlocked", "test", "-q", "-k", "cli"]) == (
        "test", {"--unlocked"}, ["-q", "-k", "cli"])
    assert tasks.parse(["test", "-q", "--physical"]) == ("test", set(), ["-q", "--physical"])
    assert tasks.parse(["nope"])[0] is None
    pins = tasks.lock_pins(LOCK).splitlines()
    assert len(pins) == len(_pins()) and all(re.fullmatch(r"\S+==\S+", p) for p in pins)
