"""Generate a large, deterministic synthetic round in the native input formats.

    python benchmarks/make_round.py [--itl-samples N] [--log-mb MB] [--out DIR] [--seed S]

Default: 4 engines × 12 concurrency tiers of `vllm bench serve --save-detailed` JSON holding
~10 million per-request ITL values (seconds), a ~1 GB verbose llama-server log (mid-2026 format,
cumulative `graphs reused`) for llamacpp-q4 and a small one for llamacpp-q8, vLLM server logs,
fingerprints, 1 Hz nvidia-smi CSVs and Prometheus scrapes around each tier, plus a round.toml
whose log_segments match the logs. Same arguments → same bytes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks import llama_synth, synth
from benchmarks.synth import ENGINES, TIERS, EngineModel, TierRun

DEFAULT_OUT = Path(__file__).resolve().parent / "_generated" / "round"
WARMUP_BLOCKS = 8
ROUND_START = datetime(2026, 11, 20, 9, 0, 0)
TIER_GAP_S = 12.0
ENGINE_START_STEP_S = 4 * 3600.0  # engines run one after another; room for the longest
GPU_MEMORY_MIB = 24564


@dataclass
class EngineResult:
    engine_id: str
    warmup: int | None  # print_timing blocks before the first tier (llama engines with a log)
    tiers: list[int]  # print_timing blocks per tier
    itl_values: int
    json_bytes: int
    log_bytes: int
    seconds: float


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _stamp(perf: float) -> datetime:
    return ROUND_START + timedelta(seconds=perf - synth.PERF_ORIGIN_S)


# ---------------------------------------------------------------- small side files

def vllm_startup(engine: EngineModel, pid: int, when: datetime) -> list[str]:
    weights_gib = engine.weight_bytes / 2**30
    kv_gib = 24.0 * 0.9 - weights_gib - 1.6
    kv_tokens = int(kv_gib * 2**30 // synth.KV_BYTES_PER_TOKEN)
    max_x = kv_tokens / 4096
    ts = when.strftime("%m-%d %H:%M:%S")
    api, core = f"(APIServer pid={pid})", f"(EngineCore pid={pid + 142})"
    return [
        f"INFO {ts} [__init__.py:241] Automatically detected platform cuda.",
        f"{api} INFO {ts} [api_server.py:1805] vLLM API server version 0.27.1",
        f"{api} INFO {ts} [utils.py:326] non-default args: {{'model': '{synth.MODEL_ID}', "
        f"'max_model_len': 4096, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 256}}",
        f"{core} INFO {ts} [core.py:74] Initializing a V1 LLM engine (v0.27.1) with config: "
        f"model='{synth.MODEL_ID}', dtype=torch.bfloat16, max_seq_len=4096, "
        f"tensor_parallel_size=1, quantization={'fp8' if 'fp8' in engine.id else None}",
        f"{core} INFO {ts} [gpu_model_runner.py:4879] Model loading took {weights_gib:.2f} GiB "
        f"memory and 4.117203 seconds",
        f"{core} INFO {ts} [gpu_worker.py:276] Available KV cache memory: {kv_gib:.2f} GiB",
        f"{core} INFO {ts} [kv_cache_utils.py:849] GPU KV cache size: {kv_tokens:,} tokens",
        f"{core} INFO {ts} [kv_cache_utils.py:853] Maximum concurrency for 4,096 tokens per "
        f"request: {max_x:.2f}x",
        f"{core} INFO {ts} [gpu_model_runner.py:2708] Graph capturing finished in 5 secs, "
        f"took 0.61 GiB",
        f"{core} INFO {ts} [core.py:214] init engine (profile, create kv cache, warmup model) "
        f"took 19.84 s (compilation: 9.12 s)",
        f"{api} INFO {ts} [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]


def vllm_tier_lines(run: TierRun, pid: int) -> list[str]:
    """Access-log lines per request and a stats line every 10 s (what `vllm serve` prints)."""
    api = f"(APIServer pid={pid})"
    ends = run.start_times + np.where(run.failed, 0.004, run.latencies)
    events: list[tuple[float, str]] = []
    for i, end in enumerate(ends.tolist()):
        code = "400 Bad Request" if run.failed[i] else "200 OK"
        events.append((end, f'{api} INFO:     127.0.0.1:{40000 + i % 20000} - '
                            f'"POST /v1/completions HTTP/1.1" {code}'))
    for t in np.arange(run.t0 + 10, run.t0 + run.duration, 10.0).tolist():
        running = int(((run.start_times <= t) & (ends > t)).sum())
        done = ends[(ends > t - 10) & (ends <= t)].size
        ts = _stamp(t).strftime("%m-%d %H:%M:%S")
        events.append((t, f"{api} INFO {ts} [loggers.py:127] Engine 000: Avg prompt throughput: "
                          f"{done * synth.INPUT_TOKENS / 10:.1f} tokens/s, Avg generation "
                          f"throughput: {running * 60.0:.1f} tokens/s, Running: {running} reqs, "
                          f"Waiting: 0 reqs, GPU KV cache usage: {running * 0.4:.1f}%, "
                          f"Prefix cache hit rate: 0.0%"))
    events.sort(key=lambda e: e[0])
    return [text for _, text in events]


NVIDIA_SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.03             Driver Version: 580.159.03     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0 Off |                  Off |
| 30%   61C    P2             87W /  450W | {used:>6d}MiB /  {total}MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A      {pid:>11d}      C   {process:<36s}{proc_mib:>6d}MiB |
+-----------------------------------------------------------------------------------------+
"""


