"""Synthetic serving runs: per-request timings of one engine at one concurrency tier, and the
`vllm bench serve --save-result --save-detailed` record they would produce.

The model is deliberately simple but shaped like real rounds: decode steps sit at a roofline
floor divided by an attainment that falls with concurrency, some steps stall behind another
request's prefill (the ITL tail), the first wave of a tier queues its prefills (the TTFT tail),
and requests run in C client lanes (the waves).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

INPUT_TOKENS = 1024
OUTPUT_TOKENS = 256
KV_BYTES_PER_TOKEN = 57344  # Qwen2.5-7B: 28 layers x 2 x 4 KV heads x 128 x 2 B
BANDWIDTH_B_S = 1008e9  # RTX 4090
TIERS = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128)
PERF_ORIGIN_S = 812_345.678_901  # perf_counter() is CLOCK_MONOTONIC: one origin for all tiers
MODEL_ID = "Qwen/Qwen2.5-7B-Instruct"


@dataclass(frozen=True)
class EngineModel:
    id: str
    label: str
    kind: str  # vllm | llamacpp
    weight_bytes: int
    attain_c1: float  # roofline attainment at C=1
    attain_knee: float  # attainment halves-ish around this concurrency
    attain_power: float
    prefill_tok_s: float
    stall_per_slot: float  # probability that a step stalls, per concurrent request
    fail_at: int | None = None  # one request of this tier fails (HTTP 400)


ENGINES = (
    EngineModel("vllm-bf16", "vLLM BF16", "vllm", 14_141_238_272, 0.89, 300, 0.5, 10_000, 0.002),
    EngineModel("vllm-fp8", "vLLM FP8", "vllm", 7_615_000_000, 0.84, 200, 0.5, 12_000, 0.002),
    EngineModel("llamacpp-q4", "llama.cpp Q4_K_M", "llamacpp", 4_680_000_000, 0.81, 4, 0.6,
                11_000, 0.003, fail_at=32),
    EngineModel("llamacpp-q8", "llama.cpp Q8_0", "llamacpp", 8_098_000_000, 0.83, 6, 0.6,
                9_000, 0.003),
)


def plan_requests(itl_samples: int, n_engines: int = len(ENGINES)) -> list[int]:
    """Requests per tier so that all engines together hold about ``itl_samples`` ITL values.

    Tiers get max(40, 8·C) requests before scaling, like the Round 2 sweep (40 … 512)."""
    weights = np.array([max(40, 8 * c) for c in TIERS], dtype=float)
    per_request = OUTPUT_TOKENS - 1
    scale = itl_samples / (n_engines * per_request * weights.sum())
    return [max(2, round(w * scale)) for w in weights]


def floor_s(engine: EngineModel, concurrency: int) -> float:
    kv = concurrency * (INPUT_TOKENS + OUTPUT_TOKENS / 2) * KV_BYTES_PER_TOKEN
    return (engine.weight_bytes + kv) / BANDWIDTH_B_S


@dataclass
class TierRun:
    """Client-side arrays of one tier, in request order (seconds, like vLLM's arrays)."""

    concurrency: int
    input_lens: np.ndarray
    output_lens: np.ndarray
    ttfts: np.ndarray
    latencies: np.ndarray
    start_times: np.ndarray  # perf_counter seconds
    queue_times: np.ndarray
    itl: np.ndarray  # (requests, OUTPUT_TOKENS - 1); rows of failed requests are unused
    failed: np.ndarray  # bool
    t0: float  # perf_counter at the start of the tier
    duration: float

    @property
    def requests(self) -> int:
        return self.input_lens.size


def simulate_tier(engine: EngineModel, concurrency: int, requests: int, t0: float,
                  rng: np.random.Generator) -> TierRun:
    c = concurrency
    n = requests
    attain = engine.attain_c1 * (1 + (c - 1) / engine.attain_knee) ** -engine.attain_power
    step = floor_s(engine, c) / attain
    prefill = INPUT_TOKENS / engine.prefill_tok_s

    itl = step * rng.lognormal(0.0, 0.02 + 0.004 * np.log2(c), size=(n, OUTPUT_TOKENS - 1))
    stall_p = min(0.3, engine.stall_per_slot * (c - 1))
    stalls = rng.random(itl.shape) < stall_p
    itl[stalls] += prefill * rng.uniform(0.8, 1.8, size=int(stalls.sum()))

    idx = np.arange(n)
    queued = np.where(idx < c, idx, c * 0.08 * rng.random(n) ** 2)  # first wave queues prefills
    ttft = prefill * rng.lognormal(0.0, 0.05, n) + prefill * queued
    latency = ttft + itl.sum(axis=1)

    failed = np.zeros(n, dtype=bool)
    if engine.fail_at == c:
        failed[n // 3] = True
    busy = np.where(failed, 0.004, latency)  # a rejected request frees its lane at once

    # Lane k serves requests k, k+C, k+2C … back to back (plus ~0.6 ms client overhead).
    waves = -(-n // c)
    pad = np.zeros(waves * c)
    pad[:n] = busy + 0.0006
    offsets = (np.cumsum(pad.reshape(waves, c), axis=0) - pad.reshape(waves, c)).ravel()[:n]
    offsets += idx * 2e-6  # coroutines start a couple of microseconds apart
    start = t0 + offsets
    end = start + busy
    input_lens = np.full(n, INPUT_TOKENS)
    input_lens[failed] = 4200  # the rejected prompt is over the per-slot context
    return TierRun(
        concurrency=c, input_lens=input_lens,
        output_lens=np.where(failed, 0, OUTPUT_TOKENS),
        ttfts=np.where(failed, 0.0, ttft), latencies=np.where(failed, 0.0, latency),
        start_times=start, queue_times=offsets, itl=itl, failed=failed, t0=t0,
        duration=float(end.max() - t0 + 0.003),
    )


def _stats(prefix: str, values_s: np.ndarray, percentiles: tuple[float, ...]) -> dict:
    ms = values_s * 1000 if values_s.size else np.zeros(1)
    out = {
        f"mean_{prefix}_ms": float(np.mean(ms)),
        f"median_{prefix}_ms": float(np.median(ms)),
        f"std_{prefix}_ms": float(np.std(ms)),
    }
    for p in percentiles:
        word = str(int(p)) if int(p) == p else str(p)
        out[f"p{word}_{prefix}_ms"] = float(np.percentile(ms, p))
    return out


PERCENTILES = (50.0, 90.0, 99.0, 99.9)  # --metric-percentiles 50,90,99,99.9
TEXT_POOL = 32


def _texts(rng: np.random.Generator) -> list[str]:
    vocab = np.array(["the", " model", " token", " cache", " of", " and", " serve", ",",
                      " batch", " GPU", " 中文", " latency", ".", "\n", " a", " step"])
    return ["".join(vocab[rng.integers(0, vocab.size, OUTPUT_TOKENS)]) for _ in range(TEXT_POOL)]


def bench_record(run: TierRun, date: str, rng: np.random.Generator) -> dict:
    """The JSON object `vllm bench serve --save-result --save-detailed` writes (key order too)."""
    ok = ~run.failed
    out_ok = run.output_lens[ok]
    itl_ok = run.itl[ok]
    token_times = (run.start_times[ok] + run.ttfts[ok])[:, None] + np.concatenate(
        [np.zeros((itl_ok.shape[0], 1)), np.cumsum(itl_ok, axis=1)], axis=1)
    buckets = np.floor(token_times.ravel() - run.t0).astype(np.int64)
    max_tok_s = float(np.bincount(buckets).max()) if buckets.size else 0.0
    ends = run.start_times + np.where(run.failed, 0.004, run.latencies)
    events = np.concatenate([np.ones(run.requests), -np.ones(run.requests)])
    when = np.concatenate([run.start_times, ends])
    peak = int(np.cumsum(events[np.lexsort((events, when))]).max())
    tpot = (run.latencies[ok] - run.ttfts[ok]) / (out_ok - 1)

    itls = itl_ok.tolist()
    itl_lists: list[list[float]] = []
    it = iter(itls)
    for bad in run.failed:
        itl_lists.append([] if bad else next(it))
    texts = _texts(rng)
    pick = rng.integers(0, TEXT_POOL, run.requests)
    completed = int(ok.sum())
    total_in = int(run.input_lens[ok].sum())
    total_out = int(out_ok.sum())
    record = {
        "date": date, "endpoint_type": "openai", "backend": "openai", "label": None,
        "model_id": MODEL_ID, "tokenizer_id": MODEL_ID, "num_prompts": run.requests,
        "request_rate": "inf", "burstiness": 1.0, "max_concurrency": run.concurrency,
        "duration": run.duration, "completed": completed, "failed": int(run.failed.sum()),
        "total_input_tokens": total_in, "total_output_tokens": total_out,
        "request_throughput": completed / run.duration, "request_goodput": None,
        "output_throughput": total_out / run.duration,
        "total_token_throughput": (total_in + total_out) / run.duration,
        "input_lens": run.input_lens.tolist(), "output_lens": run.output_lens.tolist(),
        "ttfts": run.ttfts.tolist(), "itls": itl_lists, "latencies": run.latencies.tolist(),
        "start_times": run.start_times.tolist(), "queue_times": run.queue_times.tolist(),
        "generated_texts": [
            "" if bad else texts[p] for bad, p in zip(run.failed, pick, strict=True)
        ],
        "errors": ["Bad Request" if bad else "" for bad in run.failed],
        "max_output_tokens_per_s": max_tok_s, "max_concurrent_requests": peak, "rtfx": 0.0,
    }
    record |= _stats("ttft", run.ttfts[ok], PERCENTILES)
    record |= _stats("tpot", tpot, PERCENTILES)
    record |= _stats("itl", itl_ok.ravel(), PERCENTILES)
    record |= _stats("e2el", run.latencies[ok], PERCENTILES)
    return record


def bench_json(record: dict) -> str:
    # vLLM writes json.dump(result_json, f): one line, default separators, no trailing newline.
    return json.dumps(record)


def bench_filename(concurrency: int, date: str) -> str:
    # No --label: the name starts with the backend, as in vLLM's compute_result_filename.
    base = MODEL_ID.split("/")[-1]
    return f"openai-infqps-concurrency{concurrency}-{base}-{date}.json"
