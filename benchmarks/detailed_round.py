"""A round of many configurations with `vllm bench serve --save-detailed` arrays (issue 35):
64 configurations × 12 tiers × 400 requests (307,200 requests) whose ``itls`` hold ~39 M
gaps in all, from a seed (same arguments → same bytes), in the fixed layout of
benchmarks/many_configs.py (round.toml + one folder per configuration).

    python benchmarks/detailed_round.py OUT [--configs 64] [--tiers 12] [--requests 400]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import orjson

from benchmarks import many_configs

OUTPUT_MEAN = 128   # output tokens 64 … 192: 127 gaps a request on average


def _record(cfg: dict[str, float], conc: int, label: str, stamp: int, requests: int,
            rng: np.random.Generator) -> dict[str, object]:
    """The summary keys of many_configs.result plus the per-request arrays, plausible."""
    payload = many_configs.result(cfg, conc, label, stamp)
    step_s = float(payload["median_itl_ms"]) / 1000.0  # type: ignore[arg-type]
    ttft_s = float(payload["median_ttft_ms"]) / 1000.0  # type: ignore[arg-type]
    out = rng.integers(OUTPUT_MEAN // 2, OUTPUT_MEAN * 3 // 2 + 1, requests)
    gaps = np.round(rng.lognormal(np.log(step_s), 0.25, int((out - 1).sum())), 9)
    ttfts = np.round(rng.lognormal(np.log(ttft_s), 0.4, requests), 9)
    ends = np.cumsum(out - 1)
    sums = np.add.reduceat(gaps, np.r_[0, ends[:-1]]) if requests else gaps
    latencies = np.round(ttfts + sums, 9)
    duration = float(latencies.sum() / conc + 1.0)
    total_out = int(out.sum())
    payload.update({
        "num_prompts": requests, "completed": requests, "failed": 0, "duration": duration,
        "total_input_tokens": requests * many_configs.INPUT_TOKENS,
        "total_output_tokens": total_out, "request_throughput": requests / duration,
        "output_throughput": total_out / duration,
        "total_token_throughput": (requests * many_configs.INPUT_TOKENS + total_out) / duration,
        "input_lens": np.full(requests, many_configs.INPUT_TOKENS, dtype=np.int64),
        "output_lens": out.astype(np.int64), "ttfts": ttfts, "latencies": latencies,
        "itls": np.split(gaps, ends[:-1]), "errors": [""] * requests,
        "generated_texts": [""] * requests,
    })
    return payload


def make(root: Path, configs: int = 64, tiers: int = 12, requests: int = 400,
         seed: int = 35) -> tuple[int, int]:
    """Write the round; returns (files, ITL values)."""
    many_configs.make(root, configs, tiers, seed)   # round.toml and the folders
    rng = np.random.default_rng(seed)
    pyrng = __import__("random").Random(seed)
    files = values = 0
    for i in range(configs):
        cfg = many_configs._config(i, pyrng)
        cid = f"cfg{i:03d}"
        bench = root / cid / "bench"
        for conc in many_configs.TIERS[:tiers]:
            data = _record(cfg, conc, f"vLLM #{i}", 60 * files, requests, rng)
            values += sum(len(g) for g in data["itls"])  # type: ignore[attr-defined]
            (bench / f"openai-infqps-concurrency{conc}-{cid}.json").write_bytes(
                orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY))
            files += 1
    return files, values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--configs", type=int, default=64)
    parser.add_argument("--tiers", type=int, default=12)
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args(argv)
    files, values = make(args.out, args.configs, args.tiers, args.requests)
    print(f"{files} files, {values:,} ITL values", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