def fingerprint_text(engine: EngineModel, memory_used_mib: int, when: datetime, pid: int,
                     plan: list[int], debug_log: bool) -> str:
    """Verbatim-style `nvidia-smi` output, then the harness's `key: value` lines."""
    tiers = ",".join(str(c) for c in TIERS)
    prompts = ",".join(str(n) for n in plan)
    client = ("vllm bench serve --backend openai --base-url http://127.0.0.1:{port} --model "
              f"{synth.MODEL_ID} --dataset-name random --random-input-len {synth.INPUT_TOKENS} "
              f"--random-output-len {synth.OUTPUT_TOKENS} --ignore-eos --num-prompts <N> "
              "--max-concurrency <C> --percentile-metrics ttft,tpot,itl,e2el "
              "--metric-percentiles 50,90,99,99.9 --save-result --save-detailed --result-dir bench")
    if engine.kind == "llamacpp":
        process = "/opt/llama.cpp/build/bin/llama-server"
        quant = engine.label.split()[-1]
        gguf = llama_synth.gguf_name(engine)
        keys = [
            ("engine", "llama.cpp"), ("engine_version", "b9420"), ("engine_commit", "eab8ee41f"),
            ("model_file", gguf), ("quantization", quant),
            ("launch_args", f"llama-server -m /models/{gguf} -ngl 99 -np {llama_synth.N_SLOTS} "
                            f"-c {llama_synth.N_CTX} --cache-ram 0 --slot-prompt-similarity 0 "
                            f"--metrics --host 0.0.0.0 --port 8080"
                            + (" -lv 4" if debug_log else "")),
            ("prompt_cache", "off (--cache-ram 0 --slot-prompt-similarity 0)"),
            ("client", client.format(port=8080)),
        ]
    else:
        process = "VLLM::EngineCore"
        fp8 = "fp8" in engine.id
        keys = [
            ("engine", "vllm"), ("engine_version", "0.27.1"), ("dtype", "bfloat16"),
            ("quantization", "fp8" if fp8 else "none"),
            ("launch_args", f"vllm serve {synth.MODEL_ID} --dtype bfloat16"
                            + (" --quantization fp8" if fp8 else "")
                            + " --gpu-memory-utilization 0.9 --max-model-len 4096 --port 8000"),
            ("client", client.format(port=8000)),
        ]
    keys += [
        ("client_version", "0.27.1"), ("tiers", tiers), ("num_prompts", prompts),
        ("warmup", f"{WARMUP_BLOCKS} requests at concurrency 1 before C=1"),
        ("metrics", "GET /metrics before and after every tier -> metrics/c<C>-before.prom, "
                    "c<C>-after.prom"),
        ("gpu_sampler", "nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,"
                        "utilization.memory,memory.used,memory.total,power.draw,"
                        "temperature.gpu,clocks.sm --format=csv -l 1 -f gpu.csv"),
    ]
    head = [
        f"captured_at: {when.strftime('%Y-%m-%d %H:%M:%S')} +08:00 (after the last tier)",
        f"gpu: NVIDIA GeForce RTX 4090 ({GPU_MEMORY_MIB} MiB, {synth.BANDWIDTH_B_S / 1e9:g} GB/s)",
        "driver: 580.159.03", "cuda: 13.0", f"model: {synth.MODEL_ID}",
    ]
    table = NVIDIA_SMI.format(used=memory_used_mib, total=GPU_MEMORY_MIB, pid=pid,
                              process=process, proc_mib=memory_used_mib - 10)
    return (f"{when.strftime('%a %b %d %H:%M:%S %Y')}       \n{table}\n"
            + "\n".join([*head, *(f"{k}: {v}" for k, v in keys)]) + "\n")


