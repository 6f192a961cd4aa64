"""``reportgen serve``: the author's loop. A local preview of the report that rebuilds when any
file of the round changes and reloads the page in the browser.

- Bound to 127.0.0.1 only; the first free port from the one asked for (stdlib http.server, one
  thread per request, at most ``MAX_CONNECTIONS`` at once, ``MAX_WAITING`` of them long polls;
  a client that sends nothing for ``CLIENT_TIMEOUT_S`` is dropped).
- Only requests whose ``Host`` names the loopback address and the bound port are answered, and
  a request carrying an ``Origin`` must come from that same origin: a web page that resolves its
  own name to 127.0.0.1 (DNS rebinding) cannot read the unpublished preview.
- A malformed request gets a status line (400/404/405/414/431/503), never a traceback.
- A watcher thread polls the round's files (no dependency). A file counts as changed when its
  size differs, or when its stat signature (mtime, ctime, inode) moved and its content hash
  differs, so ``cp -p`` / ``rsync -t`` edits are seen and a ``touch`` costs no rebuild. The poll
  interval grows with the time one scan takes and while nothing changes, so a round of 20,000
  files costs a few percent of a core when idle. A change to an
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
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs, urlsplit

from markupsafe import escape

from reportgen.errors import InputError
from reportgen.pipeline import Reuse

if TYPE_CHECKING:
    from reportgen.analyze.compare import Missing, Source
    from reportgen.analyze.result import RoundAnalysis

HOST = "127.0.0.1"
POLL_S = 0.25          # how often the watcher looks at the files
WAIT_S = 25.0          # a long poll answers at least this often (the browser then asks again)
PORT_TRIES = 20        # a busy port: try the next ones
MAX_PORT = 65535
MAX_CONNECTIONS = 32   # requests handled at once; more are answered 503 and closed
MAX_WAITING = 8        # long polls waiting at once; more are answered 503 (the page retries)
CLIENT_TIMEOUT_S = 10.0  # a client silent this long (half-sent request) is dropped
IDLE_BACKOFF = 4       # unchanged polls stretch the interval up to this many times poll_s
SCAN_SHARE = 0.05      # the watcher spends at most this share of a core scanning
HASH_AHEAD_BYTES = 4 << 20  # files up to this size are hashed on the first scan
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


Stat = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


@dataclass
class Snapshot:
    """Every file of the round with its stat signature, split into inputs and narrative."""

    inputs: dict[str, Stat] = field(default_factory=dict)
    narrative: dict[str, Stat] = field(default_factory=dict)


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
            target[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    return snap


def content_hash(path: Path) -> str | None:
    """blake2b of a regular file's bytes (None when it cannot be read as one)."""
    import stat as stat_mod

    digest = hashlib.blake2b(digest_size=16)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat_mod.S_ISREG(os.fstat(fd).st_mode):
            return None
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()


