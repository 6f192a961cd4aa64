"""reportgen serve: local preview on 127.0.0.1, rebuilds on change, reload script only in the
served copy, errors shown in the page, warm narrative rebuilds fast."""

from __future__ import annotations

import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from reportgen.build import build_report
from reportgen.files.resources import sample_round_dir
from reportgen.serve import HOST, Preview, Server, inject_reload, snapshot


@pytest.fixture
def round_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))


@pytest.fixture
def server(round_copy: Path) -> Iterator[Server]:
    srv = Server(round_copy, port=0, poll_s=0.05).start()
    yield srv
    srv.stop()


def get(url: str, timeout: float = 60.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.read().decode("utf-8")


def wait_rebuilt(srv: Server, seen: int) -> str:
    """The page once the version has moved past ``seen`` (as the page's long poll sees it)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if int(get(f"{srv.url}__reportgen/wait?v={seen}")) != seen:
            return get(srv.url)
    raise AssertionError("no rebuild within 60 s")


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_served_page_is_the_report_plus_a_reload_script(server: Server, round_copy: Path,
                                                         tmp_path: Path) -> None:
    assert server.httpd.server_address[0] == HOST == "127.0.0.1"
    page = get(server.url)
    built = build_report(round_copy, tmp_path / "built.html").read_text(encoding="utf-8")
    # the built file: no reload script, no connection allowed
    assert "__reportgen" not in built and "connect-src &#39;none&#39;" in built
    # the served copy: the same page with one more script, allowed by its hash, and one
    # same-origin connection
    assert "/__reportgen/wait?v=" in page and "connect-src &#39;self&#39;" in page
    script = re.findall(r"<script>(.*?)</script>", page, re.S)[-1]
    assert inject_reload(built, server.preview.version) == page
    from reportgen.serve import _csp_hash

    allowed = f"script-src &#39;{_csp_hash(script)}&#39; "
    assert allowed in page
    assert page.replace(f"<script>{script}</script>\n", "").replace(
        allowed, "script-src ").replace(
        "connect-src &#39;self&#39;", "connect-src &#39;none&#39;") == built


def test_narrative_edit_rebuilds_break_shows_error_fix_recovers(server: Server,
                                                                round_copy: Path) -> None:
    prose = round_copy / "narrative" / "crossover.en.md"
    seen = server.preview.version
    append(prose, "\nA sentence written while serving.\n")
    page = wait_rebuilt(server, seen)
    assert "A sentence written while serving." in page

    seen = server.preview.version
    append(prose, "\nSee {{ tiers.nope.c1.output_tok_s }}.\n")
    page = wait_rebuilt(server, seen)
    error = re.search(r'<pre id="reportgen-error"[^>]*>(.*?)</pre>', page, re.S)
    assert error and "narrative/crossover.en.md:" in error.group(1)
    assert "tiers.nope.c1.output_tok_s" in error.group(1)
    assert "/__reportgen/wait?v=" in page  # the error page reloads too

    seen = server.preview.version
    prose.write_text(prose.read_text(encoding="utf-8").replace(
        "See {{ tiers.nope.c1.output_tok_s }}.", "Fixed."), encoding="utf-8")
    page = wait_rebuilt(server, seen)
    assert "reportgen-error" not in page and "Fixed." in page


def test_input_edit_reloads_the_round(server: Server, round_copy: Path) -> None:
    toml = round_copy / "round.toml"
    seen = server.preview.version
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'en = "vLLM BF16 vs llama.cpp Q4_K_M · Round 2 · RTX 4090"',
        'en = "Retitled while serving"'), encoding="utf-8")
    assert "Retitled while serving" in wait_rebuilt(server, seen)
    seen = server.preview.version
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[bogus]\n", encoding="utf-8")
    page = wait_rebuilt(server, seen)
    assert "unknown key &#x27;bogus&#x27;" in page and "round.toml" in page


def test_warm_narrative_rebuild_is_fast(round_copy: Path) -> None:
    """Target ≤ 0.3 s after a prose edit: the analysis, figures and data block are kept."""
    preview = Preview(round_copy)
    assert preview.refresh() and preview.error is None
    assert not preview.refresh()  # nothing changed: nothing rebuilt
    prose = round_copy / "narrative" / "setup.en.md"
    cpu = []
    for i in range(5):
        append(prose, f"\nEdit {i}.\n")
        began = time.process_time()
        assert preview.refresh()
        cpu.append(time.process_time() - began)
        assert f"Edit {i}." in preview.page
    assert statistics.median(cpu) <= 0.3, cpu


def test_snapshot_splits_inputs_from_narrative(round_copy: Path) -> None:
    snap = snapshot(round_copy)
    assert "round.toml" in snap.inputs and not any(k.startswith("narrative") for k in snap.inputs)
    assert snap.narrative and all(k.startswith("narrative") for k in snap.narrative)


def test_busy_port_falls_back_to_the_next(round_copy: Path) -> None:
    taken = socket.socket()
    taken.bind((HOST, 0))
    taken.listen()
    port = taken.getsockname()[1]
    srv = None
    try:
        srv = Server(round_copy, port=port)
        assert srv.port != port and port < srv.port <= port + 20
    finally:
        taken.close()
        if srv is not None:
            srv.httpd.server_close()


def test_cli_serve_prints_its_address_and_serves(round_copy: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "reportgen", "serve", str(round_copy),
                             "-p", "0"], stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stderr:  # "rebuilt …", then "serving … at http://127.0.0.1:N/"
            found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
            if found:
                url = found.group(1)
                break
        assert url, "no address printed"
        assert "llama.cpp" in get(url)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_cli_serve_bad_round_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "reportgen", "serve", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("Error: ")
