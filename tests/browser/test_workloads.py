"""A real folder with several workloads and a rate sweep, in the browser: the workload
switch shows one view at a time, its figures are drawn at full width, and the language
toggle relabels every view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from data_paths import REAL_ROUNDS as REAL
from pagekit import build


@pytest.fixture(scope="module")
def rtx_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("workloads") / "rtx.html"
    return build(REAL / "rtxpro6000-maxq-vs-ws-concurrency-repeats", out)


@pytest.fixture(scope="module")
def rate_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rate") / "a100.html"
    return build(REAL / "a100-vs-tpu-request-rate-sweep", out)


def _visible_views(page: Any) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('.view')]"
                         ".filter(v => !v.hidden).map(v => v.dataset.view)")


def _width(page: Any, fig_id: str) -> float:
    return page.evaluate(f"document.getElementById('{fig_id}')._fullLayout.width")


def test_switch_shows_one_workload_and_sizes_its_figures(open_page: Any, rtx_report: Path,
                                                          artifacts: Path) -> None:
    page, watch = open_page(rtx_report, "?lang=en")
    assert _visible_views(page) == ["w1"]
    buttons = page.locator(".view-btn")
    assert buttons.count() == 2
    # the files' names state the lengths asked for (random-in1024-out128-…): no ≈
    assert "in 1,024 / out 128" in buttons.nth(0).inner_text()
    wide = _width(page, "w1-fig-1")
    buttons.nth(1).click()
    assert _visible_views(page) == ["w2"]
    assert buttons.nth(1).get_attribute("aria-selected") == "true"
    # a function, not an expression string: the page's CSP forbids eval
    page.wait_for_function("(w) => Math.abs(document.getElementById('w2-fig-1')"
                           "._fullLayout.width - w) < 2", arg=wide, polling=20, timeout=5000)
    # drawn while hidden, resized when shown: as wide as the first view's figure
    assert abs(_width(page, "w2-fig-1") - wide) < 2
    assert page.locator("#w2-data table").first.is_visible()
    assert not page.locator("#w1-data table").first.is_visible()
    page.screenshot(path=str(artifacts / "workloads-w2-en.png"), full_page=False)
    assert watch.console_errors == [] and watch.page_errors == [] and watch.requests == []


def test_language_toggle_reaches_every_view(open_page: Any, rtx_report: Path) -> None:
    page, _ = open_page(rtx_report, "?lang=en")
    page.locator(".view-btn").nth(1).click()
    page.click("#lang-toggle")
    title = page.evaluate(
        "[...document.querySelectorAll('#w2-fig-1 .xtitle')].map(e => e.textContent)")
    assert title == ["并发 C"] or any("并发" in t for t in title)
    assert page.locator(".views-label [data-l=zh]").is_visible()


def test_rate_sweep_axis_and_inf_tick(open_page: Any, rate_report: Path) -> None:
    page, watch = open_page(rate_report, "?lang=en")
    xtitle = page.evaluate(
        "[...document.querySelectorAll('#w1-fig-1 .xtitle')].map(e => e.textContent)")
    assert xtitle == ["Request rate, req/s"]
    ticks = page.evaluate(
        "[...document.querySelectorAll('#w1-fig-1 .xtick text')].map(e => e.textContent)")
    assert ticks[-1] == "∞" and ticks[0] == "1"
    assert watch.page_errors == [] and watch.requests == []
