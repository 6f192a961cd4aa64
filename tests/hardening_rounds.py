"""Tiny zero-config rounds for the hardening catalogues: `vllm bench serve --save-result`
payloads with hand-checkable numbers (100 output tokens per request)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def payload(conc: int, tok_s: float = 100.0, n: int | None = None,
            **override: Any) -> dict[str, Any]:
    """A result JSON of ``n`` (default 4·conc) requests at ``tok_s`` output tokens per second."""
    n = n or 4 * conc
    out_tokens = 100 * n
    duration = out_tokens / tok_s
    metrics: dict[str, float] = {}
    for name, value in (("ttft", 100.0 + conc), ("tpot", 10.0), ("itl", 10.0),
                        ("e2el", 1090.0 + conc)):
        metrics |= {f"mean_{name}_ms": value, f"median_{name}_ms": value,
                    f"std_{name}_ms": 1.0, f"p99_{name}_ms": 1.5 * value}
    data = {
        "date": f"20250301-1015{conc:02d}", "backend": "vllm", "label": None,
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": n,
        "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
        "duration": duration, "completed": n, "failed": 0,
        "total_input_tokens": 1000 * n, "total_output_tokens": out_tokens,
        "request_throughput": n / duration, "output_throughput": tok_s,
        "total_token_throughput": 1100 * n / duration, **metrics,
    }
    data.update(override)
    return data


def write_result(path: Path, data: dict[str, Any], *, bom: bool = False,
                 jsonl: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data) + "\n" if jsonl else json.dumps(data, indent=2)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def sweep(root: Path, config: str = "vllm", tiers: tuple[int, ...] = (1, 4, 16),
          tok_s: tuple[float, ...] = (100.0, 300.0, 600.0)) -> Path:
    """``root/config/c{C}.json`` for each tier (each configuration started at its own hour)."""
    hour = 10 + sum(map(ord, config)) % 10
    for conc, rate in zip(tiers, tok_s, strict=True):
        write_result(root / config / f"c{conc}.json",
                     payload(conc, rate, date=f"20250301-{hour}15{conc:02d}"))
    return root


def console(data: dict[str, Any]) -> str:
    """``vllm bench serve``'s printed result block for ``data`` (its own format strings:
    counts as they are, every float with two decimals)."""
    def row(label: str, value: object) -> str:
        return "{:<40} {:<10}".format(label, value)  # noqa: UP032 - vLLM's own string

    def row2(label: str, value: float) -> str:
        return "{:<40} {:<10.2f}".format(label, value)  # noqa: UP032 - vLLM's own string

    lines = [f"Traffic request rate: {data['request_rate']}",
             f"Maximum request concurrency: {data['max_concurrency']}",
             "{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="),
             row("Successful requests:", data["completed"]),
             row("Failed requests:", data.get("failed", 0)),
             row("Maximum request concurrency:", data["max_concurrency"]),
             row2("Benchmark duration (s):", data["duration"]),
             row("Total input tokens:", data["total_input_tokens"]),
             row("Total generated tokens:", data["total_output_tokens"]),
             row2("Request throughput (req/s):", data["request_throughput"]),
             row2("Output token throughput (tok/s):", data["output_throughput"]),
             row2("Total token throughput (tok/s):", data["total_token_throughput"])]
    for key, title, name in (("ttft", "Time to First Token", "TTFT"),
                             ("tpot", "Time per Output Token (excl. 1st token)", "TPOT"),
                             ("itl", "Inter-token Latency", "ITL"),
                             ("e2el", "End-to-end Latency", "E2EL")):
        lines += ["{s:{c}^{n}}".format(s=title, n=50, c="-"),
                  row2(f"Mean {name} (ms):", data[f"mean_{key}_ms"]),
                  row2(f"Median {name} (ms):", data[f"median_{key}_ms"]),
                  row2(f"P99 {name} (ms):", data[f"p99_{key}_ms"])]
    lines.append("=" * 50)
    return "\n".join(lines) + "\n"
