"""Golden test: the Analysis built from sample_runs/round2-rtx4090 reproduces every published
Round 2 figure (tests/data/round2-reference) at the precision it was printed with.

Each reference value is compared by formatting the computed value to the number of decimals of
the reference text (percent keys `*_pct` are fractions × 100). Every key of
published_figures.toml must appear in exactly one of the tables below — FIGURES (derived
figures), FACTS (setup facts read from the manifest or the server logs / fingerprints, compared
exactly) or NOT_IN_ROUND (with the reason) — and the test fails on any key left out.
"""

from __future__ import annotations

import csv
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from data_paths import REFERENCE

from reportgen.analyze.run import analyze
from reportgen.load.round import load_round

HERE = Path(__file__).resolve()
SAMPLE = HERE.parents[1] / "sample_runs" / "round2-rtx4090"

# reference key -> (values key, scale). scale 100 turns a fraction into the printed percent.
FIGURES: dict[str, tuple[str, float]] = {
    "byte_accounting.vllm_matmul_params": ("engines.vllm.matmul_params", 1),
    "byte_accounting.vllm_bytes_per_param": ("engines.vllm.bytes_per_param", 1),
    "byte_accounting.vllm_weight_gb": ("engines.vllm.weight_gb", 1),
    "byte_accounting.kv_bytes_per_token": ("engines.vllm.kv_bytes_per_token", 1),
    "byte_accounting.kv_tokens_per_slot": ("setup.kv_tokens_per_slot", 1),
    "byte_accounting.kv_gb_single_stream": ("engines.vllm.kv_gb_c1", 1),
    "byte_accounting.vllm_step_gb": ("engines.vllm.step_gb_c1", 1),
    "byte_accounting.llamacpp_gguf_gb": ("engines.llamacpp.weight_gb", 1),
    "byte_accounting.llamacpp_step_gb": ("engines.llamacpp.step_gb_c1", 1),
    "byte_accounting.predicted_step_ratio": ("step_ratio.predicted", 1),
    "byte_accounting.measured_step_ratio": ("step_ratio.measured", 1),
    "byte_accounting.prediction_attained_pct": ("step_ratio.attained", 100),
    "byte_accounting.vllm_effective_gb_s": ("engines.vllm.effective_gb_s_c1", 1),
    "byte_accounting.vllm_mbu_pct": ("engines.vllm.mbu_c1", 100),
    "byte_accounting.llamacpp_effective_gb_s": ("engines.llamacpp.effective_gb_s_c1", 1),
    "byte_accounting.llamacpp_mbu_pct": ("engines.llamacpp.mbu_c1", 100),
    "crossover.ratio_at_c8": ("crossover.ratio.c8", 1),
    "crossover.ratio_at_c16": ("crossover.ratio.c16", 1),
    "crossover.crossover_concurrency": ("crossover.concurrency", 1),
    "batching.vllm_efficiency_c64_pct": ("engines.vllm.efficiency_cmax", 100),
    "batching.llamacpp_efficiency_c64_pct": ("engines.llamacpp.efficiency_cmax", 100),
    "batching.efficiency_ratio": ("batching.efficiency_ratio", 1),
    "batching.floor_ms_per_slot": ("batching.floor_ms_per_slot", 1),
    "batching.floor_gb_per_slot": ("batching.floor_gb_per_slot", 1),
    "batching.vllm_ms_per_slot": ("engines.vllm.ms_per_slot", 1),
    "batching.llamacpp_ms_per_slot": ("engines.llamacpp.ms_per_slot", 1),
    "batching.vllm_slope_vs_floor": ("engines.vllm.slope_vs_floor", 1),
    "batching.llamacpp_slope_vs_floor": ("engines.llamacpp.slope_vs_floor", 1),
    "batching.slope_difference_ms": ("batching.slope_difference_ms", 1),
    "waves.llamacpp_c32_e2el_p50_s": ("waves.llamacpp.c32.e2el_p50_s", 1),
    "waves.llamacpp_c32_duration_per_wave_s": ("waves.llamacpp.c32.duration_per_wave_s", 1),
    "waves.llamacpp_c32_waves": ("waves.llamacpp.c32.waves", 1),
    "waves.llamacpp_c32_gap_pct": ("waves.llamacpp.c32.gap", 100),
    "waves.llamacpp_c64_e2el_p50_s": ("waves.llamacpp.c64.e2el_p50_s", 1),
    "waves.llamacpp_c64_duration_per_wave_s": ("waves.llamacpp.c64.duration_per_wave_s", 1),
    "waves.llamacpp_c64_waves": ("waves.llamacpp.c64.waves", 1),
    "waves.llamacpp_c64_gap_pct": ("waves.llamacpp.c64.gap", 100),
    "waves.vllm_c32_e2el_p50_s": ("waves.vllm.c32.e2el_p50_s", 1),
    "waves.vllm_c32_duration_per_wave_s": ("waves.vllm.c32.duration_per_wave_s", 1),
    "prefill.llamacpp_prompt_eval_median_ms": ("prefill.llamacpp.c1.server_ms", 1),
    "prefill.vllm_request_prefill_time_ms": ("prefill.vllm.c1.server_ms", 1),
    "prefill.llamacpp_ttft_p50_ms": ("tiers.llamacpp.c1.ttft_p50_ms", 1),
    "prefill.vllm_ttft_p50_ms": ("tiers.vllm.c1.ttft_p50_ms", 1),
    "prefill.server_side_gap_pct": ("prefill.server_side_gap", 100),
    "prefill.client_side_gap_pct": ("prefill.client_side_gap", 100),
    "graph_reuse.warmup_print_timing_lines": ("graph_reuse.llamacpp.warmup_blocks", 1),
    "graph_reuse.print_timing_lines_total": ("graph_reuse.llamacpp.blocks_in_log", 1),
    "graph_reuse.decode_steps_per_request_estimate":
        ("graph_reuse.llamacpp.decode_steps_per_request", 1),
    "graph_reuse.theoretical_max_reuse_pct": ("graph_reuse.llamacpp.theoretical_max_reuse", 100),
    "memory.vllm_weights_gib": ("memory.vllm.weights_gib", 1),
    "memory.vllm_kv_pool_gib": ("memory.vllm.kv_pool_gib", 1),
    "memory.vllm_kv_pool_tokens": ("memory.vllm.kv_pool_tokens", 1),
    "memory.llamacpp_weights_gib": ("memory.llamacpp.weights_gib", 1),
    "memory.llamacpp_kv_pool_tokens": ("memory.llamacpp.kv_pool_tokens", 1),
    "memory.llamacpp_kv_pool_gib": ("memory.llamacpp.kv_pool_gib", 1),
    "memory.llamacpp_estimated_total_gib": ("memory.llamacpp.estimated_total_gib", 1),
    "memory.llamacpp_nvidia_smi_mib": ("memory.llamacpp.measured_total_mib", 1),
    "memory.llamacpp_nvidia_smi_gib": ("memory.llamacpp.measured_total_gib", 1),
    "memory.llamacpp_estimate_gap_pct": ("memory.llamacpp.estimate_gap", 100),
    "memory.kv_capacity_ratio": ("memory.kv_capacity_ratio", 1),
    "self_checks.vllm_output_tokens_per_request": ("output_tokens.vllm.per_request", 1),
    "self_checks.llamacpp_output_tokens_total": ("output_tokens.llamacpp.total", 1),
    "self_checks.llamacpp_output_token_shortfall": ("output_tokens.llamacpp.shortfall", 1),
    "self_checks.llamacpp_output_token_shortfall_pct":
        ("output_tokens.llamacpp.shortfall_frac", 100),
    "self_checks.llamacpp_mean_output_tokens_c1": ("tiers.llamacpp.c1.mean_output_tokens", 1),
    "self_checks.llamacpp_mean_output_tokens_c32": ("tiers.llamacpp.c32.mean_output_tokens", 1),
    "self_checks.max_gpu_temperature_c": ("gpu.max_temperature_c", 1),
    "tpot_range.vllm_c1_ms": ("tiers.vllm.c1.tpot_p50_ms", 1),
    "tpot_range.vllm_c64_ms": ("tiers.vllm.c64.tpot_p50_ms", 1),
    "tpot_range.llamacpp_c1_ms": ("tiers.llamacpp.c1.tpot_p50_ms", 1),
    "tpot_range.llamacpp_c64_ms": ("tiers.llamacpp.c64.tpot_p50_ms", 1),
    # bench results, not setup: the failures and request count are counted from the JSON files
    "setup.failed_requests": ("setup.failed_total", 1),
    "setup.total_requests": ("setup.requests_per_engine", 1),
}

