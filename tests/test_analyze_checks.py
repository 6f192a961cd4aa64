"""Self-checks: each rule on a tiny frame, with the status it must give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze import checks as chk
from reportgen.errors import Finding
from reportgen.text.bilingual import Bi


def _tiers(**cols: list) -> pd.DataFrame:
    base = {"engine": ["a", "a", "a"], "concurrency": [8, 16, 32],
            "requests": [10.0, 10.0, 10.0], "completed": [10.0, 10.0, 9.0],
            "failed": [0.0, 0.0, 1.0], "output_tok_s": [400.0, 550.0, 440.0],
            "total_output_tokens": [2560.0, 2560.0, 2250.0], "excluded": [False, False, True]}
    base.update(cols)
    return pd.DataFrame(base)


def _r(rows: list[chk.Check], axis: str = "concurrency") -> list[dict]:
    """The checks as the table holds them, messages rendered from the string table."""
    return chk.checks_frame(rows, axis).to_dict("records")


def _statuses(rows: list[dict]) -> list[tuple]:
    return [(r["id"], r["status"], r["engine"], r["concurrency"]) for r in rows]


def test_non_monotonic_throughput_warns_at_the_drop() -> None:
    rows = _r(chk.monotonic_throughput(_tiers(), ["a"]))
    assert [(r["status"], r["concurrency"]) for r in rows] == [("warn", 32.0)]
    assert rows[0]["value"] == pytest.approx(440.0 / 550.0)
    assert "C=32" in rows[0]["message"].en and "C=16" in rows[0]["message"].zh
    ok = _r(chk.monotonic_throughput(_tiers(output_tok_s=[1.0, 2.0, np.nan]), ["a"]))
    assert [r["status"] for r in ok] == ["pass"]


def test_failed_requests_warn_and_nothing_completed_fails() -> None:
    rows = _r(chk.failed_requests(_tiers(), ["a"]))
    assert _statuses(rows) == [("requests.failed", "warn", "a", 32.0)]
    rows = _r(chk.failed_requests(_tiers(completed=[0.0, 10.0, 10.0], failed=[10.0, 0, 0]), ["a"]))
    assert ("requests.completed", "fail", "a", 8.0) in _statuses(rows)
    assert _r(chk.failed_requests(_tiers(failed=[0.0, 0.0, 0.0]), ["a"]))[0]["status"] == "pass"


def test_output_token_parity_round2_llamacpp() -> None:
    tiers = pd.DataFrame({"engine": ["l", "l", "v"], "completed": [1000.0, 331.0, 1332.0],
                          "total_output_tokens": [253_000.0, 83_142.0, 340_992.0]})
    parity = chk.output_token_parity(tiers, ["v", "l"], 256).set_index("engine")
    assert parity.loc["l", "total"] == 336_142
    assert parity.loc["l", "requested"] == 340_736
    assert parity.loc["l", "shortfall"] == 4_594
    assert f"{parity.loc['l', 'shortfall_frac'] * 100:.2f}" == "1.35"
    assert parity.loc["v", "per_request"] == 256.0
    rows = _r(chk.output_token_checks(parity.reset_index()))
    assert [(r["engine"], r["status"]) for r in rows] == [("v", "pass"), ("l", "warn")]
    assert "4,594" in rows[1]["message"].en


def _identity(ttft: float, tpot: float, e2el: float, medians: bool, n: float = 256.0,
              mean_tpot: float | None = None) -> pd.DataFrame:
    nan = np.nan
    return pd.DataFrame({
        "engine": ["a"], "concurrency": [4], "mean_output_tokens": [n],
        "ttft_mean_ms": [ttft], "tpot_mean_ms": [tpot if mean_tpot is None else mean_tpot],
        "e2el_mean_ms": [e2el], "ttft_p50_ms": [ttft if medians else nan],
        "tpot_p50_ms": [tpot if medians else nan], "e2el_p50_ms": [e2el if medians else nan]})


@pytest.mark.parametrize(("e2el", "medians", "status"), [
    (1120.0, False, "pass"),    # n constant: TTFT 100 + 255 × TPOT 4 = 1120, exact on means
    (1120.0, True, "pass"),     # medians beside the means change nothing
    (1100.0, False, "warn"),    # 1.8 % off: beyond the 1 % allowed
    (500.0, False, "fail"),     # 124 % off: mixed units or a corrupt file
])
def test_identity_tolerances(e2el: float, medians: bool, status: str) -> None:
    rows = _r(chk.identity_checks(_identity(100.0, 4.0, e2el, medians), ["a"], 256))
    assert rows[0]["status"] == status
    assert rows[0]["id"] == "identity.e2el"


def test_identity_is_not_tested_on_medians_nor_on_means_of_varying_n() -> None:
    # medians 5 % off (InferenceX's fixed-length runs): no identity ties medians
    nan = np.nan
    tiers = _identity(100.0, 4.0, 1180.0, True)
    tiers[["ttft_mean_ms", "tpot_mean_ms", "e2el_mean_ms"]] = nan
    [row] = _r(chk.identity_checks(tiers, ["a"], 256))
    assert row["status"] == "pass"
    assert row["message"].en.startswith("Not tested at C=4: the files give medians only")
    # one early-stopped request lifts mean TPOT to 6 ms, E2EL does not move: n varies
    tiers = _identity(100.0, 4.0, 1100.0, True, n=250.0, mean_tpot=6.0)
    [row] = _r(chk.identity_checks(tiers, ["a"], 256))
    assert row["status"] == "pass" and "are not known to be equal" in row["message"].en
    # a rate sweep names its rates
    [row] = _r(chk.identity_checks(tiers, ["a"], 256), "request_rate")
    assert row["message"].en.startswith("Not tested at 4 req/s:")


def test_identity_fails_a_tpot_without_output_tokens() -> None:
    [row] = _r(chk.identity_checks(_identity(100.0, 4.0, 1120.0, True, n=0.0), ["a"], 256))
    assert (row["status"], row["value"]) == ("fail", 4.0)


def test_identity_skips_tiers_without_numbers() -> None:
    assert _r(chk.identity_checks(_identity(np.nan, 4.0, 1000.0, False), ["a"], 256)) == []


def test_arrays_vs_summary() -> None:
    summary = pd.DataFrame({"source": ["s", "t"], "record": [0, 0], "engine": ["a", "a"],
                            "concurrency": [1.0, 2.0], "ttft_median_ms": [200.0, 100.0],
                            "itl_mean_ms": [150.0, 50.0]})
    recomputed = pd.DataFrame({"source": ["s", "t"], "record": [0, 0],
                               "ttft_median_ms": [200.0001, 100.0], "itl_mean_ms": [150.0, 60.0]})
    rows = _r(chk.arrays_vs_summary(summary, recomputed))
    assert [(r["status"], r["concurrency"]) for r in rows] == [("pass", 1.0), ("fail", 2.0)]
    assert "itl_mean_ms" in rows[1]["message"].en
    assert rows[1]["value"] == pytest.approx(10.0 / 60.0)
    assert _r(chk.arrays_vs_summary(summary, recomputed.iloc[0:0])) == []


def test_excluded_tiers_are_noted_with_the_reason() -> None:
    rows = _r(chk.excluded_tiers(_tiers(), Bi("原因", "the reason")))
    assert _statuses(rows) == [("tiers.excluded", "warn", "a", 32.0)]
    assert rows[0]["message"].en.endswith("the reason")


def test_segment_checks() -> None:
    reuse = pd.DataFrame({"concurrency": [8, 16, 32], "print_timing_lines": [10, 10, 8]})
    rows = _r(chk.segment_checks("a", 31 + 28, 31, [10, 10, 8], reuse, _tiers()))
    assert ("log_segments.total", "pass", "a", None) in [
        (i, s, e, None if np.isnan(c) else c) for i, s, e, c in _statuses(rows)]
    mismatch = [r for r in rows if r["id"] == "log_segments.requests"]
    assert [(r["concurrency"], r["value"]) for r in mismatch] == [(32.0, -1.0)]
    rows = _r(chk.segment_checks("a", 50, 31, [10, 10], reuse.iloc[:2], _tiers()))
    assert {r["id"] for r in rows if r["status"] == "warn"} == {"log_segments.total"}


def test_temperature_counters_and_findings() -> None:
    [row] = _r(chk.temperature_check({"a": 73.0, "b": np.nan}))
    assert (row["status"], row["engine"], row["value"]) == ("pass", "a", 73.0)
    assert _r(chk.temperature_check({"a": 90.0}))[0]["status"] == "warn"
    assert _r(chk.temperature_check({"a": np.nan})) == []

    rows = _r(chk.counter_increase_check("v", "vllm.preemptions", {1: 0.0, 64: 3.0}))
    assert [(r["status"], r["concurrency"]) for r in rows] == [("warn", 64.0)]
    assert rows[0]["message"].en == "C=64: vLLM preemptions rose by 3."
    ok = _r(chk.counter_increase_check("v", "vllm.preemptions", {1: 0.0}))
    assert [r["status"] for r in ok] == ["pass"]
    assert chk.counter_increase_check("v", "vllm.preemptions", {}) == []

    [row] = _r(chk.finding_checks([Finding("a/server.log", "odd line", 3, "a")]))
    assert (row["status"], row["engine"]) == ("warn", "a")
    assert row["message"].en == "a/server.log:3: odd line"


def test_checks_frame_columns() -> None:
    frame = chk.checks_frame(chk.failed_requests(_tiers(), ["a"]))
    assert list(frame.columns) == ["id", "status", "engine", "concurrency", "value", "message"]
    assert all(isinstance(m, Bi) for m in frame["message"])


def test_mean_tpot_skew_is_flagged_per_tier() -> None:
    tiers = pd.DataFrame({"engine": ["a", "a", "b"], "concurrency": [8, 16, 8],
                          "tpot_mean_ms": [4.1, 6.0, 5.0], "tpot_implied_ms": [4.0, 4.0, np.nan]})
    rows = _r(chk.tpot_skew_checks(tiers, ["a", "b"]))
    assert [(r["id"], r["status"], r["concurrency"]) for r in rows] == [
        ("tpot.mean_skew", "warn", 16.0)]  # 4.1 vs 4.0 is within 5 %; b has nothing to test
    assert rows[0]["value"] == pytest.approx(0.5)
    assert "upper bound" in rows[0]["message"].en
    ok = _r(chk.tpot_skew_checks(tiers[tiers["concurrency"] == 8], ["a"]))
    assert [r["status"] for r in ok] == ["pass"]
