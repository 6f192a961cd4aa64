"""Figures: what each one draws from the Analysis, language variants and their patches."""

from __future__ import annotations

import base64
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from figure_registry import drawn_ids, drawn_kinds
from page_fixture import make_analysis

from reportgen.figures.registry import build_figures, figures_payload
from reportgen.text.i18n import figure_patches, flatten, load_ui

UI_PATH = Path(__file__).resolve().parents[1] / "templates" / "i18n" / "ui.toml"


@pytest.fixture(scope="module")
def ui():
    return load_ui(UI_PATH)


@pytest.fixture(scope="module")
def analysis():
    return make_analysis()


def decode(arr: object) -> list[float]:
    """plotly's {dtype, bdata} arrays (or plain lists) → list of floats."""
    if isinstance(arr, dict):
        raw = base64.b64decode(arr["bdata"])
        return np.frombuffer(raw, dtype=np.dtype(arr["dtype"])).astype(float).tolist()
    return [math.nan if v is None else float(v) for v in arr]


def by_id(analysis, ui, lang="en"):
    return {s.id: s.figure.to_dict() for s in build_figures(analysis, ui, lang)}


def test_fixed_ids_in_order(analysis, ui) -> None:
    specs = build_figures(analysis, ui, "zh")
    assert [s.id for s in specs] == drawn_ids()
    assert [s.kind for s in specs] == drawn_kinds()
    assert drawn_ids()[:2] == ["fig-1", "fig-2"] and "pareto" in drawn_kinds()
    assert "pareto" not in drawn_kinds(configurations=1)


def test_missing_data_drops_only_that_figure(analysis, ui) -> None:
    import dataclasses

    bare = dataclasses.replace(analysis, graph_reuse=pd.DataFrame(columns=["engine"]),
                               memory=pd.DataFrame(columns=["engine"]))
    assert [s.id for s in build_figures(bare, ui, "en")] == drawn_ids(
        missing=frozenset({"reuse", "memory"}))


