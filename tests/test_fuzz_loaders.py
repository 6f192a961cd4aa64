"""Property-based fuzzing of every loader (issue 5): whatever bytes a harness writes, a loader
either returns or raises ``reportgen.errors.InputError``; no other exception escapes.

Inputs are random bytes and mutations of real seeds from the sample round: truncation, byte
flips, duplicated / dropped lines, and insertions of NaN, Infinity, huge and negative numbers,
odd unicode and invalid UTF-8. Deterministic (``derandomize``, no example database) and sized to
run in well under a minute.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError
from reportgen.load.bench_json import load_bench_file
from reportgen.load.fingerprint import parse_fingerprint
from reportgen.load.llama_log import parse_llama_log
from reportgen.load.manifest import parse_manifest
from reportgen.load.nvidia_smi import load_gpu_csv
from reportgen.load.prometheus import parse_prometheus
from reportgen.load.vllm_log import parse_vllm_log
from reportgen.narrative import load_narrative
from reportgen.reference.gpus import lookup_gpu
from reportgen.sources.diff import load_tables
from reportgen.text.bilingual import Bi

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"

FUZZ = settings(max_examples=500, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _head(path: Path, lines: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:lines])


def _detailed_bench_seed() -> bytes:
    """The --save-detailed C=1 result cut to 3 requests (every array, so it stays coherent)."""
    (path,) = (SAMPLE / "vllm" / "bench").glob("*-concurrency1-*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in data.items():
        if isinstance(value, list):
            data[key] = value[:3]
    data["num_prompts"] = data["completed"] = 3
    return json.dumps(data).encode()


def _first(folder: str, pattern: str) -> bytes:
    return next((SAMPLE / folder).glob(pattern)).read_bytes()


SEEDS: dict[str, list[bytes]] = {
    "bench": [_first("vllm/bench", "*-concurrency8-*.json"), _detailed_bench_seed(),
              # JSON Lines: two records
              _first("llamacpp/bench", "*-concurrency2-*.json").strip() + b"\n"
              + _first("llamacpp/bench", "*-concurrency4-*.json").strip() + b"\n"],
    "llama_log": [_head(SAMPLE / "llamacpp" / "server.log", 90)],
    "vllm_log": [(SAMPLE / "vllm" / "server.log").read_bytes()],
    "fingerprint": [(SAMPLE / "vllm" / "fingerprint.txt").read_bytes(),
                    (SAMPLE / "llamacpp" / "fingerprint.txt").read_bytes()],
    "gpu_csv": [_head(SAMPLE / "vllm" / "gpu.csv", 25)],
    "prometheus": [(SAMPLE / "vllm" / "metrics" / "c1-after.prom").read_bytes()],
    "manifest": [(SAMPLE / "round.toml").read_bytes()],
    "narrative": [p.read_bytes() for p in sorted((SAMPLE / "narrative").glob("*.md"))[:4]],
}

# What a broken harness or a hand edit puts into files.
TOKENS = [
    b"NaN", b"-NaN", b"nan", b"Infinity", b"-Infinity", b"inf", b"+Inf", b"1e400", b"-1e400",
    b"-1", b"-0", b"0", b"-3.5", b"99999999999999999999999999999", b"1e-400", b"null", b"true",
    b'""', b"[]", b"{}", b"[[", b"{{", b"}}", b"{{ x:pct }}", b"{{ setup.gpu }}", b"\"", b"'",
    b",", b":", b"=", b"|", b"\\", b"\t", b"\r\n", b"\n", b"\x00", b"\xff\xfe", b"\xc3",
    b"\xef\xbf\xbd", "é".encode(), "显存".encode(), "💥".encode(), "\u2028".encode(),
    b"\x1b[31m", b"[N/A]", b"MiB", b" %", b"# TYPE x counter", b"[[engines]]", b"[round]",
    b"print_timing: id  0 | task 0 | ", b"prompt eval time = ", b"eval time = ",
    b"total time = ", b"graphs reused = ", b"server is listening",
]
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(seeds)))
    for op in draw(st.lists(st.sampled_from(
            ["truncate", "flip", "dup_line", "drop_line", "insert", "number", "splice"]),
            min_size=1, max_size=4)):
        if not data:
            break
        pos = draw(st.integers(0, len(data) - 1))
        if op == "truncate":
            del data[pos:]
        elif op == "flip":
            data[pos] = draw(st.integers(0, 255))
        elif op in ("dup_line", "drop_line"):
            start = data.rfind(b"\n", 0, pos) + 1
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end + 1
            line = bytes(data[start:end])
            if op == "dup_line":
                data[start:start] = line * draw(st.integers(1, 3))
            else:
                del data[start:end]
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from(TOKENS))
        elif op == "number":  # replace one number with a hostile token
            numbers = list(NUMBER.finditer(data))
            if numbers:
                m = numbers[draw(st.integers(0, len(numbers) - 1))]
                data[m.start():m.end()] = draw(st.sampled_from(TOKENS[:20]))
        else:  # splice in random bytes
            data[pos:pos] = draw(st.binary(max_size=40))
    return bytes(data)


def inputs(kind: str) -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(max_size=600), mutated(SEEDS[kind]))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def only_input_errors(call: Callable[[], Any]) -> None:
    """The property: return normally, or raise InputError (with a file and a message)."""
    try:
        call()
    except InputError as exc:
        assert exc.path and exc.message
        assert exc.line is None or exc.line >= 1


FILE_LOADERS: dict[str, tuple[str, Callable[..., Any]]] = {
    "bench": ("result.json", load_bench_file),
    "llama_log": ("server.log", parse_llama_log),
    "vllm_log": ("server.log", parse_vllm_log),
    "fingerprint": ("fingerprint.txt", parse_fingerprint),
    "gpu_csv": ("gpu.csv", load_gpu_csv),
    "prometheus": ("c1-after.prom", parse_prometheus),
}


def _file_loader_test(kind: str) -> Callable[..., None]:
    filename, loader = FILE_LOADERS[kind]

    @FUZZ
    @given(data=inputs(kind))
    def test(scratch: Path, data: bytes) -> None:
        path = scratch / kind / filename
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        only_input_errors(lambda: loader(path, name=f"r/{filename}"))

    test.__name__ = f"test_{kind}_raises_only_input_errors"
    return test


test_bench_json_raises_only_input_errors = _file_loader_test("bench")
test_llama_log_raises_only_input_errors = _file_loader_test("llama_log")
test_vllm_log_raises_only_input_errors = _file_loader_test("vllm_log")
test_fingerprint_raises_only_input_errors = _file_loader_test("fingerprint")
test_nvidia_smi_raises_only_input_errors = _file_loader_test("gpu_csv")
test_prometheus_raises_only_input_errors = _file_loader_test("prometheus")


@FUZZ
@given(data=inputs("manifest"))
def test_manifest_raises_only_input_errors(scratch: Path, data: bytes) -> None:
    path = scratch / "manifest" / "round.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    only_input_errors(lambda: parse_manifest(path, lookup_gpu))


VALUES: dict[str, Any] = {
    "setup.gpu": "RTX 4090", "setup.output_tokens": 256, "crossover.concurrency": 8.25,
    "crossover.ratio_lower": math.nan, "tiers.vllm.c8.output_tok_s": 411.4,
    "tiers.llamacpp.c8.output_tok_s": 415.6, "engines.vllm.label": "vLLM",
    "engines.llamacpp.label": "llama.cpp", "engines.llamacpp.slots": None,
    "pair.a_label": Bi("甲", "a"), "tiers.llamacpp.c32.excluded": True,
    "throughput_drop.llamacpp.next_over_this": math.inf,
}
NARRATIVE_NAMES = ["crossover.en.md", "crossover.zh.md", "next.en.md", "summary.en.md",
                   "crossover.md", "README", ".hidden.md"]


@FUZZ
@given(data=inputs("narrative"), name=st.sampled_from(NARRATIVE_NAMES),
       text=st.text(max_size=200))
def test_narrative_raises_only_input_errors(scratch: Path, data: bytes, name: str,
                                            text: str) -> None:
    root = scratch / "narrative-round"
    shutil.rmtree(root, ignore_errors=True)
    (root / "narrative").mkdir(parents=True)
    (root / "narrative" / name).write_bytes(data)
    (root / "narrative" / "next.zh.md").write_text(text, encoding="utf-8", errors="replace")
    only_input_errors(lambda: load_narrative(root, VALUES))


@pytest.fixture(scope="module")
def report_html(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A small stand-in report: the report-data script is all `diff` reads back."""
    payload = json.dumps({"schema": "reportgen.tables/1", "values": {"n": 1.5},
                          "tiers": [{"engine": "a", "concurrency": 1, "output_tok_s": 61.9}]})
    return (f'<!DOCTYPE html><html><script type="application/json" id="report-data">'
            f"{payload}</script></html>").encode()


