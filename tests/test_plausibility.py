"""Plausibility self-checks: figures no real run can produce, each warned with its likely
cause. Tiny frames, hand-checkable thresholds."""

from __future__ import annotations

import math

import pandas as pd

from reportgen.analyze.checks import Check, checks_frame, plausibility_checks


def tiers(**columns: list[float]) -> pd.DataFrame:
    base = {"engine": ["e", "e"], "concurrency": [1, 2], "requests": [10.0, 10.0],
            "output_tok_s": [100.0, 180.0], "roofline_attainment": [0.8, 0.9],
            "wait_ratio": [0.1, 0.2]}
    return pd.DataFrame(base | columns)


ENGINES = pd.DataFrame({"id": ["e"], "mbu_c1": [0.7]})


def _r(rows: list[Check], axis: str = "concurrency") -> list[dict]:
    """The checks as the table holds them, messages rendered for the round's axis."""
    return checks_frame(rows, axis).to_dict("records")


def ids(rows: list[dict]) -> list[str]:
    return [r["id"] for r in rows]


def test_a_plausible_engine_raises_nothing() -> None:
    assert _r(plausibility_checks(tiers(), ENGINES, ["e"])) == []


def test_attainment_above_100_percent_names_the_gpu_count() -> None:
    rows = _r(plausibility_checks(tiers(roofline_attainment=[0.8, 2.16]), ENGINES, ["e"]))
    assert ids(rows) == ["plausibility.roofline"]
    assert rows[0]["value"] == 2.16 and "tensor_parallel" in rows[0]["message"].en
    mbu = _r(plausibility_checks(tiers(), pd.DataFrame({"id": ["e"], "mbu_c1": [1.3]}), ["e"]))
    assert ids(mbu) == ["plausibility.roofline"] and mbu[0]["value"] == 1.3


def test_mean_tpot_below_itl_points_at_per_chunk_itl() -> None:
    rows = _r(plausibility_checks(tiers(wait_ratio=[-0.04, -0.30]), ENGINES, ["e"]))
    assert ids(rows) == ["plausibility.tpot_below_itl"]  # -4 % is within noise, -30 % is not
    assert rows[0]["concurrency"] == 2 and "chunk" in rows[0]["message"].en


def test_concurrency_above_the_requests_sent() -> None:
    rows = _r(plausibility_checks(tiers(requests=[10.0, 1.0]), ENGINES, ["e"]))
    assert ids(rows) == ["plausibility.concurrency_above_prompts"]
    assert rows[0]["concurrency"] == 2 and rows[0]["value"] == 1.0


def test_throughput_growing_faster_than_concurrency() -> None:
    # C 1 → 2 may at most double throughput (5 % noise allowed): 100 → 230 cannot be one server
    rows = _r(plausibility_checks(tiers(output_tok_s=[100.0, 230.0]), ENGINES, ["e"]))
    assert ids(rows) == ["plausibility.superlinear"]
    assert math.isclose(rows[0]["value"], 2.3)
    assert _r(plausibility_checks(tiers(output_tok_s=[100.0, 209.0]), ENGINES, ["e"])) == []


def test_rate_axis_skips_the_concurrency_checks_and_names_rates() -> None:
    rows = _r(plausibility_checks(tiers(output_tok_s=[100.0, 230.0], requests=[1.0, 1.0],
                                        wait_ratio=[0.0, -0.5]), ENGINES, ["e"], "request_rate"),
              "request_rate")
    assert ids(rows) == ["plausibility.tpot_below_itl"]
    assert "2 req/s" in rows[0]["message"].en and "C=" not in rows[0]["message"].en
