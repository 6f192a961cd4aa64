"""formatting: the one number formatter (specs, shortest form, reading form, changes)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reportgen.text.formatting import (
    MISSING,
    change_texts,
    exact,
    fmt,
    fmt_g,
    pct_signed,
    plain,
    signed,
)


def test_missing_mark_is_the_pages_em_dash() -> None:
    assert MISSING == "\u2014"
    assert {fmt(None), fmt(math.nan, ".2f"), fmt_g(None), exact(None), plain(math.nan),
            pct_signed(math.nan)} == {MISSING}


@pytest.mark.parametrize(("value", "expected"), [
    (8.0, "8"), (16.0, "16"), (121.61290137955864, "121.61"), (22.5, "22.5"), (1152.0, "1,152"),
    (1387.84, "1,387.84"), (0.0655, "0.0655"), (0.8905, "0.89"), (-3.523e-05, "-0.0000352"),
    (1e-15, "0"), (-0.004, "-0.004"), (-0.0, "0"), (-1e-13, "0"), (0.0, "0"), (3, "3"),
    (np.int64(40), "40"), (np.float64(256.0), "256"), (10**30, f"{10**30:,d}"),
    (True, "yes"), (False, "no"), ("13.0", "13.0"), (math.inf, "∞"), (-math.inf, "-∞"),
])
def test_plain_reads_like_the_page(value: object, expected: str) -> None:
    assert plain(value) == expected
    assert "e-" not in plain(value) and "e+" not in plain(value)


@pytest.mark.parametrize(("value", "spec", "expected"), [
    (-0.0003, ".1pct", "0.0%"), (-0.004, ".2f", "0.00"), (-0.4, ".0f", "0"),
    (-0.001, "x", "-0.00100×"), (-0.0004, ".1x", "0.0×"), (-0.00001, "pct", "0.00%"),
])
def test_no_negative_zero(value: float, spec: str, expected: str) -> None:
    assert fmt(value, spec) == expected


def test_signed_and_pct_signed() -> None:
    assert [signed(x) for x in (8.7, -0.05, 0.0, -0.0001, None)] == [
        "+8.7", "-0.05", "0", "-0.0001", MISSING]
    assert signed(True) == "yes"
    assert [pct_signed(x) for x in (0.021, -0.004, -0.00001)] == ["+2.1%", "-0.4%", "+0.0%"]


def test_fmt_g_and_exact() -> None:
    assert [fmt_g(x) for x in (24.0, 1152.0, 0.0655, 10**20, math.inf, -math.inf)] == [
        "24", "1,152", "0.0655", f"{10**20:,d}", "∞", "-∞"]
    assert [exact(x) for x in (1008.0, 0.123456789, 57344, "GB/s", True)] == [
        "1,008", "0.123457", "57,344", "GB/s", "True"]


def test_change_texts_show_enough_decimals_to_differ() -> None:
    assert change_texts(411.39, 403.33, -8.06, -8.06 / 411.39) == (
        "411.39", "403.33", "-8.06", "-2.0%")
    assert change_texts(118.7, 118.7001, 0.0001, 0.0001 / 118.7) == (
        "118.7", "118.7001", "+0.0001", "+0.0001%")
    assert change_texts(8.25, 8.3, 0.05, 0.05 / 8.25) == ("8.25", "8.3", "+0.05", "+0.6%")
    assert change_texts("1 failed", "2 failed") == ("1 failed", "2 failed", "", "")
    assert change_texts(None, 3, None, None) == (MISSING, "3", "", "")


def test_latencies_of_ten_seconds_or_more_read_in_seconds() -> None:
    from reportgen.text.formatting import fmt_latency_ms

    assert fmt_latency_ms(9_999.0, ".0f") == "9,999"
    assert fmt_latency_ms(11_779.0, ".0f") == "11.8 s"
    assert fmt_latency_ms(773_158.0, ".0f") == "773 s"
    assert fmt_latency_ms(float("nan"), ".0f") == "—"


def test_one_tier_label_for_every_plain_text_view() -> None:
    # check, diff, console, figures and split configuration names all print a tier this way
    from reportgen.text.formatting import tier_label
    assert tier_label(8.0) == "C=8"
    assert tier_label(0.5, "request_rate") == "0.5 req/s"
    assert tier_label(math.inf, "request_rate") == "∞ req/s"     # never `inf req/s`
    assert tier_label(math.nan) == "C=?"
