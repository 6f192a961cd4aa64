"""A folder of many small result files in a real-world layout (nested, repeats, two
workloads, author files beside them), to time discovery and loading: linear in the files."""

from __future__ import annotations

import json
import random
from pathlib import Path

CONFIGS = ("h100-tp1", "h100-tp2", "a100-tp1", "a100-tp2")
WORKLOADS = ((1024, 128), (256, 1024))
TIERS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160, 192, 224, 256, 320, 384,
         448, 512, 640, 768, 1024)
REPEATS = 10


def result(conc: int, inp: int, out: int, rng: random.Random, stamp: int
           ) -> dict[str, object]:
    """One vllm bench serve --save-result payload (summary keys only), plausible numbers."""
    n = max(16, 4 * conc)
    step_ms = 10.0 + 0.05 * conc + rng.uniform(-0.2, 0.2)
    duration = n / conc * (out * step_ms / 1000.0 + inp / 20000.0)
    total_out = n * out
    return {
        "date": f"20261201-{stamp // 3600 % 24:02d}{stamp // 60 % 60:02d}{stamp % 60:02d}",
        "endpoint_type": "openai", "backend": "openai",
        "label": None, "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": n,
        "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
        "duration": duration, "completed": n, "failed": 0, "total_input_tokens": n * inp,
        "total_output_tokens": total_out, "request_throughput": n / duration,
        "request_goodput": None, "output_throughput": total_out / duration,
        "total_token_throughput": (n * (inp + out)) / duration,
        "max_output_tokens_per_s": total_out / duration * 1.2,
        "max_concurrent_requests": conc,
        **{f"{s}_{m}_ms": v for m, v in (("ttft", 50.0 + conc), ("tpot", step_ms),
                                         ("itl", step_ms), ("e2el", out * step_ms))
           for s in ("mean", "median", "p99")},
    }


def make(root: Path, seed: int = 7) -> int:
    """Write the folder; returns how many result files it holds (2,000)."""
    rng = random.Random(seed)
    count = 0
    for config in CONFIGS:
        for inp, out in WORKLOADS:
            folder = root / "results" / config / f"in{inp}-out{out}"
            folder.mkdir(parents=True, exist_ok=True)
            for conc in TIERS:
                for run in range(1, REPEATS + 1):
                    path = folder / f"random-in{inp}-out{out}-c{conc}-run{run}.json"
                    path.write_text(json.dumps(result(conc, inp, out, rng, 60 * count), indent=2))
                    count += 1
        (root / "results" / config / "summary.json").write_text(json.dumps({"n": REPEATS}))
        (root / "results" / config / "progress.log").write_text("RUN ...\n" * 100)
    (root / "README.md").write_text("# many files\n")
    return count
