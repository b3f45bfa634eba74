"""Where the shared real data lives: ``$COMPASS_SHARED_DATA``, else ``../shared/data``."""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable that overrides the shared data folder.
SHARED_DATA_ENV = "COMPASS_SHARED_DATA"


def repo_root() -> Path:
    """The source checkout that holds this package (the package is installed editable)."""
    return Path(__file__).resolve().parents[2]


def shared_data_dir() -> Path | None:
    """The shared data folder if it exists, else None (CI and developers have it; users may not)."""
    override = os.environ.get(SHARED_DATA_ENV)
    candidate = Path(override) if override else repo_root().parent / "shared" / "data"
    return candidate if candidate.is_dir() else None
