"""A round of many configurations (a parameter sweep: tensor parallel × batch settings × …)
in the fixed layout, to time analysis and the page as the configuration count grows: they must
stay linear in it. Summary-only result files by default; ``--requests R`` adds
`--save-detailed` arrays of R requests per tier (ttfts, latencies, lengths, ITL gaps, errors:
16 requests give 12,288 requests and 3.1 M ITL gaps at 64 × 12, about 45 MB), so the
distributions, the SLO panel and their figures are drawn for every configuration.

    python benchmarks/many_configs.py OUT [--configs 64] [--tiers 12] [--requests 16]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

import numpy as np

TIERS = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
INPUT_TOKENS, OUTPUT_TOKENS = 1024, 256
KV_BYTES_PER_TOKEN = 57344  # Qwen2.5-7B, fp16 KV
WEIGHT_BYTES = 14_141_238_272


def _config(i: int, rng: random.Random) -> dict[str, float]:
    """One configuration's shape: a single-stream step and how batching wears it down. Knees
    spread over the tiers, so many curves cross one another (crossover work is real)."""
    return {"step_ms": 7.0 + 6.0 * rng.random(), "knee": 2.0 ** rng.uniform(1, 8),
            "power": rng.uniform(0.3, 0.9), "tp": (1, 2, 4, 8)[i % 4]}


def result(cfg: dict[str, float], conc: int, label: str, stamp: int) -> dict[str, object]:
    """One `vllm bench serve --save-result` payload (summary keys only), plausible numbers."""
    n = max(40, 8 * conc)
    step_ms = cfg["step_ms"] * (1.0 + (conc / cfg["knee"]) ** cfg["power"]) / 2.0
    prefill_s = INPUT_TOKENS / 10_000.0 * (1.0 + conc / 64.0)
    e2el_s = prefill_s + OUTPUT_TOKENS * step_ms / 1000.0
    duration = math.ceil(n / conc) * e2el_s
    total_out = n * OUTPUT_TOKENS
    return {
        "date": f"20261201-{stamp // 3600 % 24:02d}{stamp // 60 % 60:02d}{stamp % 60:02d}",
        "endpoint_type": "openai", "backend": "openai", "label": label,
        "model_id": "Qwen/Qwen2.5-7B-Instruct", "tokenizer_id": "Qwen/Qwen2.5-7B-Instruct",
        "num_prompts": n, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
        "duration": duration, "completed": n, "failed": 0,
        "total_input_tokens": n * INPUT_TOKENS, "total_output_tokens": total_out,
        "request_throughput": n / duration, "request_goodput": None,
        "output_throughput": total_out / duration,
        "total_token_throughput": n * (INPUT_TOKENS + OUTPUT_TOKENS) / duration,
        "max_output_tokens_per_s": total_out / duration * 1.2, "max_concurrent_requests": conc,
        **{f"{stat}_{metric}_ms": value * scale
           for metric, value in (("ttft", prefill_s * 1000.0), ("tpot", step_ms),
                                 ("itl", step_ms), ("e2el", e2el_s * 1000.0))
           for stat, scale in (("mean", 1.0), ("median", 1.0), ("p99", 1.6))},
    }


def detailed(cfg: dict[str, float], conc: int, requests: int,
             rng: np.random.Generator) -> dict[str, object]:
    """`--save-detailed` arrays of ``requests`` requests around the summary's model (log-normal
    steps and prefills, one request in 50 failed), and the summary keys they imply."""
    n = requests
    step_s = cfg["step_ms"] * (1.0 + (conc / cfg["knee"]) ** cfg["power"]) / 2000.0
    itl = np.round(step_s * rng.lognormal(0.0, 0.05, (n, OUTPUT_TOKENS - 1)), 6)
    ttft = np.round(INPUT_TOKENS / 10_000.0 * (1.0 + conc / 64.0)
                    * rng.lognormal(0.0, 0.2, n), 6)
    failed = rng.random(n) < 0.02
    latency = np.where(failed, 0.0, ttft + itl.sum(axis=1))
    ok = ~failed
    duration = float(math.ceil(n / conc) * latency.max() + 0.01)
    out = np.where(failed, 0, OUTPUT_TOKENS)
    total_out = int(out.sum())
    tpot = (latency[ok] - ttft[ok]) / (OUTPUT_TOKENS - 1)
    stats = {}
    for metric, values in (("ttft", ttft[ok]), ("tpot", tpot), ("itl", itl[ok].ravel()),
                           ("e2el", latency[ok])):
        ms = values * 1000.0
        stats |= {f"mean_{metric}_ms": float(ms.mean()),
                  f"median_{metric}_ms": float(np.median(ms)),
                  f"p99_{metric}_ms": float(np.percentile(ms, 99))}
    return {
        "num_prompts": n, "duration": duration, "completed": int(ok.sum()),
        "failed": int(failed.sum()), "total_input_tokens": int(ok.sum()) * INPUT_TOKENS,
        "total_output_tokens": total_out, "request_throughput": int(ok.sum()) / duration,
        "output_throughput": total_out / duration,
        "total_token_throughput": (int(ok.sum()) * INPUT_TOKENS + total_out) / duration,
        "max_output_tokens_per_s": total_out / duration * 1.2, **stats,
        "input_lens": [INPUT_TOKENS] * n, "output_lens": out.tolist(),
        "ttfts": np.where(failed, 0.0, ttft).tolist(), "latencies": latency.tolist(),
        "itls": [[] if bad else row for bad, row in zip(failed, itl.tolist(), strict=True)],
        "errors": ["Bad Request" if bad else "" for bad in failed],
    }


def make(root: Path, configs: int = 64, tiers: int = 12, seed: int = 13,
         requests: int = 0) -> int:
    """Write the round (round.toml + one folder per configuration); returns the file count.
    ``requests`` > 0: each file carries that many requests' arrays (see ``detailed``)."""
    rng = random.Random(seed)
    arrays = np.random.default_rng(seed)
    lines = ['[round]', f'title = "{configs} configurations × {tiers} tiers (synthetic)"',
             'date = "2026-12-01"', 'client = "vllm bench serve"', '',
             '[hardware]', 'gpu = "H100 SXM"', 'gpu_count = 8', '',
             '[workload]', f'input_tokens = {INPUT_TOKENS}', f'output_tokens = {OUTPUT_TOKENS}',
             'dataset = "random"', 'ignore_eos = true', '',
             '[model]', 'name = "Qwen2.5-7B-Instruct"',
             f'kv_bytes_per_token = {KV_BYTES_PER_TOKEN}', '']
    count = 0
    for i in range(configs):
        cfg = _config(i, rng)
        cid = f"cfg{i:03d}"
        label = f"vLLM tp{cfg['tp']} #{i}"
        bench = root / cid / "bench"
        bench.mkdir(parents=True, exist_ok=True)
        for conc in TIERS[:tiers]:
            payload = result(cfg, conc, label, 60 * count)
            if requests:
                payload |= detailed(cfg, conc, requests, arrays)
            (bench / f"openai-infqps-concurrency{conc}-{cid}.json").write_text(json.dumps(payload))
            count += 1
        lines += ['[[engines]]', f'id = "{cid}"', f'label = "{label}"', f'dir = "{cid}"',
                  'kind = "vllm"', f'tensor_parallel = {cfg["tp"]}',
                  f'weight_bytes_per_step = {WEIGHT_BYTES}', '']
    (root / "round.toml").write_text("\n".join(lines), encoding="utf-8")
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--configs", type=int, default=64)
    parser.add_argument("--tiers", type=int, default=12)
    parser.add_argument("--requests", type=int, default=0,
                        help="requests per tier with --save-detailed arrays (default: none)")
    args = parser.parse_args(argv)
    print(make(args.out, args.configs, args.tiers, requests=args.requests), "files",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
