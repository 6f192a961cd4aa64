"""Issue 12 acceptance: every loader regex is linear on pathological lines, and no parser reads
more than its cap from an endless file.

The regexes are collected programmatically (every compiled pattern held by a module attribute,
or inside a dict / tuple / list attribute, of ``reportgen.load.*`` and of the modules that
parse input: discover, manifest, narrative, safe_read), so a new loader regex is timed without
anyone listing it here.
"""

from __future__ import annotations

import importlib
import io
import math
import os
import pkgutil
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reportgen.load
from reportgen.errors import InputError
from reportgen.files import safe_read

INPUT_MODULES = ("reportgen.load.discover", "reportgen.load.manifest", "reportgen.narrative",
                 "reportgen.files.safe_read")
LINE = 100_000
BUDGET_S = 0.5


def _patterns(value: object, name: str, depth: int = 0) -> list[tuple[str, re.Pattern]]:
    if isinstance(value, re.Pattern):
        return [(name, value)]
    if depth >= 2:
        return []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _patterns(v, f"{name}[{k!r}]", depth + 1)]
    if isinstance(value, list | tuple):
        return [p for i, v in enumerate(value) for p in _patterns(v, f"{name}[{i}]", depth + 1)]
    return []


def loader_patterns() -> list[tuple[str, re.Pattern]]:
    modules = [f"reportgen.load.{m.name}" for m in pkgutil.iter_modules(reportgen.load.__path__)]
    found: dict[int, tuple[str, re.Pattern]] = {}
    for module_name in (*modules, *INPUT_MODULES):
        module = importlib.import_module(module_name)
        for attr, value in vars(module).items():
            for name, pattern in _patterns(value, f"{module_name}.{attr}"):
                found.setdefault(id(pattern), (name, pattern))
    return sorted(found.values(), key=lambda p: p[0])


PATTERNS = loader_patterns()
BASES = (" ", "\t", "9", "a", "a ", "1.", "a=", "a:", ": ", "{", '"', "|", "[", "-", "x{",
         "\\")


def pathological(pattern: re.Pattern) -> list[str]:
    """100 KB lines: runs of blanks, digits, letters, separators, and of the pattern's own
    literal characters, each also with a character at the end that spoils a match."""
    source = pattern.pattern if isinstance(pattern.pattern, str) else \
        pattern.pattern.decode("latin-1")
    own = "".join(sorted({c for c in source if c.isprintable() and c not in "\\()[]?*+{}^$|"}))
    lines = []
    for base in (*BASES, own, own[:4], own[-4:]):
        if not base:
            continue
        run = (base * (LINE // len(base) + 1))[:LINE]
        lines += [run, run + "!", "a" + run + "!"]
    return lines


def test_the_collection_finds_the_loader_regexes() -> None:
    names = {name for name, _ in PATTERNS}
    assert len(PATTERNS) >= 90
    for known in ("reportgen.load.fingerprint.KEY_VALUE", "reportgen.narrative._PLACEHOLDER",
                  "reportgen.load.prometheus.LABEL_NAME", "reportgen.load.llama_log.TIMESTAMP",
                  "reportgen.load.vllm_log.PATTERNS['version']"):
        assert known in names


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[n for n, _ in PATTERNS])
def test_loader_regex_is_linear(name: str, pattern: re.Pattern) -> None:
    """Every start position is tried (finditer = repeated search), which is at least as hard as
    the match / search / sub each loader makes."""
    for line in pathological(pattern):
        subject: str | bytes = line if isinstance(pattern.pattern, str) else line.encode()
        elapsed = math.inf
        for _ in range(3):  # best of three: the machine is shared; a quadratic regex never
            start = time.perf_counter()  # gets lucky (100 KB costs it seconds every time)
            for i, _ in enumerate(pattern.finditer(subject)):
                if i > LINE:
                    break
            elapsed = min(elapsed, time.perf_counter() - start)
            if elapsed < BUDGET_S:
                break
        assert elapsed < BUDGET_S, f"{name} took {elapsed:.2f} s on {line[:12]!r}…"


# ------------------------------------------------------------------ endless files

class Endless(io.RawIOBase):
    """A file that never ends (as a file still being written, or a /proc file reporting size
    0): serves ``fill`` forever and counts what it served. ``fileno`` is the real, small file's,
    so fstat-based sizing sees what the OS reports."""

    def __init__(self, fd: int, fill: bytes) -> None:
        self.fd, self.fill, self.served, self.pos = fd, fill, 0, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buf: memoryview) -> int:  # type: ignore[override]
        n = len(buf)
        start = self.pos % len(self.fill)
        chunk = (self.fill * (n // len(self.fill) + 2))[start:start + n]
        buf[:n] = chunk
        self.pos += n
        self.served += n
        return n

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = offset if whence == 0 else self.pos + offset if whence == 1 else 1 << 62
        return self.pos

    def tell(self) -> int:
        return self.pos

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()


def _loaders() -> dict[str, Callable[[Path], object]]:
    from reportgen.load.bench_json import load_bench_file
    from reportgen.load.fingerprint import parse_fingerprint
    from reportgen.load.llama_log import parse_llama_log
    from reportgen.load.manifest import parse_manifest
    from reportgen.load.nvidia_smi import load_gpu_csv
    from reportgen.load.prometheus import parse_prometheus
    from reportgen.load.vllm_log import parse_vllm_log
    from reportgen.narrative import load_narrative
    from reportgen.reference.gpus import lookup_gpu

    return {
        "bench": load_bench_file,
        "vllm_log": parse_vllm_log,
        "llama_log": parse_llama_log,
        "fingerprint": parse_fingerprint,
        "gpu_csv": load_gpu_csv,
        "metrics": parse_prometheus,
        "round.toml": lambda p: parse_manifest(p, lookup_gpu),
        "narrative": lambda p: load_narrative(p.parent.parent, {}),
    }


LOADERS = _loaders()
FILLS = [b" ", b"9", b"\n", b"a", b"{", b'{"duration": 1, ', b"[" , b"# HELP x\n", b"x 1\n",
         b"| 0  NVIDIA ", b"slot print_timing: id 0 | task 1 | \n"]


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(LOADERS)), fill=st.sampled_from(FILLS),
       cap=st.integers(min_value=1 << 10, max_value=256 << 10))
def test_no_parser_reads_more_than_its_cap(kind: str, fill: bytes, cap: int,
                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each loader, fed an endless file, stops with "too large" having been served at most its
    cap plus one read buffer. The cap is lowered for the test (the mechanism is the same at
    1 GiB); the file on disk is small, so only the bounded read can stop it."""
    folder = tmp_path_factory.mktemp("endless") / "narrative"
    folder.mkdir()
    path = folder / ("next.en.md" if kind == "narrative" else "input")
    path.write_bytes(b"x")
    opened: list[Endless] = []

    def endless_open(p: Path, shown: str) -> io.BufferedReader:
        raw = Endless(os.open(p, os.O_RDONLY), fill)
        opened.append(raw)
        return io.BufferedReader(raw)

    limit = safe_read.CAPS[kind]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(safe_read, "_open_regular", endless_open)
        mp.setitem(safe_read.CAPS, kind, safe_read.Cap(cap, limit.what))
        with pytest.raises(InputError, match="too large"):
            LOADERS[kind](path)
    assert opened, "the loader did not read through reportgen.files.safe_read"
    # the cap + 1 bytes that prove the file too long, plus one buffered read-ahead
    assert sum(r.served for r in opened) <= cap + 1 + io.DEFAULT_BUFFER_SIZE