class ChangeDetector:
    """Which files changed between two snapshots, by content: a file whose size is the same
    but whose stat signature moved is hashed and compared with its last known hash."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hashes: dict[str, str | None] = {}

    def prime(self, snap: Snapshot) -> None:
        """Hash the small files once, so a later touch or chmod of them costs no rebuild."""
        for files in (snap.inputs, snap.narrative):
            for rel, sig in files.items():
                if sig[0] <= HASH_AHEAD_BYTES:
                    self.hashes[rel] = content_hash(self.root / rel)

    def changed(self, old: dict[str, Stat], new: dict[str, Stat]) -> bool:
        if old.keys() != new.keys():
            for rel in new.keys() - old.keys():
                self.hashes[rel] = content_hash(self.root / rel)
            return True
        differ = False
        for rel, sig in new.items():
            before = old[rel]
            if sig == before:
                continue
            fresh = content_hash(self.root / rel)
            known = self.hashes.get(rel)
            self.hashes[rel] = fresh
            if sig[0] != before[0] or known is None or fresh != known:
                differ = True
        return differ


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
        self._detector = ChangeDetector(self.root)
        self._analysis: RoundAnalysis | None = None
        self._baseline: Source | Missing | None = None
        self._reuse = Reuse()
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
            if old is None:
                self._detector.prime(snap)
                inputs_changed = True
            else:
                inputs_changed = self._detector.changed(old.inputs, snap.inputs)
                narrative_changed = self._detector.changed(old.narrative, snap.narrative)
                self._snap = snap
                if not (inputs_changed or narrative_changed):
                    return False  # only stat moved (touch, chmod): same bytes, same page
            inputs_changed = inputs_changed or self._analysis is None
            self._snap = snap
            self._build(inputs_changed)
        with self._changed:
            self._changed.notify_all()
        return True

    def _build(self, inputs_changed: bool) -> None:
        from reportgen.build import resolve_baseline
        from reportgen.pipeline import render_analysis

        began = time.perf_counter()
        try:
            if inputs_changed:
                from reportgen.pipeline import analyze_dir

                self._analysis, self._reuse = None, Reuse()
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
    from reportgen.files.resources import templates_dir
    from reportgen.text.bilingual import LANGS
    from reportgen.text.i18n import load_ui

    ui = load_ui(templates_dir() / "i18n" / "ui.toml")

    def both(key: str) -> str:
        return " · ".join(html.escape(ui.raw(f"serve.{key}", lang)) for lang in LANGS)

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
    port: int
    waiting: threading.BoundedSemaphore
    raw_requestline: bytes            # set by the base class before parse_request
    server_version = "reportgen-serve"
    timeout = CLIENT_TIMEOUT_S        # socket timeout: a half-sent request is dropped
    protocol_version = "HTTP/1.0"     # one request per connection: nothing held open idle
    default_request_version = "HTTP/1.0"  # so even a garbled request gets a status line

    def handle(self) -> None:
        # the whole request (line and headers) must arrive within CLIENT_TIMEOUT_S, however
        # slowly it trickles in; the socket timeout alone would restart on every byte
        self._deadline = threading.Timer(CLIENT_TIMEOUT_S, self._expire)
        self._deadline.daemon = True
        self._deadline.start()
        try:
            super().handle()
        except Exception:  # a broken client never prints a traceback
            self.close_connection = True
        finally:
            self._deadline.cancel()

    def _expire(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.sendall(b"HTTP/1.0 408 Request Timeout\r\nContent-Length: 0\r\n"
                                    b"Connection: close\r\n\r\n")
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def version_string(self) -> str:
        return self.server_version

    def parse_request(self) -> bool:
        if not str(self.raw_requestline, "iso-8859-1").strip():
            self.command, self.request_version = cast(Any, None), self.default_request_version
            self.requestline = ""
            self.send_error(400, "empty request line")  # the stdlib just hangs up
            return False
        done = super().parse_request()
        self._deadline.cancel()  # headers are in; a long poll may now wait
        return done

    def do_GET(self) -> None:
        refused = self._refusal()
        if refused is not None:
            self._send(*refused)
            return
        try:
            self._route()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True
        except Exception:  # never a traceback on the terminal; the status line says it
            self._send(500, "text/plain; charset=utf-8", "internal error\n")

    def do_HEAD(self) -> None:
        self._head_only = True
        self.do_GET()

    def _refusal(self) -> tuple[int, str, str] | None:
        """A status for a request from anywhere but this server's own origin, else None."""
        if not host_allowed(self.headers.get_all("Host") or [], self.port):
            return 400, "text/plain; charset=utf-8", "Host must be 127.0.0.1 or localhost " \
                                                     "with this server's port\n"
        origins = self.headers.get_all("Origin") or []
        if origins and not all(origin_allowed(o, self.port) for o in origins):
            return 403, "text/plain; charset=utf-8", "cross-origin request refused\n"
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() not in ("same-origin", "none"):
            return 403, "text/plain; charset=utf-8", "cross-site request refused\n"
        return None

    def _route(self) -> None:
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html", "/report.html"):
            self._send(200, "text/html; charset=utf-8", self.preview.document())
        elif url.path == "/__reportgen/wait":
            seen = _version_arg(url.query)
            if not self.waiting.acquire(blocking=False):
                self._send(503, "text/plain; charset=utf-8", "too many waiting polls\n")
                return
            try:
                version = self.preview.wait(seen)
            finally:
                self.waiting.release()
            self._send(200, "text/plain; charset=utf-8", str(version))
        elif url.path == "/__reportgen/status":
            p = self.preview
            self._send(200, "text/plain; charset=utf-8",
                       f"version {p.version}\nbuild_s {p.last_build_s:.4f}\n"
                       f"error {p.error or ''}\n")
        else:
            self._send(404, "text/plain; charset=utf-8", "not found\n")

    def _send(self, status: int, kind: str, text: str) -> None:
        body = text.encode("utf-8")
        with contextlib.suppress(OSError):  # the browser navigated away mid-answer
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if not getattr(self, "_head_only", False):
                self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        # the stdlib's reason and page echo the request; the standard phrase is enough
        self.close_connection = True
        with contextlib.suppress(OSError):
            super().send_error(code, None, None)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the rebuild lines are what the author reads


