"""Issue 34, item 6: `build --pdf` sends nothing off the machine, verified with a syscall trace.

Chromium's resolver probes IPv6 reachability at start with a UDP ``connect`` to a public
resolver (2001:4860:4860::8888, port 443) whatever its flags. In the network namespace
``print_pdf`` gives it, every ``connect`` to an address other than loopback must fail
(ENETUNREACH): the trace of the whole process tree (strace -f) is read back. Without a
namespace the print is refused (tests/test_hardening_catalogue4.py); these tests never skip:
without strace they fail and say what to install."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from pagekit import CHROMIUM

from reportgen import pdf

CONNECT = re.compile(r"connect\(\d+, \{sa_family=(AF_INET6?), .*?inet_(?:pton|addr)\("
                     r"(?:AF_INET6?, )?\"([^\"]+)\".*?\) = (-?\d+)")


def _loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1")


def test_pdf_print_reaches_no_address_off_the_machine(sample_report: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    strace = shutil.which("strace")
    if strace is None:
        pytest.fail("this test traces the browser's syscalls: apt-get install -y strace")
    assert pdf.network_isolation(), "no network namespace here: the print would be refused"
    trace = tmp_path / "trace.txt"
    plain = pdf.browser_command

    def traced(*args: Any) -> list[str]:
        return [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *plain(*args)]

    monkeypatch.setattr(pdf, "browser_command", traced)
    out = pdf.print_pdf(sample_report, tmp_path / "out.pdf", browser=CHROMIUM)
    assert out.read_bytes()[:5] == b"%PDF-"
    calls = CONNECT.findall(trace.read_text(encoding="utf-8", errors="replace"))
    assert calls, "the trace holds no connect() at all: the probe moved; check the pattern"
    reached = [(family, address) for family, address, ret in calls
               if not _loopback(address) and int(ret) == 0]
    assert not reached, reached