def gpu_csv(start_perf: float, end_perf: float, memory_used_mib: int,
            rng: np.random.Generator) -> str:
    seconds = np.arange(start_perf, end_perf, 1.0)
    util = np.clip(rng.normal(92, 5, seconds.size), 0, 100).round().astype(int)
    power = rng.normal(380, 25, seconds.size)
    rows = ["timestamp, index, name, utilization.gpu [%], utilization.memory [%], "
            "memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, "
            "clocks.sm [MHz]"]
    for t, u, p in zip(seconds.tolist(), util.tolist(), power.tolist(), strict=True):
        stamp = _stamp(t).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
        rows.append(f"{stamp}, 0, NVIDIA GeForce RTX 4090, {u} %, {u * 4 // 5} %, "
                    f"{memory_used_mib} MiB, {GPU_MEMORY_MIB} MiB, {p:.2f} W, 66, 2730 MHz")
    return "\n".join(rows) + "\n"


def prom_text(engine: EngineModel, totals: dict[str, float]) -> str:
    if engine.kind == "llamacpp":
        names = ("prompt_tokens_total", "prompt_seconds_total", "tokens_predicted_total",
                 "tokens_predicted_seconds_total", "n_decode_total")
        lines = []
        for name in names:
            lines += [f"# HELP llamacpp:{name} {name}", f"# TYPE llamacpp:{name} counter",
                      f"llamacpp:{name} {totals[name]:g}"]
        return "\n".join(lines) + "\n"
    label = f'model_name="{synth.MODEL_ID}",engine="0"'
    return "\n".join([
        "# HELP vllm:request_prefill_time_seconds Histogram of time spent in PREFILL phase.",
        "# TYPE vllm:request_prefill_time_seconds histogram",
        f"vllm:request_prefill_time_seconds_sum{{{label}}} {totals['prefill_sum']!r}",
        f"vllm:request_prefill_time_seconds_count{{{label}}} {totals['prefill_count']:.1f}",
        "# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.",
        "# TYPE vllm:num_preemptions_total counter",
        f"vllm:num_preemptions_total{{{label}}} 0.0",
        "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.",
        "# TYPE vllm:prompt_tokens_total counter",
        f"vllm:prompt_tokens_total{{{label}}} {totals['prompt_tokens']:.1f}",
        "# HELP vllm:generation_tokens_total Number of generation tokens processed.",
        "# TYPE vllm:generation_tokens_total counter",
        f"vllm:generation_tokens_total{{{label}}} {totals['generation_tokens']:.1f}",
    ]) + "\n"


def _count_into(engine: EngineModel, totals: dict[str, float], run: TierRun) -> None:
    ok = ~run.failed
    n_in = float(run.input_lens[ok].sum())
    n_out = float(run.output_lens[ok].sum())
    if engine.kind == "llamacpp":
        totals["prompt_tokens_total"] += n_in
        totals["prompt_seconds_total"] += round(float(run.ttfts[ok].sum()) * 0.97, 3)
        totals["tokens_predicted_total"] += n_out
        totals["tokens_predicted_seconds_total"] += round(
            float((run.latencies[ok] - run.ttfts[ok]).sum()), 3)
        # One batched llama_decode() serves up to C sequences; prefills add one call each.
        totals["n_decode_total"] += np.ceil(n_out / min(run.concurrency, ok.sum() or 1)) + ok.sum()
    else:
        totals["prefill_sum"] += float((run.ttfts[ok] * 0.9).sum())
        totals["prefill_count"] += float(ok.sum())
        totals["prompt_tokens"] += n_in
        totals["generation_tokens"] += n_out


