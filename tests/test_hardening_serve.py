"""Hardening catalogue 3, serve: each case names the promise it checks.

- Host must name the loopback address and the bound port (DNS rebinding);
- Origin is checked (the long poll included);
- connections and waiting polls are bounded; slow clients time out;
- a malformed request gets a status line, never a traceback;
- any port edge (65535, busy ranges) does not crash;
- change detection is by content; idle cost is bounded on a big round.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reportgen import serve
from reportgen.errors import InputError
from reportgen.files.resources import sample_round_dir
from reportgen.serve import HOST, Preview, Server, host_allowed, origin_allowed


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = Path(shutil.copytree(sample_round_dir(), tmp_path_factory.mktemp("s") / "round"))
    server = Server(root, port=0, poll_s=0.05).start()
    yield server
    server.stop()


def raw(port: int, data: bytes, wait: float = 5.0) -> bytes:
    """Send ``data`` as is and read the whole answer."""
    with socket.create_connection((HOST, port), timeout=wait) as sock:
        sock.sendall(data)
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except TimeoutError:
            pass
    return out


def status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1."), answer[:80]
    return int(answer.split(b" ", 2)[1])


def get(srv: Server, path: str = "/", host: str | None = None, extra: str = "") -> bytes:
    host = f"127.0.0.1:{srv.port}" if host is None else host
    return raw(srv.port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode())


# ---- Host and Origin -------------------------------------------------------------------

@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1",
                                  "127.0.0.1:1", "localhost:{port}0", "127.0.0.2:{port}",
                                  "0.0.0.0:{port}", "[::1]:{port}", "127.0.0.1:{port}@evil",
                                  "127.0.0.1:+{port}", ""])
def test_host_not_naming_loopback_and_bound_port_is_refused(srv: Server, host: str) -> None:
    """promise: only Host = loopback name + the bound port is answered (DNS rebinding)."""
    answer = get(srv, host=host.format(port=srv.port))
    assert status(answer) == 400 and b"llama.cpp" not in answer


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_host_naming_loopback_and_bound_port_is_served(srv: Server, host: str) -> None:
    """promise: the page is served to its own origin."""
    answer = get(srv, host=host.format(port=srv.port))
    assert status(answer) == 200 and b"llama.cpp" in answer


def test_missing_or_repeated_host_is_refused(srv: Server) -> None:
    """promise: a request with no Host, or two, is not answered with the page."""
    assert status(raw(srv.port, b"GET / HTTP/1.0\r\n\r\n")) == 400
    two = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nHost: evil.example\r\n\r\n"
    assert status(raw(srv.port, two.encode())) == 400


@pytest.mark.parametrize("path", ["/__reportgen/wait?v=-5", "/__reportgen/status", "/"])
def test_foreign_origin_is_refused(srv: Server, path: str) -> None:
    """promise: Origin is checked on the long poll (and every other path)."""
    answer = get(srv, path, extra="Origin: http://evil.example\r\n")
    assert status(answer) == 403
    answer = get(srv, path, extra=f"Origin: http://127.0.0.1:{srv.port + 1}\r\n")
    assert status(answer) == 403


def test_cross_site_fetch_metadata_is_refused(srv: Server) -> None:
    """promise: a browser's cross-site request is refused even without Origin."""
    assert status(get(srv, "/", extra="Sec-Fetch-Site: cross-site\r\n")) == 403


def test_same_origin_long_poll_is_answered(srv: Server) -> None:
    """promise: the page's own long poll still works."""
    answer = get(srv, "/__reportgen/wait?v=-5",
                 extra=f"Origin: http://127.0.0.1:{srv.port}\r\nSec-Fetch-Site: same-origin\r\n")
    assert status(answer) == 200 and answer.endswith(str(srv.preview.version).encode())


