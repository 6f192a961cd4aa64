"""analyze() on a hand-built two-engine round: every figure below is checkable by hand.

Engines: "big" (listed first, 2 GB of weights per step) and "fast" (1 GB, a llama-server log with
log_segments); workload 100 in / 10 out → 105 KV tokens per slot at 1000 B, 100 GB/s.
fast's C=4 is excluded from conclusions (its throughput drops).
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from pathlib import Path

import factories as make
import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.run import analyze
from reportgen.errors import Finding
from reportgen.load.manifest import parse_manifest
from reportgen.reference.gpus import lookup_gpu
from reportgen.text.bilingual import Bi

MANIFEST = """
[round]
title = { zh = "测试轮", en = "Test round" }
date = "2026-01-02"
[hardware]
gpu = "Test GPU"
bandwidth_gb_s = 100
memory_gib = 8
[workload]
input_tokens = 100
output_tokens = 10
[model]
name = "tiny"
kv_bytes_per_token = 1000
[[engines]]
id = "big"
label = { zh = "大", en = "Big" }
kind = "vllm"
weight_bytes_per_step = 2000000000
[[engines]]
id = "fast"
label = "Fast Q4"
kind = "llamacpp"
weight_bytes_per_step = 1000000000
log_segments = { warmup = 1, tiers = [2, 4, 8, 16] }
[analysis]
exclude_from_conclusions = { fast = [4] }
exclude_reason = { zh = "反常", en = "anomalous" }
"""

# engine, C, output tok/s, ITL p50, TTFT p50, E2EL p50, completed
TIERS = [
    ("big", 1, 50.0, 25.0, 50.0, 275.0, 2), ("big", 2, 100.0, 25.5, 60.0, 290.0, 4),
    ("big", 4, 200.0, 26.0, 70.0, 300.0, 8), ("big", 8, 400.0, 28.5, 80.0, 340.0, 15),
    ("fast", 1, 100.0, 20.0, 40.0, 220.0, 2), ("fast", 2, 150.0, 21.0, 45.0, 235.0, 4),
    ("fast", 4, 120.0, 50.0, 50.0, 500.0, 8), ("fast", 8, 300.0, 27.0, 60.0, 300.0, 16),
]


def _summary() -> pd.DataFrame:
    rows = []
    for engine, c, thr, itl, ttft, e2el, done in TIERS:
        out = done * 10.0
        rows.append({
            "engine": engine, "source": f"{engine}/bench/c{c}.json", "record": 0,
            "concurrency": float(c), "num_prompts": 2.0 * c, "completed": float(done),
            "failed": 2.0 * c - done, "duration_s": out / thr, "total_input_tokens": done * 100.0,
            "total_output_tokens": out, "ttft_median_ms": ttft, "ttft_p99_ms": ttft * 2,
            "itl_median_ms": itl, "itl_mean_ms": itl * 1.1, "itl_p99_ms": itl * 3,
            "tpot_median_ms": itl, "tpot_mean_ms": itl * 1.2, "e2el_median_ms": e2el,
        })
    return pd.DataFrame(rows)


def _timings() -> pd.DataFrame:
    # warm-up ends at 5; then C=1 +18 → 23, C=2 +20 → 43, C=4 +0 → 43, C=8 +40 → 83
    ends = [(1, 5), (2, 23), (4, 43), (8, 43), (16, 83)]
    counter, prompt = [], []
    for n, end in ends:
        counter += [end] * n
        prompt += [31.0] * n
    prompt[1:3] = [30.0, 32.0]
    n = len(counter)
    return pd.DataFrame({"block": range(n), "line": range(10, 10 + n), "run": 0, "slot": 0,
                         "task": range(n), "prompt_eval_ms": prompt, "prompt_tokens": 100.0,
                         "eval_ms": 200.0, "eval_tokens": 10.0, "total_ms": 231.0,
                         "total_tokens": 110.0, "graphs_reused": np.asarray(counter, float),
                         "t_s": np.nan})


def _prom(count: float, total: float) -> pd.DataFrame:
    name = "vllm:request_prefill_time_seconds"
    return pd.DataFrame({"name": [f"{name}_count", f"{name}_sum", "vllm:num_preemptions_total"],
                         "labels": ['engine="0"'] * 3, "value": [count, total, 0.0]})


@pytest.fixture(scope="module")
def analysis(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("round")
    (root / "round.toml").write_text(MANIFEST, encoding="utf-8")
    manifest = parse_manifest(root / "round.toml", lookup_gpu)
    llama = make.llama_log(
        _timings(), build="b1", commit="abc1234", n_slots=8, n_ctx=16000, model_buffer_mib=1024.0,
        kv_cache_mib=1.9, kv_cells=2000, model_path="/m/Tiny-Q4_K_M.gguf",
        args={"--cache-ram": "0"}, provenance={"model_buffer_mib": "fast/server.log:3",
                                               "kv_cells": "fast/server.log:5"})
    vlog = make.vllm_log(version="0.1.0", dtype="bfloat16", model="org/tiny", weights_gib=2.0,
                         kv_cache_gib=1.0, kv_cache_tokens=1000,
                         provenance={"weights_gib": "big/server.log:7"})
    engines = {
        "big": make.engine_data(
            manifest, "big", vllm_log=vlog,
            fingerprint=make.fingerprint(driver_version="1.2", cuda_version="13.0"),
            gpu=pd.DataFrame({"memory_used_mib": [3000.0, 3584.0],
                              "temperature_gpu_c": [60.0, 66.0]}),
            metrics={1: (_prom(10, 1.0), _prom(12, 1.07))}),
        "fast": make.engine_data(
            manifest, "fast", llama_log=llama,
            fingerprint=make.fingerprint(
                driver_version="1.2", cuda_version="13.0", memory_used_mib=2560.0,
                temperature_c=70.0, provenance={"memory_used_mib": "fast/fingerprint.txt:9"})),
    }
    loaded = make.loaded_round(manifest, _summary(), engines,
                               [Finding("fast/server.log", "odd line", 4, "fast")])
    return analyze(loaded)


def test_tier_columns_and_order(analysis) -> None:
    t = analysis.tiers
    assert list(t["engine"]) == ["big"] * 4 + ["fast"] * 4
    for column in ("requests", "completed", "failed", "duration_s", "output_tok_s", "total_tok_s",
                   "ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms", "itl_mean_ms", "itl_p99_ms",
                   "tpot_p50_ms", "tpot_mean_ms", "e2el_p50_ms", "mean_output_tokens",
                   "wait_ratio", "itl_mean_over_p50", "per_slot_tok_s", "floor_ms",
                   "roofline_attainment", "waves", "duration_per_wave_s", "wave_gap", "excluded"):
        assert column in t.columns, column
    fast4 = t[(t["engine"] == "fast") & (t["concurrency"] == 4)].iloc[0]
    assert bool(fast4["excluded"]) and fast4["waves"] == 2.0
    assert fast4["wait_ratio"] == pytest.approx(0.2)
    assert fast4["floor_ms"] == pytest.approx(10.0 + 4 * 0.00105)


def test_crossover_skips_the_excluded_tier(analysis) -> None:
    v = analysis.values
    # common usable tiers 1, 2, 8: fast/big = 2, 1.5, 0.75 → crossing between 2 and 8 at
    # 2 × 4^(ln 1.5 / ln 2) = 4.5 (with fast's C=4 it would have been between 2 and 4)
    assert (v["pair.a"], v["pair.b"]) == ("fast", "big")
    assert v["crossover.concurrency"] == pytest.approx(4.5)
    assert (v["crossover.lower_tier"], v["crossover.upper_tier"]) == (2.0, 8.0)
    assert (v["crossover.ratio_lower"], v["crossover.ratio_upper"]) == (1.5, 0.75)
    assert "crossover.ratio.c4" not in v
    [row] = analysis.crossovers.to_dict("records")
    assert (row["engine_a"], row["engine_b"]) == ("big", "fast")  # manifest order, ratio a/b
    assert row["ratio_lower"] == pytest.approx(1 / 1.5)


def test_engine_byte_accounting(analysis) -> None:
    e = analysis.engines.set_index("id")
    assert list(analysis.engines["id"]) == ["big", "fast"]
    assert e.loc["fast", "ms_per_slot"] == pytest.approx((27.0 - 20.0) / 7)
    assert e.loc["big", "ms_per_slot"] == pytest.approx((28.5 - 25.0) / 7)
    assert e.loc["fast", "step_bytes_c1"] == 1_000_105_000
    assert e.loc["fast", "mbu_c1"] == pytest.approx(1.000105e9 / 0.020 / 1e9 / 100)
    assert e.loc["fast", "floor_ms_per_slot"] == pytest.approx(0.00105)
    assert e.loc["fast", "efficiency_cmax"] == pytest.approx((1e9 + 8 * 105e3) / 1e8 / 27.0)
    v = analysis.values
    assert v["step_ratio.predicted"] == pytest.approx(2.000105e9 / 1.000105e9)
    assert v["step_ratio.measured"] == pytest.approx(25.0 / 20.0)
    assert v["batching.slope_difference_ms"] == pytest.approx(1.0 - 0.5)
    assert v["engines.fast.quant"] == "Q4_K_M" and v["engines.fast.prompt_cache"] == "off"
    assert v["engines.big.version"] == "0.1.0" and v["engines.fast.slots"] == 8


def test_graph_reuse_and_prefill(analysis) -> None:
    g = analysis.graph_reuse.set_index("concurrency")
    assert list(g["graphs_reused_delta"]) == [18.0, 20.0, 0.0, 40.0]
    assert list(g["reuse"]) == pytest.approx([0.9, 0.5, 0.0, 0.25])
    assert g.loc[2, "reuse_batched"] == pytest.approx(1.0)  # 40 tokens / C=2 = 20 steps
    assert bool(g.loc[4, "excluded"]) and g.loc[8, "itl_p50_ms"] == 27.0
    v = analysis.values
    assert v["graph_reuse.fast.c8.reuse"] == pytest.approx(0.25)
    assert v["graph_reuse.fast.theoretical_max_reuse"] == pytest.approx(0.9)
    p = analysis.prefill.set_index(["engine", "concurrency"])
    assert p.loc[("fast", 1), "server_prefill_ms"] == 31.0
    assert p.loc[("big", 1), "server_prefill_ms"] == pytest.approx(35.0)  # 0.07 s / 2
    assert v["prefill.server_side_gap"] == pytest.approx(1 - 31 / 35)
    assert v["prefill.client_side_gap"] == pytest.approx(1 - 40 / 50)


def test_memory(analysis) -> None:
    m = analysis.memory.set_index("engine")
    assert m.loc["fast", "kv_pool_gib"] == pytest.approx(2000 * 1000 / 2**30)
    assert m.loc["fast", "measured_total_gib"] == 2.5
    assert m.loc["big", "measured_total_gib"] == 3.5  # gpu.csv peak
    assert m.loc["big", "estimated_total_gib"] == 3.0
    assert m.loc["big", "estimate_gap"] == pytest.approx(0.5 / 3.5)
    assert analysis.values["memory.kv_capacity_ratio"] == 2.0


def test_checks_cover_the_anomalies(analysis) -> None:
    c = analysis.checks
    warn = set(zip(c.loc[c["status"] == "warn", "id"], c.loc[c["status"] == "warn", "engine"],
                   strict=True))
    assert ("throughput.monotonic", "fast") in warn
    assert ("requests.failed", "big") in warn
    assert ("tiers.excluded", "fast") in warn
    assert ("load.finding", "fast") in warn
    assert set(c["status"]) <= {"pass", "warn", "fail"}
    temps = c[c["id"] == "gpu.temperature"].iloc[0]
    assert (temps["engine"], temps["value"]) == ("fast", 70.0)
    assert analysis.values["checks.warn"] == int((c["status"] == "warn").sum())


def test_round_facts(analysis) -> None:
    r = analysis.round
    assert r.concurrency == (1, 2, 4, 8)
    assert (r.requests_total, r.failed_total) == (60, 1)
    assert r.requests_per_engine == 30
    assert r.title == Bi("测试轮", "Test round")
    assert [e.id for e in r.engines] == ["big", "fast"]
    assert r.engines[0].label == Bi("大", "Big")
    assert r.driver == "1.2" and r.primary_pair == ("fast", "big")
    with pytest.raises(dataclasses.FrozenInstanceError):   # nothing patches it afterwards
        r.title = Bi("x", "x")  # type: ignore[misc]


def test_values_are_flat_scalars_with_placeholder_safe_names(analysis) -> None:
    name = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*(\.[A-Za-z0-9_\-]+)*$")
    for key, value in analysis.values.items():
        assert name.match(key), key
        # bilingual text is a Bi (the tables JSON writes it as {zh, en}), never a dict
        assert value is None or isinstance(value, (bool, int, float, str, Bi)), key
    assert analysis.values["engines.big.label"] == Bi("大", "Big")
    assert analysis.values["setup.title"] == Bi("测试轮", "Test round")
    assert list(analysis.values) == sorted(analysis.values)
    assert analysis.values["waves.fast.c4.gap"] == pytest.approx(
        analysis.tiers.set_index(["engine", "concurrency"]).loc[("fast", 4), "wave_gap"])
    assert math.isnan(analysis.values["memory.big.kv_pool_tokens"]) is False


def test_constants_name_their_source(analysis) -> None:
    names = {c.name: c for c in analysis.constants}
    assert names["bandwidth_gb_s"].provenance.en == "round.toml [hardware].bandwidth_gb_s"
    assert names["fast.kv_bytes_per_token"].value == 1000.0
    assert "fast/server.log:3" in names["fast.memory.weights"].provenance.en
    assert "log_segments" in names["fast.log_segments"].provenance.en


def test_bandwidth_from_the_gpu_table(tmp_path: Path) -> None:
    text = MANIFEST.replace('gpu = "Test GPU"\nbandwidth_gb_s = 100\nmemory_gib = 8',
                            'gpu = "RTX 4090"')
    (tmp_path / "round.toml").write_text(text, encoding="utf-8")
    manifest = parse_manifest(tmp_path / "round.toml", lookup_gpu)
    a = analyze(make.loaded_round(manifest, _summary()))
    names = {c.name: c for c in a.constants}
    assert names["bandwidth_gb_s"].value == 1008.0
    assert "built-in GPU table" in names["bandwidth_gb_s"].provenance.en
    assert a.graph_reuse.empty and a.memory.empty
    assert math.isnan(a.values["prefill.server_side_gap"])


def _bare_round(tmp_path: Path, summary: pd.DataFrame):
    """The test round with no optional files at all: bench summaries only."""
    (tmp_path / "round.toml").write_text(MANIFEST.replace(
        "log_segments = { warmup = 1, tiers = [2, 4, 8, 16] }\n", ""), encoding="utf-8")
    manifest = parse_manifest(tmp_path / "round.toml", lookup_gpu)
    return make.loaded_round(manifest, summary)


def test_memory_names_exist_as_nan_without_server_logs(tmp_path: Path) -> None:
    a = analyze(_bare_round(tmp_path, _summary()))
    assert len(a.memory) == 0
    for engine in ("big", "fast"):
        assert math.isnan(a.values[f"memory.{engine}.weights_gib"])
        assert math.isnan(a.values[f"memory.{engine}.measured_total_mib"])


def test_a_tier_with_no_output_gives_nan_ratios_not_a_warning(tmp_path: Path) -> None:
    summary = _summary()
    dead = (summary["engine"] == "fast") & (summary["concurrency"] == 4)
    summary.loc[dead, ["total_output_tokens", "completed"]] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning from a division by zero fails here
        a = analyze(_bare_round(tmp_path, summary))
    assert a.values["throughput_drop.fast.concurrency"] == 4.0
    assert math.isnan(a.values["throughput_drop.fast.next_over_this"])
