"""Print a built report to PDF with headless Chromium (``reportgen build --pdf``).

Opened with ``?print=1``, the page draws every figure with plotly.js and then a static SVG
image of each one for print (templates/static/app.js); ``--virtual-time-budget`` lets that
finish before Chromium prints. The PDF is written to a temporary file beside the target and
moved into place, so a failed print never leaves a half-written file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from reportgen.errors import InputError

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
BUDGET_MS = 60_000   # virtual time for unpacking plotly.js, drawing and the print images
TIMEOUT_S = 300


def find_browser() -> Path:
    """Headless Chromium: $REPORTGEN_CHROMIUM, else the first browser on PATH."""
    given = os.environ.get("REPORTGEN_CHROMIUM", "").strip()
    if given:
        if not (Path(given).is_file() and os.access(given, os.X_OK)):
            raise InputError("--pdf", f"REPORTGEN_CHROMIUM={given} is not an executable file")
        return Path(given)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return Path(found)
    raise InputError("--pdf", "needs headless Chromium, and none was found (looked for "
                              f"{', '.join(BROWSERS)} on PATH; install it, e.g. `apt-get install "
                              "chromium`, or set REPORTGEN_CHROMIUM to its path)")


def print_pdf(html: Path, out: Path, lang: str | None = None,
              browser: Path | None = None) -> Path:
    """Print ``html`` to ``out`` (A4 from the page's print CSS) and return ``out``."""
    browser = browser or find_browser()
    out = Path(out)
    # print=1: the page draws every figure and its print image at once (figures are
    # otherwise drawn as they near the viewport, print images on beforeprint)
    url = Path(html).resolve().as_uri() + (f"?lang={lang}&print=1" if lang else "?print=1")
    target_dir = out.resolve().parent
    if not target_dir.is_dir():
        raise InputError(out, "cannot write: the folder does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=target_dir)
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory(prefix="reportgen-chromium-") as profile:
            cmd = [str(browser), "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-component-update",
                   "--disable-sync", "--no-first-run", "--no-default-browser-check",
                   f"--user-data-dir={profile}", "--run-all-compositor-stages-before-draw",
                   f"--virtual-time-budget={BUDGET_MS}", "--no-pdf-header-footer",
                   f"--print-to-pdf={tmp}", url]
            try:
                done = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT_S, check=False)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise InputError("--pdf", f"{browser} failed: {exc}") from None
        size = Path(tmp).stat().st_size
        if done.returncode != 0 or size == 0:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            raise InputError("--pdf", f"{browser} exited with status {done.returncode} and "
                                      f"wrote {size} bytes: {tail[0][:200]}")
        os.replace(tmp, out)
        return out
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