# Setup facts: not derived figures but what the round ran with. Each is read from the manifest
# (round.toml) or from a server log / fingerprint, and compared exactly.
FACTS: dict[str, tuple[str, str]] = {
    "setup.gpu": ("setup.gpu", "manifest [hardware].gpu"),
    "setup.gpu_memory_gb": ("setup.memory_gib", "manifest [hardware].memory_gib"),
    "setup.bus_bandwidth_gb_s": ("setup.bandwidth_gb_s", "manifest [hardware].bandwidth_gb_s"),
    "setup.vllm_version": ("engines.vllm.version", "vllm server.log version line"),
    "setup.vllm_dtype": ("engines.vllm.dtype", "vllm server.log dtype"),
    "setup.llamacpp_commit": ("engines.llamacpp.commit", "llama-server log build line"),
    "setup.llamacpp_quant": ("engines.llamacpp.quant", "llama-server log model file name"),
    "setup.model_file": ("engines.llamacpp.model_file", "llama-server log model path"),
    "setup.input_tokens": ("setup.input_tokens", "manifest [workload]"),
    "setup.output_tokens": ("setup.output_tokens", "manifest [workload]"),
    "setup.concurrency": ("setup.concurrency", "max_concurrency of the bench files"),
    "setup.llamacpp_slots": ("engines.llamacpp.slots", "llama-server log n_slots"),
    "setup.llamacpp_context": ("engines.llamacpp.context", "llama-server log n_ctx"),
    "setup.llamacpp_prompt_cache": ("engines.llamacpp.prompt_cache",
                                    "llama-server command line --cache-ram 0"),
    "setup.driver": ("setup.driver", "fingerprint.txt nvidia-smi header"),
    "setup.cuda": ("setup.cuda", "fingerprint.txt nvidia-smi header"),
    "setup.client": ("setup.client", "manifest [round].client"),
    "conclusions.server_log_verbosity": ("engines.llamacpp.log_verbosity",
                                         "llama-server log verbosity"),
}

