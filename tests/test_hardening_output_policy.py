"""Hardening catalogue 3, one output policy and a browser with no network: each case names the
promise it checks.

- `-o`, `--pdf`, `tables -o` and init never replace an input, nor another output of the run;
- special files are refused; symlinks are written through; a new file's mode follows the umask;
- writes are atomic; temp files and child processes are cleaned up on every signal;
- content is checked before it replaces anything (`%PDF-` for a PDF);
- `--pdf` runs Chromium in an empty network namespace with offline flags (network log).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from signals import default_dispositions

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.files import write
from reportgen.files.resources import sample_round_dir
from reportgen.pdf import OFFLINE_FLAGS, browser_command, network_isolation

CHROMIUM = Path("/usr/bin/chromium")
FAKE_BROWSER = """#!/bin/sh
# a stand-in for Chromium: FAKE_MODE=pdf writes a PDF, text writes something else, hang starts
# a helper child and waits (for the signal tests)
for a in "$@"; do case "$a" in --print-to-pdf=*) out="${a#--print-to-pdf=}";; esac; done
case "$FAKE_MODE" in
  pdf) printf '%%PDF-1.4\\nfake\\n' > "$out" ;;
  text) printf 'not a pdf at all' > "$out" ;;
  hang) sleep 300 & echo $! > "$FAKE_PIDS"; echo $$ >> "$FAKE_PIDS"; printf 'x' > "$out"; wait ;;
esac
"""


@pytest.fixture
def round_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))


@pytest.fixture
def fake_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "fake-chromium"
    path.write_text(FAKE_BROWSER)
    path.chmod(0o755)
    monkeypatch.setenv("REPORTGEN_CHROMIUM", str(path))
    # a stand-in that opens no socket: printed where no network namespace can be made too
    monkeypatch.setenv("REPORTGEN_PDF_WITHOUT_NAMESPACE", "1")
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


# ---- no input, no other output of the same run ----------------------------------------

def test_pdf_over_round_toml_is_refused_before_building(round_copy: Path, tmp_path: Path,
                                                        fake_browser: Path) -> None:
    """promise: --pdf never replaces an input of the round (round.toml)."""
    toml = round_copy / "round.toml"
    before = toml.read_bytes()
    code, err = run("build", str(round_copy), "-q", "-o", str(tmp_path / "r.html"),
                    "--pdf", str(toml))
    assert code == 2 and "round folder" in err and toml.read_bytes() == before
    assert not (tmp_path / "r.html").exists()  # refused before anything was built


def test_pdf_over_a_result_is_refused(round_copy: Path, tmp_path: Path,
                                      fake_browser: Path) -> None:
    """promise: --pdf never replaces a result file (resolved through ..)."""
    target = round_copy / "vllm" / ".." / "vllm" / "bench"
    result = next(target.glob("*.json"))
    before = result.read_bytes()
    code, _ = run("build", str(round_copy), "-q", "-o", str(tmp_path / "r.html"),
                  "--pdf", str(result))
    assert code == 2 and result.read_bytes() == before


def test_pdf_over_the_html_of_the_same_run_is_refused(round_copy: Path, tmp_path: Path,
                                                      fake_browser: Path) -> None:
    """promise: --pdf never replaces the HTML report written by the same run."""
    out = tmp_path / "r.html"
    out.write_text("previous", encoding="utf-8")
    code, err = run("build", str(round_copy), "-q", "-o", str(out), "--pdf", str(out))
    assert code == 2 and "another input or output of this run" in err
    assert out.read_text(encoding="utf-8") == "previous"


def test_pdf_through_a_link_to_the_html_of_the_same_run_is_refused(
        round_copy: Path, tmp_path: Path, fake_browser: Path) -> None:
    """promise: the same-run rule compares resolved files (a link is seen through)."""
    out = tmp_path / "r.html"
    link = tmp_path / "r.pdf"
    link.symlink_to(out)
    code, _ = run("build", str(round_copy), "-q", "-o", str(out), "--pdf", str(link))
    assert code == 2 and not out.exists()


def test_output_over_previous_is_refused(round_copy: Path, tmp_path: Path) -> None:
    """promise: -o never replaces an input given outside the round (--previous)."""
    old = tmp_path / "old.html"
    code, _ = run("build", str(round_copy), "-q", "-o", str(old))
    assert code == 0
    before = old.read_bytes()
    code, err = run("build", str(round_copy), "-q", "-o", str(old), "--previous", str(old))
    assert code == 2 and "another input or output" in err and old.read_bytes() == before


def test_tables_over_an_input_is_refused(round_copy: Path) -> None:
    """promise: tables -o follows the same policy (no input of the round)."""
    toml = round_copy / "round.toml"
    before = toml.read_bytes()
    code, _ = run("tables", str(round_copy), "-o", str(toml))
    assert code == 2 and toml.read_bytes() == before


# ---- special files, links, mode ---------------------------------------------------------

def test_pdf_to_a_fifo_is_refused_without_blocking(round_copy: Path, tmp_path: Path,
                                                   fake_browser: Path) -> None:
    """promise: special files are refused (a FIFO is never opened)."""
    fifo = tmp_path / "out.pdf"
    os.mkfifo(fifo)
    code, err = run("build", str(round_copy), "-q", "-o", str(tmp_path / "r.html"),
                    "--pdf", str(fifo))
    assert code == 2 and "not a regular file" in err and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_pdf_to_a_device_is_refused(round_copy: Path, tmp_path: Path,
                                    fake_browser: Path) -> None:
    """promise: a device is never written to."""
    code, err = run("build", str(round_copy), "-q", "-o", str(tmp_path / "r.html"),
                    "--pdf", "/dev/null")
    assert code == 2 and "not a regular file" in err


def test_pdf_through_a_symlink_replaces_its_target(round_copy: Path, tmp_path: Path,
                                                   fake_browser: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: a symlink is written through; the link stays a link."""
    monkeypatch.setenv("FAKE_MODE", "pdf")
    real = tmp_path / "real.pdf"
    real.write_bytes(b"old")
    link = tmp_path / "link.pdf"
    link.symlink_to(real)
    code, err = run("build", str(round_copy), "-q", "-o", str(tmp_path / "r.html"),
                    "--pdf", str(link))
    assert code == 0, err
    assert link.is_symlink() and real.read_bytes().startswith(b"%PDF-")


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_new_pdf_mode_follows_the_umask(round_copy: Path, tmp_path: Path, fake_browser: Path,
                                        monkeypatch: pytest.MonkeyPatch, umask: int) -> None:
    """promise: a new file's mode follows the umask (never mkstemp's 0600)."""
    monkeypatch.setenv("FAKE_MODE", "pdf")
    html = tmp_path / "r.html"
    html.write_text("<!doctype html><p>x</p>", encoding="utf-8")
    from reportgen.pdf import print_pdf

    old = os.umask(umask)
    try:
        out = print_pdf(html, tmp_path / "out.pdf")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_tables_mode_follows_the_umask(round_copy: Path, tmp_path: Path) -> None:
    """promise: every output kind gets the umask's mode."""
    old = os.umask(0o027)
    try:
        code, _ = run("tables", str(round_copy), "-o", str(tmp_path / "t.json"))
    finally:
        os.umask(old)
    assert code == 0 and stat.S_IMODE((tmp_path / "t.json").stat().st_mode) == 0o640


