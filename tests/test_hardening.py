"""Hardening catalogue (issue 12): hostile and broken input beyond tests/test_bad_input.py.

Every error case copies the sample round, breaks one thing and runs ``reportgen build ROUND -q
-o out/report.html`` over a previous report: exit 2, one stderr line ``Error: <file>: …``
naming the file, no traceback, the previous report byte-identical, no temporary file left; and
``reportgen check`` fails the same way (it reads no narrative). Cases that might block (a FIFO)
run in a subprocess with a timeout. Documented non-error behaviours (a remote narrative image,
a BOM, ``-o -`` …) are tested for exactly that behaviour.
"""

from __future__ import annotations

import gzip
import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from signals import default_dispositions
from test_bad_input import (
    PREVIOUS,
    SAMPLE,
    SCRIPT,
    assert_no_traceback,
    bench,
    edit_json,
    replace,
    run,
)

from reportgen.errors import InputError
from reportgen.figures.base import plotly_text
from reportgen.files import safe_read
from reportgen.files.write import output_target
from reportgen.load.fingerprint import parse_fingerprint

REPO = Path(__file__).resolve().parents[1]
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")
Workdir = tuple[Path, Path]


@pytest.fixture
def workdir(tmp_path: Path) -> Workdir:
    """A fresh copy of the sample round and an out/ folder holding a previous report."""
    import shutil

    root = tmp_path / "round"
    shutil.copytree(SAMPLE, root)
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_bytes(PREVIOUS)
    return root, out


def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def link(path: Path, target: Path | str) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to(target)


def secret(root: Path) -> Path:
    """A private file next to (outside) the round."""
    path = root.parent / "secret.txt"
    path.write_text("PRIVATE-SECRET\n", encoding="utf-8")
    return path


def v8(root: Path) -> Path:
    return bench(root, "vllm", 8)


def write_json_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def narrative(root: Path, name: str, text: str | bytes) -> None:
    path = root / "narrative" / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)


def toml_line(root: Path, old: str, new: str) -> None:
    replace(root / "round.toml", old, new)


def sparse(path: Path, size: int) -> None:
    path.unlink(missing_ok=True)
    with path.open("wb") as f:
        f.truncate(size)


def non_utf8_copy(root: Path) -> None:
    (root / "vllm" / "bench" / os.fsdecode(b"caf\xe9.json")).write_bytes(v8(root).read_bytes())


# ------------------------------------------------------------------ error catalogue

@dataclass(frozen=True)
class Case:
    id: str
    mutate: Callable[[Path], None]
    where: str          # the file as shown, after "round/" (a prefix is enough)
    text: str           # a piece of the message
    subprocess: bool = False  # may block if the fix regresses: run with a timeout
    check: bool = True  # `reportgen check` reads this input too


