"""The SLO panel's log-binned per-request data: ±1 % values, thresholds on bin edges, and
every request on the side of a default threshold that the goodput table puts it."""

from __future__ import annotations

import base64
import gzip
import math

import numpy as np
import pandas as pd

from reportgen.page.slo_payload import (
    FAILED,
    GAMMA,
    UNKNOWN,
    ZERO,
    bin_codes,
    decode_codes,
    payload,
)
from reportgen.slo import Slo


def _decode(b64: str, dtype: str) -> np.ndarray:
    return np.frombuffer(gzip.decompress(base64.b64decode(b64)), dtype=dtype)


def test_bins_hold_their_values_within_one_percent() -> None:
    values_s = np.geomspace(1e-4, 600, 5000)
    k = bin_codes(values_s, 500.0).astype(float)
    lo, hi = 500.0 * GAMMA ** (k - 1), 500.0 * GAMMA**k
    ms = values_s * 1000
    assert np.all((lo <= ms * (1 + 1e-12)) & (ms <= hi * (1 + 1e-12)))
    rep = 2 * 500.0 * GAMMA**k / (GAMMA + 1)
    assert np.max(np.abs(rep / ms - 1)) <= 0.01 + 1e-9


def test_the_threshold_is_a_bin_edge_decided_as_the_table_decides() -> None:
    # 0.5 s exactly, its float neighbours, 0 and NaN
    values = np.array([0.5, np.nextafter(0.5, 1), np.nextafter(0.5, 0), 0.0, np.nan, 0.4999])
    k = bin_codes(values, 500.0)
    assert k[0] <= 0 and k[1] >= 1 and k[2] <= 0 and k[5] <= 0
    assert (k[3], k[4]) == (ZERO, UNKNOWN)


def test_payload_layout() -> None:
    per_request = pd.DataFrame({
        "engine": ["a"] * 3, "concurrency": [2.0] * 3, "success": [True, True, False],
        "ttft_s": [0.1, 0.6, 0.0], "tpot_s": [0.0, 0.02, math.nan],
        "e2el_s": [0.1, 1.0, 0.0]})
    gaps = {("a", 2.0): np.array([0.02, 0.02, 0.0])}
    data = payload(per_request, gaps, Slo(ttft_ms=500), [
        {"engine": "a", "c": 2.0, "excluded": False, "synthetic": False, "duration_s": 4.0}])
    (block,) = decode_codes(data)
    # requests are stored sorted by their codes: 100 ms (meets 500), 600 ms, the failed one
    ttft, tpot = block[0], block[1]
    assert ttft[0] <= 0 < ttft[1] and ttft[2] == FAILED
    assert tpot[0] == ZERO and tpot[2] == FAILED             # one token: TPOT 0
    itl = _decode(str(data["itl"]), "<i4").reshape(-1, 2)
    assert itl[:, 1].sum() == 3 and itl[0, 0] == ZERO        # the zero gap first
    tier = data["tiers"][0]                                  # type: ignore[index]
    assert (tier["n"], tier["at"], tier["itl_bins"]) == (3, 0, 2)
    assert data["defaults"] == {"ttft": 500, "tpot": None, "e2el": None, "target": 0.99}
