"""How plotly.js comes into the page (templates/static/loader.js): after the first frame, as a
blob: script allowed by its sha256 (integrity), its modules run in steps (tools/step_plotly.py);
a reader who does not scroll gets plotly.js ready and no figure drawn (the sample has none on
its first screen); the first scroll draws every figure, nearest first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

READY = "() => window.__plotlyReadyAt !== undefined"
DRAWN = """() => [...document.querySelectorAll('div.plot')].filter(p =>
  p.querySelector('.main-svg')).map(p => p.id)"""


def test_plotly_is_ready_in_steps_before_the_reader_scrolls(open_page: Any,
                                                           sample_report: Path) -> None:
    page, watch = open_page(sample_report, wait=False)
    page.wait_for_function(READY, timeout=60_000)
    got = page.evaluate("""() => {
      const s = [...document.querySelectorAll('script[src]')];
      return { srcs: s.map(x => x.src.slice(0, 5)), integrity: s.map(x => x.integrity),
               want: document.getElementById('plotly-gz').dataset.integrity,
               steps: window.__plotlySteps, plotly: typeof window.Plotly.newPlot,
               version: window.Plotly.version, fcp: performance.getEntriesByName(
                 'first-contentful-paint')[0].startTime, ready: window.__plotlyReadyAt };
    }""")
    assert got["srcs"] == ["blob:"] and got["integrity"] == [got["want"]]
    assert got["want"].startswith("sha256-")
    assert got["steps"] is None and got["plotly"] == "function"
    assert got["version"] == (Path(__file__).parents[2] / "templates" / "static" / "vendor" /
                              "plotly-custom.VERSION").read_text().strip()
    assert got["fcp"] < got["ready"]            # text and tables painted first
    page.wait_for_timeout(300)
    assert page.evaluate(DRAWN) == []           # nothing drawn while the reader stays
    watch.assert_clean()


def test_the_first_scroll_draws_every_figure_nearest_first(open_page: Any,
                                                           sample_report: Path) -> None:
    page, watch = open_page(sample_report, wait=False)
    page.wait_for_function(READY, timeout=60_000)
    page.evaluate("""() => { window.__order = [];
      document.addEventListener('report:figure-drawn', e => window.__order.push(e.detail.id));
      window.scrollBy(0, 40); }""")
    n = page.evaluate("JSON.parse(document.getElementById('report-figs').textContent)"
                      ".figs.length")
    page.wait_for_function(f"() => window.__order.length === {n}", timeout=60_000)
    order = page.evaluate("window.__order")
    tops = page.evaluate("""(ids) => ids.map(id =>
      document.getElementById(id).getBoundingClientRect().top + window.scrollY)""", order)
    assert tops == sorted(tops)                 # from the top of the page down: nearest first
    assert page.evaluate("document.documentElement.dataset.rendered") == "true"
    watch.assert_clean()
