"""GPU memory split per engine: weights + KV pool (estimate) against nvidia-smi (measured).

estimated_total = weights + KV pool; other = measured − estimated (CUDA context, activations,
graph pools, compute buffers); estimate_gap = other / measured, the share of the measured
footprint the estimate does not account for. GiB = 2^30 bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

GIB = float(2**30)
MEMORY_COLUMNS = (
    "engine", "weights_gib", "weights_source", "kv_pool_gib", "kv_pool_source", "kv_pool_tokens",
    "kv_pool_tokens_source", "estimated_total_gib", "measured_total_gib", "measured_source",
    "other_gib", "estimate_gap", "gpu_memory_gib", "gpu_memory_source",
)


def kv_pool_gib(tokens: float, kv_bytes_per_token: float, reported_mib: float = np.nan) -> float:
    """KV pool size from its token capacity; the server's own MiB figure when bytes/token is
    unknown."""
    from_tokens = tokens * kv_bytes_per_token / GIB
    return float(from_tokens) if np.isfinite(from_tokens) else float(reported_mib) / 1024.0


def measured_used_mib(fingerprint_mib: float | None, gpu: pd.DataFrame | None) -> tuple[float, str]:
    """nvidia-smi memory used: the fingerprint snapshot, else the sampler's peak. (MiB, which)."""
    if fingerprint_mib is not None and np.isfinite(fingerprint_mib):
        return float(fingerprint_mib), "fingerprint"
    if gpu is not None and "memory_used_mib" in gpu.columns:
        peak = pd.to_numeric(gpu["memory_used_mib"], errors="coerce").max()
        if np.isfinite(peak):
            return float(peak), "gpu.csv"
    return np.nan, ""


def memory_row(engine: str, *, weights_gib: float, kv_pool_gib: float, kv_pool_tokens: float,
               measured_total_gib: float, gpu_memory_gib: float,
               sources: dict[str, str] | None = None) -> dict[str, object]:
    sources = sources or {}
    estimated = weights_gib + kv_pool_gib
    other = measured_total_gib - estimated
    return {
        "engine": engine,
        "weights_gib": float(weights_gib),
        "weights_source": sources.get("weights", ""),
        "kv_pool_gib": float(kv_pool_gib),
        "kv_pool_source": sources.get("kv_pool", ""),
        "kv_pool_tokens": float(kv_pool_tokens),
        "kv_pool_tokens_source": sources.get("kv_pool_tokens", ""),
        "estimated_total_gib": float(estimated),
        "measured_total_gib": float(measured_total_gib),
        "measured_source": sources.get("measured", ""),
        "other_gib": float(other),
        "estimate_gap": float(other / measured_total_gib) if measured_total_gib > 0 else np.nan,
        "gpu_memory_gib": float(gpu_memory_gib),
        "gpu_memory_source": sources.get("gpu_memory", ""),
    }


def memory_table(rows: Sequence[dict[str, object]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(MEMORY_COLUMNS))


def kv_capacity_ratio(memory: pd.DataFrame, a: str, b: str) -> float:
    """KV tokens a can hold over KV tokens b can hold."""
    tokens = memory.set_index("engine")["kv_pool_tokens"]
    if a not in tokens.index or b not in tokens.index:
        return np.nan
    return float(tokens[a] / tokens[b]) if tokens[b] > 0 else np.nan
