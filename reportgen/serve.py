"""``reportgen serve``: the author's loop. A local preview of the report that rebuilds when any
file of the round changes and reloads the page in the browser.

- Bound to 127.0.0.1 only; the first free port from the one asked for (stdlib http.server, one
  thread per request).
- A watcher thread polls the round's files (size and mtime; no dependency). A change to an
  input reloads and re-analyses the round; a change under ``narrative/`` only re-renders: the
  analysis, figures and data block are kept, so a prose edit shows in a fraction of a second.
- A broken edit (bad input, unknown placeholder …) shows its one-line error as the page; the
  server keeps running and the next good edit brings the report back.
- Only the served copy changes: a reload script is injected before ``</body>`` and the page's
  CSP gains its hash and ``connect-src 'self'`` for one same-origin long poll
  (``/__reportgen/wait?v=N`` answers when the version differs from N). A report built with
  ``reportgen build`` is untouched by any of this and makes no request.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import html
import http.server
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from markupsafe import escape

from reportgen.errors import InputError

if TYPE_CHECKING:
    from reportgen.analyze.compare import Missing, Source
    from reportgen.analyze.result import RoundAnalysis

HOST = "127.0.0.1"
POLL_S = 0.25          # how often the watcher looks at the files
WAIT_S = 25.0          # a long poll answers at least this often (the browser then asks again)
PORT_TRIES = 20        # a busy port: try the next ones
NARRATIVE = "narrative"

RELOAD_JS = """(function () {
  var v = %d;
  function poll() {
    fetch('/__reportgen/wait?v=' + v, {cache: 'no-store'}).then(function (r) {
      return r.text();
    }).then(function (t) {
      if (String(t).trim() !== String(v)) { location.reload(); } else { poll(); }
    }, function () { setTimeout(poll, 1000); });
  }
  poll();
})();"""
_CSP = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")')


Say = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


@dataclass
class Snapshot:
    """Size and mtime of every file of the round, split into inputs and narrative."""

    inputs: dict[str, tuple[int, int]] = field(default_factory=dict)
    narrative: dict[str, tuple[int, int]] = field(default_factory=dict)


def snapshot(root: Path) -> Snapshot:
    """Every regular file below ``root`` (hidden entries skipped, as the loaders skip them)."""
    snap = Snapshot()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                    continue
                st = entry.stat()
            except OSError:
                continue
            rel = os.path.relpath(entry.path, root)
            target = snap.narrative if rel.split(os.sep)[0] == NARRATIVE else snap.inputs
            target[rel] = (st.st_size, st.st_mtime_ns)
    return snap


class Preview:
    """The current page of one round, rebuilt on demand; thread-safe."""

    def __init__(self, root: Path, lang: str | None = None, say: Say = _quiet) -> None:
        self.root = Path(root)
        self.lang = lang
        self.say = say
        self.version = 0
        self.page = ""
        self.error: str | None = None
        self.last_build_s = 0.0
        self._snap: Snapshot | None = None
        self._analysis: RoundAnalysis | None = None
        self._baseline: Source | Missing | None = None
        self._reuse: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition()

    def refresh(self) -> bool:
        """Rebuild if any file changed since the last build (always the first time). Returns
        whether a rebuild happened."""
        snap = snapshot(self.root)
        with self._lock:
            old = self._snap
            if old is not None and snap == old:
                return False
            inputs_changed = old is None or snap.inputs != old.inputs or self._analysis is None
            self._snap = snap
            self._build(inputs_changed)
        with self._changed:
            self._changed.notify_all()
        return True

    def _build(self, inputs_changed: bool) -> None:
        from reportgen.build import render_analysis, resolve_baseline

        began = time.perf_counter()
        try:
            if inputs_changed:
                from reportgen.pipeline import analyze_dir

                self._analysis, self._reuse = None, {}
                done = analyze_dir(self.root)
                self._baseline = resolve_baseline(done.loaded.manifest, None)
                self._analysis = done.analysis
            assert self._analysis is not None   # set above on the first build
            self.page = render_analysis(self._analysis, self.root, self.lang,
                                        baseline=self._baseline, reuse=self._reuse)
            self.error = None
        except InputError as exc:
            self.error = str(exc)
        except Exception as exc:  # the author sees it; the server stays up
            self.error = f"{type(exc).__name__}: {exc}"
        self.last_build_s = time.perf_counter() - began
        self.version += 1
        what = "inputs" if inputs_changed else "narrative"
        self.say(f"rebuilt ({what}) in {self.last_build_s:.2f} s"
                 + (f" — error: {self.error}" if self.error else ""))

    def wait(self, seen: int, timeout: float = WAIT_S) -> int:
        """Block until the version differs from ``seen`` (or the timeout); the version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen, timeout)
        return self.version

    def document(self) -> str:
        """The page as served: the report (or the error) with the reload script."""
        with self._lock:
            version, page, error = self.version, self.page, self.error
        body = error_page(error, self.root) if error is not None else page
        return inject_reload(body, version)


