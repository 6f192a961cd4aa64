"""Rounds in series, in the browser: the index (cards, the trend figure drawn, links that open
the reports, the language switch) and the baseline's dashed curves, toggled from the legend."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from pagekit import REPO, SAMPLE

SAMPLES = REPO / "sample_runs"
DRAWN = """() => (window.reportDrawAll && window.reportDrawAll(), true) &&
  document.documentElement.dataset.rendered === 'true'"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reportgen.index.update import build_index

    out = tmp_path_factory.mktemp("series") / "site"
    build_index(sorted(p for p in SAMPLES.iterdir() if p.is_dir()), out)
    return out


@pytest.fixture(scope="module")
def overlaid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample compared with an older copy of itself (vLLM's C=64 run left out)."""
    from reportgen.build import build_report

    root = tmp_path_factory.mktemp("overlay")
    older = root / "older"
    shutil.copytree(SAMPLE, older, ignore=shutil.ignore_patterns("narrative"))
    for f in (older / "vllm" / "bench").glob("*concurrency64-*"):
        f.unlink()
    toml = older / "round.toml"
    text = toml.read_text(encoding="utf-8").split("\n[baseline]")[0]
    toml.write_text(re.sub(r"Round 2", "Round 1.9", text), encoding="utf-8")
    return build_report(SAMPLE, root / "report.html", baseline=older)


def test_index_cards_trend_links_and_language(open_page: Any, site: Path,
                                              artifacts: Path) -> None:
    page, watch = open_page(site / "index.html", "?lang=en")
    assert page.locator(".round-card").count() == 2
    assert page.locator(".round-card-published").count() == 1
    traces = page.evaluate("document.getElementById('trend-plot').data.length")
    assert traces >= 4     # crossover, failures, tiers, per-engine step and efficiency
    drawn = page.evaluate("document.querySelectorAll('#trend-plot .scatterlayer .trace')"
                          ".length")
    assert drawn == traces
    title = page.evaluate("document.getElementById('trend-plot')._fullLayout.title.text")
    assert title == "Headline figures by round"
    assert page.locator("h1").inner_text() == "Benchmark reports"
    page.screenshot(path=str(artifacts / "index-en.png"), full_page=True)
    # the language switch relabels the page and the figure
    page.click("#lang-toggle")
    page.wait_for_function("() => document.getElementById('trend-plot')._fullLayout.title.text"
                           " === '各轮主要数字'", polling=20, timeout=5000)
    assert page.locator("h1").inner_text() == "压测报告索引"
    # every link resolves; the card's link opens the report, which draws and links back
    hrefs = page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)")
    for href in hrefs:
        assert href.startswith("file://")
        assert Path(href[len("file://"):]).is_file(), href
    page.locator(".round-card a").first.click()
    page.wait_for_function(DRAWN, polling=20, timeout=60_000)
    assert page.url.split("?")[0].endswith("/round2-rtx4090.html")
    assert page.locator(".series-index").get_attribute("href") == "index.html"
    assert page.locator("#baseline").count() == 1
    page.locator(".series-index").click()
    page.wait_for_function(DRAWN, polling=20, timeout=60_000)
    assert page.url.split("?")[0].endswith("/index.html")
    assert watch.console_errors == [] and watch.page_errors == [] and watch.requests == []


def _baseline_state(page: Any, fig: str) -> list[Any]:
    return page.evaluate(
        f"document.getElementById('{fig}').data.filter(t => t.legendgroup === 'baseline')"
        ".map(t => [t.line.dash, t.visible === undefined ? true : t.visible])")


def test_baseline_overlays_are_dashed_and_toggle_together(open_page: Any, overlaid: Path,
                                                          artifacts: Path) -> None:
    page, watch = open_page(overlaid, "?lang=en")
    for fig in ("fig-1", "fig-2", "fig-4", "fig-6"):
        state = _baseline_state(page, fig)
        assert state and all(dash == "dash" and vis is True for dash, vis in state), fig
    # drawn: the dashed paths exist in the SVG
    dashed = page.evaluate("[...document.querySelectorAll('#fig-1 .scatterlayer .js-line')]"
                           ".filter(p => (p.style.strokeDasharray || '') !== '').length")
    assert dashed >= 2
    page.locator("#fig-1").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "baseline-overlay-en.png"), full_page=False)
    legend = page.locator("#fig-1 .legend .traces").filter(has_text="(baseline)").first
    legend.click()
    page.wait_for_function(
        "() => document.getElementById('fig-1').data.filter(t => t.legendgroup === "
        "'baseline').every(t => t.visible === 'legendonly')", polling=20, timeout=5000)
    # the rest of the figure is untouched
    others = page.evaluate("document.getElementById('fig-1').data.filter(t => t.legendgroup "
                           "!== 'baseline').map(t => t.visible === undefined ? true : "
                           "t.visible)")
    assert others and all(v is True for v in others)
    legend.click()
    page.wait_for_function(
        "() => document.getElementById('fig-1').data.filter(t => t.legendgroup === "
        "'baseline').every(t => t.visible === true)", polling=20, timeout=5000)
    # the language switch relabels the baseline traces too
    page.click("#lang-toggle")
    page.wait_for_function(
        "() => document.getElementById('fig-1').data.filter(t => t.legendgroup === "
        "'baseline').every(t => t.name.includes('基线'))", polling=20, timeout=5000)
    assert watch.console_errors == [] and watch.page_errors == [] and watch.requests == []
