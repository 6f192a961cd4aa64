"""Print a built report to PDF with headless Chromium (``reportgen build --pdf``).

Opened with ``?print=1``, the page draws every figure with plotly.js and then a static SVG
image of each one for print (templates/static/app.js); ``--virtual-time-budget`` lets that
finish before Chromium prints.

- **No network.** The browser runs in its own empty network namespace (``unshare -n``, or
  ``unshare -rn`` for a user allowed user namespaces). Where the system allows neither, the
  print is refused unless the user opts in (``--pdf-without-namespace``): whatever its flags,
  Chromium's host resolver probes IPv6 reachability on start with a UDP ``connect`` to a public
  resolver (2001:4860:4860::8888, port 443; seen with strace), which no flag turns off. In any
  case its flags turn off background services (component and model updates, network time,
  spell dictionaries, DNS prefetch, its own DNS client and DNS over HTTPS) and send anything
  left to a proxy on a closed local port with every host name mapped to "not found".
- **A wall-clock bound** (``TIMEOUT_S``, ``REPORTGEN_PDF_TIMEOUT`` seconds): a browser that
  has not exited by then is killed with its whole process group.
- **Paper**: A4 unless ``--paper letter`` (``?paper=letter``: app.js sets the ``@page`` size;
  the print CSS says A4).
- **The output policy of every write** (``write.py``, kind ``pdf``): refused over an input, the
  HTML of the same run, a FIFO or device; a symlink is written through; the PDF's first bytes
  must be ``%PDF-`` before it replaces anything; mode from the umask; atomic.
- **Cleanup on every signal.** The browser runs in its own process group, killed as a whole
  on any error, timeout, Ctrl-C or terminating signal; its profile folder and the printed
  file live in one private temporary folder, removed in every case.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from reportgen.errors import InputError
from reportgen.files.safe_read import printable

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
BUDGET_MS = 60_000   # virtual time for unpacking plotly.js, drawing and the print images
TIMEOUT_S = 120      # wall clock: the sample prints in ~6 s, a 19-configuration round in ~30 s
PAPERS = ("a4", "letter")
CLOSED_PORT = 9      # discard: nothing listens there, so a proxied request fails at once
# Chromium features that fetch on their own: network time, component and on-device model
# manifests, spelling dictionaries, translation, optimisation hints, media routing.
QUIET_FEATURES = ("NetworkTimeServiceQuerying", "SpellcheckService", "Translate",
                  "OptimizationHints", "OptimizationHintsFetching",
                  "OptimizationGuideModelDownloading", "OptimizationTargetPrediction",
                  "OptimizationGuideOnDeviceModel", "OnDeviceModelService", "MediaRouter",
                  "DialMediaRouteProvider", "AutofillServerCommunication",
                  "CertificateTransparencyComponentUpdater", "AsyncDns", "DnsOverHttps",
                  "UseDnsHttpsSvcb")
OFFLINE_FLAGS = (
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection",
    "--disable-default-apps", "--disable-extensions", "--disable-breakpad", "--no-pings",
    "--dns-prefetch-disable", "--metrics-recording-only", "--no-first-run",
    "--no-default-browser-check", f"--disable-features={','.join(QUIET_FEATURES)}",
    f"--proxy-server=http://127.0.0.1:{CLOSED_PORT}", "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


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


@functools.cache
def network_isolation() -> tuple[str, ...]:
    """The command prefix that gives a child its own empty network namespace, or () when this
    system allows none (the offline flags then stand alone)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    for prefix in ((unshare, "-n", "--"), (unshare, "-rn", "--")):
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return ()


UNISOLATED_ENV = "REPORTGEN_PDF_WITHOUT_NAMESPACE"   # =1: the opt-in, for scripts and CI