def error_page(message: str, root: Path) -> str:
    """A plain page naming what is wrong, in both languages; the reload script is added to it
    as to the report."""
    from reportgen.i18n import load_ui
    from reportgen.resources import templates_dir

    ui = load_ui(templates_dir() / "i18n" / "ui.toml")

    def both(key: str) -> str:
        return " · ".join(html.escape(ui.raw(f"serve.{key}", lang)) for lang in ("zh", "en"))

    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">"
            f"<title>{both('title')}</title></head><body style=\"font: 15px/1.5 system-ui, "
            "sans-serif; margin: 3em auto; max-width: 60em; padding: 0 1em\">"
            f"<h1 style=\"color: #b91c1c; font-size: 1.3em\">{both('heading')}</h1>"
            "<pre id=\"reportgen-error\" style=\"white-space: pre-wrap; background: #fef2f2; "
            f"padding: 1em; border-radius: 6px\">{html.escape(message)}</pre>"
            f"<p><code>{html.escape(str(root))}</code> · {both('hint')}</p></body></html>\n")


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def inject_reload(page: str, version: int) -> str:
    """The page with the reload script before ``</body>``, allowed by the page's CSP."""
    script = RELOAD_JS % version
    digest = _csp_hash(script)

    def widen(m: re.Match[str]) -> str:
        # the attribute is escaped as the template escapes it (' → &#39;)
        policy = html.unescape(m.group(2)).replace("connect-src 'none'", "connect-src 'self'")
        if "connect-src" not in policy:
            policy += "; connect-src 'self'"
        if "script-src" in policy:
            policy = policy.replace("script-src", f"script-src '{digest}'", 1)
        else:
            policy += f"; script-src '{digest}'"
        return m.group(1) + str(escape(policy)) + m.group(3)

    page = _CSP.sub(widen, page, count=1)
    tag = f"<script>{script}</script>\n"
    at = page.rfind("</body>")
    return page[:at] + tag + page[at:] if at >= 0 else page + tag


class _Handler(http.server.BaseHTTPRequestHandler):
    preview: Preview
    server_version = "reportgen-serve"

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html", "/report.html"):
            self._send(200, "text/html; charset=utf-8", self.preview.document())
        elif url.path == "/__reportgen/wait":
            try:
                seen = int(parse_qs(url.query).get("v", ["-1"])[0])
            except ValueError:
                seen = -1
            self._send(200, "text/plain; charset=utf-8", str(self.preview.wait(seen)))
        elif url.path == "/__reportgen/status":
            p = self.preview
            self._send(200, "text/plain; charset=utf-8",
                       f"version {p.version}\nbuild_s {p.last_build_s:.4f}\n"
                       f"error {p.error or ''}\n")
        else:
            self._send(404, "text/plain; charset=utf-8", "not found\n")

    def _send(self, status: int, kind: str, text: str) -> None:
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)  # unless the browser navigated away mid-answer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the rebuild lines are what the author reads


class Server:
    """The preview server and its watcher, each in a daemon thread."""

    def __init__(self, root: Path, port: int = 8000, lang: str | None = None,
                 say: Say = _quiet, poll_s: float = POLL_S) -> None:
        self.preview = Preview(root, lang, say)
        self.poll_s = poll_s
        handler = type("Handler", (_Handler,), {"preview": self.preview})
        self.httpd = _bind(port, handler)
        self.port = int(self.httpd.server_address[1])
        self.url = f"http://{HOST}:{self.port}/"
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> Server:
        self.preview.refresh()
        for target in (self.httpd.serve_forever, self._watch):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            self.preview.refresh()

    def stop(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        with self.preview._changed:
            self.preview._changed.notify_all()


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a port another server holds must read as busy


def _bind(port: int, handler: type[http.server.BaseHTTPRequestHandler]) -> _HTTPServer:
    """127.0.0.1:port, else the next free port (0: any free port)."""
    tries = 1 if port == 0 else PORT_TRIES
    for candidate in range(port, port + tries):
        try:
            return _HTTPServer((HOST, candidate), handler)
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
    raise InputError(f"{HOST}:{port}", f"no free port among {port}–{port + tries - 1}")