def test_throughput_is_log_log_with_crossover_and_excluded_marks(analysis, ui) -> None:
    fig = by_id(analysis, ui)["fig-1"]
    layout = fig["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    assert layout["xaxis"]["tickvals"] == [1, 4, 16, 64]
    big, small, cross, legend = fig["data"]
    assert big["name"] == "Big BF16" and small["name"] == "Small Q4"
    assert decode(small["y"]) == [190, 500, 450, 900]
    # C=16 of the small engine is excluded: open marker and a hover note
    assert small["marker"]["symbol"] == ["circle", "circle", "circle-open", "circle"]
    assert small["customdata"][2] == ["<br><i>excluded from conclusions</i>"]
    assert small["customdata"][1] == [""]
    assert legend["name"] == "open marker = excluded from conclusions"
    assert legend["marker"]["symbol"] == "circle-open"
    # big/small ratio 0.6 at C=4 → 2000/900 at C=64; the marker sits on the big engine's
    # straight log–log segment from (4, 300) to (64, 2000)
    c = analysis.crossovers["concurrency"].iloc[0]
    assert cross["x"] == [pytest.approx(c)]
    expected_y = math.exp(math.log(300) + (math.log(c) - math.log(4)) / math.log(16)
                          * math.log(2000 / 300))
    assert cross["y"] == [pytest.approx(expected_y)]
    assert cross["name"] == "crossover C ≈ 11.8"
    note = layout["annotations"][0]
    assert note["x"] == pytest.approx(math.log10(c)) and note["text"] == "crossover C ≈ 11.8"


def test_itl_against_floor(analysis, ui) -> None:
    fig = by_id(analysis, ui)["fig-2"]
    names = [t["name"] for t in fig["data"]]
    assert names[:4] == ["Big BF16 measured", "Big BF16 floor", "Small Q4 measured",
                         "Small Q4 floor"]
    # floor = weights GB + 0.11 × C ms
    assert decode(fig["data"][1]["y"]) == pytest.approx([10.11, 10.44, 11.76, 17.04])
    assert fig["data"][1]["line"]["dash"] == "dash"
    assert fig["data"][0]["customdata"][0] == [pytest.approx(10.11), pytest.approx(10.11 / 12),
                                               ""]


def test_memory_stack_and_gpu_line(analysis, ui) -> None:
    fig = by_id(analysis, ui)["fig-3"]
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert [b["name"] for b in bars] == ["weights", "KV pool", "other"]
    assert fig["layout"]["barmode"] == "stack"
    assert bars[0]["x"] == ["Big BF16", "Small Q4"]
    assert decode(bars[1]["y"]) == [5.0, 8.0]
    measured = next(t for t in fig["data"] if t["type"] == "scatter")
    assert decode(measured["y"]) == [15.5, 12.0]
    line = fig["layout"]["shapes"][0]
    assert line["y0"] == line["y1"] == 24.0
    assert fig["layout"]["annotations"][0]["text"] == "GPU memory 24 GiB"


def test_wait_reuse_and_tradeoff(analysis, ui) -> None:
    figs = by_id(analysis, ui)
    wait = figs["fig-4"]
    assert wait["layout"]["yaxis"]["tickformat"] == ".0%"
    assert decode(wait["data"][0]["y"]) == pytest.approx([0.0, 0.04, 15 / 14 - 1, 0.4])
    reuse = figs["fig-5"]
    names = [t["name"] for t in reuse["data"]]
    assert names[:3] == ["Small Q4 reuse (per request)", "Small Q4 reuse (batch-aware)",
                         "Small Q4 roofline attainment"]
    assert decode(reuse["data"][0]["y"]) == pytest.approx([1590 / 1600, 0.25, 0.0, 0.0125])
    trade = figs["fig-6"]
    big = trade["data"][0]
    # per-user speed = 1000 / TPOT p50
    assert decode(big["y"]) == pytest.approx([1000 / 12.0, 1000 / 12.9, 1000 / 14.8, 1000 / 27.5])
    # only the ends are labelled (saturated points overprint); hover names every tier
    assert big["text"] == ["C=1", "", "", "C=64"]
    assert trade["layout"]["xaxis"]["type"] == "log"


def test_languages_differ_only_in_text(analysis, ui) -> None:
    zh, en = by_id(analysis, ui, "zh"), by_id(analysis, ui, "en")
    assert zh["fig-1"]["layout"]["title"]["text"] == "输出吞吐 vs 并发（双对数）"
    assert en["fig-1"]["layout"]["title"]["text"] == "Output throughput vs concurrency (log–log)"
    assert zh["fig-1"]["data"][0]["name"] == "大模型 BF16"
    for fig_id in zh:
        assert decode(zh[fig_id]["data"][0]["y"]) == decode(en[fig_id]["data"][0]["y"])


def test_flatten() -> None:
    flat = flatten({"xaxis": {"title": {"text": "C"}, "tickvals": [1, 2]},
                    "annotations": [{"text": "a", "x": 1}], "y": {"dtype": "f8", "bdata": "AA"},
                    "empty": {}})
    assert flat == {"xaxis.title.text": "C", "xaxis.tickvals": [1, 2], "annotations[0].text": "a",
                    "annotations[0].x": 1, "y": {"dtype": "f8", "bdata": "AA"}, "empty": {}}


def test_figure_patches_hold_only_differences() -> None:
    zh = {"data": [{"name": "甲", "y": [1, 2]}, {"name": "乙", "y": [3]}, {"y": [4]}],
          "layout": {"title": {"text": "标题"}, "height": 400, "annotations": [{"text": "注"}]}}
    en = {"data": [{"name": "A", "y": [1, 2]}, {"name": "B", "y": [3]}, {"y": [4]}],
          "layout": {"title": {"text": "Title"}, "height": 400, "annotations": [{"text": "note"}]}}
    patches = figure_patches({"zh": zh, "en": en})
    assert patches["en"] == {"data": {"name": ["A", "B"]},
                             "layout": {"annotations[0].text": "note", "title.text": "Title"},
                             "traces": [0, 1]}
    assert patches["zh"]["data"] == {"name": ["甲", "乙"]}
    with pytest.raises(ValueError):
        figure_patches({"zh": zh, "en": {"data": [], "layout": {}}})


def test_patch_sends_null_for_a_key_only_one_language_has() -> None:
    zh = {"data": [{"name": "甲", "hovertemplate": "x"}, {"name": "乙"}], "layout": {}}
    en = {"data": [{"name": "A", "hovertemplate": "x"}, {"name": "B", "text": "t"}],
          "layout": {}}
    patch = figure_patches({"zh": zh, "en": en})
    assert patch["zh"]["data"] == {"name": ["甲", "乙"], "text": [None, None]}
    assert patch["en"]["data"]["text"] == [None, "t"]


def test_payload_strips_templates_and_uses_bdata(analysis, ui) -> None:
    built = figures_payload(analysis, ui, "zh")
    assert built.trace_types == {"bar", "scatter"}
    assert all(f.id.startswith("fig-") and f.height > 0 for f in built.figures)
    view = built.prefixed("w2-").only({"w2-fig-1"})   # one view's figures, as placed
    assert [f.id for f in view.figures] == ["w2-fig-1"] and view.trace_types == built.trace_types
    assert view.placed() == {"throughput": ("w2-fig-1", built.figures[0].height)}
    payload = built.payload()   # the report-figs block: kind and height stay out of it
    assert list(payload) == ["defaultLang", "template", "figs"]
    assert all(list(f) == ["id", "fig", "i18n"] for f in payload["figs"])
    assert payload["defaultLang"] == "zh"
    assert payload["template"]["layout"]["font"]["family"].startswith("system-ui")
    assert "WenQuanYi Micro Hei" in payload["template"]["layout"]["font"]["family"]
    for f in payload["figs"]:
        assert "template" not in f["fig"]["layout"]
        assert f["fig"]["layout"]["uirevision"] == "keep"
        assert set(f["i18n"]) == {"zh", "en"}
        assert f["i18n"]["en"]["layout"]["title.text"] != f["i18n"]["zh"]["layout"]["title.text"]
    first = payload["figs"][0]
    assert first["fig"]["data"][0]["y"]["dtype"] == "f8"
    assert first["fig"]["layout"]["title"]["text"] == "输出吞吐 vs 并发（双对数）"
    assert first["i18n"]["en"]["data"]["name"][:2] == ["Big BF16", "Small Q4"]
