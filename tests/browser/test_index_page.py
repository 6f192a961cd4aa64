"""The index page for many rounds, in the browser: pages of cards newest first, the filter by
GPU, configuration and date, and the trend figure on a date axis with the round titles."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pagekit import REPO

sys.path.insert(0, str(REPO))

from benchmarks import tiny_rounds


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reportgen.index import page as index_page
    from reportgen.index.update import build_index

    root = tmp_path_factory.mktemp("many")
    rounds = tiny_rounds.generate(root / "rounds", 3)
    old, index_page.PAGE_SIZE = index_page.PAGE_SIZE, 2     # 3 rounds: two pages
    try:
        build_index(rounds, root / "site", jobs=1)
    finally:
        index_page.PAGE_SIZE = old
    return root / "site"


def shown(page: Any) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('.round-card')].filter(c => !c.hidden)"
                         ".map(c => c.dataset.date)")


def test_pages_and_filter(open_page: Any, site: Path) -> None:
    page, watch = open_page(site / "index.html", "?lang=en")
    assert shown(page) == ["2024-01-03", "2024-01-02"]              # newest first, page 1
    assert page.locator(".round-pager-pos").inner_text() == "1 / 2"
    page.locator("#round-pager [data-step='1']").click()
    assert shown(page) == ["2024-01-01"]
    page.select_option("#round-filter select[name=gpu]", "A100")   # round 1 only
    assert shown(page) == ["2024-01-02"]
    assert page.locator("#round-pager").is_hidden()
    page.select_option("#round-filter select[name=gpu]", "")
    page.fill("#round-filter input[name=from]", "2024-01-02")
    page.dispatch_event("#round-filter input[name=from]", "input")
    assert shown(page) == ["2024-01-03", "2024-01-02"]
    page.fill("#round-filter input[name=to]", "2023-12-31")
    page.dispatch_event("#round-filter input[name=to]", "input")
    assert shown(page) == [] and page.locator("#round-none").is_visible()
    page.click("#round-filter button[type=reset]")
    page.wait_for_function("() => !document.getElementById('round-none').checkVisibility()")
    assert len(shown(page)) == 2
    # the "any" choice follows the page language
    assert page.locator("#round-filter option[value='']").first.inner_text() == "Any"
    page.click("#lang-toggle")
    page.wait_for_function("() => document.querySelector('#round-filter option').textContent"
                           " === '全部'")
    watch.assert_clean()


def test_trend_figure_has_dates_and_titles(open_page: Any, site: Path) -> None:
    page, watch = open_page(site / "index.html", "?lang=en")
    layout_type = page.evaluate("document.getElementById('trend-plot')._fullLayout.xaxis.type")
    assert layout_type == "date"
    text = page.evaluate("document.getElementById('trend-plot').data[0].text")
    assert text == ["Nightly 0000 · H100", "Nightly 0001 · A100", "Nightly 0002 · L40S"]
    watch.assert_clean()


def test_a_report_draws_from_the_sites_shared_plotly(browser: Any, open_page: Any,
                                                      site: Path) -> None:
    """A report of the site carries no plotly.js of its own: the one copy in _static/ is
    loaded by a relative file URL (after the first paint) and draws every figure, with the
    page's CSP in force and no request beyond file:."""
    report = site / "nightly-0001.html"
    html = report.read_text(encoding="utf-8")
    shared = sorted(p.name for p in (site / "_static").glob("plotly-*.js"))
    assert len(shared) == 1 and f'data-src="_static/{shared[0]}"' in html
    assert "H4sI" not in html                     # no gzip+base64 bundle inlined
    page, watch = open_page(report, "?lang=en")   # waits for every figure drawn
    # the script element the loader added, resolved against the report's own file URL
    srcs = page.evaluate("[...document.scripts].map(s => s.src).filter(Boolean)")
    assert (site / "_static" / shared[0]).resolve().as_uri() in srcs
    assert page.evaluate("typeof window.Plotly.newPlot") == "function"
    assert page.evaluate("performance.getEntriesByName('plotly:start').length") == 1
    assert page.evaluate(
        "performance.getEntriesByName('first-contentful-paint')[0].startTime"
        " <= performance.getEntriesByName('plotly:start')[0].startTime")
    watch.assert_clean()
