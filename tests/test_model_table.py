"""The built-in model table: name matching, weight/KV arithmetic, precision from the name."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from reportgen.reference.models import (
    MODELS,
    QUANT_MARKERS,
    ModelSpec,
    bytes_per_param,
    lookup_model,
)


@pytest.mark.parametrize(("name", "key"), [
    # as users write them (the brief's examples first)
    ("meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B"),
    ("/models/llama-3.3-70b-instruct", "Llama-3.3-70B"),
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen2.5-7B"),
    ("unsloth/Qwen3-32B-NVFP4", "Qwen3-32B"),
    ("deepseek-ai/DeepSeek-R1", "DeepSeek-R1"),
    ("openai/gpt-oss-120b", "gpt-oss-120b"),
    ("google/gemma-3-27b-it", "Gemma-3-27B"),
    ("neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8", "Llama-3.1-405B"),
    ("Qwen2.5-7B-Instruct-Q4_K_M.gguf", "Qwen2.5-7B"),
    # Llama 3.x
    ("meta-llama/Llama-3.1-70B-Instruct", "Llama-3.1-70B"),
    ("meta-llama/Llama-3.2-1B-Instruct", "Llama-3.2-1B"),
    ("meta-llama/Llama-3.2-3B", "Llama-3.2-3B"),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "Llama-3-8B"),
    ("meta-llama/Meta-Llama-3-70B", "Llama-3-70B"),
    ("llama3.1:8b", "Llama-3.1-8B"),
    ("LLAMA 3.1 8B", "Llama-3.1-8B"),
    ("llama_3_1_8b", "Llama-3.1-8B"),
    # Qwen2.5 / Qwen3
    ("Qwen/Qwen2.5-0.5B-Instruct", "Qwen2.5-0.5B"),
    ("Qwen/Qwen2.5-1.5B", "Qwen2.5-1.5B"),
    ("Qwen/Qwen2.5-3B-Instruct", "Qwen2.5-3B"),
    ("Qwen/Qwen2.5-14B-Instruct", "Qwen2.5-14B"),
    ("Qwen/Qwen2.5-32B-Instruct", "Qwen2.5-32B"),
    ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4", "Qwen2.5-72B"),
    ("qwen2.5:7b-instruct-q4_K_M", "Qwen2.5-7B"),
    ("Qwen2.5 7B", "Qwen2.5-7B"),
    ("Qwen/Qwen3-0.6B", "Qwen3-0.6B"),
    ("Qwen/Qwen3-1.7B", "Qwen3-1.7B"),
    ("Qwen/Qwen3-4B-Instruct-2507", "Qwen3-4B"),
    ("Qwen/Qwen3-8B-FP8", "Qwen3-8B"),
    ("Qwen/Qwen3-14B", "Qwen3-14B"),
    ("Qwen/Qwen3-30B-A3B", "Qwen3-30B-A3B"),
    ("qwen3:30b", "Qwen3-30B-A3B"),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "Qwen3-235B-A22B"),
    # Mistral
    ("mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "Mixtral-8x7B"),
    ("mixtral:8x22b", "Mixtral-8x22B"),
    # DeepSeek
    ("deepseek-ai/DeepSeek-V3", "DeepSeek-V3"),
    ("deepseek-ai/DeepSeek-V3-0324", "DeepSeek-V3"),
    ("deepseek-ai/DeepSeek-V3.1", "DeepSeek-V3"),
    ("deepseek-ai/DeepSeek-R1-0528", "DeepSeek-R1"),
    ("deepseek-r1:671b", "DeepSeek-R1"),
    ("unsloth/DeepSeek-R1-GGUF/DeepSeek-R1-UD-Q2_K_XL-00001-of-00005.gguf", "DeepSeek-R1"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "DeepSeek-R1-Distill-Llama-8B"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "DeepSeek-R1-Distill-Qwen-32B"),
    # gpt-oss, Gemma
    ("gpt-oss:20b", "gpt-oss-20b"),
    ("google/gemma-2-2b-it", "Gemma-2-2B"),
    ("google/gemma-2-9b", "Gemma-2-9B"),
    ("gemma2:27b", "Gemma-2-27B"),
    ("google/gemma-3-1b-it", "Gemma-3-1B"),
    ("google/gemma-3-4b-pt", "Gemma-3-4B"),
    ("google/gemma-3-12b-it", "Gemma-3-12B"),
    ("gemma3:27b", "Gemma-3-27B"),
    # paths
    ("/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e39f2",
     "Llama-3.1-8B"),
    ("C:\\models\\Qwen2.5-7B-Instruct\\", "Qwen2.5-7B"),
])
def test_name_to_model(name: str, key: str) -> None:
    spec = lookup_model(name)
    assert spec is not None, name
    assert spec.key == key


@pytest.mark.parametrize(("name", "key"), [
    # sizes that share digits or a family must not be confused
    ("Qwen/Qwen3-32B", "Qwen3-32B"),
    ("Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B"),
    ("Qwen/Qwen2.5-32B", "Qwen2.5-32B"),
    ("Qwen/Qwen2.5-3B", "Qwen2.5-3B"),
    ("meta-llama/Llama-3.1-8B", "Llama-3.1-8B"),
    ("meta-llama/Llama-3.1-70B", "Llama-3.1-70B"),
    ("google/gemma-3-1b-it", "Gemma-3-1B"),
    ("google/gemma-3-12b-it", "Gemma-3-12B"),
    ("google/gemma-2-2b", "Gemma-2-2B"),
    ("google/gemma-2-27b", "Gemma-2-27B"),
    ("Qwen/Qwen3-4B", "Qwen3-4B"),
    ("Qwen/Qwen3-14B", "Qwen3-14B"),
])
def test_sizes_are_not_confused(name: str, key: str) -> None:
    spec = lookup_model(name)
    assert spec is not None and spec.key == key


@pytest.mark.parametrize("name", [
    "", "   ", "my-finetune", "gpt-4o",
    # a family without a size
    "Qwen3", "qwen2.5", "meta-llama/Llama-3.1", "Llama", "gemma-3", "mistral", "gpt-oss",
    # sizes or variants not in the table
    "meta-llama/Llama-3.2-11B-Vision-Instruct", "Qwen/Qwen2.5-Coder-7B-Instruct",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "Qwen/Qwen2.5-VL-7B-Instruct", "google/gemma-2b", "google/gemma-3-270m",
    "google/gemma-3n-E4B-it", "mistralai/Mistral-Small-24B-Instruct-2501",
    "deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-ai/DeepSeek-V2-Lite",
    # R1 distills on bases not in the table, and Ollama's distill tags
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
    "deepseek-r1:7b", "deepseek-r1:70b",
])
def test_unknown_is_none(name: str) -> None:
    assert lookup_model(name) is None


def test_qwen25_7b_arithmetic() -> None:
    spec = lookup_model("Qwen/Qwen2.5-7B-Instruct")
    assert spec is not None
    # 28 layers × 2 (K,V) × 4 KV heads × 128 × 2 bytes
    assert spec.kv_bytes_per_token(2) == 28 * 2 * 4 * 128 * 2 == 57344
    assert spec.kv_bytes_per_token(1) == 28672  # FP8 KV cache
    assert spec.weight_bytes_per_step(2.0) == pytest.approx(2 * 7.616e9)
    assert spec.weight_bytes_per_step(0.5) == pytest.approx(3.808e9)
    assert spec.kv_bytes_for_context(1000, 2) == 1000 * 57344


def test_llama_31_8b_arithmetic() -> None:
    spec = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    assert spec is not None
    assert spec.kv_bytes_per_token(2) == 32 * 2 * 8 * 128 * 2 == 131072  # 128 KiB per token


def test_mla_kv_uses_the_latent() -> None:
    spec = lookup_model("deepseek-ai/DeepSeek-V3")
    assert spec is not None and spec.is_mla
    # 61 layers × (512 latent + 64 RoPE key) × 1 byte (FP8 cache)
    assert spec.kv_bytes_per_token(1) == 61 * (512 + 64) == 35136
    assert spec.kv_bytes_per_token(2) == 70272
    assert spec.weight_bytes_per_step(1.0) == pytest.approx(37e9)  # active experts only


def test_moe_reads_active_experts_only() -> None:
    spec = lookup_model("Qwen/Qwen3-30B-A3B")
    assert spec is not None
    assert spec.active_params < spec.params / 5
    assert spec.weight_bytes_per_step(2) == pytest.approx(2 * spec.active_params)
    assert spec.kv_bytes_per_token(2) == 48 * 2 * 4 * 128 * 2


def test_sliding_window_layers_bound_the_cache() -> None:
    spec = lookup_model("openai/gpt-oss-120b")
    assert spec is not None
    assert (spec.sliding_window_layers, spec.sliding_window) == (18, 128)
    per_layer_token = 2 * 8 * 64 * 2
    assert spec.kv_bytes_per_token(2) == 36 * per_layer_token
    # 18 full layers keep 4096 tokens, 18 sliding layers keep 128
    assert spec.kv_bytes_for_context(4096, 2) == per_layer_token * (18 * 4096 + 18 * 128)
    # below the window nothing is dropped
    assert spec.kv_bytes_for_context(100, 2) == 100 * spec.kv_bytes_per_token(2)
    gemma = lookup_model("google/gemma-3-27b-it")
    assert gemma is not None
    assert (gemma.sliding_window_layers, gemma.sliding_window) == (52, 1024)
    assert "sliding" in gemma.source.lower() or "local" in gemma.source.lower()


def _specs() -> list[ModelSpec]:
    return [spec for _, spec in MODELS if spec is not None]


def test_every_entry_has_a_source_and_a_consistent_shape() -> None:
    for pattern, spec in MODELS:
        re.compile(pattern)
        if spec is None:
            continue
        assert spec.source.strip(), spec.key
        assert 0 < spec.active_params <= spec.params, spec.key
        assert spec.layers > 0 and spec.kv_heads > 0 and spec.head_dim > 0, spec.key
        assert 0 <= spec.sliding_window_layers < spec.layers, spec.key
        assert (spec.sliding_window_layers == 0) == (spec.sliding_window is None), spec.key
        assert (spec.kv_lora_rank is None) == (spec.rope_head_dim is None), spec.key


def test_distinct_keys_mean_distinct_entries() -> None:
    by_key: dict[str, ModelSpec] = {}
    for spec in _specs():
        assert by_key.setdefault(spec.key, spec) == spec, spec.key


@pytest.mark.parametrize(("key", "card"), [
    # model-card parameter counts the computed figures must round to
    ("Llama-3.1-8B", 8.03e9), ("Llama-3.2-1B", 1.23e9), ("Qwen2.5-7B", 7.61e9),
    ("Qwen2.5-72B", 72.7e9), ("Mixtral-8x7B", 46.7e9), ("Mixtral-8x22B", 141e9),
    ("gpt-oss-120b", 117e9), ("gpt-oss-20b", 21e9), ("DeepSeek-V3", 671e9),
])
def test_params_agree_with_model_cards(key: str, card: float) -> None:
    spec = next(s for s in _specs() if s.key == key)
    assert spec.params == pytest.approx(card, rel=0.01)


@pytest.mark.parametrize(("name", "expected"), [
    ("neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8", 1.0),
    ("RedHatAI/Llama-3.1-8B-Instruct-FP8-Dynamic", 1.0),
    ("Qwen/Qwen3-8B-FP8", 1.0),
    ("unsloth/Qwen3-32B-NVFP4", 0.5625),
    ("openai/gpt-oss-120b-MXFP4", 0.53125),
    ("some-model-fp4", 0.5),
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", 0.5),
    ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4", 0.5),
    ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8", 1.0),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", 0.5),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", 1.0),
    ("model-int4", 0.5),
    ("model-int8", 1.0),
    ("unsloth/Llama-3.1-8B-Instruct-bnb-4bit", 0.5),
    ("mlx-community/Qwen3-8B-4bit", 0.5),
    ("mlx-community/Qwen3-8B-8bit", 1.0),
    ("Qwen2.5-7B-Instruct-Q4_K_M.gguf", 4.8944 / 8),
    ("Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", 8.5 / 8),
    ("Qwen2.5-7B-Instruct-Q5_K_M.gguf", 5.7036 / 8),
    ("Qwen2.5-7B-Instruct-Q6_K.gguf", 6.5633 / 8),
    ("Qwen2.5-7B-Instruct-Q4_0.gguf", 4.5 / 8),
    ("qwen2.5:7b-instruct-q4_K_M", 4.8944 / 8),
])
def test_bytes_per_param_from_name(name: str, expected: float) -> None:
    found = bytes_per_param(name)
    assert found is not None, name
    value, reason = found
    assert value == pytest.approx(expected)
    assert reason.strip()


@pytest.mark.parametrize("name", [
    "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "openai/gpt-oss-120b",
    "google/gemma-3-27b-it", "Qwen3-8B-BF16", "model-fp16", "", "Qwen/Qwen3-4B",
    # a quantisation word in an unrelated parent directory is not the model's precision
    "/models/awq-runs/Llama-3.1-8B-Instruct",
])
def test_no_marker_is_none(name: str) -> None:
    assert bytes_per_param(name) is None


def test_reasons_cite_their_basis() -> None:
    q4km = bytes_per_param("x-Q4_K_M.gguf")
    assert q4km is not None and "llama.cpp" in q4km[1]
    q8 = bytes_per_param("x-Q8_0.gguf")
    assert q8 is not None and "8.5" in q8[1]
    nvfp4 = bytes_per_param("x-NVFP4")
    assert nvfp4 is not None and "scale" in nvfp4[1]
    for _, value, reason in QUANT_MARKERS:
        assert 0 < value <= 1.1 and reason.strip()


def test_table_is_read_on_first_lookup_not_at_import() -> None:
    # cold start: importing the module (model_bytes does) parses no TOML; both arrays come
    # from one read
    code = """
import reportgen.files.resources as resources
read = []
real = resources.data_tables
resources.data_tables = lambda name, allowed: read.append(name) or real(name, allowed)
import reportgen.reference.models as model_table
print(read)
model_table.lookup_model("Qwen/Qwen3-8B")
model_table.bytes_per_param("x-Q4_K_M.gguf")
print(read, len(model_table.MODELS), len(model_table.QUANT_MARKERS))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines() == [
        "[]", f"['models.toml'] {len(MODELS)} {len(QUANT_MARKERS)}"]


def test_rows_keep_their_field_types() -> None:
    # models.toml: counts are floats (8.03e9), shapes are integers
    for spec in _specs():
        assert isinstance(spec.params, float) and isinstance(spec.active_params, float), spec.key
        for value in (spec.layers, spec.kv_heads, spec.head_dim, spec.sliding_window_layers):
            assert type(value) is int, spec.key
        for optional in (spec.kv_lora_rank, spec.rope_head_dim, spec.sliding_window):
            assert optional is None or type(optional) is int, spec.key
    for _, value, _ in QUANT_MARKERS:
        assert isinstance(value, float)