CASES = [
    # --- special files (never opened, so never blocking) and size caps
    Case("fifo-bench", lambda r: fifo(r / "vllm" / "bench" / "zz.json"), "vllm/bench/zz.json",
         "is a FIFO (named pipe), not a regular file", subprocess=True),
    Case("fifo-server-log", lambda r: fifo(r / "vllm" / "server.log"), "vllm/server.log",
         "is a FIFO (named pipe)", subprocess=True),
    Case("fifo-fingerprint", lambda r: fifo(r / "llamacpp" / "fingerprint.txt"),
         "llamacpp/fingerprint.txt", "is a FIFO (named pipe)", subprocess=True),
    Case("fifo-scrape", lambda r: fifo(r / "vllm" / "metrics" / "c8-after.prom"),
         "vllm/metrics/c8-after.prom", "is a FIFO (named pipe)", subprocess=True),
    Case("fifo-round-toml", lambda r: fifo(r / "round.toml"), "round.toml",
         "is a FIFO (named pipe)", subprocess=True),
    Case("fifo-narrative", lambda r: fifo(r / "narrative" / "next.en.md"),
         "narrative/next.en.md", "is a FIFO (named pipe)", subprocess=True, check=False),
    Case("link-to-dev-zero", lambda r: link(r / "vllm" / "bench" / "zz.json", "/dev/zero"),
         "vllm/bench/zz.json", "is a character device, not a regular file; refused without "
         "reading it"),
    Case("link-to-dev-urandom", lambda r: link(r / "vllm" / "server.log", "/dev/urandom"),
         "vllm/server.log", "is a character device"),
    Case("sparse-2gb-bench", lambda r: sparse(r / "vllm" / "bench" / "zz.json", 2 << 30),
         "vllm/bench/zz.json", "too large (2.0 GiB, more than the 1.0 GiB a benchmark result"),
    Case("sparse-fingerprint", lambda r: sparse(r / "vllm" / "fingerprint.txt", 64 << 20),
         "vllm/fingerprint.txt", "too large (64.0 MiB, more than the 16.0 MiB"),
    # --- links that lead out of the round, for every input
    Case("link-out-fingerprint", lambda r: link(r / "vllm" / "fingerprint.txt", secret(r)),
         "vllm/fingerprint.txt", "a link that leads out of the round folder"),
    Case("link-out-narrative", lambda r: link(r / "narrative" / "next.en.md", secret(r)),
         "narrative/next.en.md", "a link that leads out of the round folder", check=False),
    Case("link-out-round-toml", lambda r: link(r / "round.toml", secret(r)), "round.toml",
         "a link that leads out of the round folder"),
    Case("link-out-scrape", lambda r: link(r / "vllm" / "metrics" / "c1-after.prom", secret(r)),
         "vllm/metrics/c1-after.prom", "a link that leads out of the round folder"),
    # --- encodings
    Case("gzip-json", lambda r: v8(r).write_bytes(gzip.compress(v8(r).read_bytes(), mtime=0)),
         "vllm/bench/", "gzip-compressed; decompress it first"),
    Case("utf16-json", lambda r: v8(r).write_bytes(v8(r).read_text("utf-8").encode("utf-16")),
         "vllm/bench/", "UTF-16 text; save it as UTF-8"),
    Case("utf16-json-no-bom",
         lambda r: v8(r).write_bytes(v8(r).read_text("utf-8").encode("utf-16-le")),
         "vllm/bench/", "UTF-16 text"),
    Case("utf16-round-toml",
         lambda r: (r / "round.toml").write_bytes((r / "round.toml").read_text("utf-8")
                                                  .encode("utf-16")), "round.toml", "UTF-16"),
    # --- numbers and nesting the stdlib parser cannot hold
    Case("json-nested-100000",
         lambda r: write_json_text(v8(r), '{"duration": 1, "completed": 1, "x": '
                                   + "[" * 100_000 + "]" * 100_000 + "}"),
         "vllm/bench/", "nested too deeply"),
    Case("json-int-400-digits",
         lambda r: write_json_text(v8(r), v8(r).read_text("utf-8").replace(
             '"total_input_tokens": ', '"total_input_tokens": ' + "9" * 399, 1)),
         "vllm/bench/", "a number with 4"),
    Case("json-int-5000-digits",
         lambda r: write_json_text(v8(r), v8(r).read_text("utf-8").replace(
             '"total_input_tokens": ', '"total_input_tokens": ' + "9" * 5000, 1)),
         "vllm/bench/", "digits (at most 20 are read)"),
    Case("json-nan-string", lambda r: edit_json(v8(r), median_itl_ms="NaN"), "vllm/bench/",
         "key 'median_itl_ms': expected a number, got 'NaN'"),
    Case("json-client-not-string", lambda r: edit_json(v8(r), client=5), "vllm/bench/",
         "key 'client': expected a string, got 5"),
    Case("toml-int-400-digits",
         lambda r: toml_line(r, "memory_gib = 24", "memory_gib = " + "9" * 400), "round.toml:15",
         "[hardware.memory_gib]: expected a number up to 1,000,000,000,000,000, got an integer "
         "of 400 digits"),
    Case("toml-int-5000-digits",
         lambda r: toml_line(r, "memory_gib = 24", "memory_gib = " + "9" * 5000), "round.toml",
         "an integer of more than 4,300 digits"),
    Case("toml-nested",
         lambda r: toml_line(r, "memory_gib = 24", "x = " + "[" * 5000 + "]" * 5000),
         "round.toml", "nested too deeply"),
    Case("toml-bandwidth-1e308",
         lambda r: toml_line(r, "bandwidth_gb_s = 1008", "bandwidth_gb_s = 1e308"),
         "round.toml:14", "[hardware.bandwidth_gb_s]: expected a value up to 1,000,000"),
    Case("toml-date-not-string", lambda r: toml_line(r, 'date = "2026-11-20"', "date = 5"),
         "round.toml:9", "[round.date]: expected a date (2026-11-20) or a string, got 5"),
    Case("toml-client-not-string",
         lambda r: toml_line(r, 'client = "vllm bench serve"', "client = [1]"),
         "round.toml:10", "[round.client]: expected a non-empty string, got [1]"),
    Case("toml-empty-title",
         lambda r: (r / "round.toml").write_text(re.sub(
             r"(?m)^title = .*$", 'title = { zh = "", en = "" }',
             (r / "round.toml").read_text("utf-8"), count=1), encoding="utf-8"),
         "round.toml:6", "[round.title.zh]: expected a non-empty string, got ''"),
    # --- non-UTF-8 file names are shown, not a UnicodeEncodeError
    Case("non-utf8-file-name", non_utf8_copy, "vllm/bench/",
         "concurrency 8 appears twice for engine 'vllm': round/vllm/bench/caf\\xe9.json"),
    # --- narrative images
    Case("image-outside-round",
         lambda r: (secret(r).with_suffix(".png").write_bytes(PNG),
                    narrative(r, "next.en.md", "text\n\n![x](../../secret.png)\n")),
         "narrative/next.en.md:3", "image '../../secret.png': leads out of the round folder",
         check=False),
    Case("image-link-outside-round",
         lambda r: (secret(r).with_suffix(".png").write_bytes(PNG),
                    link(r / "narrative" / "a.png", r.parent / "secret.png"),
                    narrative(r, "next.en.md", "![x](a.png)\n")),
         "narrative/next.en.md:1", "image 'a.png': a link that leads out", check=False),
    Case("image-too-large",
         lambda r: ((r / "narrative" / "big.png").write_bytes(PNG + bytes(600 << 10)),
                    narrative(r, "next.en.md", "![x](big.png)\n")),
         "narrative/next.en.md:1", "image 'big.png': too large", check=False),
    Case("image-missing", lambda r: narrative(r, "next.en.md", "![x](nope.png)\n"),
         "narrative/next.en.md:1", "image 'nope.png': file not found", check=False),
    Case("image-not-an-image",
         lambda r: ((r / "narrative" / "x.png").write_text("<svg/>"),
                    narrative(r, "next.en.md", "![x](x.png)\n")),
         "narrative/next.en.md:1", "not a PNG, JPEG, GIF or WebP file", check=False),
]


