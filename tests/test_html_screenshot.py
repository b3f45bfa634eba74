"""The HTML page in headless Chromium: a screenshot of its first screen shows the headline.

Optional: it needs Chromium on the PATH (Debian: ``apt-get install chromium``) and skips,
saying why, elsewhere; ``-m "not browser"`` deselects it. It looks at the picture, not only
at Chromium's exit status: the first screen is not blank, the headline table's header band
(``HEADER_COLOUR``) spans the page near its top, and every verdict the table's rows carry
shows its colour in that first screen, so every section's verdict is on it. Where
``COMPASS_SCREENSHOTS`` names a folder, the screenshot is copied there (CI keeps it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from claims_rows import claims_table

from compass.experiments.verdict.headline import headline_rows
from compass.experiments.verdict.html_report import HEADER_COLOUR, VERDICT_COLOURS, write_html

BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                if p), None)
#: The first screen a reviewer sees: a laptop's browser window.
SCREEN = (1280, 900)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(BROWSER is None, reason="no headless Chromium on the PATH (Debian: "
                                               "apt-get install chromium)"),
]


def screenshot(page: Path, out: Path) -> np.ndarray:
    """The first screen of ``page`` in headless Chromium, as an RGB array."""
    from PIL import Image

    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", f"--window-size={SCREEN[0]},{SCREEN[1]}",
                           f"--screenshot={out}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and out.is_file(), done.stderr[-2000:]
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def _where(image: np.ndarray, colour: str, tolerance: int = 6) -> np.ndarray:
    """A mask of the pixels of ``colour`` (``#rrggbb``)."""
    rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return (np.abs(image - rgb) <= tolerance).all(axis=2)


def test_the_first_screen_shows_every_sections_verdict(tmp_path):
    table = claims_table()
    (tmp_path / "tables").mkdir()
    page = tmp_path / "REPRODUCTION.html"
    write_html(table, page, tmp_path / "REPRODUCTION.md", tmp_path / "figures",
               tmp_path / "tables", "Reproduction report: profile test", "Data: SYNTHETIC.")
    shot = tmp_path / "headline.png"
    image = screenshot(page, shot)
    if os.environ.get("COMPASS_SCREENSHOTS"):
        Path(os.environ["COMPASS_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(os.environ["COMPASS_SCREENSHOTS"]) / "headline.png")
    assert image.shape[:2] == (SCREEN[1], SCREEN[0])
    assert image.std() > 20, "the first screen is blank"
    wide = np.nonzero(_where(image, HEADER_COLOUR).sum(axis=1) > SCREEN[0] // 2)[0]
    bands = np.split(wide, np.nonzero(np.diff(wide) > 1)[0] + 1) if len(wide) else []
    assert len(bands) >= 2, "the headline table's header and bottom rule are not both on " \
                            "the first screen"
    top, bottom = bands[0][0], bands[-1][0]
    assert top < SCREEN[1] // 4, "the headline table starts below the first quarter"
    body = image[bands[0][-1] + 1:bottom]
    for verdict in {r["verdict_word"] for r in headline_rows(table)}:
        assert _where(body, VERDICT_COLOURS[verdict]).sum() > 200, (
            f"no {verdict!r} cell in the headline table")
