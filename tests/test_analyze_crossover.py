"""Crossover search in log–log space: hand-checkable curves and the edge cases."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.crossover import (
    comparison_pairs,
    crossings,
    crossover_table,
    pair_ratios,
    primary_pair,
)


def _tiers(rows: list[tuple[str, int, float, bool]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["engine", "concurrency", "output_tok_s", "excluded"])


def test_symmetric_crossing_lands_on_the_geometric_midpoint() -> None:
    # log ratio goes +ln2 → −ln2 between C=1 and C=4: zero at log C = ln4 / 2, i.e. C = 2
    [hit] = crossings([1, 4], [2.0, 0.5])
    assert hit["concurrency"] == pytest.approx(2.0)
    assert (hit["lower_tier"], hit["upper_tier"]) == (1.0, 4.0)
    assert (hit["ratio_lower"], hit["ratio_upper"]) == (2.0, 0.5)


def test_round2_pair_interpolates_to_8_3() -> None:
    [hit] = crossings([8, 16], [415.6 / 411.4, 548.0 / 681.5])
    t = math.log(415.6 / 411.4) / (math.log(415.6 / 411.4) - math.log(548.0 / 681.5))
    assert hit["concurrency"] == pytest.approx(8 * 2**t)
    assert f"{hit['concurrency']:.1f}" == "8.3"


def test_two_crossings_are_both_reported() -> None:
    hits = crossings([1, 2, 4, 8], [2.0, 0.5, 0.5, 2.0])
    assert [h["concurrency"] for h in hits] == pytest.approx([math.sqrt(2), math.sqrt(32)])
    assert [(h["lower_tier"], h["upper_tier"]) for h in hits] == [(1, 2), (4, 8)]


def test_no_crossing_one_tier_and_empty() -> None:
    assert crossings([1, 2, 4], [3.0, 2.0, 1.1]) == []
    assert crossings([8], [0.5]) == []
    assert crossings([], []) == []


def test_exact_parity_at_a_tier_is_the_crossing() -> None:
    [hit] = crossings([1, 2, 4], [2.0, 1.0, 0.5])
    assert hit == {"concurrency": 2.0, "lower_tier": 2.0, "upper_tier": 2.0,
                   "ratio_lower": 1.0, "ratio_upper": 1.0}


def test_parity_touched_or_at_an_end_is_not_a_crossing() -> None:
    assert crossings([1, 2, 4], [2.0, 1.0, 2.0]) == []
    assert crossings([1, 2], [2.0, 1.0]) == []
    assert crossings([1, 2], [1.0, 0.5]) == []


def test_nan_ratio_is_skipped_and_the_neighbours_interpolated() -> None:
    [hit] = crossings([1, 2, 4], [2.0, float("nan"), 0.5])
    assert hit["concurrency"] == pytest.approx(2.0)
    assert (hit["lower_tier"], hit["upper_tier"]) == (1.0, 4.0)


def test_pair_ratios_keeps_common_usable_finite_tiers_only() -> None:
    tiers = _tiers([
        ("a", 1, 100.0, False), ("a", 2, 150.0, False), ("a", 4, np.nan, False),
        ("a", 8, 300.0, True), ("a", 16, 500.0, False),
        ("b", 1, 50.0, False), ("b", 2, 150.0, False), ("b", 4, 200.0, False),
        ("b", 8, 600.0, False), ("b", 32, 900.0, False),
    ])
    got = pair_ratios(tiers, "a", "b")
    assert list(got["concurrency"]) == [1.0, 2.0]  # 4: NaN, 8: excluded, 16/32: not common
    assert list(got["ratio"]) == [2.0, 1.0]


def test_crossover_table_orders_pairs_as_in_the_manifest_and_inverts_ratio() -> None:
    tiers = _tiers([("a", 1, 200.0, False), ("a", 4, 400.0, False),
                    ("b", 1, 100.0, False), ("b", 4, 800.0, False)])
    table = crossover_table(tiers, comparison_pairs(["b", "a"]))
    assert list(table.columns) == ["engine_a", "engine_b", "concurrency", "lower_tier",
                                   "upper_tier", "ratio_lower", "ratio_upper"]
    [row] = table.to_dict("records")
    assert (row["engine_a"], row["engine_b"]) == ("b", "a")
    assert row["concurrency"] == pytest.approx(2.0)
    assert (row["ratio_lower"], row["ratio_upper"]) == (0.5, 2.0)


def test_crossover_table_without_common_tiers_is_empty_with_columns() -> None:
    tiers = _tiers([("a", 1, 200.0, False), ("b", 2, 100.0, False)])
    table = crossover_table(tiers, comparison_pairs(["a", "b"]))
    assert table.empty and "concurrency" in table.columns


def test_primary_pair_puts_the_early_leader_first() -> None:
    tiers = _tiers([("vllm", 1, 60.0, False), ("vllm", 2, 120.0, False),
                    ("llama", 1, 160.0, False), ("llama", 2, 240.0, False)])
    assert primary_pair(tiers, ["vllm", "llama"]) == ("llama", "vllm")
    assert primary_pair(tiers, ["llama", "vllm"]) == ("llama", "vllm")
    assert primary_pair(tiers, ["llama"]) is None
    # no common tier: manifest order is kept
    assert primary_pair(_tiers([("x", 1, 1.0, False)]), ["x", "y"]) == ("x", "y")
