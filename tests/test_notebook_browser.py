"""Notebook 00 runs in JupyterLab in a real (headless) Chromium and renders its figures.

Optional: it needs Chromium and its driver on the PATH (Debian: ``apt-get install chromium
chromium-driver``) and skips, saying why, where they are missing. A copy of the notebook runs
in a temporary folder, so the repository's notebook is never written. ``-m "not browser"``
deselects it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "00_explore_traces.ipynb"
BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                if p), None)
DRIVER = shutil.which("chromedriver")
RUN_TIMEOUT_S = 300

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(BROWSER is None or DRIVER is None,
                       reason="no headless Chromium and chromedriver on the PATH (Debian: "
                              "apt-get install chromium chromium-driver)"),
]

#: Every code cell has run, the kernel is idle: [cells run, code cells, error texts, images].
_PROGRESS_JS = """
const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
if (!panel || !panel.content || !panel.sessionContext || !panel.sessionContext.session) {
  return null;
}
const cells = panel.content.widgets.filter(c => c.model.type === 'code');
const done = cells.filter(c => c.model.executionCount !== null).length;
const errors = [];
for (const c of cells) {
  for (let i = 0; i < c.model.outputs.length; i++) {
    const out = c.model.outputs.get(i).toJSON();
    if (out.output_type === 'error') { errors.push(out.ename + ': ' + out.evalue); }
  }
}
const images = Array.from(document.querySelectorAll('.jp-OutputArea-output img'))
  .filter(img => img.complete && img.naturalWidth > 0).length;
const idle = panel.sessionContext.session.kernel.status === 'idle';
return [done, cells.length, errors, images, idle];
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with status {proc.returncode}")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"jupyter lab did not answer at {url} in {timeout:.0f} s")


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on a copy of notebook 00, with its own config and runtime dirs."""
    pytest.importorskip("jupyterlab")
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "IPYTHONDIR": str(tmp_path / "ip"),
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
         "--ServerApp.allow_root=True"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=work)
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/status?token={token}", proc)
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK.name}?token={token}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_notebook_00_runs_in_jupyterlab_and_renders_figures(lab):
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    try:
        driver.get(lab)
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while driver.execute_script(_PROGRESS_JS) is None:  # the notebook and its kernel
            assert time.monotonic() < deadline, "JupyterLab did not open the notebook"
            time.sleep(0.5)
        driver.execute_script(
            "const p = window.jupyterapp.shell.currentWidget;"
            "p.sessionContext.ready.then(() => "
            "window.jupyterapp.commands.execute('notebook:run-all-cells'));")
        while True:
            done, cells, errors, images, idle = driver.execute_script(_PROGRESS_JS)
            assert not errors, f"notebook 00 raised in the browser: {errors}"
            if done == cells and idle:
                break
            assert time.monotonic() < deadline, f"{done} of {cells} cells ran in time"
            time.sleep(1.0)
        assert images >= 1, "no figure rendered in the browser"
    finally:
        driver.quit()
