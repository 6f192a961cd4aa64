"""Which tier is single-stream: the one rule every "C=1" figure (single-stream step, bandwidth,
MBU, the bytes ledger) takes its tier by.

A tier is single-stream at concurrency 1, or, on a request-rate axis, when its mean number of
requests in flight — rate × mean end-to-end latency (Little's law) — is at most
``MAX_IN_FLIGHT``. A lowest tier that is not single-stream is never used in its place: a rate
of 1 req/s against a 30 s request keeps 30 requests in the server."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

MAX_IN_FLIGHT = 1.2


def mean_e2el_ms(tiers: pd.DataFrame) -> pd.Series:
    """Mean end-to-end latency per tier row (ms): the client's mean E2EL, else mean TTFT plus
    (mean output tokens − 1) × mean TPOT; NaN when neither is known."""
    def col(name: str) -> pd.Series:
        if name in tiers.columns:
            return pd.to_numeric(tiers[name], errors="coerce").astype(float)
        return pd.Series(np.nan, index=tiers.index, dtype=float)

    built = col("ttft_mean_ms") + (col("mean_output_tokens") - 1.0).clip(lower=0.0) * \
        col("tpot_mean_ms").fillna(col("itl_mean_ms"))
    return col("e2el_mean_ms").fillna(built)


def in_flight(tiers: pd.DataFrame, axis: str) -> pd.Series:
    """Mean requests in flight per tier row: the concurrency itself on a concurrency axis, rate
    (req/s, the tier) × mean E2E latency on a rate axis (inf at an unlimited rate)."""
    tier = pd.to_numeric(tiers["concurrency"], errors="coerce").astype(float)
    if axis != "request_rate":
        return tier
    return tier * mean_e2el_ms(tiers) / 1000.0


def is_single_stream(tiers: pd.DataFrame, axis: str) -> pd.Series:
    """True for each tier row that is single-stream (see the module docstring)."""
    if tiers.empty:
        return pd.Series([], dtype=bool, index=tiers.index)
    if axis != "request_rate":
        return pd.to_numeric(tiers["concurrency"], errors="coerce") == 1
    flight = in_flight(tiers, axis)
    return (flight <= MAX_IN_FLIGHT).fillna(False).astype(bool)


def single_stream_row(rows: pd.DataFrame, axis: str) -> pd.Series | None:
    """The lowest single-stream tier among one engine's rows, or None."""
    if rows.empty:
        return None
    ok = rows[is_single_stream(rows, axis).to_numpy()]
    if ok.empty:
        return None
    return ok.sort_values("concurrency", kind="stable").iloc[0]


def lowest_in_flight(rows: pd.DataFrame, axis: str) -> tuple[float, float]:
    """(tier, mean requests in flight) of one engine's lowest tier: why it is not
    single-stream. NaN, NaN without rows."""
    if rows.empty:
        return math.nan, math.nan
    low = rows.sort_values("concurrency", kind="stable").iloc[[0]]
    return float(low["concurrency"].iloc[0]), float(in_flight(low, axis).iloc[0])
