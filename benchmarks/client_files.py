"""Folders of many result files of other clients' formats (inference-perf stages, llmperf
summary + per-request pairs, InferenceX decode-SLO and agentic summaries, tidy CSVs), to time
finding, sniffing, reading and placing them: each must load 2,000 files in ≤ 2 s."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

FILES = 2000


def _stats(v: float) -> dict[str, float]:
    return {"mean": v, "min": v * 0.5, "p10": v * 0.7, "median": v, "p90": v * 1.4,
            "p99": v * 1.8, "max": v * 2.0}


def inference_perf(root: Path, n: int, rng: random.Random) -> int:
    """40 configurations × n/40 rate stages, each with its summary and Prometheus report."""
    configs = 40
    per = max(1, n // configs)
    count = 0
    for c in range(configs):
        folder = root / f"vllm-config-{c}" / "results"
        folder.mkdir(parents=True, exist_ok=True)
        for stage in range(per):
            rate = 1.0 + stage * (2.0 + c / 10)
            done = int(rate * 60)
            tpot = 0.008 + 0.0001 * rate + rng.uniform(0, 0.0005)
            body = {
                "load_summary": {"count": done, "schedule_delay": _stats(0.001),
                                 "send_duration": 59.0, "requested_rate": rate,
                                 "achieved_rate": rate * 1.01},
                "successes": {
                    "count": done,
                    "latency": {"request_latency": _stats(64 * tpot + 0.03),
                                "normalized_time_per_output_token": _stats(tpot * 1.1),
                                "time_per_output_token": _stats(tpot),
                                "time_to_first_token": _stats(0.03 + rng.uniform(0, 0.01)),
                                "inter_token_latency": _stats(tpot)},
                    "throughput": {"input_tokens_per_sec": rate * 200,
                                   "output_tokens_per_sec": rate * 64,
                                   "total_tokens_per_sec": rate * 264,
                                   "requests_per_sec": rate},
                    "prompt_len": _stats(200.0), "output_len": _stats(64.0)},
                "failures": {"count": 0, "request_latency": None, "prompt_len": None},
            }
            (folder / f"stage_{stage}_lifecycle_metrics.json").write_text(json.dumps(body))
            count += 1
        (folder / "summary_lifecycle_metrics.json").write_text(json.dumps(
            {"load_summary": {"count": 1}, "successes": {"count": 1, "latency": {},
                                                         "throughput": {}}}))
    return count


def llmperf(root: Path, n: int, rng: random.Random) -> int:
    """n/2 runs, each a *_summary.json and its *_individual_responses.json (20 requests)."""
    count = 0
    runs = n // 2
    for i in range(runs):
        provider, conc = f"provider{i // 20}", 1 + i % 20
        folder = root / provider  # 50 providers × 20 concurrencies, told apart by file name
        folder.mkdir(parents=True, exist_ok=True)
        reqs = []
        for _ in range(20):
            ttft = 0.2 + rng.uniform(0, 0.1)
            e2e = ttft + 150 * 0.03
            reqs.append({"error_code": None, "error_msg": "", "inter_token_latency_s": e2e / 150,
                         "ttft_s": ttft, "end_to_end_latency_s": e2e,
                         "request_output_throughput_token_per_s": 150 / e2e,
                         "number_total_tokens": 700, "number_output_tokens": 150,
                         "number_input_tokens": 550})
        summary = {"version": "2023-08-31", "name": "m_550_150_summary", "model": "m",
                   "mean_input_tokens": 550, "stddev_input_tokens": 0,
                   "mean_output_tokens": 150, "stddev_output_tokens": 0,
                   "num_concurrent_requests": conc,
                   **{f"results_ttft_s_quantiles_p{q}": 0.25 for q in (25, 50, 75, 90, 95, 99)},
                   "results_ttft_s_mean": 0.25,
                   "results_end_to_end_latency_s_quantiles_p50": 4.75,
                   "results_inter_token_latency_s_quantiles_p50": 0.032,
                   "results_number_input_tokens_mean": 550.0,
                   "results_number_output_tokens_mean": 150.0,
                   "results_num_requests_started": 20, "results_number_errors": 0,
                   "results_mean_output_throughput_token_per_s": 150 * conc / 4.75,
                   "results_num_completed_requests": 20,
                   "results_num_completed_requests_per_min": 60 * conc / 4.75,
                   "timestamp": 1703638336 + i}
        stem = f"m-c{conc}_550_150"  # llmperf names files {model}_{in}_{out}
        (folder / f"{stem}_summary.json").write_text(json.dumps(summary, indent=4))
        (folder / f"{stem}_individual_responses.json").write_text(json.dumps(reqs, indent=4))
        count += 2
    return count


def inferencex(root: Path, n: int, rng: random.Random) -> int:
    """Decode-SLO results named …_<layout>_isl<I>_osl<O>_conc<C>.json, half of them agentic
    agg_*.json summaries."""
    count = 0
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    layouts, isls, concs = ("tp8", "tep8", "dep8", "tp4"), (1024, 2048, 4096, 8192, 16384), \
        (1, 2, 4, 8, 16, 32, 48, 64, 96, 128)
    for i in range(n // 2):
        lay, isl = layouts[i % 4], isls[(i // 4) % 5]
        conc, rep = concs[(i // 20) % 10], i // 200
        dur = 100 + i * 0.037  # no two runs alike (copies of one run are dropped)
        body = {"date": "20260213-135636", "model_id": "org/m", "num_prompts": 10 * conc,
                "request_rate": "inf", "max_concurrency": conc, "duration": dur,
                "completed": 10 * conc, "total_input_tokens": 10 * conc * isl,
                "total_output_tokens": 1280 * conc, "output_throughput": 1280 * conc / dur,
                "median_ttft": 0.3, "p99_ttft": 1.2, "median_e2el": 20.0, "p99_e2el": 30.0,
                "median_tpot": 0.14, "p99_tpot": 0.2}
        name = f"m_vllm_{lay}_isl{isl}_osl128_conc{conc}_r{rep}.json"
        (folder / name).write_text(json.dumps(body, indent=2))
        agg = {"hw": "b200", "conc": conc, "model": "org/m", "framework": "vllm",
               "scenario_type": "agentic-coding", "tp": 8 if lay != "tp4" else 4,
               "ep": 8 if "ep" in lay else 1, "dp_attention": lay == "dep8",
               "num_requests_total": 10 * conc, "num_requests_successful": 10 * conc,
               "request_metrics": {"latency": {"ttft": {"mean": 0.3, "p50": 0.3},
                                               "tpot": {"mean": 0.02, "p50": 0.02}},
                                   "throughput": {"output": {"tokens_per_second": 50.0 * conc},
                                                  "duration_seconds": dur}}}
        (folder / f"agg_{lay}_conc{conc}_{i}.json").write_text(json.dumps(agg, indent=2))
        count += 2
    return count


def tidy(root: Path, n: int, rng: random.Random) -> int:
    """n tidy CSVs of one run each (a harness that writes one file per run)."""
    root.mkdir(parents=True, exist_ok=True)
    head = "configuration,workload,input_tokens,output_tokens,concurrency,output_tok_s," \
           "ttft_p50_ms,itl_p50_ms,e2el_p99_s\n"
    for i in range(n):
        conc = 1 + i % 50
        row = f"cfg{i // 50 % 8},chat,1024,128,{conc},{40.0 * conc + i / 100:.2f}," \
              f"{20 + rng.uniform(0, 5):.2f},{10 + conc / 10:.2f},{1.5 + conc / 100:.3f}\n"
        (root / f"run-{i}.csv").write_text(head + row)
    return n


FORMATS: dict[str, Callable[[Path, int, random.Random], int]] = {
    "inference-perf": inference_perf, "llmperf": llmperf, "inferencex": inferencex,
    "tidy": tidy}


def make(root: Path, fmt: str, n: int = FILES, seed: int = 7) -> int:
    """Write ``n`` result files of one format under ``root``; returns how many."""
    return FORMATS[fmt](root, n, random.Random(seed))
