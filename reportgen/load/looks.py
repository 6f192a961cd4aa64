"""What a file that holds no run looked like, in one phrase: the `skipped` list and the error
for a folder where nothing could be placed name each JSON and CSV file with it, so a user sees
why their results were not read ("vLLM-like JSON without output_throughput, completed or
duration; it has median_ttft_ms, p99_itl_ms")."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

NOT_RESULT = ("JSON without 'duration' and 'completed': not a benchmark result (an author's "
              "summary or metadata file?)")
KEY = re.compile(rb'"([A-Za-z_][A-Za-z0-9_.:]{0,60})"\s*:')
VLLM_METRIC = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_\w+_ms$")
VLLM_CORE = ("output_throughput", "completed", "duration")
DATA_SUFFIXES = (".json", ".jsonl", ".csv")
HEAD = 64 << 10


def _keys(head: bytes) -> list[str]:
    return list(dict.fromkeys(m.decode() for m in KEY.findall(head[:HEAD])))


def describe_json(head: bytes) -> str:
    """Why a JSON file is not a run, from the keys it has."""
    keys = _keys(head)
    have = set(keys)
    if {"avg_latency", "percentiles"} <= have:
        return ("vLLM benchmark_latency result (avg_latency, percentiles): offline batch "
                "latency with no serving throughput; listed, not plotted")
    if {"elapsed_time", "tokens_per_second"} <= have:
        return ("vLLM benchmark_throughput result (offline, no concurrency or latency); "
                "listed, not plotted")
    if b'"benchmarks"' in head[:HEAD] and (b"guidellm" in head[:HEAD].lower()
                                           or b'"scheduler' in head[:HEAD]):
        return "GuideLLM benchmarks.json, schema not supported"
    metrics = [k for k in keys if VLLM_METRIC.match(k)]
    if metrics:
        missing = [k for k in VLLM_CORE if k not in have]
        shown = ", ".join(metrics[:4]) + (" …" if len(metrics) > 4 else "")
        if missing:
            return (f"vLLM-like JSON without {', '.join(missing[:-1])}"
                    f"{' or ' if len(missing) > 1 else ''}{missing[-1]} (it has {shown}): "
                    "listed, not plotted (a file of TTFT / TPOT / ITL / E2EL statistics "
                    "alone is read for its latencies)")
    return NOT_RESULT


def describe_csv(head: bytes) -> str:
    """What a CSV file no reader claimed looked like: its columns."""
    first = head[:4096].split(b"\n", 1)[0].decode("utf-8", "replace").strip().lstrip("\ufeff")
    cols = [c.strip() for c in first.split(",") if c.strip()]
    shown = ", ".join(cols[:6]) + (" …" if len(cols) > 6 else "")
    return (f"CSV with columns {shown}: not a format this tool reads (a tidy import needs "
            "configuration, concurrency or request_rate and output_tok_s: see reportgen's "
            "docs/ROUNDS.md)"
            if cols else "empty CSV")


def data_first(entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """JSON, JSON Lines and CSV files first (where results usually are), others after, each
    group in path order."""
    def rank(rel: str) -> int:
        return 0 if PurePosixPath(rel).suffix.lower() in DATA_SUFFIXES else 1
    return sorted(entries, key=lambda e: (rank(e[0]), e[0]))
