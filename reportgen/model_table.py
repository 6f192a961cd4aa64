"""Built-in table of common open models: weight and KV-cache bytes without the user typing them.

For each model the table holds the figures a decode roofline needs: total and active
parameters, layers, KV heads and head size (or the MLA latent sizes for DeepSeek), and where
they come from. Parameter counts are computed from the official config.json dimensions
(embeddings, attention, MLP/experts, norms; biases where the architecture has them) and checked
against the model card's rounded figure, which each ``source`` quotes where one was found.

Conventions
-----------
* ``active_params`` is what one decode step reads. For MoE models it counts the routed experts
  actually used (top-k) plus everything shared. The input embedding is a row gather, not a full
  read, but dense models count it anyway (the model-card convention), so dense
  ``weight_bytes_per_step`` is a slight upper bound; gpt-oss and DeepSeek follow their cards.
* Multimodal Gemma 3 checkpoints (4B/12B/27B) ship a ~0.4B SigLIP vision tower that text decode
  never reads; ``params`` and ``active_params`` are the language model only, which the source
  says.
* ``kv_bytes_per_token`` is the full-attention upper bound: every layer keeps K and V for every
  token. Models with sliding-window layers (Gemma 2 and 3, gpt-oss; Mistral-7B v0.1) keep at
  most ``sliding_window`` tokens in those layers; ``kv_bytes_for_context`` accounts for that.

Name matching
-------------
``lookup_model`` lower-cases the name, drops a file extension (``.gguf``, ``.safetensors``),
and turns every run of ``-``, ``_``, ``.``, ``:`` and spaces into one ``-``; so
``Qwen2.5-7B-Instruct``, ``qwen2.5:7b`` and ``qwen2_5 7b`` all read ``qwen2-5-7b...``. Path
components are tried from the last one back (``org/name``, ``/models/name``, and
``models--org--name/snapshots/<hash>`` cache paths). The rows of ``MODELS`` are tried in
order; the first whose pattern matches decides, and a row with no spec is a deliberate
"unknown" (e.g. R1 distills built on bases not in the table). Every pattern names the family
*and* the size, bounded on both sides, so Qwen3-32B, Qwen3-30B-A3B and Qwen2.5-32B, or
gemma-3-1b and gemma-3-12b, cannot be confused, and a family without a size matches nothing.
DeepSeek-V3/R1 come in one size, so their rows need no size but refuse a name carrying any
other size (Ollama's ``deepseek-r1:7b`` is a distill).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ModelSpec:
    """Decode-relevant shape of one model; see the module docstring for the conventions."""

    key: str  # canonical name, e.g. "Llama-3.1-8B"
    params: float  # total parameters
    active_params: float  # parameters read per decode step (MoE: active experts only)
    layers: int
    kv_heads: int
    head_dim: int
    kv_lora_rank: int | None = None  # MLA: compressed KV latent per token per layer
    rope_head_dim: int | None = None  # MLA: decoupled RoPE key per token per layer
    source: str = ""
    sliding_window_layers: int = 0  # layers that attend to a sliding window only
    sliding_window: int | None = None  # tokens those layers keep

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None and self.rope_head_dim is not None

    def kv_elements_per_token_per_layer(self) -> int:
        """Cached elements per token in one layer: 2×kv_heads×head_dim, or the MLA latent."""
        if self.kv_lora_rank is not None and self.rope_head_dim is not None:
            return self.kv_lora_rank + self.rope_head_dim
        return 2 * self.kv_heads * self.head_dim

    def weight_bytes_per_step(self, bytes_per_param: float) -> float:
        """Weight bytes read per decode step: active_params × bytes per parameter."""
        return self.active_params * bytes_per_param

    def kv_bytes_per_token(self, bytes_per_elem: float) -> float:
        """KV-cache bytes per token, every layer full attention (an upper bound for models with
        sliding-window layers): 2(K,V)×layers×kv_heads×head_dim×bytes, or for MLA
        layers×(kv_lora_rank+rope_head_dim)×bytes."""
        return self.layers * self.kv_elements_per_token_per_layer() * bytes_per_elem

    def kv_bytes_for_context(self, tokens: int, bytes_per_elem: float) -> float:
        """KV-cache bytes one sequence of ``tokens`` tokens holds, sliding-window layers keeping
        at most ``sliding_window`` tokens."""
        per_layer_token = self.kv_elements_per_token_per_layer() * bytes_per_elem
        full_layers = self.layers - self.sliding_window_layers
        windowed = min(tokens, self.sliding_window) if self.sliding_window else tokens
        return per_layer_token * (full_layers * tokens + self.sliding_window_layers * windowed)


def _spec(key: str, params: float, active: float | None, layers: int, kv_heads: int,
          head_dim: int, source: str, *, kv_lora_rank: int | None = None,
          rope_head_dim: int | None = None, sliding_window_layers: int = 0,
          sliding_window: int | None = None) -> ModelSpec:
    """A ModelSpec; ``active=None`` means dense (every parameter is read each step)."""
    return ModelSpec(key, params, params if active is None else active, layers, kv_heads,
                     head_dim, kv_lora_rank, rope_head_dim, source, sliding_window_layers,
                     sliding_window)


# --- Llama 3.x (Meta). Configs: meta-llama/<name> config.json; all GQA with 8 KV heads. ---
LLAMA_31_8B = _spec(
    "Llama-3.1-8B", 8.03e9, None, 32, 8, 128,
    "meta-llama/Llama-3.1-8B config.json: num_hidden_layers=32, num_key_value_heads=8, "
    "head_dim=128 (hidden 4096 / 32 heads), intermediate 14336, vocab 128256, untied; "
    "8.03e9 params from those dims (model card: 8B).")
LLAMA_31_70B = _spec(
    "Llama-3.1-70B", 70.55e9, None, 80, 8, 128,
    "meta-llama/Llama-3.1-70B config.json: num_hidden_layers=80, num_key_value_heads=8, "
    "head_dim=128 (hidden 8192 / 64 heads), intermediate 28672, vocab 128256, untied; "
    "70.55e9 params from those dims (model card: 70B).")
LLAMA_31_405B = _spec(
    "Llama-3.1-405B", 405.85e9, None, 126, 8, 128,
    "meta-llama/Llama-3.1-405B config.json: num_hidden_layers=126, num_key_value_heads=8, "
    "head_dim=128 (hidden 16384 / 128 heads), intermediate 53248, vocab 128256, untied; "
    "405.85e9 params from those dims (model card: 405B).")
LLAMA_32_1B = _spec(
    "Llama-3.2-1B", 1.236e9, None, 16, 8, 64,
    "meta-llama/Llama-3.2-1B config.json: num_hidden_layers=16, num_key_value_heads=8, "
    "head_dim=64, hidden 2048, intermediate 8192, vocab 128256, tied embeddings; 1.236e9 "
    "params from those dims (model card: 1B (1.23B)).")
LLAMA_32_3B = _spec(
    "Llama-3.2-3B", 3.213e9, None, 28, 8, 128,
    "meta-llama/Llama-3.2-3B config.json: num_hidden_layers=28, num_key_value_heads=8, "
    "head_dim=128 (hidden 3072 / 24 heads), intermediate 8192, vocab 128256, tied embeddings; "
    "3.21e9 params from those dims (model card: 3B).")
LLAMA_33_70B = dataclasses.replace(
    LLAMA_31_70B, key="Llama-3.3-70B",
    source="meta-llama/Llama-3.3-70B-Instruct config.json: same dims as Llama-3.1-70B "
    "(num_hidden_layers=80, num_key_value_heads=8, head_dim=128, intermediate 28672, vocab "
    "128256); 70.55e9 params from those dims (model card: 70B).")
LLAMA_3_8B = dataclasses.replace(
    LLAMA_31_8B, key="Llama-3-8B",
    source="meta-llama/Meta-Llama-3-8B config.json: same dims as Llama-3.1-8B "
    "(num_hidden_layers=32, num_key_value_heads=8, head_dim=128, vocab 128256); 8.03e9 params.")
LLAMA_3_70B = dataclasses.replace(
    LLAMA_31_70B, key="Llama-3-70B",
    source="meta-llama/Meta-Llama-3-70B config.json: same dims as Llama-3.1-70B "
    "(num_hidden_layers=80, num_key_value_heads=8, head_dim=128, vocab 128256); 70.55e9 params.")

# --- Qwen2.5 (Alibaba). Attention QKV bias; 0.5B-3B tie embeddings. ---
_QWEN25 = "Qwen/Qwen2.5-{} config.json: num_hidden_layers={}, num_key_value_heads={}, head_dim={} "
QWEN25_05B = _spec(
    "Qwen2.5-0.5B", 0.494e9, None, 24, 2, 64,
    _QWEN25.format("0.5B", 24, 2, 64) + "(hidden 896 / 14 heads), intermediate 4864, vocab "
    "151936, tied; 0.494e9 params from those dims (model card: 0.49B).")
QWEN25_15B = _spec(
    "Qwen2.5-1.5B", 1.544e9, None, 28, 2, 128,
    _QWEN25.format("1.5B", 28, 2, 128) + "(hidden 1536 / 12 heads), intermediate 8960, vocab "
    "151936, tied; 1.544e9 params from those dims (model card: 1.54B).")
QWEN25_3B = _spec(
    "Qwen2.5-3B", 3.086e9, None, 36, 2, 128,
    _QWEN25.format("3B", 36, 2, 128) + "(hidden 2048 / 16 heads), intermediate 11008, vocab "
    "151936, tied; 3.086e9 params from those dims (model card: 3.09B).")
QWEN25_7B = _spec(
    "Qwen2.5-7B", 7.616e9, None, 28, 4, 128,
    _QWEN25.format("7B", 28, 4, 128) + "(hidden 3584 / 28 heads), intermediate 18944, vocab "
    "152064, untied; 7.616e9 params from those dims (model card: 7.61B).")
QWEN25_14B = _spec(
    "Qwen2.5-14B", 14.77e9, None, 48, 8, 128,
    _QWEN25.format("14B", 48, 8, 128) + "(hidden 5120 / 40 heads), intermediate 13824, vocab "
    "152064, untied; 14.77e9 params from those dims (model card: 14.7B).")
QWEN25_32B = _spec(
    "Qwen2.5-32B", 32.76e9, None, 64, 8, 128,
    _QWEN25.format("32B", 64, 8, 128) + "(hidden 5120 / 40 heads), intermediate 27648, vocab "
    "152064, untied; 32.76e9 params from those dims (the model card prints 32.5B).")
QWEN25_72B = _spec(
    "Qwen2.5-72B", 72.71e9, None, 80, 8, 128,
    _QWEN25.format("72B", 80, 8, 128) + "(hidden 8192 / 64 heads), intermediate 29568, vocab "
    "152064, untied; 72.71e9 params from those dims (model card: 72.7B).")

# --- Qwen3 (Alibaba). head_dim 128 everywhere, q/k RMSNorm, no QKV bias. ---
_QWEN3 = "Qwen/Qwen3-{} config.json: num_hidden_layers={}, num_key_value_heads={}, head_dim=128, "
QWEN3_06B = _spec(
    "Qwen3-0.6B", 0.596e9, None, 28, 8, 128,
    _QWEN3.format("0.6B", 28, 8) + "hidden 1024, 16 heads, intermediate 3072, vocab 151936, "
    "tied; 0.596e9 params from those dims (model card: 0.6B).")
QWEN3_17B = _spec(
    "Qwen3-1.7B", 1.721e9, None, 28, 8, 128,
    _QWEN3.format("1.7B", 28, 8) + "hidden 2048, 16 heads, intermediate 6144, vocab 151936, "
    "tied; 1.721e9 params from those dims (model card: 1.7B).")
QWEN3_4B = _spec(
    "Qwen3-4B", 4.022e9, None, 36, 8, 128,
    _QWEN3.format("4B", 36, 8) + "hidden 2560, 32 heads, intermediate 9728, vocab 151936, "
    "tied; 4.02e9 params from those dims (model card: 4.0B).")
QWEN3_8B = _spec(
    "Qwen3-8B", 8.191e9, None, 36, 8, 128,
    _QWEN3.format("8B", 36, 8) + "hidden 4096, 32 heads, intermediate 12288, vocab 151936, "
    "untied; 8.19e9 params from those dims (model card: 8.2B).")
QWEN3_14B = _spec(
    "Qwen3-14B", 14.77e9, None, 40, 8, 128,
    _QWEN3.format("14B", 40, 8) + "hidden 5120, 40 heads, intermediate 17408, vocab 151936, "
    "untied; 14.77e9 params from those dims (model card: 14.8B).")
QWEN3_32B = _spec(
    "Qwen3-32B", 32.76e9, None, 64, 8, 128,
    _QWEN3.format("32B", 64, 8) + "hidden 5120, 64 heads, intermediate 25600, vocab 151936, "
    "untied; 32.76e9 params from those dims (model card: 32.8B).")
QWEN3_30B_A3B = _spec(
    "Qwen3-30B-A3B", 30.53e9, 3.353e9, 48, 4, 128,
    _QWEN3.format("30B-A3B", 48, 4) + "hidden 2048, 32 heads, 128 experts of "
    "moe_intermediate_size 768 with 8 active, vocab 151936, untied; 30.53e9 total and "
    "3.35e9 active params from those dims (model card: 30.5B total, 3.3B activated).")
QWEN3_235B_A22B = _spec(
    "Qwen3-235B-A22B", 235.09e9, 22.19e9, 94, 4, 128,
    _QWEN3.format("235B-A22B", 94, 4) + "hidden 4096, 64 heads, 128 experts of "
    "moe_intermediate_size 1536 with 8 active, vocab 151936, untied; 235.1e9 total and "
    "22.19e9 active params from those dims (model card: 235B total, 22B activated).")

# --- Mistral AI ---
MISTRAL_7B = _spec(
    "Mistral-7B", 7.24e9, None, 32, 8, 128,
    "mistralai/Mistral-7B-v0.1 config.json: num_hidden_layers=32, num_key_value_heads=8, "
    "head_dim=128 (hidden 4096 / 32 heads), intermediate 14336, vocab 32000 (32768 from "
    "v0.3, 7.25e9 params); 7.24e9 params from those dims. v0.1 sets sliding_window=4096 on all "
    "32 layers, v0.2/v0.3 attend to the full context; the full-attention upper bound is used.")
MIXTRAL_8X7B = _spec(
    "Mixtral-8x7B", 46.70e9, 12.88e9, 32, 8, 128,
    "mistralai/Mixtral-8x7B-v0.1 config.json: num_hidden_layers=32, num_key_value_heads=8, "
    "head_dim=128, 8 experts of intermediate 14336 with 2 active, vocab 32000; 46.70e9 total "
    "and 12.88e9 active params from those dims (Mistral: 46.7B total, 12.9B active).")
MIXTRAL_8X22B = _spec(
    "Mixtral-8x22B", 140.6e9, 39.15e9, 56, 8, 128,
    "mistralai/Mixtral-8x22B-v0.1 config.json: num_hidden_layers=56, num_key_value_heads=8, "
    "head_dim=128 (hidden 6144 / 48 heads), 8 experts of intermediate 16384 with 2 active, "
    "vocab 32000; 140.6e9 total and 39.15e9 active params from those dims (Mistral: 141B "
    "total, 39B active).")

# --- DeepSeek (MLA: the cache holds a 512-wide latent plus a 64-wide RoPE key per layer) ---
DEEPSEEK_V3 = _spec(
    "DeepSeek-V3", 671e9, 37e9, 61, 128, 192,
    "deepseek-ai/DeepSeek-V3 README and inference/configs/config_671B.json: 671B total, 37B "
    "activated per token (Hugging Face's 685B adds the 14B multi-token-prediction module, not "
    "read in plain decode); n_layers=61, MLA kv_lora_rank=512, qk_rope_head_dim=64, so the "
    "cache holds 576 elements per token per layer. kv_heads/head_dim are the decompressed "
    "attention shape (128 heads, 128+64 query/key dims) and do not enter the KV size.",
    kv_lora_rank=512, rope_head_dim=64)
DEEPSEEK_R1 = dataclasses.replace(
    DEEPSEEK_V3, key="DeepSeek-R1",
    source="deepseek-ai/DeepSeek-R1 README: built on DeepSeek-V3-Base, 671B total, 37B "
    "activated; same config as DeepSeek-V3 (61 layers, MLA kv_lora_rank=512, "
    "qk_rope_head_dim=64: 576 cached elements per token per layer).")

# --- OpenAI gpt-oss (alternating 128-token sliding-window and full-attention layers) ---
GPT_OSS_120B = _spec(
    "gpt-oss-120b", 116.83e9, 5.13e9, 36, 8, 64,
    "openai/gpt-oss-120b config.json: num_hidden_layers=36, num_key_value_heads=8, "
    "head_dim=64, hidden 2880, 128 experts with 4 active, vocab 201088; layer_types alternate "
    "sliding_attention (sliding_window=128) and full_attention, so 18 layers keep 128 tokens. "
    "116.83e9 total and 5.13e9 active params (input embedding not counted) from those dims "
    "(model card: 117B total, 5.1B active). Expert weights ship in MXFP4, attention and "
    "embeddings in BF16.",
    sliding_window_layers=18, sliding_window=128)
GPT_OSS_20B = _spec(
    "gpt-oss-20b", 20.91e9, 3.61e9, 24, 8, 64,
    "openai/gpt-oss-20b config.json: num_hidden_layers=24, num_key_value_heads=8, "
    "head_dim=64, hidden 2880, 32 experts with 4 active, vocab 201088; layer_types alternate "
    "sliding_attention (sliding_window=128) and full_attention, so 12 layers keep 128 tokens. "
    "20.91e9 total and 3.61e9 active params (input embedding not counted) from those dims "
    "(model card: 21B total, 3.6B active). Expert weights ship in MXFP4, attention and "
    "embeddings in BF16.",
    sliding_window_layers=12, sliding_window=128)

# --- Google Gemma 2 (alternating 4096-token local and global layers; tied embeddings) ---
_GEMMA2 = ("google/gemma-2-{} config (google/gemma_pytorch config.py): num_hidden_layers={}, "
           "num_key_value_heads={}, head_dim={}, hidden {}, intermediate {}, vocab 256000, "
           "tied; attn_types alternate LOCAL_SLIDING (sliding_window_size=4096) and GLOBAL, so "
           "{} layers keep 4096 tokens; {} params from those dims.")
GEMMA2_2B = _spec("Gemma-2-2B", 2.614e9, None, 26, 4, 256,
                  _GEMMA2.format("2b", 26, 4, 256, 2304, 9216, 13, "2.614e9"),
                  sliding_window_layers=13, sliding_window=4096)
GEMMA2_9B = _spec("Gemma-2-9B", 9.242e9, None, 42, 8, 256,
                  _GEMMA2.format("9b", 42, 8, 256, 3584, 14336, 21, "9.242e9"),
                  sliding_window_layers=21, sliding_window=4096)
GEMMA2_27B = _spec("Gemma-2-27B", 27.23e9, None, 46, 16, 128,
                   _GEMMA2.format("27b", 46, 16, 128, 4608, 36864, 23, "27.23e9"),
                   sliding_window_layers=23, sliding_window=4096)

# --- Google Gemma 3 (5 local : 1 global layers; tied embeddings; q/k norm) ---
_GEMMA3 = ("google/gemma-3-{} config (google/gemma_pytorch config.py): num_hidden_layers={}, "
           "num_key_value_heads={}, head_dim={}, hidden {}, intermediate {}, vocab 262144, tied; "
           "attn_types repeat 5 LOCAL_SLIDING (sliding_window_size={}) + 1 GLOBAL, so {} layers "
           "keep {} tokens; {} language-model params from those dims")
_VISION = (" (the checkpoint's ~0.4B SigLIP vision tower is not read in text decode and is not "
           "counted).")
GEMMA3_1B = _spec("Gemma-3-1B", 1.000e9, None, 26, 1, 256,
                  _GEMMA3.format("1b", 26, 1, 256, 1152, 6912, 512, 22, 512, "1.000e9")
                  + " (text-only model).",
                  sliding_window_layers=22, sliding_window=512)
GEMMA3_4B = _spec("Gemma-3-4B", 3.880e9, None, 34, 4, 256,
                  _GEMMA3.format("4b", 34, 4, 256, 2560, 10240, 1024, 29, 1024, "3.880e9")
                  + _VISION,
                  sliding_window_layers=29, sliding_window=1024)
GEMMA3_12B = _spec("Gemma-3-12B", 11.77e9, None, 48, 8, 256,
                   _GEMMA3.format("12b", 48, 8, 256, 3840, 15360, 1024, 40, 1024, "11.77e9")
                   + _VISION,
                   sliding_window_layers=40, sliding_window=1024)
GEMMA3_27B = _spec("Gemma-3-27B", 27.01e9, None, 62, 16, 128,
                   _GEMMA3.format("27b", 62, 16, 128, 5376, 21504, 1024, 52, 1024, "27.01e9")
                   + _VISION,
                   sliding_window_layers=52, sliding_window=1024)


def _distill(base: ModelSpec, key: str, base_name: str) -> ModelSpec:
    return dataclasses.replace(
        base, key=key,
        source=f"deepseek-ai/DeepSeek-R1 README: {key} is fine-tuned from {base_name} (same "
        f"architecture). {base.source}")


_B = r"(?<![a-z0-9])"  # the family starts a token
_E = r"(?![a-z0-9])"  # the size ends a token

# (pattern on the normalised name, spec or None). First match wins; None means "unknown".
MODELS: tuple[tuple[str, ModelSpec | None], ...] = (
    # DeepSeek-R1 distills: only those built on a base in this table; the rest are unknown.
    (_B + r"r1-distill-llama-8b" + _E,
     _distill(LLAMA_31_8B, "DeepSeek-R1-Distill-Llama-8B", "Llama-3.1-8B")),
    (_B + r"r1-distill-llama-70b" + _E,
     _distill(LLAMA_33_70B, "DeepSeek-R1-Distill-Llama-70B", "Llama-3.3-70B-Instruct")),
    (_B + r"r1-distill-qwen-14b" + _E,
     _distill(QWEN25_14B, "DeepSeek-R1-Distill-Qwen-14B", "Qwen2.5-14B")),
    (_B + r"r1-distill-qwen-32b" + _E,
     _distill(QWEN25_32B, "DeepSeek-R1-Distill-Qwen-32B", "Qwen2.5-32B")),
    (_B + r"distill" + _E, None),
    # DeepSeek V3 / V3.1 / R1 (one size; V3.2 has a different attention and is not here).
    (_B + r"deepseek-v3(?!-2" + _E + r")(?!.*" + _B + r"(?!671b|685b)\d+b" + _E + r")",
     DEEPSEEK_V3),
    (_B + r"deepseek-r1(?!.*" + _B + r"(?!671b|685b)\d+b" + _E + r")", DEEPSEEK_R1),
    # Llama 3.x
    (_B + r"llama-?3-1-8b" + _E, LLAMA_31_8B),
    (_B + r"llama-?3-1-70b" + _E, LLAMA_31_70B),
    (_B + r"llama-?3-1-405b" + _E, LLAMA_31_405B),
    (_B + r"llama-?3-2-1b" + _E, LLAMA_32_1B),
    (_B + r"llama-?3-2-3b" + _E, LLAMA_32_3B),
    (_B + r"llama-?3-3-70b" + _E, LLAMA_33_70B),
    (_B + r"llama-?3-8b" + _E, LLAMA_3_8B),
    (_B + r"llama-?3-70b" + _E, LLAMA_3_70B),
    # Qwen2.5 ("2.5" becomes "2-5")
    (_B + r"qwen-?2-5-0-5b" + _E, QWEN25_05B),
    (_B + r"qwen-?2-5-1-5b" + _E, QWEN25_15B),
    (_B + r"qwen-?2-5-3b" + _E, QWEN25_3B),
    (_B + r"qwen-?2-5-7b" + _E, QWEN25_7B),
    (_B + r"qwen-?2-5-14b" + _E, QWEN25_14B),
    (_B + r"qwen-?2-5-32b" + _E, QWEN25_32B),
    (_B + r"qwen-?2-5-72b" + _E, QWEN25_72B),
    # Qwen3 (one 30B and one 235B model, so the -aNb suffix is optional)
    (_B + r"qwen-?3-0-6b" + _E, QWEN3_06B),
    (_B + r"qwen-?3-1-7b" + _E, QWEN3_17B),
    (_B + r"qwen-?3-4b" + _E, QWEN3_4B),
    (_B + r"qwen-?3-8b" + _E, QWEN3_8B),
    (_B + r"qwen-?3-14b" + _E, QWEN3_14B),
    (_B + r"qwen-?3-32b" + _E, QWEN3_32B),
    (_B + r"qwen-?3-30b(?:-a3b)?" + _E, QWEN3_30B_A3B),
    (_B + r"qwen-?3-235b(?:-a22b)?" + _E, QWEN3_235B_A22B),
    # Mistral / Mixtral
    (_B + r"mistral-7b" + _E, MISTRAL_7B),
    (_B + r"mixtral-8x7b" + _E, MIXTRAL_8X7B),
    (_B + r"mixtral-8x22b" + _E, MIXTRAL_8X22B),
    # gpt-oss
    (_B + r"gpt-?oss-120b" + _E, GPT_OSS_120B),
    (_B + r"gpt-?oss-20b" + _E, GPT_OSS_20B),
    # Gemma 2 / 3
    (_B + r"gemma-?2-2b" + _E, GEMMA2_2B),
    (_B + r"gemma-?2-9b" + _E, GEMMA2_9B),
    (_B + r"gemma-?2-27b" + _E, GEMMA2_27B),
    (_B + r"gemma-?3-1b" + _E, GEMMA3_1B),
    (_B + r"gemma-?3-4b" + _E, GEMMA3_4B),
    (_B + r"gemma-?3-12b" + _E, GEMMA3_12B),
    (_B + r"gemma-?3-27b" + _E, GEMMA3_27B),
)

_COMPILED = tuple((re.compile(pattern), spec) for pattern, spec in MODELS)
_EXTENSION = re.compile(r"\.(?:gguf|safetensors|bin|pt|pth)$", re.IGNORECASE)


def _normalise(text: str) -> str:
    text = _EXTENSION.sub("", text.strip().lower())
    return re.sub(r"[\s_.:-]+", "-", text).strip("-")


def _components(name: str) -> tuple[str, ...]:
    """Normalised path components, last first (a bare model id is one or two components)."""
    parts = (_normalise(part) for part in reversed(re.split(r"[/\\]", name)))
    return tuple(part for part in parts if part)


def _match(text: str) -> tuple[bool, ModelSpec | None]:
    for pattern, spec in _COMPILED:
        if pattern.search(text):
            return True, spec
    return False, None


def lookup_model(name: str) -> ModelSpec | None:
    """The table's ModelSpec for a model id as users write it, or None (never a guess).

    Path components are tried from the last one back, so ``org/name``, ``/models/name`` and
    Hugging Face cache paths (``models--org--name/snapshots/<hash>``) all resolve."""
    for text in _components(name):
        matched, spec = _match(text)
        if matched:
            return spec
    return None


# --- weight precision from the name --------------------------------------------------------

_QUANTIZE_README = ("llama.cpp tools/quantize/README.md, bits/weight of the whole file for "
                    "meta-llama/Llama-3.1-8B; the k-quant mixes vary a little by model")


def _gguf(bits: float, label: str, basis: str) -> tuple[float, str]:
    return bits / 8, f"GGUF {label}: {bits:g} bits/weight ({basis})."


# (pattern on the normalised name, bytes per parameter, reason). First match wins.
QUANT_MARKERS: tuple[tuple[str, float, str], ...] = tuple(
    (_B + "(?:" + pattern + ")" + _E, value, reason) for pattern, (value, reason) in (
        # GGUF quant types (llama.cpp). Block formats are exact; k-quant mixes are averages.
        ("q8-0", _gguf(8.5, "Q8_0", "34-byte blocks of 32 weights, ggml-common.h block_q8_0; "
                       "the quantize README lists 8.5008 for the whole Llama-3.1-8B file")),
        ("q6-k", _gguf(6.5633, "Q6_K", _QUANTIZE_README)),
        ("q5-k-m", _gguf(5.7036, "Q5_K_M", _QUANTIZE_README)),
        ("q5-k-s", _gguf(5.5704, "Q5_K_S", _QUANTIZE_README)),
        ("q4-k-m", _gguf(4.8944, "Q4_K_M", _QUANTIZE_README)),
        ("q4-k-s", _gguf(4.6672, "Q4_K_S", _QUANTIZE_README)),
        ("q4-1", _gguf(5.0, "Q4_1", "20-byte blocks of 32 weights, ggml-common.h block_q4_1")),
        ("q4-0", _gguf(4.5, "Q4_0", "18-byte blocks of 32 weights: an fp16 scale and 16 bytes "
                       "of nibbles, ggml-common.h block_q4_0; tensors llama-quantize keeps at "
                       "higher precision add a little")),
        ("iq4-nl", _gguf(4.6818, "IQ4_NL", _QUANTIZE_README)),
        ("iq4-xs", _gguf(4.4597, "IQ4_XS", _QUANTIZE_README)),
        ("q3-k-l", _gguf(4.2979, "Q3_K_L", _QUANTIZE_README)),
        ("q3-k-s", _gguf(3.6429, "Q3_K_S", _QUANTIZE_README)),
        ("q2-k", _gguf(3.1593, "Q2_K", _QUANTIZE_README)),
        # 4-bit floating point with block scales (the format fixes the scale overhead).
        ("nvfp4", (0.5625, "NVFP4: 4-bit E2M1 weights plus one FP8 (E4M3) scale per 16 = "
                   "4.5 bits ≈ 0.56 B/param (~0.5 B, the block scales add a little; a per-tensor "
                   "FP32 scale is negligible). Layers the checkpoint keeps in BF16 add more.")),
        ("mxfp4", (0.53125, "MXFP4 (OCP microscaling): 4-bit E2M1 weights plus one E8M0 scale "
                   "per 32 = 4.25 bits ≈ 0.53 B/param (~0.5 B, the block scales add a little). "
                   "Layers the checkpoint keeps in BF16 add more.")),
        ("fp4", (0.5, "FP4 weights: ~0.5 B/param; the block scales add a little.")),
        # Integer weight-only / weight-activation schemes: the weight width decides.
        ("w4a16|w4a8|int4|nf4|bnb-4bit|4-?bit", (
            0.5, "4-bit integer weights: 0.5 B/param; the group scales (and zero points) add a "
                 "few percent (≈3% at group size 128).")),
        ("w8a8|w8a16|int8|8-?bit", (1.0, "8-bit integer weights: 1 B/param (+ per-channel "
                                         "scales, negligible).")),
        ("fp8|float8|e4m3", (1.0, "FP8 weights: 1 B/param (+ per-tensor/per-channel or block "
                                  "scales, negligible).")),
        ("awq|gptq", (0.5, "AWQ/GPTQ checkpoints are 4-bit unless the name says otherwise: "
                           "0.5 B/param; the group scales add a few percent.")),
        ("3-?bit", (0.375, "3-bit weights: 0.375 B/param; the group scales add a little.")),
        ("6-?bit", (0.75, "6-bit weights: 0.75 B/param; the group scales add a little.")),
    ))

_QUANT_COMPILED = tuple((re.compile(p), value, reason) for p, value, reason in QUANT_MARKERS)


def bytes_per_param(name: str) -> tuple[float, str] | None:
    """Weight bytes per parameter read off a model name, with the reason; None when the name
    carries no recognised quantisation marker (bf16/fp16 or nothing: the caller decides).

    Path components are read from the last one back, stopping at the component that names the
    model, so a marker in an unrelated parent directory is not picked up."""
    for text in _components(name):
        for pattern, value, reason in _QUANT_COMPILED:
            if pattern.search(text):
                return value, reason
        if _match(text)[0]:
            return None
    return None