def _subprocess(*args: str, env: dict[str, str] | None = None, timeout: float = 120
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reportgen", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})},
                          cwd=REPO)


def _invoke(case_subprocess: bool, *args: str) -> tuple[int, str, str]:
    if case_subprocess:
        done = _subprocess(*args)
        return done.returncode, done.stdout, done.stderr
    result = run(*args)
    assert_no_traceback(result)
    return result.exit_code, result.stdout, result.stderr


def test_catalogue_ids_are_unique() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, workdir: Workdir) -> None:
    root, out = workdir
    case.mutate(root)
    report = out / "report.html"
    start = time.perf_counter()
    code, stdout, stderr = _invoke(case.subprocess, "build", str(root), "-q", "-o", str(report))
    assert time.perf_counter() - start < 60
    assert "Traceback" not in stderr, stderr[-2000:]
    assert code == 2, stderr[-2000:]
    assert stderr.startswith(f"Error: round/{case.where}"), stderr[:500]
    assert case.text in stderr, stderr[:500]
    assert stderr.count("\n") == 1 and len(stderr) < 1000  # one line
    assert stdout == ""
    assert "PRIVATE-SECRET" not in stderr
    assert report.read_bytes() == PREVIOUS
    assert sorted(os.listdir(out)) == ["report.html"]  # no temporary file left
    if case.check:
        check = _invoke(case.subprocess, "check", str(root))
        assert check[0] == 2 and check[2] == stderr


# ------------------------------------------------------------------ documented behaviours

def page_text(report: Path) -> str:
    return html.unescape(SCRIPT.sub("", report.read_text(encoding="utf-8")))


def build_ok(root: Path, out: Path, *extra: str) -> Path:
    report = out / "report.html"
    result = run("build", str(root), "-q", "-o", str(report), *extra)
    assert_no_traceback(result)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no RuntimeWarning, nothing under -q
    return report


