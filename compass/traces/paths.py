"""Where the repository's data lives: ``data/`` of the source checkout (data/README.md).

The package itself runs without it (the calibration targets are embedded in
``compass.traces.calibration``); the tests, the openb experiments and the notebooks read the
real files shipped there, and ``compass trace fetch`` downloads the large tables into
``data/raw/``.
"""

from __future__ import annotations

from pathlib import Path


def repo_root() -> Path:
    """The source checkout that holds this package (the package is installed editable)."""
    return Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    """The repository's ``data/`` folder."""
    return repo_root() / "data"


def data_file(relative: str | Path) -> Path:
    """A file under ``data/``; raises ``FileNotFoundError`` naming it when it is missing."""
    path = data_dir() / relative
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; data/README.md lists the files shipped "
                                "in data/ and how to fetch the large ones")
    return path
