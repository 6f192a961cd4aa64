"""Small generated rounds for the index benchmark and tests: ``count`` folders, each a
round.toml (title, date, GPU) and the `vllm bench serve --save-result` JSON of two engines at
four concurrency tiers. Each round is a few KB, so 1,000 of them stay cheap to make; the
numbers vary with the round's index so the trend figure has something to show. SYNTHETIC."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

TIERS = (1, 2, 4, 8)
ENGINES = (("vllm", "vLLM BF16", 900.0), ("sglang", "SGLang BF16", 1000.0))
GPUS = ("H100", "A100", "L40S")


def payload(conc: int, tok_s: float, model: str) -> dict[str, Any]:
    n = 4 * conc
    out_tokens = 128 * n
    duration = out_tokens / tok_s
    ttft = 50.0 + 5 * conc
    tpot = 8.0 + conc / 4
    metrics: dict[str, float] = {}
    for name, median in (("ttft", ttft), ("tpot", tpot), ("itl", tpot),
                         ("e2el", ttft + 127 * tpot)):
        metrics |= {f"mean_{name}_ms": median, f"median_{name}_ms": median,
                    f"std_{name}_ms": 1.0, f"p99_{name}_ms": 1.5 * median}
    return {"date": "20250301-101500", "backend": "vllm", "model_id": model,
            "num_prompts": n, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
            "duration": duration, "completed": n, "failed": 0, "total_input_tokens": 512 * n,
            "total_output_tokens": out_tokens, "request_throughput": n / duration,
            "output_throughput": tok_s, "total_token_throughput": 5 * out_tokens / duration,
            "max_output_tokens_per_s": tok_s * 1.2, "max_concurrent_requests": conc, **metrics}


def write_round(folder: Path, i: int) -> None:
    """Round ``i``: dated one day after round ``i - 1``."""
    folder.mkdir(parents=True, exist_ok=True)
    date = dt.date(2024, 1, 1) + dt.timedelta(days=i)
    gpu = GPUS[i % len(GPUS)]
    lines = ["[round]", f'title = "Nightly {i:04d} · {gpu}"', f'date = "{date.isoformat()}"',
             'client = "vllm bench serve"', "", "[hardware]", f'gpu = "{gpu}"', "",
             "[workload]", "input_tokens = 512", "output_tokens = 128", ""]
    for eid, label, _ in ENGINES:
        lines += ["[[engines]]", f'id = "{eid}"', f'label = "{label}"', f'dir = "{eid}"',
                  'kind = "vllm"', ""]
    (folder / "round.toml").write_text("\n".join(lines), encoding="utf-8")
    for e, (eid, _, base) in enumerate(ENGINES):
        d = folder / eid / "bench"
        d.mkdir(parents=True, exist_ok=True)
        for conc in TIERS:
            tok_s = base * conc ** (0.8 + 0.05 * e) * (1 + 0.02 * (i % 7))
            (d / f"c{conc}.json").write_text(
                json.dumps(payload(conc, tok_s, "Qwen/Qwen2.5-7B-Instruct")), encoding="utf-8")


def generate(root: Path, count: int, start: int = 0) -> list[Path]:
    out = []
    for i in range(start, start + count):
        folder = root / f"nightly-{i:04d}"
        if not (folder / "round.toml").is_file():
            write_round(folder, i)
        out.append(folder)
    return out
