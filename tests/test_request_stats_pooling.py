"""ITL pooling in recompute_stats: numpy runs + lookup tables instead of a pandas merge."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.request_stats import pooled_gaps, recompute_stats


def _frames(categorical: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    requests = pd.DataFrame({
        "source": ["a", "a", "a", "b", "b"], "record": [0, 0, 1, 0, 0],
        "request": [0, 1, 0, 0, 1],
        "output_tokens": [3.0] * 5, "ttft_s": [0.1] * 5, "latency_s": [1.0] * 5,
        "success": [True, False, True, True, True],
    })
    # a0 split in two runs around b0; an ITL of an unknown record (a, 7) and of a request
    # index the record does not have (b0 request 5)
    rows = [("a", 0, 0, 0.010), ("a", 0, 1, 0.900), ("b", 0, 0, 0.020), ("b", 0, 5, 0.800),
            ("a", 0, 0, 0.030), ("a", 1, 0, 0.040), ("a", 7, 0, 0.700), ("b", 0, 1, 0.050)]
    itls = pd.DataFrame(rows, columns=["source", "record", "request", "itl_s"])
    itls["record"] = itls["record"].astype(np.int32)
    itls["request"] = itls["request"].astype(np.int32)
    if categorical:
        itls["source"] = pd.Categorical(itls["source"])
    return requests, itls


@pytest.mark.parametrize("categorical", [True, False])
def test_pooled_gaps_keep_successful_requests_in_row_order(categorical: bool) -> None:
    requests, itls = _frames(categorical)
    ok = requests[requests["success"]]
    pooled = pooled_gaps(ok, itls)
    assert sorted(pooled) == [("a", 0), ("a", 1), ("b", 0)]
    assert pooled[("a", 0)].tolist() == [0.010, 0.030]  # request 1 failed: its 0.9 s dropped
    assert pooled[("a", 1)].tolist() == [0.040]
    assert pooled[("b", 0)].tolist() == [0.020, 0.050]  # request 5 does not exist


@pytest.mark.parametrize("categorical", [True, False])
def test_pooling_agrees_with_a_merge(categorical: bool) -> None:
    requests, itls = _frames(categorical)
    ok = requests[requests["success"]]
    merged = itls.astype({"source": object}).merge(ok[["source", "record", "request"]],
                                                   on=["source", "record", "request"])
    expected = {key: g["itl_s"].to_numpy() for key, g in merged.groupby(["source", "record"])}
    pooled = pooled_gaps(ok, itls)
    assert pooled.keys() == expected.keys()
    for key, gaps in expected.items():
        np.testing.assert_array_equal(pooled[key], gaps)


def test_recomputed_itl_stats_use_the_pooled_gaps() -> None:
    out = recompute_stats(*_frames(True)).set_index(["source", "record"])
    assert out.loc[("a", 0), "itl_mean_ms"] == pytest.approx(20.0)
    assert out.loc[("b", 0), "itl_median_ms"] == pytest.approx(35.0)
