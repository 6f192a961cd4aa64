"""A small hand-made Analysis for page tests (two engines × four tiers), with the frame columns
of reportgen/analyze/run.py. Numbers are chosen to be checkable by hand:

- bandwidth 1000 GB/s, KV 100,000 B/token, 1000 in / 200 out → 1100 tok per slot → 0.11 GB/slot
- floor(C) = weights_GB + 0.11 × C ms  (big: 10 GB, small: 4 GB)
- small C=16 is excluded from conclusions (its throughput drops below C=4)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reportgen.analyze.result import Analysis, Constant
from reportgen.analyze.round_facts import EngineFacts, RoundInfo
from reportgen.text.bilingual import Bi

CONC = [1, 4, 16, 64]
TIERS = {
    # engine: (output tok/s, ITL p50 ms, ITL mean ms, TPOT mean ms, TPOT p50 ms, TTFT p50 ms)
    "big": ([80.0, 300.0, 1100.0, 2000.0], [12.0, 12.5, 14.0, 20.0], [12.0, 13.0, 16.0, 30.0],
            [12.0, 13.0, 15.0, 28.0], [12.0, 12.9, 14.8, 27.5], [100.0, 150.0, 300.0, 700.0]),
    "small": ([190.0, 500.0, 450.0, 900.0], [5.0, 7.0, 20.0, 30.0], [5.0, 9.0, 24.0, 45.0],
              [5.0, 8.5, 23.0, 40.0], [5.0, 8.4, 22.5, 39.0], [90.0, 120.0, 250.0, 400.0]),
}
WEIGHTS_GB = {"big": 10.0, "small": 4.0}
LABELS = {"big": Bi("大模型 BF16", "Big BF16"), "small": Bi("小模型 Q4", "Small Q4")}


def _tiers() -> pd.DataFrame:
    rows = []
    for engine, (out, itl, itl_mean, tpot_mean, tpot_p50, ttft) in TIERS.items():
        for i, c in enumerate(CONC):
            requests = 4 * c if c > 1 else 8
            floor = WEIGHTS_GB[engine] + 0.11 * c
            e2el = ttft[i] + 199 * tpot_mean[i]
            duration = requests * 200 / out[i]
            waves = math.ceil(requests / c)
            rows.append({
                "engine": engine, "concurrency": c, "requests": float(requests),
                "completed": float(requests - (1 if (engine, c) == ("small", 16) else 0)),
                "failed": 1.0 if (engine, c) == ("small", 16) else 0.0,
                "duration_s": duration, "total_input_tokens": 1000.0 * requests,
                "total_output_tokens": 200.0 * requests, "output_tok_s": out[i],
                "total_tok_s": out[i] * 6, "ttft_p50_ms": ttft[i], "ttft_p99_ms": ttft[i] * 2,
                "ttft_mean_ms": ttft[i] * 1.1, "itl_p50_ms": itl[i], "itl_mean_ms": itl_mean[i],
                "itl_p99_ms": itl[i] * 4, "tpot_p50_ms": tpot_p50[i], "tpot_mean_ms": tpot_mean[i],
                "e2el_p50_ms": e2el, "e2el_mean_ms": e2el, "mean_output_tokens": 200.0,
                "wait_ratio": tpot_mean[i] / itl[i] - 1, "itl_mean_over_p50": itl_mean[i] / itl[i],
                "per_slot_tok_s": 1000 / itl[i], "floor_ms": floor,
                "roofline_attainment": floor / itl[i], "waves": float(waves),
                "duration_per_wave_s": duration / waves,
                "wave_gap": duration / waves / (e2el / 1000) - 1,
                "excluded": (engine, c) == ("small", 16),
            })
    return pd.DataFrame(rows)


def _engines(tiers: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for engine in ("big", "small"):
        own = tiers[(tiers["engine"] == engine) & ~tiers["excluded"]].sort_values("concurrency")
        lo, hi = own.iloc[0], own.iloc[-1]
        step = WEIGHTS_GB[engine] * 1e9 + 1100 * 1e5
        rows.append({
            "id": engine, "label": LABELS[engine],
            "bandwidth_gb_s": 1000.0, "kv_bytes_per_token": 1e5,
            "weight_bytes_per_step": WEIGHTS_GB[engine] * 1e9, "step_bytes_c1": step,
            "effective_gb_s_c1": step / (lo["itl_p50_ms"] / 1000) / 1e9,
            "mbu_c1": step / (lo["itl_p50_ms"] / 1000) / 1e9 / 1000,
            "ms_per_slot": (hi["itl_p50_ms"] - lo["itl_p50_ms"]) / (hi["concurrency"] - 1),
            "floor_ms_per_slot": 0.11,
            "slope_vs_floor": (hi["itl_p50_ms"] - lo["itl_p50_ms"]) / 63 / 0.11,
            "tokens_per_slot": 1100.0, "c1": 1.0, "cmax": 64.0,
            "itl_p50_c1_ms": lo["itl_p50_ms"], "itl_p50_cmax_ms": hi["itl_p50_ms"],
            "floor_ms_cmax": hi["floor_ms"], "efficiency_cmax": hi["roofline_attainment"],
        })
    return pd.DataFrame(rows)


def make_analysis() -> Analysis:
    tiers = _tiers()
    engines = _engines(tiers)
    # big / small = 0.6 at C=4 and 2000/900 at C=64 (C=16 excluded) → log–log crossing
    lo, hi = 300 / 500, 2000 / 900
    c_star = math.exp(math.log(4) + (0 - math.log(lo)) * (math.log(64) - math.log(4))
                      / (math.log(hi) - math.log(lo)))
    crossovers = pd.DataFrame([{"engine_a": "big", "engine_b": "small", "concurrency": c_star,
                                "lower_tier": 4.0, "upper_tier": 64.0, "ratio_lower": lo,
                                "ratio_upper": hi}])
    reuse = pd.DataFrame({
        "engine": "small", "concurrency": CONC, "print_timing_lines": [8, 16, 64, 256],
        "expected_lines": [8, 16, 64, 256], "decode_steps": [1600, 3200, 12800, 51200],
        "graphs_reused_delta": [1590.0, 800.0, 0.0, 640.0],
        "reuse": [1590 / 1600, 800 / 3200, 0.0, 640 / 51200],
        "generated_tokens": [1600.0, 3200.0, 12800.0, 51200.0],
        "decode_steps_batched": [1600.0, 800.0, 800.0, 800.0],
        "decode_steps_batched_source": "log",
        "reuse_batched": [1590 / 1600, 1.0, 0.0, 0.8], "theoretical_max_reuse": 199 / 200,
        "itl_p50_ms": TIERS["small"][1], "roofline_attainment":
            list(tiers[tiers["engine"] == "small"]["roofline_attainment"]),
        "excluded": [False, False, True, False],
    })
    memory = pd.DataFrame([
        {"engine": "big", "weights_gib": 9.31, "weights_source": "vllm/server.log:10",
         "kv_pool_gib": 5.0, "kv_pool_source": "vllm/server.log:12", "kv_pool_tokens": 50000.0,
         "kv_pool_tokens_source": "vllm/server.log:13", "estimated_total_gib": 14.31,
         "measured_total_gib": 15.5, "measured_source": "vllm/fingerprint.txt:9",
         "other_gib": 1.19, "estimate_gap": 1.19 / 15.5, "gpu_memory_gib": 24.0,
         "gpu_memory_source": "round.toml"},
        {"engine": "small", "weights_gib": 3.73, "weights_source": "small/server.log:20",
         "kv_pool_gib": 8.0, "kv_pool_source": "kv_cells × kv_bytes_per_token",
         "kv_pool_tokens": 80000.0, "kv_pool_tokens_source": "small/server.log:21",
         "estimated_total_gib": 11.73, "measured_total_gib": 12.0,
         "measured_source": "small/fingerprint.txt:9", "other_gib": 0.27,
         "estimate_gap": 0.27 / 12.0, "gpu_memory_gib": 24.0, "gpu_memory_source": "round.toml"},
    ])
    prefill = pd.DataFrame([
        {"engine": "small", "concurrency": 1, "server_prefill_ms": 80.0, "server_samples": 8.0,
         "source": "llama-server prompt eval", "ttft_p50_ms": 90.0, "client_overhead_ms": 10.0,
         "excluded": False},
        {"engine": "big", "concurrency": 1, "server_prefill_ms": 88.0, "server_samples": 8.0,
         "source": "vllm:request_prefill_time_seconds", "ttft_p50_ms": 100.0,
         "client_overhead_ms": 12.0, "excluded": False},
    ])
    checks = pd.DataFrame([
        {"id": "throughput.monotonic", "status": "warn", "engine": "small", "concurrency": 16.0,
         "value": 0.9, "message": Bi("C=16 吞吐低于 C=4。", "C=16 is below C=4.")},
        {"id": "requests.failed", "status": "fail", "engine": "small", "concurrency": 16.0,
         "value": 1.0, "message": Bi("1 条请求失败。", "1 request failed.")},
        {"id": "identity.e2el", "status": "pass", "engine": None, "concurrency": np.nan,
         "value": np.nan, "message": Bi("恒等式成立。", "The identity holds.")},
    ])
    round_info = RoundInfo(
        title=Bi("小测试轮", "Small test round"), subtitle=Bi("副标题", "Subtitle"),
        date="2026-01-02", default_language="zh", gpu="Test GPU", gpu_count=1,
        memory_gib=24.0, bandwidth_gb_s=1000.0, bandwidth_source=Bi.plain("round.toml"),
        input_tokens=1000, output_tokens=200, kv_tokens_per_slot=1100.0,
        model="Tiny-1B", client="vllm bench serve", concurrency=tuple(CONC),
        requests_total=int(tiers["requests"].sum()),
        completed_total=int(tiers["completed"].sum()),
        failed_total=int(tiers["failed"].sum()), driver="580.1", cuda="13.0",
        engines=(
            EngineFacts(id="big", label=LABELS["big"], version="0.9.0", dtype="bfloat16"),
            EngineFacts(id="small", label=LABELS["small"], version="b1234", quant="Q4_K_M",
                        commit="abc123", slots=64, context=65536, prompt_cache="off"),
        ),
        primary_pair=("small", "big"),
        excluded={"small": (16,)},
        exclude_reason=Bi("C=16 反常", "C=16 is anomalous"),
    )
    values = {
        "crossover.count": 1, "crossover.concurrency": c_star, "crossover.lower_tier": 4.0,
        "crossover.upper_tier": 64.0, "crossover.ratio_lower": 1 / lo,
        "crossover.ratio_upper": 1 / hi,
        "step_ratio.predicted": (10.11) / (4.11), "step_ratio.measured": 12.0 / 5.0,
        "step_ratio.attained": (12.0 / 5.0) / (10.11 / 4.11),
        "engines.big.weight_gb": 10.0, "engines.big.kv_gb_c1": 0.11,
        "engines.big.step_gb_c1": 10.11, "engines.small.weight_gb": 4.0,
        "engines.small.kv_gb_c1": 0.11, "engines.small.step_gb_c1": 4.11,
        "throughput_drop.small.concurrency": 16.0,
        "throughput_drop.small.previous_concurrency": 4.0,
        "memory.kv_capacity_ratio": 80000 / 50000,
        "setup.failed_total": 1, "setup.requests_total": int(tiers["requests"].sum()),
        "pair.a_label": LABELS["small"],
        "tiers.small.c1.itl_p50_ms": 5.0, "engines.small.mbu_c1": 4.11 / 5.0,
    }
    constants = [
        Constant("bandwidth_gb_s", 1000.0, "GB/s", Bi("round.toml [hardware]",
                                                         "round.toml [hardware]")),
        Constant("small.weight_bytes_per_step", 4e9, "B",
                 Bi("round.toml:小模型文件大小", "round.toml: small model file size")),
        Constant("big.weight_bytes_per_step", 1e10, "B",
                 Bi("round.toml:参数 × 2 B", "round.toml: params × 2 B")),
    ]
    from reportgen.analyze.pareto import pareto_points, same_speed

    pareto = pareto_points(tiers, {})
    return Analysis(round=round_info, engines=engines, tiers=tiers, crossovers=crossovers,
                    graph_reuse=reuse, memory=memory, prefill=prefill, checks=checks,
                    values=values, constants=constants, pareto=pareto,
                    same_speed=same_speed(pareto, ["big", "small"]))
