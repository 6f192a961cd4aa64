"""``vllm serve`` log → startup facts (weights, KV pool, CUDA graphs, engine arguments).

Lines are cleaned before matching: ANSI colours, ``(APIServer pid=…)`` / ``(EngineCore_0
pid=…)`` / ``(RayWorkerWrapper pid=…, ip=…)`` process prefixes and Ray's ``[repeated Nx across
cluster]`` suffix are dropped, and terminal copies hard-wrapped at a fixed width are re-joined.
Every field is optional; ``provenance[field]`` is the ``file:line`` it came from.

With tensor parallelism every rank logs its own weights / KV lines: the first one in the file
is kept (per-GPU values, not summed) and ``ranks`` records how many GPUs the engine used.

Units: vLLM prints ``GB`` in older builds but computes ``bytes / 2**30`` there (e.g.
``Loading model weights took %.4f GB``, ``model_memory_usage / float(2**30)``), so a ``GB``
figure is already GiB; it is taken as is and the provenance says so.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.errors import Finding
from reportgen.files.safe_read import read_input

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
RAY_REPEAT = re.compile(r"(?<![ \t])[ \t]*\[repeated \d+x across cluster\]")
PREFIX = re.compile(r"^(?:\((?:[A-Za-z_][\w ]*?)?[ ]*pid=\d+(?:, ip=[\d.:a-fA-F]+)?\)[ \t]*)+",
                    re.MULTILINE)
NUM = r"(\d[\d,]*(?:\.\d+)?)"

KIND = "vllm_log"  # its size cap in reportgen.files.safe_read.CAPS
CONFIG_ITEM = re.compile(r"(?:^|, )([a-z_]+)=('[^']*'|[^,{}()]*)(?=, |$)")  # engine config
ARGS_ITEM = re.compile(r"'(\w+)': '?([^',}]+)'?")  # one item of a printed args dict

PATTERNS: dict[str, re.Pattern[str]] = {
    "version": re.compile(r"vLLM API server version (\S+)"),
    "engine_version": re.compile(r"Initializing a V\d LLM engine \(v([^)\s]+)\)"),
    "weights": re.compile(
        r"(?:Model loading|Loading model weights) took " + NUM + r" (GiB|GB)(?: memory)?"
        r"(?: and " + NUM + r" seconds)?"
    ),
    "kv_cache_gib": re.compile(r"Available KV cache memory: " + NUM + r" (GiB|GB)"),
    "kv_cache_tokens": re.compile(r"GPU KV cache size: " + NUM + r" tokens"),
    "max_concurrency": re.compile(
        r"Maximum concurrency for " + NUM + r" tokens per request: " + NUM + r"x"
    ),
    "graphs": re.compile(
        r"Graph capturing finished in " + NUM + r" secs?, took " + NUM + r" (GiB|GB)"
    ),
    "num_gpu_blocks": re.compile(r"num_gpu_blocks is: " + NUM),
    "world_size": re.compile(r"rank \d+ in world size (\d+)"),
    "args": re.compile(r"non-default args: (\{.*\})"),
    "config": re.compile(r"with config: (.*)"),
    "chunked": re.compile(r"Chunked prefill is enabled"),
}
# keys read from the non-default args dict (or the engine config line)
ARG_FIELDS = {
    "model": "model",
    "dtype": "dtype",
    "gpu_memory_utilization": "gpu_memory_utilization",
    "max_num_seqs": "max_num_seqs",
    "enable_chunked_prefill": "enable_chunked_prefill",
    "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size",
    "max_model_len": "max_model_len",
    "quantization": "quantization",
    "kv_cache_dtype": "kv_cache_dtype",
}
CONFIG_FIELDS = {
    "model": "model", "dtype": "dtype", "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size", "max_seq_len": "max_model_len",
    "quantization": "quantization", "kv_cache_dtype": "kv_cache_dtype",
    "chunked_prefill_enabled": "enable_chunked_prefill",
}
WRAP_MIN_WIDTH = 80
WRAP_MIN_LINES = 3
WRAP_SLACK = 16
RECORD_START = re.compile(r"\(|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\b|[A-Z][a-z]+ |$")


@dataclass
class VllmLog:
    path: str
    version: str | None = None
    model: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    kv_cache_dtype: str | None = None
    max_model_len: int | None = None
    weights_gib: float | None = None
    weights_load_s: float | None = None
    kv_cache_gib: float | None = None
    kv_cache_tokens: int | None = None
    num_gpu_blocks: int | None = None
    max_concurrency_x: float | None = None
    max_concurrency_tokens: int | None = None
    graph_memory_gib: float | None = None
    graph_capture_s: float | None = None
    gpu_memory_utilization: float | None = None
    max_num_seqs: int | None = None
    enable_chunked_prefill: bool | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    ranks: int | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _records(text: str) -> tuple[list[str], list[int]]:
    """Cleaned logical lines and the 1-based physical line each starts on.

    A terminal copy hard-wrapped at a fixed width shows many lines of exactly the maximum
    length; such a line always continues on the next one. The first piece of a wrapped record
    can be a little shorter (the copy tool dropped a prefix), so a line close to the width is
    joined too unless the next line starts a new record."""
    text = ANSI.sub("", text)
    lines = [line.rstrip("\r") for line in text.split("\n")]
    widths = [len(line) for line in lines]
    width = max(widths, default=0)
    wrapped = width >= WRAP_MIN_WIDTH and widths.count(width) >= WRAP_MIN_LINES
    records: list[str] = []
    starts: list[int] = []
    for i, line in enumerate(lines):
        prev = widths[i - 1] if i else 0
        if wrapped and records and (
            prev == width or (prev >= width - WRAP_SLACK and not RECORD_START.match(line))
        ):
            records[-1] += line
            continue
        records.append(line)
        starts.append(i + 1)
    joined = RAY_REPEAT.sub("", PREFIX.sub("", "\n".join(records)))
    return joined.split("\n"), starts


def _coerce(key: str, value: Any) -> Any:
    if value is None:
        return None
    if key in ("gpu_memory_utilization",):
        return float(value)
    if key in ("max_num_seqs", "tensor_parallel_size", "pipeline_parallel_size", "max_model_len"):
        return int(value)
    if key == "enable_chunked_prefill":
        return value if isinstance(value, bool) else str(value).lower() == "true"
    if key in ("dtype", "kv_cache_dtype"):
        text = str(value)
        return text.removeprefix("torch.")
    text = str(value)
    return None if text in ("None", "") else text


def _config_items(text: str) -> dict[str, str]:
    """``key=value`` pairs of the top level of the engine config line (nested {…}/(…) skipped)."""
    out: dict[str, str] = {}
    for m in CONFIG_ITEM.finditer(text):
        out.setdefault(m.group(1), m.group(2).strip("'"))  # nested configs come later
    return out


def parse_vllm_log(path: Path, *, name: str | None = None) -> VllmLog:
    """Read a ``vllm serve`` log. ``name`` is how the file is shown in errors and provenance."""
    shown = str(path) if name is None else name
    raw = read_input(path, shown, KIND)
    text = raw.decode("utf-8", errors="replace")
    log = VllmLog(path=shown)
    if "\ufffd" in text and b"\xef\xbf\xbd" not in raw:
        log.findings.append(Finding(shown, "bytes that are not UTF-8 were replaced while reading"))

    records, starts = _records(text)
    # restarts appended to one file: describe the last server start
    begin = 0
    version_at = [i for i, r in enumerate(records) if "vLLM API server version" in r]
    if len(version_at) > 1:
        begin = version_at[-1]
        log.findings.append(Finding(
            shown, f"{len(version_at)} server starts in one log; facts are read from the last "
            "one", starts[begin],
        ))
    body = "\n".join(records[begin:])
    offsets = [0]
    for r in records[begin:-1]:
        offsets.append(offsets[-1] + len(r) + 1)

    def line_no(pos: int) -> int:
        return starts[begin + bisect.bisect_right(offsets, pos) - 1]

    def line_of(pos: int) -> str:
        return f"{shown}:{line_no(pos)}"

    def first(key: str) -> re.Match[str] | None:
        return PATTERNS[key].search(body)

    def put(attr: str, value: Any, m: re.Match[str], note: str = "") -> None:
        if value is None or getattr(log, attr) is not None:
            return
        setattr(log, attr, value)
        log.provenance[attr] = line_of(m.start()) + note

    if m := first("version"):
        put("version", m.group(1), m)
    if m := first("engine_version"):
        put("version", m.group(1), m)
    if m := first("args"):
        try:
            with warnings.catch_warnings():  # odd escapes in a damaged line warn, then parse
                warnings.simplefilter("ignore")
                args = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            args = {k: v for k, v in ARGS_ITEM.findall(m.group(1))}
        if isinstance(args, dict):
            for key, attr in ARG_FIELDS.items():
                if key in args:
                    try:
                        put(attr, _coerce(attr, args[key]), m)
                    except (TypeError, ValueError):
                        log.findings.append(Finding(
                            shown, f"non-default args: cannot read {key}={args[key]!r}",
                            line_no(m.start()),
                        ))
    if m := first("config"):
        items = _config_items(m.group(1))
        for key, attr in CONFIG_FIELDS.items():
            if key in items:
                # the config line is advisory; a value we cannot read stays None
                with contextlib.suppress(TypeError, ValueError):
                    put(attr, _coerce(attr, items[key]), m)
    if log.enable_chunked_prefill is None and (m := first("chunked")):
        put("enable_chunked_prefill", True, m)

    if m := first("weights"):
        note = "" if m.group(2) == "GiB" else \
            " (printed as 'GB'; vLLM computes bytes / 2**30 there, so the value is GiB)"
        put("weights_gib", _num(m.group(1)), m, note)
        if m.group(3):
            put("weights_load_s", _num(m.group(3)), m)
    if m := first("kv_cache_gib"):
        note = "" if m.group(2) == "GiB" else " (printed as 'GB', value in GiB)"
        put("kv_cache_gib", _num(m.group(1)), m, note)
    if m := first("kv_cache_tokens"):
        put("kv_cache_tokens", int(_num(m.group(1))), m)
    if m := first("max_concurrency"):
        put("max_concurrency_tokens", int(_num(m.group(1))), m)
        put("max_concurrency_x", _num(m.group(2)), m)
    if m := first("graphs"):
        put("graph_capture_s", _num(m.group(1)), m)
        put("graph_memory_gib", _num(m.group(2)), m)
    if m := first("num_gpu_blocks"):
        put("num_gpu_blocks", int(_num(m.group(1))), m)

    world = [int(w) for w in PATTERNS["world_size"].findall(body)]
    if world:
        m = PATTERNS["world_size"].search(body)
        assert m is not None   # findall found it
        put("ranks", max(world), m)
    elif log.tensor_parallel_size is not None:
        log.ranks = log.tensor_parallel_size * (log.pipeline_parallel_size or 1)
        log.provenance["ranks"] = log.provenance["tensor_parallel_size"]
    return log
