"""The single-stream rule (analyze.single_stream): C=1, or a rate × mean E2E latency ≤ 1.2."""

from __future__ import annotations

import math

import pandas as pd

from reportgen.analyze.roofline import engine_roofline
from reportgen.analyze.single_stream import in_flight, is_single_stream, lowest_in_flight


def _rate_tiers() -> pd.DataFrame:
    # 0.5 req/s × 2 s = 1.0 in flight; 1 req/s × 2 s = 2.0; inf: never
    return pd.DataFrame({"engine": "a", "concurrency": [0.5, 1.0, math.inf],
                         "e2el_mean_ms": [2000.0, 2000.0, 2000.0],
                         "itl_p50_ms": [10.0, 12.0, 30.0], "excluded": False})


def test_rate_tier_is_single_stream_by_littles_law() -> None:
    tiers = _rate_tiers()
    assert list(in_flight(tiers, "request_rate")) == [1.0, 2.0, math.inf]
    assert list(is_single_stream(tiers, "request_rate")) == [True, False, False]


def test_e2e_is_rebuilt_from_ttft_and_tpot_when_not_stated() -> None:
    # 100 ms + (11 − 1) × 10 ms = 200 ms; 5 req/s × 0.2 s = 1.0
    tiers = pd.DataFrame({"concurrency": [5.0], "ttft_mean_ms": [100.0],
                          "mean_output_tokens": [11.0], "tpot_mean_ms": [10.0]})
    assert list(in_flight(tiers, "request_rate")) == [1.0]


def test_concurrency_axis_needs_c1() -> None:
    tiers = pd.DataFrame({"concurrency": [2.0, 4.0], "itl_p50_ms": [10.0, 11.0]})
    assert not is_single_stream(tiers, "concurrency").any()
    assert lowest_in_flight(tiers, "concurrency") == (2.0, 2.0)


def test_no_e2e_means_not_single_stream() -> None:
    tiers = pd.DataFrame({"concurrency": [0.1], "itl_p50_ms": [10.0]})
    assert not is_single_stream(tiers, "request_rate").any()


def test_roofline_takes_the_step_from_the_single_stream_tier_only() -> None:
    params = pd.DataFrame({"weight_bytes_per_step": [1e9], "kv_bytes_per_token": [0.0],
                           "tokens_per_slot": [100.0], "bandwidth_gb_s": [100.0]},
                          index=["a"])
    tiers = _rate_tiers().assign(floor_ms=math.nan, roofline_attainment=math.nan)
    row = engine_roofline(params, tiers, "request_rate").iloc[0]
    assert row["c1"] == 0.5 and row["itl_p50_c1_ms"] == 10.0
    # 1 GB per step in 10 ms = 100 GB/s = the nominal bandwidth
    assert math.isclose(row["effective_gb_s_c1"], 100.0) and math.isclose(row["mbu_c1"], 1.0)
    slow = tiers[tiers["concurrency"] > 0.5]   # 2 and ∞ requests in flight: none single-stream
    row = engine_roofline(params, slow, "request_rate").iloc[0]
    assert math.isnan(row["itl_p50_c1_ms"]) and math.isnan(row["mbu_c1"])
