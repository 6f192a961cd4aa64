"""Server-side prefill: llama.cpp log medians, vLLM histogram deltas, and the gap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.prefill import (
    llama_prefill,
    prefill_table,
    relative_gap,
    vllm_prefill,
)


def _prom(pairs: list[tuple[str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(pairs, columns=["name", "labels", "value"])


def test_llama_prefill_is_the_segment_median() -> None:
    timings = pd.DataFrame({"prompt_eval_ms": [500.0, 80.0, 90.0, 85.0, 200.0, np.nan]})
    out = llama_prefill(timings, 1, [3, 2], [1, 2])
    assert out.to_dict("records") == [
        {"concurrency": 1, "server_prefill_ms": 85.0, "server_samples": 3.0},
        {"concurrency": 2, "server_prefill_ms": 200.0, "server_samples": 1.0},
    ]


def test_vllm_prefill_is_delta_sum_over_delta_count() -> None:
    name = "vllm:request_prefill_time_seconds"
    before = _prom([(f"{name}_sum", 'engine="0"', 10.0), (f"{name}_count", 'engine="0"', 5.0)])
    after = _prom([(f"{name}_sum", 'engine="0"', 13.74), (f"{name}_count", 'engine="0"', 45.0)])
    idle = _prom([(f"{name}_sum", "", 1.0), (f"{name}_count", "", 2.0)])
    out = vllm_prefill({4: (idle, idle), 1: (before, after)})
    assert list(out["concurrency"]) == [1, 4]
    assert out["server_prefill_ms"].iloc[0] == pytest.approx(93.5)  # 3.74 s / 40
    assert out["server_samples"].iloc[0] == 40.0
    assert out[["server_prefill_ms", "server_samples"]].iloc[1].isna().all()  # Δcount = 0


def test_prefill_table_joins_ttft_and_marks_missing_server_figures() -> None:
    tiers = pd.DataFrame({"engine": ["a", "a", "b"], "concurrency": [1, 2, 1],
                          "ttft_p50_ms": [92.7, 104.0, 102.3], "excluded": [False, True, False]})
    server = {"a": (pd.DataFrame({"concurrency": [1], "server_prefill_ms": [85.3],
                                  "server_samples": [40.0]}), "log")}
    out = prefill_table(server, tiers, ["a", "b"])
    first = out.iloc[0]
    assert (first["source"], first["server_samples"]) == ("log", 40.0)
    assert first["client_overhead_ms"] == pytest.approx(7.4)
    assert np.isnan(out["server_prefill_ms"].iloc[1]) and out["source"].iloc[1] == ""
    assert bool(out["excluded"].iloc[1])
    assert out["engine"].iloc[2] == "b" and np.isnan(out["server_prefill_ms"].iloc[2])


def test_relative_gap_round2() -> None:
    assert f"{relative_gap(85.3, 93.5) * 100:.1f}" == "8.8"
    assert f"{relative_gap(92.7, 102.3) * 100:.1f}" == "9.4"
    assert np.isnan(relative_gap(1.0, np.nan)) and np.isnan(relative_gap(1.0, 0.0))
