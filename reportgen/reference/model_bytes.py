"""Bytes a decode step reads, from the built-in model table: the fallback when neither
round.toml nor a server log gives them. Every figure carries how it was derived."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.reference.models import bytes_per_param, lookup_model

# vLLM --dtype / --kv-cache-dtype words → bytes per element
DTYPE_BYTES = {"bfloat16": 2.0, "bf16": 2.0, "float16": 2.0, "fp16": 2.0, "half": 2.0,
               "float32": 4.0, "fp32": 4.0, "float": 4.0, "fp8": 1.0, "fp8_e4m3": 1.0,
               "fp8_e5m2": 1.0, "int8": 1.0}


# Official checkpoints that ship quantised without saying so in their name: (key prefix,
# bytes per parameter or None when no single figure describes the mix, why).
NATIVE: tuple[tuple[str, float | None, str], ...] = (
    ("DeepSeek-V3", 1.0, "the official checkpoint is FP8 (config_671B.json: dtype fp8)"),
    ("DeepSeek-R1", 1.0, "the official checkpoint is FP8 (config_671B.json: dtype fp8)"),
    ("gpt-oss", None, "MXFP4 experts with BF16 attention and embeddings: no single "
                      "bytes-per-parameter figure"),
)


@dataclass(frozen=True)
class ModelBytes:
    weight_bytes_per_step: float  # NaN: the table cannot say (see weight_source)
    weight_source: str
    kv_bytes_per_token: float
    kv_source: str


def model_bytes(name: str | None, weight_dtype: str | None = None,
                kv_dtype: str | None = None) -> ModelBytes | None:
    """Weight bytes per step and KV bytes per token of a model the table knows, or None.

    Weights: the quantisation the name states, else the server's --dtype, else BF16 (said so in
    the source). KV: the server's --kv-cache-dtype when it is not "auto", else 2 bytes."""
    if not name:
        return None
    spec = lookup_model(name)
    if spec is None:
        return None
    quant = bytes_per_param(name)
    native = next(((b, w) for prefix, b, w in NATIVE
                   if spec.key.startswith(prefix) and "distill" not in spec.key.lower()), None)
    if quant is not None:
        wbytes, why = quant
    elif native is not None:
        wbytes, why = native[0] if native[0] is not None else math.nan, native[1]
    elif weight_dtype and weight_dtype.lower() in DTYPE_BYTES:
        wbytes, why = DTYPE_BYTES[weight_dtype.lower()], f"--dtype {weight_dtype}"
    else:
        wbytes, why = 2.0, "no quantisation in the name: BF16 assumed"
    kv = (kv_dtype or "").lower()
    kbytes, kwhy = (DTYPE_BYTES[kv], f"--kv-cache-dtype {kv_dtype}") if kv in DTYPE_BYTES \
        else (2.0, "16-bit KV cache assumed")
    weight = spec.weight_bytes_per_step(wbytes)  # NaN when the mix has no single figure
    kvb = spec.kv_bytes_per_token(kbytes)
    if not math.isfinite(kvb):
        return None
    active = "active " if spec.active_params != spec.params else ""
    return ModelBytes(
        weight, f"built-in model table: {spec.key}, {spec.active_params:,.0f} {active}parameters "
                f"× {wbytes:g} B ({why}); {spec.source}",
        kvb, f"built-in model table: {spec.key}, {spec.layers} layers × "
             f"{spec.kv_elements_per_token_per_layer()} KV elements × {kbytes:g} B ({kwhy})"
             + (" — an upper bound: sliding-window layers keep fewer tokens"
                if spec.sliding_window_layers else ""))