# ---------------------------------------------------------------- one engine

def write_engine(root: Path, index: int, plan: list[int], log_bytes: float, seed: int,
                 big_log: bool) -> EngineResult:
    """Write every file of one engine; runs in a worker process."""
    began = time.perf_counter()
    engine = ENGINES[index]
    edir = root / engine.id
    if edir.exists():  # a stale file from an older generator would become an extra tier
        shutil.rmtree(edir)
    metrics = edir / "metrics"
    (edir / "bench").mkdir(parents=True)
    metrics.mkdir()

    def rng(*key: int) -> np.random.Generator:  # one independent stream per purpose
        return np.random.default_rng([seed, index, *key])

    start_perf = synth.PERF_ORIGIN_S + index * ENGINE_START_STEP_S
    memory_used = int(engine.weight_bytes / 2**20 + 14336 + 1200) if engine.kind == "llamacpp" \
        else int(GPU_MEMORY_MIB * 0.9 + 500)
    pid = 2700 + index * 31
    totals: dict[str, float] = dict.fromkeys(
        ("prompt_tokens_total", "prompt_seconds_total", "tokens_predicted_total",
         "tokens_predicted_seconds_total", "n_decode_total", "prefill_sum", "prefill_count",
         "prompt_tokens", "generation_tokens"), 0.0)

    is_llama = engine.kind == "llamacpp"
    with (edir / "server.log").open("wb") as log:
        log_written = 0
        state = llama_synth.LogState()
        debug_rate = 0.0
        warmup_blocks: int | None = None
        if is_llama:
            tokens = sum(plan) * synth.OUTPUT_TOKENS
            debug_rate = llama_synth.debug_lines_per_token(log_bytes, sum(plan), tokens) \
                if big_log else 0.0
            log_written += log.write(llama_synth.startup_text(engine, 4 if debug_rate else 3))
            warm = synth.simulate_tier(engine, 1, WARMUP_BLOCKS, start_perf + 5.0,
                                       rng(99))
            size, warmup_blocks = llama_synth.write_tier(
                log, warm, start_perf, debug_rate, state, rng(98))
            log_written += size
            t0 = warm.t0 + warm.duration + TIER_GAP_S
        else:
            text = "\n".join(vllm_startup(engine, pid, _stamp(start_perf))) + "\n"
            log_written += log.write(text.encode())
            t0 = start_perf + 40.0

        tiers: list[int] = []
        json_bytes = 0
        itl_values = 0
        (metrics / f"c{TIERS[0]}-before.prom").write_text(prom_text(engine, totals))
        for k, (concurrency, requests) in enumerate(zip(TIERS, plan, strict=True)):
            run = synth.simulate_tier(engine, concurrency, requests, t0, rng(k, 0))
            date = _stamp(t0).strftime("%Y%m%d-%H%M%S")
            record = synth.bench_record(run, date, rng(k, 1))
            text = synth.bench_json(record)
            (edir / "bench" / synth.bench_filename(concurrency, date)).write_text(text)
            json_bytes += len(text)
            itl_values += int(run.itl[~run.failed].size)
            if k > 0:
                (metrics / f"c{concurrency}-before.prom").write_text(prom_text(engine, totals))
            _count_into(engine, totals, run)
            (metrics / f"c{concurrency}-after.prom").write_text(prom_text(engine, totals))
            if is_llama:
                size, blocks = llama_synth.write_tier(
                    log, run, start_perf, debug_rate, state, rng(k, 2))
                log_written += size
                tiers.append(blocks)
            else:
                log_written += log.write(("\n".join(vllm_tier_lines(run, pid)) + "\n").encode())
            say(f"  {engine.id:12s} C={concurrency:<4d} {requests:6d} requests  "
                f"json {json_bytes / 1e6:7.1f} MB  log {log_written / 1e6:7.1f} MB")
            t0 = t0 + run.duration + TIER_GAP_S

    (edir / "fingerprint.txt").write_text(
        fingerprint_text(engine, memory_used, _stamp(t0), pid + 142, plan, debug_rate > 0))
    (edir / "gpu.csv").write_text(
        gpu_csv(start_perf, t0, memory_used, rng(97)))
    return EngineResult(engine.id, warmup_blocks if is_llama else None, tiers if is_llama else [],
                        itl_values, json_bytes, log_written, time.perf_counter() - began)


