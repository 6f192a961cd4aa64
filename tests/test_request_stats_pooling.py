"""ITL pooling in recompute_stats: per record, a mask over its gaps (reportgen.load.gaps), no
per-gap key and no merge."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.request_stats import pooled_gaps, recompute_stats
from reportgen.load.gaps import Gaps, RecordGaps


def _gaps(source: str, record: int, per_request: list[list[float]]) -> RecordGaps:
    return RecordGaps(source, record, np.array([len(g) for g in per_request], dtype=np.int64),
                      np.array([x for g in per_request for x in g], dtype=np.float64))


def _frames() -> tuple[pd.DataFrame, Gaps]:
    requests = pd.DataFrame({
        "source": ["a", "a", "a", "b", "b"], "record": [0, 0, 1, 0, 0],
        "request": [0, 1, 0, 0, 1],
        "output_tokens": [3.0] * 5, "ttft_s": [0.1] * 5, "latency_s": [1.0] * 5,
        "success": [True, False, True, True, True],
    })
    # a record no request names (a, 7), and a request index b0 does not have (5: no gaps)
    itls = Gaps([_gaps("a", 0, [[0.010, 0.030], [0.900]]), _gaps("a", 1, [[0.040]]),
                 _gaps("b", 0, [[0.020], [0.050]]), _gaps("a", 7, [[0.700]])])
    return requests, itls


def test_pooled_gaps_keep_successful_requests_in_request_order() -> None:
    requests, itls = _frames()
    ok = requests[requests["success"]]
    pooled = pooled_gaps(ok, itls)
    assert sorted(pooled) == [("a", 0), ("a", 1), ("b", 0)]
    assert pooled[("a", 0)].tolist() == [0.010, 0.030]  # request 1 failed: its 0.9 s dropped
    assert pooled[("a", 1)].tolist() == [0.040]
    assert pooled[("b", 0)].tolist() == [0.020, 0.050]
    extra = pd.DataFrame({"source": ["b"], "record": [0], "request": [5]})
    assert pooled_gaps(extra, itls)[("b", 0)].size == 0   # request 5 does not exist


def test_pooling_agrees_with_a_merge() -> None:
    requests, itls = _frames()
    ok = requests[requests["success"]]
    merged = itls.frame().merge(ok[["source", "record", "request"]],
                                on=["source", "record", "request"])
    expected = {key: g["itl_s"].to_numpy() for key, g in merged.groupby(["source", "record"])}
    pooled = pooled_gaps(ok, itls)
    assert pooled.keys() == expected.keys()
    for key, gaps in expected.items():
        np.testing.assert_array_equal(pooled[key], gaps)


def test_gaps_hold_a_float_a_gap() -> None:
    _, itls = _frames()
    assert len(itls) == 7 and not itls.empty and Gaps().empty
    assert sum(p.values.nbytes for p in itls) == 7 * 8


def test_recomputed_itl_stats_use_the_pooled_gaps() -> None:
    out = recompute_stats(*_frames()).set_index(["source", "record"])
    assert out.loc[("a", 0), "itl_mean_ms"] == pytest.approx(20.0)
    assert out.loc[("b", 0), "itl_median_ms"] == pytest.approx(35.0)