def test_round_toml_with_a_bom_is_read(workdir: Workdir) -> None:
    root, out = workdir
    toml = root / "round.toml"
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes())
    assert "vLLM BF16 vs llama.cpp Q4_K_M" in page_text(build_ok(root, out))


def test_narrative_with_a_bom_keeps_its_headline(workdir: Workdir) -> None:
    root, out = workdir
    narrative(root, "next.en.md", b"\xef\xbb\xbf# A headline kept\n\nBody text.\n")
    text = page_text(build_ok(root, out, "--lang", "en"))
    assert "A headline kept" in text and "# A headline kept" not in text


def test_a_folder_named_like_a_narrative_file_is_not_a_misnamed_file(workdir: Workdir) -> None:
    root, out = workdir
    (root / "narrative" / "next.en.md").unlink(missing_ok=True)
    (root / "narrative" / "next.en.md").mkdir()
    build_ok(root, out)
    check = run("check", str(root))
    assert check.exit_code == 0, check.output
    assert "not a <section>" not in check.stdout and "next.en.md" not in check.stdout


def test_nan_and_inf_in_a_scrape_are_flagged(workdir: Workdir) -> None:
    root, out = workdir
    with (root / "vllm" / "metrics" / "c1-after.prom").open("a") as f:
        f.write("vllm:odd_gauge NaN\nvllm:odd_total +Inf\n")
    note = "round/vllm/metrics/c1-after.prom: 2 sample(s) are NaN or Inf (first: vllm:odd_gauge"
    assert note in page_text(build_ok(root, out))
    assert note in run("check", str(root)).stdout


def test_absurd_bandwidth_prints_no_numpy_warning(workdir: Workdir) -> None:
    """1e308 GB/s is refused (above); just below the limit the analysis stays silent."""
    root, out = workdir
    toml_line(root, "bandwidth_gb_s = 1008", "bandwidth_gb_s = 999999")
    build_ok(root, out)  # asserts an empty stderr: no RuntimeWarning