# ---- content check ---------------------------------------------------------------------

def test_a_pdf_that_is_not_one_replaces_nothing(round_copy: Path, tmp_path: Path,
                                                fake_browser: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: the content is checked (%PDF-) before it replaces anything."""
    monkeypatch.setenv("FAKE_MODE", "text")
    pdf = tmp_path / "out.pdf"
    pdf.write_bytes(b"%PDF-1.4 the previous one")
    code, err = run("build", str(round_copy), "-q", "-o", str(tmp_path / "r.html"),
                    "--pdf", str(pdf))
    assert code == 2 and "not a PDF" in err
    assert pdf.read_bytes() == b"%PDF-1.4 the previous one" and not leftovers(tmp_path)


@pytest.mark.parametrize(("kind", "data"), [("pdf", b"<html>"), ("report", b"%PDF-1.4"),
                                            ("round.toml", b"a = = 1"), ("tables", b"  \n")])
def test_content_of_each_kind_is_checked(tmp_path: Path, kind: str, data: bytes) -> None:
    """promise: one content rule per output kind, applied before the write."""
    target = tmp_path / "out"
    target.write_bytes(b"keep")
    with pytest.raises(InputError, match="nothing was written"):
        write.write_output(target, data, kind=kind)
    assert target.read_bytes() == b"keep"


# ---- signals ---------------------------------------------------------------------------

def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT,
                                    signal.SIGQUIT])
def test_signal_during_the_print_cleans_up_everything(round_copy: Path, tmp_path: Path,
                                                      fake_browser: Path, signum: int) -> None:
    """promise: on any terminating signal the browser's whole process group is ended and no
    temp file or profile folder is left."""
    html = tmp_path / "r.html"
    html.write_text("<!doctype html><p>x</p>", encoding="utf-8")
    pids = tmp_path / "pids"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "FAKE_MODE": "hang", "FAKE_PIDS": str(pids), "TMPDIR": str(scratch)}
    code = ("import sys; from pathlib import Path; from reportgen.pdf import print_pdf; "
            f"print_pdf(Path({str(html)!r}), Path({str(tmp_path / 'out.pdf')!r}))")
    proc = subprocess.Popen([sys.executable, "-c", code], env=env,
                            preexec_fn=default_dispositions)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (pids.exists() and
                                               len(pids.read_text().split()) == 2):
        time.sleep(0.05)
    children = [int(p) for p in pids.read_text().split()]
    assert all(_alive(p) for p in children)
    proc.send_signal(signum)
    assert proc.wait(timeout=30) != 0
    time.sleep(0.3)
    assert not any(_alive(p) for p in children), "the browser or its helper outlived us"
    assert list(scratch.iterdir()) == [], "a profile or temp folder was left behind"
    assert not (tmp_path / "out.pdf").exists() and not leftovers(tmp_path)


def test_signal_during_the_html_write_leaves_the_old_report(round_copy: Path,
                                                            tmp_path: Path) -> None:
    """promise: SIGQUIT (not only SIGTERM/SIGHUP) mid-write leaves no temp file."""
    out = tmp_path / "r.html"
    out.write_text("old", encoding="utf-8")
    env = {**os.environ, write.DELAY_ENV: "30"}
    proc = subprocess.Popen([sys.executable, "-m", "reportgen", "build", str(round_copy),
                             "-q", "-o", str(out)], env=env, preexec_fn=default_dispositions)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not leftovers(tmp_path):
        time.sleep(0.1)
    assert leftovers(tmp_path)
    proc.send_signal(signal.SIGQUIT)
    proc.wait(timeout=30)
    assert out.read_text(encoding="utf-8") == "old" and not leftovers(tmp_path)


# ---- a browser with no network ---------------------------------------------------------

def test_browser_command_is_offline_and_isolated() -> None:
    """promise: the print runs in its own network namespace when the system allows one, and
    always with the offline flags (no DNS, no proxy-less request)."""
    cmd = browser_command(Path("/usr/bin/chromium"), "file:///x.html", Path("/o.pdf"),
                          Path("/p"))
    assert all(flag in cmd for flag in OFFLINE_FLAGS)
    assert any(f.startswith("--proxy-server=http://127.0.0.1:") for f in cmd)
    assert "--host-resolver-rules=MAP * ~NOTFOUND" in cmd
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        assert cmd[:2] == [shutil.which("unshare"), "-n"] and network_isolation()


def test_printed_pdf_makes_no_network_request(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: with a network log, the print shows no DNS query, no UDP and no connection
    to anything but loopback, and the browser ran in a network namespace of its own."""
    assert CHROMIUM.exists(), "the browser tests need /usr/bin/chromium"
    netlog = tmp_path / "net.json"
    ns_file = tmp_path / "ns"
    wrapper = tmp_path / "chromium-logged"
    wrapper.write_text(f"#!/bin/sh\nreadlink /proc/self/ns/net > {ns_file}\n"
                       f"exec {CHROMIUM} --log-net-log={netlog} "
                       "--net-log-capture-mode=Everything \"$@\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("REPORTGEN_CHROMIUM", str(wrapper))
    html = tmp_path / "r.html"
    code, err = run("build", "-q", "-o", str(html), "--pdf", str(tmp_path / "r.pdf"))
    assert code == 0, err
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF-")
    if network_isolation():
        assert ns_file.read_text().strip() != os.readlink("/proc/self/ns/net")
    log = json.loads(netlog.read_text())
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    kinds = {names[e["type"]] for e in log["events"]}
    assert not {k for k in kinds if k.startswith("DNS_TRANSACTION")}, kinds
    # Chromium connect()s a UDP socket to learn its default route (no packet is sent by a
    # UDP connect); in the empty namespace even that must fail
    udp: dict[int, list[dict]] = {}
    for event in log["events"]:
        if names[event["type"]] == "UDP_CONNECT":
            udp.setdefault(event["source"]["id"], []).append(event.get("params") or {})
    if network_isolation():
        assert all(any("net_error" in p for p in params) for params in udp.values()), udp
    for event in log["events"]:
        address = (event.get("params") or {}).get("address")
        if names[event["type"]] in ("TCP_CONNECT", "TCP_CONNECT_ATTEMPT") and address:
            assert address.startswith(("127.0.0.1", "[::1]")), address