# The published conclusions (text): the sample page must state each in both languages, with
# reportgen's own reservations marked apart — tests/test_sample_conclusions.py checks the page.
CONCLUSIONS: tuple[str, ...] = ("conclusions.waves", "conclusions.control_experiment",
                                "conclusions.graph_reuse_c64")

NOT_IN_ROUND: dict[str, str] = {
    "crossover.round1_crossover_concurrency":
        "a Round 1 estimate the seed quotes for comparison; no Round 1 file is part of this round",
}

TIER_COLUMNS: dict[str, tuple[str, float]] = {
    "requests": ("requests", 1), "completed": ("completed", 1), "duration_s": ("duration_s", 1),
    "output_tok_s": ("output_tok_s", 1), "total_tok_s": ("total_tok_s", 1),
    "ttft_p50_ms": ("ttft_p50_ms", 1), "ttft_p99_ms": ("ttft_p99_ms", 1),
    "itl_p50_ms": ("itl_p50_ms", 1), "itl_mean_ms": ("itl_mean_ms", 1),
    "itl_p99_ms": ("itl_p99_ms", 1), "e2el_p50_ms": ("e2el_p50_ms", 1),
    "wait_ratio_pct": ("wait_ratio", 100),
}
REUSE_COLUMNS: dict[str, tuple[str, float]] = {
    "print_timing_lines": ("print_timing_lines", 1), "decode_steps": ("decode_steps", 1),
    "graphs_reused_delta": ("graphs_reused_delta", 1), "reuse_pct": ("reuse", 100),
    "itl_p50_ms": ("itl_p50_ms", 1), "roofline_pct": ("roofline_attainment", 100),
}


def _published() -> dict[str, str]:
    """'section.key' -> the value exactly as written in published_figures.toml (raw text)."""
    raw: dict[str, str] = {}
    section = ""
    for line in (REFERENCE / "published_figures.toml").read_text(encoding="utf-8").splitlines():
        header = re.match(r"^\[(\w+)\]", line)
        if header:
            section = header.group(1)
            continue
        entry = re.match(r'^(\w+)\s*=\s*("[^"]*"|\[[^\]]*\]|[^\s#]+)', line)
        if entry:
            raw[f"{section}.{entry.group(1)}"] = entry.group(2)
    parsed = tomllib.loads((REFERENCE / "published_figures.toml").read_text(encoding="utf-8"))
    keys = {f"{s}.{k}" for s, table in parsed.items() for k in table}
    assert set(raw) == keys, "line reader and TOML parser disagree on the keys"
    return raw


