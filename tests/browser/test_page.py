"""The built report in a real browser (Debian chromium, file://, no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from figure_registry import SAMPLE_EXTRA, drawn_ids
from pagekit import ALL_DRAWN, HOSTILE_IMG, HOSTILE_SCRIPT, figure_count


def visible_text(page: Any, selector: str) -> str:
    return page.locator(selector).first.evaluate(
        "el => el.innerText !== undefined ? el.innerText.trim() : el.textContent.trim()")


def fig_text(page: Any, fig_id: str, selector: str) -> list[str]:
    return page.evaluate(
        f"[...document.querySelectorAll('#{fig_id} {selector}')].map(e => e.textContent)")


def snapshot(page: Any) -> dict[str, Any]:
    return {
        "lang": page.evaluate("document.documentElement.lang"),
        "heading": visible_text(page, "#crossover h2 .kicker"),
        "th": visible_text(page, "#data table thead th"),
        "title": fig_text(page, "fig-1", ".gtitle"),
        "xtitle": fig_text(page, "fig-1", ".xtitle"),
        "legend": fig_text(page, "fig-2", ".legendtext"),
        "doc_title": page.title(),
    }


def test_opens_offline_draws_every_figure(open_page: Any, sample_report: Path) -> None:
    page, watch = open_page(sample_report)
    n = figure_count(page)
    # 8 + the Pareto view (drawn for two or more configurations), the latency distributions
    # and the power timeline are further figures
    assert n == len(drawn_ids(extra=SAMPLE_EXTRA))
    assert page.evaluate("document.documentElement.dataset.rendered") == "true"
    svgs = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')]"
                         ".map(g => g.querySelectorAll('.main-svg').length)")
    assert len(svgs) == n and all(s > 0 for s in svgs)
    drawn_ms = page.evaluate("window.__allRenderedAt")
    print(f"\ntime until all {n} figures drawn: {drawn_ms:.0f} ms "
          f"(page {sample_report.stat().st_size / 1e6:.2f} MB)")
    assert drawn_ms > 0
    # modebar: PNG download present (the page opens in Chinese), no cloud sharing, no logo
    assert page.locator('#fig-1 .modebar-btn[data-title="下载图表为PNG格式"]').count() == 1
    assert page.locator("#fig-1 .modebar-btn[data-title*='Share']").count() == 0
    assert page.locator("#fig-1 .modebar-btn--logo").count() == 0
    assert page.locator("#render-error").is_hidden()
    watch.assert_clean()


def test_toggle_switches_every_label_and_back(open_page: Any, sample_report: Path,
                                              artifacts: Path) -> None:
    page, watch = open_page(sample_report)
    zh = snapshot(page)
    assert zh["lang"] == "zh-CN"
    assert zh["heading"] == "交叉" and zh["th"] == "引擎"
    assert zh["title"] == ["输出吞吐 vs 并发（双对数）"] and zh["xtitle"] == ["并发 C"]
    assert any("实测" in t for t in zh["legend"])
    page.screenshot(path=str(artifacts / "report_zh.png"), full_page=True)

    page.click("#lang-toggle")
    page.wait_for_function("() => window.__lastToggleMs !== undefined")
    print(f"\nlanguage toggle: {page.evaluate('window.__lastToggleMs'):.0f} ms")
    en = snapshot(page)
    assert en["lang"] == "en"
    assert en["heading"] == "Crossover" and en["th"] == "Engine"
    assert en["title"] == ["Output throughput vs concurrency (log–log)"]
    assert en["xtitle"] == ["Concurrency C"]
    assert any("measured" in t for t in en["legend"]) and not any("实测" in t for t in en["legend"])
    assert en["doc_title"] != zh["doc_title"]
    assert page.evaluate("localStorage.getItem('report-lang')") == "en"
    assert page.url.endswith("?lang=en")
    page.screenshot(path=str(artifacts / "report_en.png"), full_page=True)

    page.click("#lang-toggle")
    page.wait_for_function("() => document.documentElement.lang === 'zh-CN' && "
                           "window.__lastToggleMs !== undefined")
    assert snapshot(page) == zh
    watch.assert_clean()


def test_query_parameter_opens_in_english(open_page: Any, sample_report: Path) -> None:
    page, watch = open_page(sample_report, "?lang=en")
    snap = snapshot(page)
    assert snap["lang"] == "en" and snap["heading"] == "Crossover"
    assert snap["title"] == ["Output throughput vs concurrency (log–log)"]
    assert page.locator("#crossover h2 .kicker [data-l='zh']").is_hidden()
    watch.assert_clean()


def test_choice_is_remembered(open_page: Any, browser: Any, sample_report: Path) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    try:
        page, _ = open_page(sample_report, context=ctx)
        page.click("#lang-toggle")
        page.wait_for_function("() => window.__lastToggleMs !== undefined")
        again, watch = open_page(sample_report, context=ctx)
        assert again.evaluate("document.documentElement.lang") == "en"
        assert fig_text(again, "fig-1", ".gtitle") == [
            "Output throughput vs concurrency (log–log)"]
        watch.assert_clean()
    finally:
        ctx.close()


def test_round_language_comes_before_the_browser_language(open_page: Any,
                                                          sample_report: Path) -> None:
    # the sample's round.toml states zh; the browser's language only decides when the round
    # states none (tests/browser/test_print_layout.py::test_opening_language_order)
    page, _ = open_page(sample_report, locale="en-US")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"


def test_png_download_from_the_modebar(open_page: Any, sample_report: Path) -> None:
    page, watch = open_page(sample_report)
    page.hover("#fig-1")
    with page.expect_download(timeout=30_000) as info:
        page.click('#fig-1 .modebar-btn[data-title="下载图表为PNG格式"]')
    download = info.value
    assert download.suggested_filename == "fig-1.png"
    assert Path(download.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    watch.assert_clean()


def test_hostile_round_shows_payloads_as_text(open_page: Any, hostile_report: Path,
                                              artifacts: Path) -> None:
    for query in ("", "?lang=en"):
        page, watch = open_page(hostile_report, query)
        if query:
            page.locator("#crossover").scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "hostile_en.png"))
        assert page.evaluate("document.documentElement.dataset.rendered") == "true"
        h1 = visible_text(page, "h1")
        assert HOSTILE_SCRIPT in h1 and HOSTILE_IMG in h1
        legend = " ".join(fig_text(page, "fig-1", ".legendtext"))
        assert "vLLM" in legend and "onerror" in legend
        nxt = visible_text(page, "#next")
        assert HOSTILE_SCRIPT in nxt and HOSTILE_IMG in nxt
        # the only images are the figures' print copies, rendered by plotly as SVG data
        assert page.locator("img:not(.plot-print)").count() == 0
        assert all(src.startswith("data:image/svg+xml") for src in page.evaluate(
            "[...document.querySelectorAll('img.plot-print')].map(i => i.src)"))
        # + plotly, + slo.js and the SLO panel's data block, + the same-speed table's data
        assert page.evaluate("document.querySelectorAll('script').length") == 6 + 1 + 2 + 1
        watch.assert_clean()


def test_visible_error_without_decompression_stream(open_page: Any, browser: Any,
                                                     sample_report: Path) -> None:
    ctx = browser.new_context(locale="en-US")
    ctx.add_init_script("delete window.DecompressionStream;")
    try:
        page, watch = open_page(sample_report, context=ctx, wait=False)
        page.wait_for_function("() => document.documentElement.dataset.rendered === 'error'")
        box = page.locator("#render-error")
        assert box.is_visible()
        assert "DecompressionStream" in box.inner_text()
        assert watch.page_errors == [] and watch.requests == []
    finally:
        ctx.close()


def test_figures_match_the_embedded_tables(open_page: Any, sample_report: Path) -> None:
    page, _ = open_page(sample_report)
    tables = json.loads(page.evaluate("document.getElementById('report-data').textContent"))
    tiers = [t for t in tables["tiers"] if t["engine"] == tables["engines"][0]["id"]]
    y = page.evaluate("Array.from(document.getElementById('fig-1')._fullData[0].y)")
    assert [round(v, 6) for v in y] == [round(t["output_tok_s"], 6) for t in tiers]
    # every figure the sample draws, the Pareto view included
    assert page.wait_for_function(ALL_DRAWN, arg=len(drawn_ids(extra=SAMPLE_EXTRA)))
