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
    decode_tokens,
    decode_values,
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
        "engine": ["a"] * 3, "concurrency": [2.0] * 3, "source": ["x"] * 3, "record": [0] * 3,
        "success": [True, True, False],
        "ttft_s": [0.1, 0.6, 0.0], "tpot_s": [0.0, 0.02, math.nan],
        "e2el_s": [0.1, 1.0, 0.0]})
    gaps = {("a", 2.0): np.array([0.02, 0.02, 0.0])}
    data = payload(per_request, gaps, Slo(ttft_ms=500), [
        {"engine": "a", "c": 2.0, "excluded": False, "synthetic": False, "duration_s": 4.0}],
        budget=8)                      # 9 values: beyond the budget, so binned
    assert data["mode"] == "bins" and "values" not in data
    (block,) = decode_codes(data)
    # requests are stored sorted by their codes: 100 ms (meets 500), 600 ms, the failed one
    ttft, tpot = block[0], block[1]
    assert ttft[0] <= 0 < ttft[1] and ttft[2] == FAILED
    assert tpot[0] == ZERO and tpot[2] == FAILED             # one token: TPOT 0
    itl = _decode(str(data["itl"]), "<i4").reshape(-1, 2)
    assert itl[:, 1].sum() == 3 and itl[0, 0] == ZERO        # the zero gap first
    tier = data["tiers"][0]                                  # type: ignore[index]
    assert (tier["n"], tier["at"], tier["itl_bins"], tier["runs"]) == (3, 0, 2, [3])
    assert data["defaults"] == {"ttft": 500, "tpot": None, "e2el": None, "target": 0.99}


def _requests(rows: list[tuple[str, int, bool, float, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["source", "record", "success", "ttft_s", "tpot_s",
                                       "e2el_s"]).assign(engine="a", concurrency=2.0)


def test_within_the_budget_the_values_are_exact() -> None:
    # two runs of one tier; 0.1 + 0.2 is not 0.3 in float64: stored bit for bit
    per_request = _requests([("x", 0, True, 0.1 + 0.2, 0.0, 1.0),
                             ("x", 0, False, 0.0, math.nan, 0.0),
                             ("y", 0, True, 0.5, math.nan, 2.5)])
    tier = {"engine": "a", "c": 2.0, "excluded": False, "synthetic": False, "duration_s": 4.0}
    data = payload(per_request, {}, Slo(ttft_ms=300), [tier], budget=9)
    assert data["mode"] == "exact" and "codes" not in data and data["values_n"] == 9
    (block,) = decode_values(data)
    assert block[0].tolist() == [0.1 + 0.2, -1.0, 0.5]               # −1: failed
    assert block[1][0] == 0.0 and block[1][1] == -1.0 and math.isnan(block[1][2])
    assert data["tiers"][0]["runs"] == [2, 1]                        # type: ignore[index]
    # the table's comparison on the stored values: 0.30000000000000004 > 0.3
    assert not block[0][0] <= 300 / 1000.0


def test_token_counts_follow_their_requests_in_both_modes() -> None:
    # each request's output tokens are 10 × its position, so the stored order can be checked
    # against the stored values; an unknown count is −1
    ttft = [0.9, 0.1, 0.5, 0.3]
    per_request = pd.DataFrame({
        "engine": ["a"] * 4, "concurrency": [1.0] * 4, "source": ["x"] * 4, "record": [0] * 4,
        "success": [True] * 4, "ttft_s": ttft, "tpot_s": [0.01] * 4, "e2el_s": [1.0] * 4,
        "output_tokens": [0.0, 10.0, 20.0, math.nan], "input_tokens": [5.0] * 4})
    tiers = [{"engine": "a", "c": 1.0, "excluded": False, "synthetic": False,
              "duration_s": 1.0}]
    for budget in (100, 3):
        data = payload(per_request, {}, Slo(ttft_ms=500), tiers, budget=budget)
        (tokens,) = decode_tokens(data)
        assert list(tokens[1]) == [5] * 4
        if data["mode"] == "exact":
            stored = list(decode_values(data)[0][0])
        else:
            codes = decode_codes(data)[0][0]
            stored = [next(t for t in ttft if bin_codes(np.array([t]), 500.0)[0] == k)
                      for k in codes]
        want = {0.9: 0, 0.1: 10, 0.5: 20, 0.3: -1}
        assert [want[t] for t in stored] == list(tokens[0]), data["mode"]


def test_a_float_is_stored_as_its_shortest_decimal() -> None:
    from reportgen.page.slo_payload import _decimal, _decimal_planes

    cases = {0.0963045: (963045, -7), 1e-05: (1, -5), 123.0: (123, 0), 1200.0: (12, 2),
             -1.0: (-1, 0), 0.1 + 0.2: (30000000000000004, -17), 0.0: (0, 0)}
    for value, want in cases.items():
        assert _decimal(value) == want, value
        m, e = want
        assert float(f"{m}e{e}") == value
    assert _decimal_planes(np.array([5e-324])) is None     # 10^-324: no int8 exponent
    assert _decimal_planes(np.array([0.5, math.nan])) is not None


def _tier_requests(ttft: list[float], e2el: list[float], tokens: list[float],
                   tpot: list[float] | None = None) -> pd.DataFrame:
    from reportgen.analyze.distributions import tpot_of

    t, e, n = np.array(ttft), np.array(e2el), np.array(tokens)
    return pd.DataFrame({
        "engine": "a", "concurrency": 1.0, "source": "x", "record": 0, "success": True,
        "ttft_s": t, "e2el_s": e, "output_tokens": n, "input_tokens": 3.0,
        "tpot_s": tpot_of(t, e, n) if tpot is None else tpot})


TIER = {"engine": "a", "c": 1.0, "excluded": False, "synthetic": False, "duration_s": 1.0}


def test_tpot_is_derived_in_the_page_when_every_request_gives_it_back() -> None:
    # 3 tokens: (1.3 − 0.1) / 2; one token: 0; an unknown count: NaN (20 of each, values with
    # short decimals and long binary fractions: as decimals they pack smaller)
    per_request = _tier_requests([0.1, 0.3, 0.7] * 20, [1.3, 0.9, 1.1] * 20,
                                 [3, 1, math.nan] * 20)
    data = payload(per_request, {}, None, [TIER])
    assert data["tpot"] == "derived" and data["encoding"] == "decimal"
    (block,) = decode_values(data)
    assert block[0].tolist() == [0.1, 0.3, 0.7] * 20
    assert block[2].tolist() == [1.3, 0.9, 1.1] * 20
    assert block[1][:2].tolist() == [(1.3 - 0.1) / 2, 0.0] and math.isnan(block[1][2])


def test_a_tpot_the_page_cannot_derive_is_stored_and_long_floats_stay_float64() -> None:
    rng = np.random.default_rng(3)
    ttft, e2el = rng.random(50), 1 + rng.random(50)
    tpot = (e2el - ttft) / 9
    tpot[7] = 0.125                          # a client's own TPOT for one request
    per_request = _tier_requests(list(ttft), list(e2el), [10] * 50, list(tpot))
    data = payload(per_request, {}, None, [TIER])
    assert data["tpot"] == "stored" and data["encoding"] == "float64"
    (block,) = decode_values(data)
    assert block[0].tolist() == list(ttft) and block[1].tolist() == list(tpot)
    assert block[2].tolist() == list(e2el)
