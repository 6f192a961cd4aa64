"""figures.margins: the left and bottom margins a figure's labels need (so plotly.js draws it
once), from tick labels, axis titles and legend rows; hand-checked with DejaVu Sans widths."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.figures.base import trace_values
from reportgen.figures.margins import (
    X_TITLED,
    X_UNTITLED,
    Y_TITLED,
    Y_UNTITLED,
    fitted_margins,
    text_px,
    tick_labels,
)

BASE = {"l": 64, "r": 28, "t": 52, "b": 56}


def fig(data: list[dict], **layout: object) -> dict:
    return {"data": data, "layout": layout}


def test_text_widths() -> None:
    assert text_px("10") == pytest.approx(2 * 0.64 * 12)
    assert text_px("1,000") == pytest.approx((4 * 0.64 + 0.32) * 12)
    assert text_px("空心") == 24.0                         # full-width: 1 em each
    assert text_px("<b>10</b>") == text_px("10")           # markup is not drawn


def test_tick_labels_as_plotly_writes_them() -> None:
    assert tick_labels({"ticktext": ["1", "1,000"]}, np.array([])) == ["1", "1,000"]
    assert tick_labels({"range": [0, 1.02], "tickformat": ".0%"}, np.array([])) == \
        ["0%", "100%"]
    # 5–38 ms to zero, 10 % headroom: ticks of 10 from 0 to 40
    assert tick_labels({"rangemode": "tozero"}, np.array([5.0, 38.0])) == ["0", "40"]
    assert tick_labels({"type": "log"}, np.array([3.0, 250.0])) == ["1", "10", "100", "1000"]
    assert tick_labels({}, np.array([0.0, 25_000.0])) == ["0", "25k"]
    assert tick_labels({"type": "date"}, np.array([1.0])) is None
    assert tick_labels({}, np.array([np.nan])) is None


def test_left_margin_fits_the_widest_tick_label_and_the_title() -> None:
    f = fig([{"type": "scatter", "y": [1.0, 2.0]}],
            yaxis={"title": {"text": "tok/s"}, "ticktext": ["50", "1,000"]})
    want = text_px("1,000") + Y_TITLED                       # 34.56 + 39 → 74
    assert fitted_margins(f, BASE, trace_values)["l"] == 74 == int(np.ceil(want))
    f["layout"]["yaxis"] = {"ticktext": ["1,000"]}           # no title: 34.56 + 19 → 54 < 64
    assert fitted_margins(f, BASE, trace_values)["l"] == 64
    assert text_px("1,000") + Y_UNTITLED < 64


def test_category_labels_and_right_hand_subplots() -> None:
    f = fig([{"type": "bar", "y": ["llama.cpp Q4_K_M", "vLLM"], "x": [1, 2],
              "orientation": "h"},
             {"type": "scatter", "x": [1], "y": [1e9], "xaxis": "x2", "yaxis": "y2"}],
            xaxis={"domain": [0, 0.4]}, xaxis2={"domain": [0.6, 1]},
            yaxis={"title": {"text": "engine"}}, yaxis2={"anchor": "x2"})
    # only the left subplot's y axis reaches the figure's left edge
    assert fitted_margins(f, BASE, trace_values)["l"] == int(np.ceil(
        text_px("llama.cpp Q4_K_M") + Y_TITLED))


LEGEND = {"orientation": "h", "y": -0.2, "yanchor": "top"}


def test_bottom_margin_holds_the_axis_and_the_legend_rows() -> None:
    one = [{"type": "scatter", "x": [1.0], "y": [1.0], "name": "a"},
           {"type": "scatter", "x": [1.0], "y": [2.0], "name": "b"}]
    # one legend row, 11 + 19 + 12 = 42 px pushed at paper y −0.2, top margin 52, 460 px high:
    # b = (42 − 0.2·52 + 0.2·460) / 1.2 = 102.27 → 103 (as plotly.js solves it)
    titled = fig(one, xaxis={"title": {"text": "C"}}, height=460)
    assert fitted_margins(titled, BASE, trace_values, LEGEND)["b"] == 103
    assert fitted_margins(titled, BASE, trace_values)["b"] == 56      # no legend placement given
    alone = fig(one[:1], xaxis={"title": {"text": "C"}})          # one trace: no legend
    assert fitted_margins(alone, BASE, trace_values, LEGEND)["b"] == 56   # 54 < the base 56
    dated = fig(one[:1], xaxis={"type": "date", "title": {"text": "t"}})
    assert fitted_margins(dated, BASE, trace_values, LEGEND)["b"] == X_TITLED + 15 == 69
    wide = [{"type": "scatter", "x": [1.0], "y": [1.0], "name": "x" * 30} for _ in range(4)]
    # 263 px each: 3 in a row of 1000 − 64 − 28, so 2 rows: (61 − 10.4 + 90) / 1.2 = 117.2
    assert fitted_margins(fig(wide), BASE, trace_values, LEGEND)["b"] == 118
    above = LEGEND | {"y": 1.02, "yanchor": "bottom"}             # not below the plot: no term
    assert fitted_margins(fig(wide), BASE, trace_values, above)["b"] == 56
    assert X_UNTITLED < 56


def test_margins_never_shrink_and_keep_the_other_sides() -> None:
    f = fig([{"type": "scatter", "y": [1.0]}], yaxis={"ticktext": ["1"]})
    assert fitted_margins(f, {"l": 160, "r": 40, "t": 36, "b": 90}, trace_values) == \
        {"l": 160, "r": 40, "t": 36, "b": 90}


def test_legend_rows_as_plotly_lays_them_out() -> None:
    from reportgen.figures.margins import legend_height

    def named(*names: str, group: bool = False) -> list[dict]:
        return [{"type": "scatter", "name": n, "legendgroup": "g" + n[:1] if group else None}
                for n in names]
    # all fit in 500 px (40 + 7.44 each, 5 px apart): one row, 19 px + 11 px padding
    assert legend_height({}, named("a", "b"), 500) == 30
    # too wide for one row: every entry gets the widest one's column (40 + 372 + 5 = 417 px),
    # so one a row in 500 px: 3 rows
    assert legend_height({}, named("a", "b", "x" * 50), 500) == 11 + 3 * 19
    # grouped: "aa" and "ab" are one group, a column of two; groups flow in rows 10 px apart
    assert legend_height({}, named("aa", "ab", "b", group=True), 500) == 11 + 2 * 19
    assert legend_height({}, named("aa", "ab", "b" * 40, group=True), 300) == \
        11 + 2 * 19 + 10 + 19
    assert legend_height({}, named("a"), 500) == 0                  # one trace: no legend
    assert legend_height({"showlegend": True}, named("a"), 500) == 30
