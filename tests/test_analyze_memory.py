"""Memory split: estimate vs measured, KV pool from tokens, capacity ratio."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.memory import (
    kv_capacity_ratio,
    kv_pool_gib,
    measured_used_mib,
    memory_row,
    memory_table,
)


def test_kv_pool_from_tokens_or_reported_mib() -> None:
    assert kv_pool_gib(262144, 57344) == 14.0
    assert kv_pool_gib(262144, np.nan, reported_mib=2048.0) == 2.0


def test_measured_prefers_fingerprint_then_sampler_peak() -> None:
    gpu = pd.DataFrame({"memory_used_mib": [100.0, 300.0, np.nan]})
    assert measured_used_mib(19089.0, gpu) == (19089.0, "fingerprint")
    assert measured_used_mib(None, gpu) == (300.0, "gpu.csv")
    value, source = measured_used_mib(np.nan, None)
    assert np.isnan(value) and source == ""


def test_memory_row_round2_llamacpp() -> None:
    row = memory_row("llamacpp", weights_gib=4.36, kv_pool_gib=14.0, kv_pool_tokens=262144,
                     measured_total_gib=19089 / 1024, gpu_memory_gib=24.0,
                     sources={"weights": "server.log:40"})
    assert row["estimated_total_gib"] == pytest.approx(18.36)
    assert row["other_gib"] == pytest.approx(19089 / 1024 - 18.36)
    assert f"{row['estimate_gap'] * 100:.1f}" == "1.5"
    assert row["weights_source"] == "server.log:40" and row["measured_source"] == ""


def test_unmeasured_engine_keeps_nan() -> None:
    row = memory_row("x", weights_gib=1.0, kv_pool_gib=2.0, kv_pool_tokens=10.0,
                     measured_total_gib=np.nan, gpu_memory_gib=24.0)
    assert row["estimated_total_gib"] == 3.0
    assert np.isnan(row["other_gib"]) and np.isnan(row["estimate_gap"])


def test_kv_capacity_ratio() -> None:
    table = memory_table([
        memory_row("llamacpp", weights_gib=1, kv_pool_gib=1, kv_pool_tokens=262144,
                   measured_total_gib=np.nan, gpu_memory_gib=24),
        memory_row("vllm", weights_gib=1, kv_pool_gib=1, kv_pool_tokens=120064,
                   measured_total_gib=np.nan, gpu_memory_gib=24),
    ])
    assert f"{kv_capacity_ratio(table, 'llamacpp', 'vllm'):.2f}" == "2.18"
    assert np.isnan(kv_capacity_ratio(table, "llamacpp", "sglang"))