def test_host_and_origin_rules_as_functions() -> None:
    """promise: the rule is exact (port, name, scheme)."""
    assert host_allowed(["127.0.0.1:80"], 80) and host_allowed(["localhost:80"], 80)
    assert not host_allowed(["127.0.0.1:8080"], 80) and not host_allowed([], 80)
    assert not host_allowed(["127.0.0.1:٨٠"], 80)  # non-ASCII digits
    assert origin_allowed("http://localhost:80", 80)
    assert not origin_allowed("https://localhost:80", 80)
    assert not origin_allowed("null", 80)


# ---- malformed requests ----------------------------------------------------------------

MALFORMED = [b"\r\n", b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET\r\n\r\n",
             b"GET / HTTP/1.1 extra\r\n\r\n", b"\xff\xfe\x00 / HTTP/1.1\r\n\r\n",
             b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n",
             b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 200 + b"\r\n",
             b"GET / HTTP/1.1\r\nno colon header\r\n\r\n",
             b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello",
             b"GET / HTTP/1.1\r\nHost: " + b"\x1b[31m" * 10 + b"\r\n\r\n"]


@pytest.mark.parametrize("request_bytes", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_request_gets_a_status_line(srv: Server, request_bytes: bytes) -> None:
    """promise: a malformed request gets a status line (4xx/5xx), never silence."""
    assert 400 <= status(raw(srv.port, request_bytes)) < 600


@pytest.mark.parametrize("query", ["v=" + "9" * 5000, "v=1e999", "v=%00", "v=-0x10",
                                   "v=-7&v=2", "&" * 5000, "v=\u0661"])
def test_odd_long_poll_arguments_are_answered(srv: Server, query: str) -> None:
    """promise: the poll's argument never crashes the handler."""
    answer = get(srv, "/__reportgen/wait?" + query.encode("utf-8").decode("latin-1"))
    assert status(answer) == 200


def test_malformed_requests_print_no_traceback(tmp_path: Path) -> None:
    """promise: the CLI server's stderr carries rebuild lines only, never a traceback."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    proc = subprocess.Popen([sys.executable, "-m", "reportgen", "serve", str(root), "-p", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        port = 0
        for line in proc.stderr:
            if "serving" in line:
                port = int(line.rsplit(":", 1)[1].split("/")[0])
                break
        for data in MALFORMED:
            raw(port, data)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and "Exception" not in err, err


# ---- bounds and timeouts ---------------------------------------------------------------

def test_slow_client_times_out_with_408(srv: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: a half-sent request is closed after the client timeout, with a status."""
    monkeypatch.setattr(serve, "CLIENT_TIMEOUT_S", 1.0)
    began = time.monotonic()
    with socket.create_connection((HOST, srv.port), timeout=10) as sock:
        sock.sendall(b"GET / HT")
        answer = sock.recv(1024)
    assert status(answer) == 408 and time.monotonic() - began < 8


def test_trickling_client_is_cut_by_a_whole_request_deadline(
        srv: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: a client sending a byte at a time cannot hold a thread beyond the deadline."""
    monkeypatch.setattr(serve, "CLIENT_TIMEOUT_S", 1.0)
    began = time.monotonic()
    with socket.create_connection((HOST, srv.port), timeout=10) as sock:
        answer = b""
        for byte in b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 40:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.1)
        with contextlib.suppress(OSError):
            answer = sock.recv(1024)
    assert time.monotonic() - began < 6
    assert answer == b"" or status(answer) == 408


def test_waiting_polls_are_bounded(srv: Server) -> None:
    """promise: at most MAX_WAITING long polls wait; more are answered 503 at once."""
    socks = []
    try:
        for _ in range(serve.MAX_WAITING):
            sock = socket.create_connection((HOST, srv.port), timeout=10)
            sock.sendall(f"GET /__reportgen/wait?v={srv.preview.version} HTTP/1.1\r\n"
                         f"Host: 127.0.0.1:{srv.port}\r\n\r\n".encode())
            socks.append(sock)
        time.sleep(0.5)
        began = time.monotonic()
        answer = get(srv, f"/__reportgen/wait?v={srv.preview.version}")
        assert status(answer) == 503 and time.monotonic() - began < 5
    finally:
        for sock in socks:
            sock.close()


def test_connections_are_bounded(srv: Server) -> None:
    """promise: more than MAX_CONNECTIONS open connections get 503, the server stays up."""
    socks = [socket.create_connection((HOST, srv.port), timeout=10)
             for _ in range(serve.MAX_CONNECTIONS + 4)]
    try:
        time.sleep(0.5)
        extra = socket.create_connection((HOST, srv.port), timeout=10)
        extra.sendall(b"GET / HTTP/1.1\r\n\r\n")
        assert status(extra.recv(1024)) == 503
        extra.close()
    finally:
        for sock in socks:
            sock.close()
    time.sleep(0.3)
    assert status(get(srv)) == 200


# ---- ports -----------------------------------------------------------------------------

def _handler() -> type:
    return type("H", (serve._Handler,), {"preview": None, "port": 0,
                                         "waiting": threading.BoundedSemaphore(1)})


def test_port_65535_binds_or_falls_back_without_crashing() -> None:
    """promise: the highest port works, and a busy 65535 falls back to a free port."""
    httpd = serve._bind(65535, _handler())
    try:
        assert httpd.server_address[1] == 65535
        other = serve._bind(65535, _handler())  # 65535 taken: no port beyond it to try
        assert 0 < other.server_address[1] != 65535
        other.server_close()
    finally:
        httpd.server_close()


@pytest.mark.parametrize("port", [-1, 65536, 10**6])
def test_port_out_of_range_is_an_input_error(port: int) -> None:
    """promise: a port outside 0–65535 is a clear error, not an OverflowError."""
    with pytest.raises(InputError):
        serve._bind(port, _handler())


def test_cli_port_65535_serves(tmp_path: Path) -> None:
    """promise: `serve -p 65535` starts (or names its fallback port) and serves."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    proc = subprocess.Popen([sys.executable, "-m", "reportgen", "serve", str(root),
                             "-p", "65535"], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = ""
        for line in proc.stderr:
            if "serving" in line or "Error" in line or "Traceback" in line:
                break
        assert "serving" in line, line
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# ---- change detection and idle cost ----------------------------------------------------

def test_edit_keeping_size_and_mtime_is_seen(tmp_path: Path) -> None:
    """promise: an edit with the same size and mtime (cp -p, rsync -t) is detected."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    prose = root / "narrative" / "setup.en.md"
    prose.write_text("First words of the setup.\n", encoding="utf-8")
    preview = Preview(root)
    assert preview.refresh()
    st = prose.stat()
    time.sleep(0.02)
    prose.write_text("Other words of the setup.\n", encoding="utf-8")
    os.utime(prose, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert prose.stat().st_size == st.st_size and prose.stat().st_mtime_ns == st.st_mtime_ns
    assert preview.refresh() and "Other words" in preview.page


def test_touch_without_a_content_change_does_not_rebuild(tmp_path: Path) -> None:
    """promise: change detection is by content, so touch/chmod cost no rebuild."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    preview = Preview(root)
    assert preview.refresh()
    version = preview.version
    toml = root / "round.toml"
    os.utime(toml)
    os.chmod(toml, 0o640)
    assert not preview.refresh() and preview.version == version


def test_idle_watcher_cost_is_bounded_on_20000_files(tmp_path: Path) -> None:
    """promise: idle, the watcher of a 20,000-file round uses a small share of a core."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    extra = root / "extra"
    for d in range(20):
        folder = extra / f"d{d}"
        folder.mkdir(parents=True)
        for i in range(1000):
            (folder / f"f{i}.txt").write_bytes(b"x")
    srv = Server(root, port=0, poll_s=0.05).start()
    try:
        time.sleep(1.0)  # let the first passes settle the pace
        cpu0, wall0 = time.process_time(), time.monotonic()
        time.sleep(4.0)
        share = (time.process_time() - cpu0) / (time.monotonic() - wall0)
    finally:
        srv.stop()
    assert share < 0.15, f"idle watcher used {share:.0%} of a core"