def _version_arg(query: str) -> int:
    try:
        values = parse_qs(query, max_num_fields=8).get("v", ["-1"])
        text = values[0]
        return int(text) if len(text) <= 20 else -1
    except ValueError:
        return -1


LOOPBACK_NAMES = ("127.0.0.1", "localhost")


def host_allowed(hosts: list[str], port: int) -> bool:
    """One ``Host`` header naming the loopback address and exactly the bound port."""
    if len(hosts) != 1:
        return False
    host = hosts[0].strip().lower()
    name, sep, given = host.rpartition(":")
    if not sep or not given.isascii() or not given.isdigit():
        return False
    return name.rstrip(".") in LOOPBACK_NAMES and int(given) == port


def origin_allowed(origin: str, port: int) -> bool:
    """``http://127.0.0.1:PORT`` or ``http://localhost:PORT``: this server's own origin."""
    origin = origin.strip().lower()
    prefix = "http://"
    return origin.startswith(prefix) and host_allowed([origin[len(prefix):]], port)


class Server:
    """The preview server and its watcher, each in a daemon thread."""

    def __init__(self, root: Path, port: int = 8000, lang: str | None = None,
                 say: Say = _quiet, poll_s: float = POLL_S) -> None:
        self.preview = Preview(root, lang, say)
        self.poll_s = poll_s
        handler = cast("type[_Handler]", type("Handler", (_Handler,), {
            "preview": self.preview, "port": 0,
            "waiting": threading.BoundedSemaphore(MAX_WAITING)}))
        self.httpd = _bind(port, handler)
        self.port = int(self.httpd.server_address[1])
        handler.port = self.port
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
        idle = 0
        interval = self.poll_s
        while not self._stop.wait(interval):
            began = time.perf_counter()
            changed = self.preview.refresh()
            scan_s = time.perf_counter() - began
            idle = 0 if changed else min(idle + 1, IDLE_BACKOFF * 4)
            backoff = 1 + (IDLE_BACKOFF - 1) * min(idle, 4 * IDLE_BACKOFF) / (4 * IDLE_BACKOFF)
            # a rebuild's own time is not scanning: only an unchanged pass sets the pace
            pace = 0.0 if changed else scan_s / SCAN_SHARE
            interval = max(self.poll_s * backoff, pace)

    def stop(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        with self.preview._changed:
            self.preview._changed.notify_all()


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a port another server holds must read as busy
    request_queue_size = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            _busy(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client's mistake is answered with a status, never printed as a traceback


def _busy(request: socket.socket) -> None:
    with contextlib.suppress(OSError):
        request.settimeout(1.0)
        request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                        b"Content-Length: 18\r\nConnection: close\r\n\r\ntoo many requests\n")


def _bind(port: int, handler: type[http.server.BaseHTTPRequestHandler]) -> _HTTPServer:
    """127.0.0.1:port, else the next free port up to 65535, else any free port (0: any)."""
    if not 0 <= port <= MAX_PORT:
        raise InputError(f"{HOST}:{port}", f"not a port (0–{MAX_PORT})")
    last = port if port == 0 else min(port + PORT_TRIES - 1, MAX_PORT)
    for candidate in range(port, last + 1):
        try:
            return _HTTPServer((HOST, candidate), handler)
        except OverflowError:
            break
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise InputError(f"{HOST}:{candidate}",
                                 f"cannot listen: {exc.strerror or exc}") from None
    if port != 0:
        return _bind(0, handler)  # every port near the one asked for is taken
    raise InputError(f"{HOST}:{port}", "no free port")