def test_non_utf8_round_folder_name(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / os.fsdecode(b"r\xe9und")
    shutil.copytree(REPO / "sample_runs" / "round2-rtx4090", root)
    (root / "round.toml").write_text(re.sub(r"(?m)^title = .*\n", "", (
        root / "round.toml").read_text("utf-8"), count=1), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    result = run("build", str(root), "-q", "-o", str(out / "report.html"))
    assert_no_traceback(result)
    assert result.exit_code == 0, result.output
    assert "r\\xe9und · benchmark report" in (out / "report.html").read_text("utf-8")
    check = run("check", str(root))
    assert_no_traceback(check)


def test_remote_image_is_a_link_with_a_note_and_local_image_is_embedded(
        workdir: Workdir) -> None:
    root, out = workdir
    (root / "narrative" / "img").mkdir()
    (root / "narrative" / "img" / "dot.png").write_bytes(PNG)
    narrative(root, "next.en.md", "# Next\n\n![remote chart](https://example.com/c.png)\n\n"
                                  "![proto](//example.com/p.png)\n\n![dot](img/dot.png)\n")
    raw = build_ok(root, out, "--lang", "en").read_text(encoding="utf-8")
    assert not re.search(r"<img[^>]+src=\"(?!data:)", raw)  # no image but a data: URI
    assert '<a href="https://example.com/c.png" rel="noreferrer noopener">remote chart</a>' in raw
    assert "remote image, not embedded: this page makes no network request" in raw
    assert '<a href="//example.com/p.png"' in raw
    embedded = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt="dot"', raw)
    assert embedded
    import base64

    assert base64.b64decode(embedded[0]) == PNG


def test_fingerprint_whitespace_line_is_linear(tmp_path: Path) -> None:
    path = tmp_path / "fingerprint.txt"
    path.write_text("engine: vllm 0.11\n" + "a" + " " * 60_000 + "!\nx:" + " " * 60_000 + "y\n",
                    encoding="utf-8")
    start = time.perf_counter()
    fp = parse_fingerprint(path)
    assert time.perf_counter() - start < 1.0  # 31 s before the KEY_VALUE fix
    assert fp.values == {"engine": "vllm 0.11", "x": "y"}


# ------------------------------------------------------------------ output-path policy

def test_output_that_is_an_input_of_the_round_is_refused(workdir: Workdir) -> None:
    root, _ = workdir
    for target in (root / "round.toml", v8(root), root / "vllm" / ".." / "round.toml"):
        before = target.read_bytes()
        result = run("build", str(root), "-q", "-o", str(target))
        assert_no_traceback(result)
        assert result.exit_code == 2
        assert result.stderr == (f"Error: {target}: is a file of the round folder, not an "
                                 ".html report; refused so no input is overwritten (choose "
                                 "another -o)\n")
        assert target.read_bytes() == before
    assert not list(root.rglob("*.tmp"))


def test_output_inside_the_round_may_be_a_new_or_html_file(workdir: Workdir) -> None:
    root, _ = workdir
    for _ in range(2):  # new, then replaced
        result = run("build", str(root), "-q", "-o", str(root / "report.html"))
        assert result.exit_code == 0, result.output
    assert (root / "report.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_output_through_a_symlink_replaces_its_target(workdir: Workdir) -> None:
    root, out = workdir
    target = out / "real.html"
    target.write_bytes(b"old")
    (out / "link.html").symlink_to("real.html")
    result = run("build", str(root), "-q", "-o", str(out / "link.html"))
    assert result.exit_code == 0, result.output
    assert (out / "link.html").is_symlink()
    assert target.read_bytes().startswith(b"<!DOCTYPE html>")
    assert f"wrote {target}" in result.stdout
    # a link into the round is judged by its target: it may not lead to an input
    (out / "sneaky.html").symlink_to(root / "round.toml")
    refused = run("build", str(root), "-q", "-o", str(out / "sneaky.html"))
    assert refused.exit_code == 2 and "is a file of the round folder" in refused.stderr


def test_output_fifo_is_refused_without_blocking(workdir: Workdir) -> None:
    root, out = workdir
    os.mkfifo(out / "pipe")
    done = _subprocess("build", str(root), "-q", "-o", str(out / "pipe"), timeout=60)
    assert done.returncode == 2
    assert done.stderr == (f"Error: {out / 'pipe'}: is a FIFO (named pipe), not a regular "
                           "file; refused (the report is only written to a regular file, or to "
                           "stdout with -o -)\n")
    assert (out / "pipe").is_fifo()


def test_output_device_is_refused() -> None:
    """Only stat()-ed: the policy never opens or writes a device."""
    with pytest.raises(InputError, match="is a character device, not a regular file"):
        output_target(Path("/dev/null"))


def test_output_to_stdout(workdir: Workdir) -> None:
    root, out = workdir
    done = _subprocess("build", str(root), "-q", "-o", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<!DOCTYPE html>") and done.stdout.endswith("</html>\n")
    assert sorted(os.listdir(out)) == ["report.html"]


def test_previous_that_is_a_device_is_refused(workdir: Workdir) -> None:
    root, out = workdir
    result = run("build", str(root), "-q", "-o", str(out / "report.html"), "--previous",
                 "/dev/zero")
    assert_no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: /dev/zero: is a character device")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_signal_during_the_write_leaves_no_temp_file(workdir: Workdir,
                                                     sig: signal.Signals) -> None:
    root, out = workdir
    report = out / "report.html"
    proc = subprocess.Popen(
        [sys.executable, "-m", "reportgen", "build", str(root), "-q", "-o", str(report)],
        env={**os.environ, "REPORTGEN_TEST_WRITE_DELAY": "60"}, cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_dispositions)
    try:
        deadline = time.monotonic() + 90
        while not list(out.glob(".report.html.*.tmp")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the temporary file never appeared"
            time.sleep(0.05)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in stderr
    # ended as the signal ends a process (SIGINT: click's "Aborted!", exit 1)
    assert proc.returncode == (1 if sig == signal.SIGINT else -sig)
    assert sorted(os.listdir(out)) == ["report.html"]
    assert report.read_bytes() == PREVIOUS


# ------------------------------------------------------------------ the safe-read helper

@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_without_reading(device: str) -> None:
    for kind in safe_read.CAPS:
        with pytest.raises(InputError, match=f"^{device}: is a character device, not a regular"):
            safe_read.read_input(Path(device), device, kind)


def test_fifo_is_refused_without_opening(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p")
    for call in (lambda p: safe_read.read_input(p, "p", "bench"),
                 lambda p: safe_read.read_head(p, "p", 10),
                 lambda p: safe_read.check_input(p, "p")):
        with pytest.raises(InputError, match="is a FIFO"):
            call(tmp_path / "p")  # would block forever if it opened the FIFO


def test_sparse_file_fails_fast(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "big.json"
    sparse(path, 2 << 30)
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(InputError, match="too large"):
        safe_read.read_input(path, "big.json", "bench")
    assert time.perf_counter() - start < 1
    assert tracemalloc.get_traced_memory()[1] < 1 << 20
    tracemalloc.stop()


@pytest.mark.parametrize(("data", "expected"), [
    (b"\xef\xbb\xbf{}", b"{}"),
    (b"{}", b"{}"),
    (b"\x1f\x8b\x08\x00", "gzip-compressed"),
    ("{}".encode("utf-16"), "UTF-16 text"),
    ("{}".encode("utf-16-be"), "UTF-16 text"),
    ("{}".encode("utf-32"), "UTF-32 text"),
])
def test_encodings(data: bytes, expected: bytes | str) -> None:
    if isinstance(expected, bytes):
        assert safe_read.check_encoding(data, "f") == expected
    else:
        with pytest.raises(InputError, match=expected):
            safe_read.check_encoding(data, "f")


def test_printable_keeps_text_and_escapes_undecodable_bytes() -> None:
    assert safe_read.printable("显存 ok") == "显存 ok"
    assert safe_read.printable(os.fsdecode(b"caf\xe9")) == "caf\\xe9"


# ------------------------------------------------------------------ Plotly strings

def test_plotly_text_escapes_markup() -> None:
    assert plotly_text('<a href="https://x">x</a> & $y$') == \
        '&lt;a href="https://x"&gt;x&lt;/a&gt; &amp; &#36;y&#36;'
    assert plotly_text("vLLM BF16 · 显存") == "vLLM BF16 · 显存"  # ordinary labels unchanged


MARKUP = ('<a href="https://x">link</a>', '<span style="background:url(https://x)">s</span>')


def markup_round(root: Path) -> None:
    """Every round.toml string that can reach a figure carries both payloads."""
    payload = " ".join(MARKUP).replace('"', '\\"')
    text = (root / "round.toml").read_text(encoding="utf-8")
    text = text.replace('label = "vLLM BF16"', f'label = "vLLM {payload}"')
    text = text.replace('label = "llama.cpp Q4_K_M"',
                        f'label = {{ zh = "llama.cpp {payload}", en = "llama.cpp {payload}" }}')
    text = re.sub(r"(?m)^title = .*$", f'title = "T {payload}"', text, count=1)
    text = re.sub(r"(?m)^subtitle = .*$", f'subtitle = "S {payload}"', text)
    assert text.count(MARKUP[0].replace('"', '\\"')) == 5, "sample round.toml changed shape"
    (root / "round.toml").write_text(text, encoding="utf-8")


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_figure_json_has_no_markup_from_input(workdir: Workdir) -> None:
    root, out = workdir
    markup_round(root)
    raw = build_ok(root, out).read_text(encoding="utf-8")
    figs = json.loads(re.search(r'<script type="application/json" id="report-figs">(.*?)'
                                r"</script>", raw, re.DOTALL).group(1))
    strings = _strings(figs)
    assert any("vLLM &lt;a href=\"https://x\"&gt;link&lt;/a&gt;" in s for s in strings)
    assert any("&lt;span style=\"background:url(https://x)\"&gt;" in s for s in strings)
    for s in strings:
        assert not re.search(r"<(a|span)\b", s, re.IGNORECASE), s


def test_fifo_in_a_folder_read_by_content_is_skipped_not_opened(tmp_path: Path) -> None:
    """The auto-scan never opens a FIFO: it is listed as skipped and the build goes on."""
    import shutil

    root = tmp_path / "results"
    shutil.copytree(SAMPLE / "vllm" / "bench", root)
    os.mkfifo(root / "stuck.json")
    link(root / "elsewhere.json", secret(root))
    done = _subprocess("build", str(root), "-q", "-o", str(tmp_path / "report.html"),
                       timeout=120)
    assert done.returncode == 0, done.stderr
    check = _subprocess("check", str(root), timeout=120)
    assert check.returncode == 0, check.stderr
    assert "stuck.json" in check.stdout and "not a regular file" in check.stdout
    assert "elsewhere.json" in check.stdout and "leads out of the round folder" in check.stdout