def _matches(computed: Any, reference: str, scale: float = 1) -> bool:
    """Does `computed` (× scale) print as `reference` at the reference's precision?"""
    if isinstance(computed, bool) or computed is None:
        return False
    value = float(computed) * scale
    if not math.isfinite(value):
        return False
    decimals = len(reference.split(".", 1)[1]) if "." in reference else 0
    printed = f"{value:.{decimals}f}"
    return float(printed) == float(reference)  # "-0.0" equals "0.0"


@pytest.fixture(scope="module")
def analysis():
    return analyze(load_round(SAMPLE))


def test_every_reference_key_is_mapped_once() -> None:
    keys = set(_published())
    tables = (set(FIGURES), set(FACTS), set(NOT_IN_ROUND), set(CONCLUSIONS))
    assert set.union(*tables) == keys, sorted(keys ^ set.union(*tables))
    assert sum(len(t) for t in tables) == len(keys), "a key is mapped twice"


@pytest.mark.parametrize("key", sorted(FIGURES))
def test_published_figure(analysis, key: str) -> None:
    name, scale = FIGURES[key]
    reference = _published()[key]
    computed = analysis.values[name]
    assert _matches(computed, reference, scale), f"{name} = {computed!r} (×{scale}) vs {reference}"


@pytest.mark.parametrize("key", sorted(FACTS))
def test_setup_fact(analysis, key: str) -> None:
    name, _ = FACTS[key]
    reference = tomllib.loads(f"x = {_published()[key]}")["x"]
    computed = analysis.values[name]
    if isinstance(reference, list):
        assert list(analysis.round.concurrency) == reference
        assert computed == " · ".join(str(c) for c in reference)
    elif isinstance(reference, str):
        assert computed == reference
    else:
        assert float(computed) == float(reference)


def test_not_in_round_keys_have_no_value(analysis) -> None:
    # the comparison figure is prose for the narrative; make sure nothing pretends to compute it
    assert not any("round1" in name for name in analysis.values)


def test_headline_endpoints_and_exclusion(analysis) -> None:
    engines = analysis.engines.set_index("id")
    assert (engines.loc["vllm", "c1"], engines.loc["vllm", "cmax"]) == (1, 64)
    assert (engines.loc["llamacpp", "c1"], engines.loc["llamacpp", "cmax"]) == (1, 64)
    v = analysis.values
    assert (v["pair.a"], v["pair.b"]) == ("llamacpp", "vllm")
    assert (v["crossover.lower_tier"], v["crossover.upper_tier"]) == (8, 16)
    assert v["prefill.concurrency"] == 1 and v["prefill.llamacpp.c1.server_samples"] == 40
    assert v["tiers.llamacpp.c32.excluded"] is True
    assert "crossover.ratio.c32" not in v  # an excluded tier never feeds the crossover
    assert v["engines.llamacpp.efficiency_cmax"] == v["tiers.llamacpp.c64.roofline_attainment"]


def _rows(name: str) -> list[dict[str, str]]:
    with (REFERENCE / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_tiers_csv(analysis) -> None:
    reference = _rows("tiers.csv")
    tiers = analysis.tiers.set_index(["engine", "concurrency"])
    assert len(tiers) == len(reference)
    assert set(reference[0]) == {"engine", "concurrency", *TIER_COLUMNS}
    misses = []
    for row in reference:
        tier = tiers.loc[(row["engine"], int(row["concurrency"]))]
        for column, (name, scale) in TIER_COLUMNS.items():
            if not _matches(tier[name], row[column], scale):
                misses.append(f"{row['engine']} C={row['concurrency']} {column}: "
                              f"{tier[name]!r} vs {row[column]}")
    assert not misses, "\n".join(misses)


def test_graph_reuse_csv(analysis) -> None:
    reference = _rows("graph_reuse.csv")
    reuse = analysis.graph_reuse
    reuse = reuse[reuse["engine"] == "llamacpp"].set_index("concurrency")
    assert list(reuse.index) == [int(r["concurrency"]) for r in reference]
    assert set(reference[0]) == {"concurrency", *REUSE_COLUMNS}
    misses = []
    for row in reference:
        got = reuse.loc[int(row["concurrency"])]
        for column, (name, scale) in REUSE_COLUMNS.items():
            if not _matches(got[name], row[column], scale):
                misses.append(f"C={row['concurrency']} {column}: {got[name]!r} vs {row[column]}")
    assert not misses, "\n".join(misses)