# ---------------------------------------------------------------- round.toml

def round_toml(results: dict[str, EngineResult], plan: list[int]) -> str:
    lines = [
        "# Synthetic benchmark round written by benchmarks/make_round.py (not real measurements).",
        "# Requests per tier: "
        + ", ".join(f"C={c}: {n}" for c, n in zip(TIERS, plan, strict=True)),
        "",
        "[round]",
        'title = { zh = "合成压测轮次 · 4 引擎 × 12 档", '
        'en = "Synthetic round · 4 engines × 12 tiers" }',
        'default_language = "en"',
        'date = "2026-11-20"',
        'client = "vllm bench serve"',
        "",
        "[hardware]",
        'gpu = "RTX 4090"',
        f"bandwidth_gb_s = {synth.BANDWIDTH_B_S / 1e9:g}",
        "memory_gib = 24",
        "",
        "[workload]",
        f"input_tokens = {synth.INPUT_TOKENS}",
        f"output_tokens = {synth.OUTPUT_TOKENS}",
        'dataset = "random"',
        "ignore_eos = true",
        "",
        "[model]",
        'name = "Qwen2.5-7B-Instruct"',
        f"kv_bytes_per_token = {synth.KV_BYTES_PER_TOKEN}",
    ]
    for engine in ENGINES:
        res = results[engine.id]
        lines += [
            "",
            "[[engines]]",
            f'id = "{engine.id}"',
            f'label = "{engine.label}"',
            f'dir = "{engine.id}"',
            f'kind = "{engine.kind}"',
            f"weight_bytes_per_step = {engine.weight_bytes}",
        ]
        if res.warmup is not None:
            tiers = ", ".join(str(n) for n in res.tiers)
            lines.append(f"log_segments = {{ warmup = {res.warmup}, tiers = [{tiers}] }}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- CLI

def generate(out: Path, itl_samples: int, log_mb: float, seed: int = 0,
             jobs: int = 2) -> dict[str, EngineResult]:
    """Write the round into ``out`` (created; this generator's engine folders are replaced)."""
    out.mkdir(parents=True, exist_ok=True)
    plan = synth.plan_requests(itl_samples)
    log_bytes = log_mb * 1e6
    order = sorted(range(len(ENGINES)), key=lambda i: ENGINES[i].id != "llamacpp-q4")
    args = [(out, i, plan, log_bytes, seed, ENGINES[i].id == "llamacpp-q4") for i in order]
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            done = list(pool.map(write_engine, *zip(*args, strict=True)))
    else:
        done = [write_engine(*a) for a in args]
    results = {r.engine_id: r for r in done}
    (out / "round.toml").write_text(round_toml(results, plan))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--itl-samples", type=float, default=10_000_000,
                        help="total per-request ITL values over all engines (default 1e7)")
    parser.add_argument("--log-mb", type=float, default=1024,
                        help="approximate size of the big llama-server log in MB (default 1024)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default {DEFAULT_OUT}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    plan = synth.plan_requests(int(args.itl_samples))
    say(f"make_round: {len(ENGINES)} engines × {len(TIERS)} tiers, requests per tier {plan}")
    say(f"            → {args.out}")
    results = generate(args.out, int(args.itl_samples), args.log_mb, args.seed, args.jobs)
    itl = sum(r.itl_values for r in results.values())
    json_mb = sum(r.json_bytes for r in results.values()) / 1e6
    log_mb = sum(r.log_bytes for r in results.values()) / 1e6
    say(f"make_round: {itl:,} ITL values, {json_mb:.0f} MB JSON, {log_mb:.0f} MB of logs "
        f"in {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