@FUZZ
@given(data=st.data())
def test_diff_report_loader_raises_only_input_errors(scratch: Path, report_html: bytes,
                                                     data: st.DataObject) -> None:
    raw = data.draw(st.one_of(st.binary(max_size=300), mutated([report_html])))
    path = scratch / "report.html"
    path.write_bytes(raw)
    only_input_errors(lambda: load_tables(path))


# Inputs that once escaped as other exceptions (found by this fuzzing, kept as regressions).
REGRESSIONS = [
    ("gpu_csv", b"timestamp, index, name, temperature.gpu\n"
                b"2026/11/18 13:50:01.229, Infinity, NVIDIA GeForce RTX 4090, 31\n",
     "field 'index': expected a number, got 'Infinity'"),
    ("gpu_csv", b"timestamp, power.draw [W]\n2024/10/30 18:42:34.09\x00, 22.51 W\n",
     "round/gpu.csv:2: timestamp '2024/10/30 18:42:34.09\\x00': expected"),  # StopIteration
    ("vllm_log", b"INFO non-default args: {{'model': 'm'}: 1}\n", None),  # unhashable key
    ("vllm_log", b"INFO non-default args: {'model': '\\S+'}\n", None),  # invalid escape
    ("bench", b'{"duration": 1, "completed": 2, "input_lens": [[], 1024]}',
     "key 'input_lens': expected a flat list of numbers"),  # ragged: numpy raised ValueError
    ("bench", b'{"duration": 1, "completed": 1, "itls": [[0.1, [0.2]]]}',
     "key 'itls': request 0: expected a flat list of numbers"),
    ("llama_log", b"slot print_timing: id  0 | task 0 | \n"  # a block the slow path reads
                  b"prompt eval time =  130.97 ms / 99999999999999999999999 tokens\n"
                  b"unrelated line\n"
                  b"       eval time = 2134.26 ms /   252 tokens\n"
                  b"      total time = 2265.24 ms /  1276 tokens\n",
     "number too large"),  # int64 overflow escaped as OverflowError
]


@pytest.mark.parametrize(("kind", "data", "message"), REGRESSIONS)
def test_regressions_found_by_fuzzing(scratch: Path, kind: str, data: bytes,
                                      message: str | None) -> None:
    filename, loader = FILE_LOADERS[kind]
    path = scratch / f"regression-{filename}"
    path.write_bytes(data)
    if message is None:
        loader(path, name=filename)  # a damaged args line is skipped, not fatal
    else:
        with pytest.raises(InputError) as exc:
            loader(path, name=f"round/{filename}")
        assert message in str(exc.value)


def test_seeds_load_cleanly(scratch: Path) -> None:
    """The unmutated seeds are valid input, so the mutations start from something real."""
    for kind, (filename, loader) in FILE_LOADERS.items():
        for seed in SEEDS[kind]:
            path = scratch / f"seed-{kind}-{filename}"
            path.write_bytes(seed)
            loader(path, name=filename)
    path = scratch / "seed-round.toml"
    path.write_bytes(SEEDS["manifest"][0])
    assert parse_manifest(path, lookup_gpu).engines
