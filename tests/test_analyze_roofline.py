"""Byte accounting: floor, attainment, MBU, marginal cost per slot, step ratio."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.roofline import (
    add_floor,
    engine_roofline,
    floor_ms,
    kv_tokens_per_slot,
    step_bytes,
    step_ratio,
)


def test_floor_hand_value() -> None:
    # 1 GB of weights + 2 slots × 100 tokens × 1000 B = 1.0002 GB at 100 GB/s = 10.002 ms
    assert floor_ms(2, 1e9, 1000.0, 100.0, 100.0) == pytest.approx(10.002)
    assert kv_tokens_per_slot(1024, 256) == 1152.0
    assert step_bytes(1, 4.68e9, 57344, 1152) == 4_746_060_288


def _params() -> pd.DataFrame:
    return pd.DataFrame({"weight_bytes_per_step": [1e9, 2e9],
                         "kv_bytes_per_token": [1000.0, 1000.0],
                         "tokens_per_slot": [100.0, 100.0], "bandwidth_gb_s": [100.0, 100.0]},
                        index=pd.Index(["a", "b"], name="id"))


def _tiers() -> pd.DataFrame:
    return pd.DataFrame({
        "engine": ["a", "a", "a", "a", "b"],
        "concurrency": [1, 2, 4, 8, 1],
        "itl_p50_ms": [20.0, 20.5, 40.0, 21.0, np.nan],
        "excluded": [False, False, True, False, False],
    })


def test_add_floor_and_attainment() -> None:
    out = add_floor(_tiers(), _params())
    assert out["floor_ms"].iloc[0] == pytest.approx(10.001)  # (1e9 + 1e5) / 1e11 s
    assert out["roofline_attainment"].iloc[0] == pytest.approx(10.001 / 20.0)
    assert out["floor_ms"].iloc[4] == pytest.approx(20.001)
    assert np.isnan(out["roofline_attainment"].iloc[4])  # ITL unknown → NaN, not 0


def test_engine_roofline_uses_usable_endpoints_only() -> None:
    tiers = add_floor(_tiers(), _params())
    e = engine_roofline(_params(), tiers).set_index("id")
    a = e.loc["a"]
    assert (a["c1"], a["cmax"]) == (1.0, 8.0)
    assert a["step_bytes_c1"] == 1e9 + 1e5
    assert a["effective_gb_s_c1"] == pytest.approx((1e9 + 1e5) / 0.020 / 1e9)
    assert a["mbu_c1"] == pytest.approx(a["effective_gb_s_c1"] / 100.0)
    assert a["ms_per_slot"] == pytest.approx((21.0 - 20.0) / 7)  # C=4 (excluded) never used
    assert a["floor_ms_per_slot"] == pytest.approx(0.001)
    assert a["slope_vs_floor"] == pytest.approx(1.0 / 7 / 0.001)
    assert a["efficiency_cmax"] == pytest.approx((1e9 + 8e5) / 1e11 * 1000 / 21.0)
    b = e.loc["b"]  # its only tier has no ITL: everything measured is NaN
    assert np.isnan(b["c1"]) and np.isnan(b["mbu_c1"]) and np.isnan(b["ms_per_slot"])


def test_single_usable_tier_has_no_slope() -> None:
    tiers = add_floor(_tiers().iloc[:1], _params())
    a = engine_roofline(_params(), tiers).set_index("id").loc["a"]
    assert a["c1"] == a["cmax"] == 1.0
    assert np.isnan(a["ms_per_slot"]) and np.isnan(a["slope_vs_floor"])


def test_step_ratio_round2() -> None:
    engines = pd.DataFrame({"id": ["vllm", "llamacpp"],
                            "step_bytes_c1": [14_207_298_560.0, 4_746_060_288.0],
                            "itl_p50_c1_ms": [15.83, 5.84]})
    got = step_ratio(engines, "llamacpp", "vllm")
    assert f"{got['predicted']:.2f}" == "2.99"
    assert f"{got['measured']:.2f}" == "2.71"
    assert f"{got['attained'] * 100:.0f}" == "91"
    assert got["attained"] == pytest.approx(got["measured"] / got["predicted"])
