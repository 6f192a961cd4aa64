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
    """``root/config/c{C}.json`` for each tier."""
    for conc, rate in zip(tiers, tok_s, strict=True):
        write_result(root / config / f"c{conc}.json", payload(conc, rate))
    return root