def require_isolation(unisolated: bool) -> None:
    """InputError when the browser cannot get a network namespace and the user did not opt
    in to printing without one (``--pdf-without-namespace`` or ``UNISOLATED_ENV=1``)."""
    if unisolated or os.environ.get(UNISOLATED_ENV, "").strip() == "1" or network_isolation():
        return
    raise InputError("--pdf", "refused: this system gives the browser no network namespace of "
                              "its own (unshare -n and unshare -rn both failed), and Chromium "
                              "probes the network on start; pass --pdf-without-namespace (or "
                              f"set {UNISOLATED_ENV}=1) to print with its offline flags alone")


def timeout_s() -> float:
    """The browser's wall-clock bound: ``REPORTGEN_PDF_TIMEOUT`` (seconds), else TIMEOUT_S."""
    given = os.environ.get("REPORTGEN_PDF_TIMEOUT", "").strip()
    try:
        value = float(given) if given else TIMEOUT_S
    except ValueError:
        raise InputError("--pdf", f"REPORTGEN_PDF_TIMEOUT={given!r}: expected seconds > 0") \
            from None
    if not 0 < value < 86_400:
        raise InputError("--pdf", f"REPORTGEN_PDF_TIMEOUT={given!r}: expected seconds > 0")
    return value


def browser_command(browser: Path, url: str, pdf: Path, profile: Path) -> list[str]:
    """The whole command line: isolation prefix, offline flags, then the print."""
    return [*network_isolation(), str(browser), "--headless", "--no-sandbox", "--disable-gpu",
            *OFFLINE_FLAGS, f"--user-data-dir={profile}",
            "--run-all-compositor-stages-before-draw", f"--virtual-time-budget={BUDGET_MS}",
            "--no-pdf-header-footer", f"--print-to-pdf={pdf}", url]


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the browser and every process it started (its own session), then reap it."""
    try:  # the group outlives its leader while a helper is left: always end it
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        if proc.poll() is None:
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=30)


def print_pdf(html: Path, out: Path, lang: str | None = None, browser: Path | None = None,
              round_dir: Path | None = None,
              avoid: Iterable[Path | str | None] = (), paper: str = "a4",
              unisolated: bool = False) -> Path:
    """Print ``html`` to ``out`` on ``paper`` (a4 or letter) and return the file written
    (``out``, or the file a symlink ``out`` points to). Refused without a network namespace
    unless ``unisolated`` (``require_isolation``)."""
    from reportgen.files.write import cleanup_on_signals, output_target, write_output

    avoid = [html, *avoid]
    output_target(out, round_dir, kind="pdf", avoid=avoid)  # refused before the browser runs
    if paper not in PAPERS:
        raise InputError("--paper", f"{paper!r}: expected one of {', '.join(PAPERS)}")
    browser = browser or find_browser()
    require_isolation(unisolated)
    limit = timeout_s()
    # print=1: the page draws every figure and its print image at once (figures are
    # otherwise drawn as they near the viewport, print images on beforeprint)
    query = [f"lang={lang}"] if lang else []
    query += ["print=1"] + ([f"paper={paper}"] if paper != "a4" else [])
    url = Path(html).resolve().as_uri() + "?" + "&".join(query)
    with cleanup_on_signals(), tempfile.TemporaryDirectory(prefix="reportgen-pdf-") as work:
        printed = Path(work) / "print.pdf"
        cmd = browser_command(browser, url, printed, Path(work) / "profile")
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise InputError("--pdf", f"{printable(str(browser))} failed: {exc}") from None
        try:
            _, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            raise InputError("--pdf", f"{printable(str(browser))} did not finish within "
                                      f"{limit:g} s; it was stopped (set "
                                      "REPORTGEN_PDF_TIMEOUT for a longer bound)") from None
        finally:
            _end_group(proc)  # also any helper it left behind
        data = printed.read_bytes() if printed.is_file() else b""
        if proc.returncode != 0 or not data:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            raise InputError("--pdf", f"{printable(str(browser))} exited with status "
                                      f"{proc.returncode} and wrote {len(data)} bytes: "
                                      f"{printable(tail[0][:200])}")
        written = write_output(out, data, round_dir, kind="pdf", avoid=avoid)
    assert written is not None
    return written
