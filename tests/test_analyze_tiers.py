"""Per-tier table: throughput from token totals, stat renames, derived stall ratios, waves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.tiers import latency_shape, mark_excluded, tier_stats, usable
from reportgen.analyze.waves import add_waves


def _summary(**overrides: list) -> pd.DataFrame:
    base = {
        "engine": ["b", "a", "a"],
        "source": ["b/c1.json", "a/c2.json", "a/c1.json"],
        "record": [0, 0, 0],
        "concurrency": [1.0, 2.0, 1.0],
        "num_prompts": [10.0, 20.0, 10.0],
        "completed": [10.0, 19.0, 10.0],
        "failed": [0.0, 1.0, 0.0],
        "duration_s": [10.0, 20.0, 4.0],
        "total_input_tokens": [1000.0, 1900.0, 1000.0],
        "total_output_tokens": [500.0, 950.0, 400.0],
        "output_throughput_tok_s": [999.0, 999.0, 999.0],
        "ttft_median_ms": [50.0, 60.0, 40.0],
        "itl_median_ms": [10.0, 12.0, 8.0],
        "itl_mean_ms": [10.0, 15.0, 8.0],
        "tpot_mean_ms": [11.0, 18.0, 8.0],
        "e2el_median_ms": [1000.0, 2000.0, 400.0],
    }
    base.update(overrides)
    return pd.DataFrame(base)


def test_rows_sorted_by_manifest_order_then_concurrency() -> None:
    t = tier_stats(_summary(), ["a", "b"])
    assert list(zip(t["engine"], t["concurrency"], strict=True)) == [("a", 1), ("a", 2), ("b", 1)]


def test_throughput_recomputed_from_tokens_not_the_file_key() -> None:
    t = tier_stats(_summary(), ["a", "b"]).set_index(["engine", "concurrency"])
    assert t.loc[("a", 1), "output_tok_s"] == 100.0  # 400 tokens / 4 s
    assert t.loc[("a", 1), "total_tok_s"] == 350.0  # (1000 + 400) / 4
    assert t.loc[("a", 2), "mean_output_tokens"] == 50.0  # 950 / 19 completed
    assert t.loc[("a", 1), "itl_p50_ms"] == 8.0 and t.loc[("a", 1), "ttft_p50_ms"] == 40.0


def test_throughput_falls_back_to_file_key_and_missing_stats_stay_nan() -> None:
    s = _summary(total_output_tokens=[np.nan, 950.0, 400.0])
    t = tier_stats(s, ["a", "b"]).set_index(["engine", "concurrency"])
    assert t.loc[("b", 1), "output_tok_s"] == 999.0
    assert np.isnan(t.loc[("b", 1), "mean_output_tokens"])
    assert np.isnan(t.loc[("a", 1), "ttft_p99_ms"])  # the file had no p99 key


def test_missing_failed_is_derived_duplicates_keep_last_and_nan_concurrency_dropped() -> None:
    s = _summary(failed=[np.nan, np.nan, np.nan])
    extra = _summary().iloc[[2]].assign(duration_s=8.0, source="a/rerun.json")
    rate_only = _summary().iloc[[0]].assign(concurrency=np.nan)
    t = tier_stats(pd.concat([s, extra, rate_only], ignore_index=True), ["a", "b"])
    t = t.set_index(["engine", "concurrency"])
    assert len(t) == 3
    assert t.loc[("a", 2), "failed"] == 1.0  # 20 prompts − 19 completed
    assert t.loc[("a", 1), "duration_s"] == 8.0  # the later record wins


def test_unknown_engines_ignored_and_empty_input() -> None:
    assert len(tier_stats(_summary(), ["a"])) == 2
    empty = tier_stats(pd.DataFrame(), ["a"])
    assert empty.empty and "itl_p50_ms" in empty.columns


def test_latency_shape() -> None:
    tiers = pd.DataFrame({"itl_p50_ms": [10.0, 0.0, np.nan], "itl_mean_ms": [15.0, 1.0, 2.0],
                          "tpot_mean_ms": [12.0, 1.0, 2.0]})
    out = latency_shape(tiers)
    assert out["wait_ratio"].iloc[0] == pytest.approx(0.2)  # 12 / 10 − 1
    assert out["itl_mean_over_p50"].iloc[0] == 1.5
    assert out["per_slot_tok_s"].iloc[0] == 100.0  # 1000 / 10 ms
    assert out[["wait_ratio", "per_slot_tok_s"]].iloc[1:].isna().all().all()


def test_mark_excluded_and_usable() -> None:
    tiers = pd.DataFrame({"engine": ["a", "a", "b"], "concurrency": [16, 32, 32]})
    out = mark_excluded(tiers, {"a": (32,)})
    assert list(out["excluded"]) == [False, True, False]
    assert list(usable(out)["concurrency"]) == [16, 32]


def test_waves_round2_llamacpp_c32() -> None:
    tiers = pd.DataFrame({"concurrency": [32, 64, 3], "requests": [320.0, 512.0, 10.0],
                          "duration_s": [179.73, 121.61, 8.0],
                          "e2el_p50_ms": [17851.0, 15193.0, np.nan]})
    out = add_waves(tiers)
    assert list(out["waves"].iloc[:3]) == [10.0, 8.0, 4.0]  # ceil(10 / 3) = 4
    assert out["duration_per_wave_s"].iloc[0] == pytest.approx(17.973)
    assert out["wave_gap"].iloc[0] == pytest.approx(17.973 / 17.851 - 1)
    assert f"{out['wave_gap'].iloc[1] * 100:.1f}" == "0.1"
    assert np.isnan(out["wave_gap"].iloc[2])


def test_implied_tpot_and_the_skew_free_wait_ratio() -> None:
    # row 0: TTFT 100 + 255 gaps of 4 ms = 1120 ms; row 1: n = 1 has no gap; row 2: E2EL < TTFT
    tiers = pd.DataFrame({
        "itl_p50_ms": [3.2, 5.0, 5.0], "itl_mean_ms": [4.0] * 3, "tpot_mean_ms": [6.0, 5.0, 5.0],
        "mean_output_tokens": [256.0, 1.0, 9.0], "ttft_mean_ms": [100.0, 50.0, 80.0],
        "e2el_mean_ms": [1120.0, 60.0, 70.0]})
    out = latency_shape(tiers)
    assert out["tpot_implied_ms"].iloc[0] == pytest.approx(4.0)
    assert out["wait_ratio_implied"].iloc[0] == pytest.approx(0.25)  # 4 / 3.2 − 1
    assert out["wait_ratio"].iloc[0] == pytest.approx(0.875)  # 6 / 3.2 − 1: the skewed basis
    assert out[["tpot_implied_ms", "wait_ratio_implied"]].iloc[1:].isna().all().all()
