"""Decode-step byte accounting: the bandwidth roofline floor and what each engine attains.

A decode step must stream every weight once plus the KV cache of every sequence in the batch.
With a fixed-length workload a sequence holds on average in + out/2 tokens over its decode, so

    floor_ms(C) = (weight_bytes_per_step + C × (in + out/2) × kv_bytes_per_token) / bandwidth.

GB here is 1e9 bytes (the unit GPU bandwidth is quoted in).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen.analyze.single_stream import single_stream_row
from reportgen.analyze.tiers import usable
from reportgen.frames import ByEngine

GB = 1e9

# one engine's value (float) or every tier's at once (add_floor passes whole columns)
Floats = float | npt.NDArray[np.float64]


def kv_tokens_per_slot(input_tokens: float, output_tokens: float) -> float:
    """Mean KV tokens one sequence holds during its decode: all of the prompt, half the output."""
    return input_tokens + output_tokens / 2.0


def step_bytes(concurrency: npt.ArrayLike, weight_bytes: Floats, kv_bytes_per_token: Floats,
               tokens_per_slot: Floats) -> npt.NDArray[np.float64]:
    """Bytes one decode step reads at concurrency C (scalar or array)."""
    slots = np.asarray(concurrency, dtype=float)
    return weight_bytes + slots * tokens_per_slot * kv_bytes_per_token


def floor_ms(concurrency: npt.ArrayLike, weight_bytes: Floats, kv_bytes_per_token: Floats,
             tokens_per_slot: Floats, bandwidth_gb_s: Floats) -> npt.NDArray[np.float64]:
    """Shortest possible decode step (ms) if the GPU streamed at its full bandwidth."""
    return step_bytes(concurrency, weight_bytes, kv_bytes_per_token, tokens_per_slot) / (
        bandwidth_gb_s * GB) * 1000.0


def add_floor(tiers: pd.DataFrame, params: pd.DataFrame) -> pd.DataFrame:
    """Add floor_ms and roofline_attainment (= floor / ITL p50) to each tier.

    ``params`` is indexed by engine id with weight_bytes_per_step, kv_bytes_per_token,
    tokens_per_slot and bandwidth_gb_s (NaN when unknown → NaN floor).
    """
    out = tiers.copy()
    p = params.reindex(out["engine"])
    out["floor_ms"] = floor_ms(
        out["concurrency"].to_numpy(float), p["weight_bytes_per_step"].to_numpy(float),
        p["kv_bytes_per_token"].to_numpy(float), p["tokens_per_slot"].to_numpy(float),
        p["bandwidth_gb_s"].to_numpy(float),
    )
    step = out["step_p50_ms"] if "step_p50_ms" in out.columns else out["itl_p50_ms"]
    out["roofline_attainment"] = out["floor_ms"] / step.where(step > 0)
    return out


def _endpoints(rows: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None]:
    """Smallest and largest tier of one engine's usable rows with a measured ITL p50."""
    if rows.empty:
        return None, None
    rows = rows.sort_values("concurrency")
    return rows.iloc[0], rows.iloc[-1]


def engine_roofline(params: pd.DataFrame, tiers: pd.DataFrame,
                    axis: str = "concurrency") -> pd.DataFrame:
    """Per-engine byte accounting at the single-stream tier (c1: C=1, or a rate that keeps at
    most ~1 request in flight, see analyze.single_stream; NaN when there is none) and the
    marginal cost per extra slot between the lowest and highest usable tiers (excluded tiers
    never used).

    ``tiers`` must already carry floor_ms and roofline_attainment (see add_floor).
    """
    rows = []
    measured = usable(tiers)
    # the decode step (analyze/tiers.decode_step); a frame built without it uses the ITL p50
    step = "step_p50_ms" if "step_p50_ms" in measured.columns else "itl_p50_ms"
    by_engine = ByEngine(measured[np.isfinite(measured[step])])
    for engine, p in params.iterrows():
        own = by_engine[str(engine)]
        low, high = _endpoints(own)
        single = single_stream_row(own, axis)
        w, kv = p["weight_bytes_per_step"], p["kv_bytes_per_token"]
        tok, bw = p["tokens_per_slot"], p["bandwidth_gb_s"]
        c_low = float(low["concurrency"]) if low is not None else np.nan
        c1 = float(single["concurrency"]) if single is not None else np.nan
        cmax = float(high["concurrency"]) if high is not None else np.nan
        itl_low = float(low[step]) if low is not None else np.nan
        itl_c1 = float(single[step]) if single is not None else np.nan
        itl_cmax = float(high[step]) if high is not None else np.nan
        # one sequence's KV: a single-stream tier holds one request at a time
        bytes_c1 = float(step_bytes(1.0, w, kv, tok)) if single is not None else np.nan
        effective = bytes_c1 / (itl_c1 / 1000.0) / GB if itl_c1 > 0 else np.nan
        slot_ms = (itl_cmax - itl_low) / (cmax - c_low) if cmax > c_low else np.nan
        floor_slot = tok * kv / (bw * GB) * 1000.0
        rows.append({
            "id": str(engine),
            "bandwidth_gb_s": bw,
            "kv_bytes_per_token": kv,
            "weight_bytes_per_step": w,
            "tokens_per_slot": tok,
            "c1": c1,
            "cmax": cmax,
            "itl_p50_c1_ms": itl_c1,
            "itl_p50_cmax_ms": itl_cmax,
            "step_bytes_c1": bytes_c1,
            "effective_gb_s_c1": effective,
            "mbu_c1": effective / bw,
            "ms_per_slot": slot_ms,
            "floor_ms_per_slot": floor_slot,
            # a single-stream-only round has no slope (0/0): NaN, without numpy's warning
            "slope_vs_floor": slot_ms / floor_slot if floor_slot else np.nan,
            "floor_ms_cmax": float(high["floor_ms"]) if high is not None else np.nan,
            "efficiency_cmax": float(high["roofline_attainment"]) if high is not None else np.nan,
            # what bandwidth_gb_s is made of: GPUs (tensor-parallel ranks) × one GPU's GB/s
            "bandwidth_gpus": float(p.get("bandwidth_gpus", 1.0)),
            "gpu_bandwidth_gb_s": float(p.get("gpu_bandwidth_gb_s", bw)),
        })
    return pd.DataFrame(rows)


def engine_row(engines: pd.DataFrame, engine: str) -> pd.Series:
    """One engine's row of `engine_roofline`'s frame."""
    # a Series, not a frame: engine_roofline writes one row per engine id (params' index)
    return cast(pd.Series, engines.set_index("id").loc[engine])


def step_ratio(engines: pd.DataFrame, a: str, b: str) -> dict[str, float]:
    """Single-stream step of b relative to a: bytes predict it, ITL p50 at c1 measures it.

    attained = measured / predicted (1.0 = the lighter engine converts every byte saved into time).
    """
    ea, eb = engine_row(engines, a), engine_row(engines, b)
    predicted = eb["step_bytes_c1"] / ea["step_bytes_c1"]
    measured = eb["itl_p50_c1_ms"] / ea["itl_p50_c1_ms"]
    attained = measured / predicted if predicted and np.isfinite(predicted) else np.nan
    return {"predicted": float(predicted), "measured": float(measured),
            "attained": float(attained)}
