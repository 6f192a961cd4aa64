"""Summary statistics recomputed from per-request arrays (vLLM's calculate_metrics rules)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.request_stats import fill_missing_stats, recompute_stats
from reportgen.load.gaps import Gaps, RecordGaps


def _requests() -> tuple[pd.DataFrame, Gaps]:
    requests = pd.DataFrame({
        "source": ["s"] * 3, "record": [0] * 3, "request": [0, 1, 2],
        "output_tokens": [11.0, 11.0, 0.0], "ttft_s": [0.1, 0.3, 0.0],
        "latency_s": [1.1, 2.3, 0.0], "success": [True, True, False],
    })
    itls = Gaps([RecordGaps("s", 0, np.array([10, 10, 1]),
                            np.array([0.1] * 10 + [0.2] * 10 + [9.0]))])
    return requests, itls


def test_recompute_matches_hand_values_and_ignores_failed_requests() -> None:
    out = recompute_stats(*_requests()).iloc[0]
    assert out["ttft_mean_ms"] == pytest.approx(200.0)
    assert out["ttft_p99_ms"] == pytest.approx(298.0)  # 100 + 0.99 × 200 (linear)
    assert out["tpot_mean_ms"] == pytest.approx(150.0)  # (100 + 200) / 2
    assert out["tpot_median_ms"] == pytest.approx(150.0)
    assert out["itl_mean_ms"] == pytest.approx(150.0)  # the failed request's 9 s gap ignored
    assert out["e2el_median_ms"] == pytest.approx(1700.0)


def test_no_detail_gives_an_empty_frame() -> None:
    out = recompute_stats(pd.DataFrame(), Gaps())
    assert out.empty and "ttft_median_ms" in out.columns


def test_fill_missing_only_fills_absent_or_nan_keys() -> None:
    summary = pd.DataFrame({"source": ["s", "t"], "record": [0, 0],
                            "ttft_median_ms": [201.0, 50.0], "itl_mean_ms": [np.nan, 1.0]})
    out = fill_missing_stats(summary, recompute_stats(*_requests()))
    assert list(out["ttft_median_ms"]) == [201.0, 50.0]  # present: never overwritten
    assert out["itl_mean_ms"].iloc[0] == pytest.approx(150.0)
    assert out["e2el_median_ms"].iloc[0] == pytest.approx(1700.0)
    assert np.isnan(out["e2el_median_ms"].iloc[1])  # no arrays for "t"
