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
    assert got["fcp"] <= mark(page, "plotly:start")   # … before plotly.js is even unpacked
    page.wait_for_timeout(300)
    assert page.evaluate(DRAWN) == []           # nothing drawn while the reader stays
    watch.assert_clean()


def mark(page: Any, name: str) -> float:
    return float(page.evaluate("(n) => performance.getEntriesByName(n)[0].startTime", name))


def test_plotly_is_unpacked_only_after_the_text_has_painted(open_page: Any,
                                                            sample_report: Path,
                                                            browser: Any) -> None:
    """loader.js waits for the first contentful paint before it unpacks plotly.js, in every
    load (not by luck of the parser's pace: before the wait, 2 loads in 7 unpacked it first)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    for _ in range(4):
        page, watch = open_page(sample_report, wait=False, context=context)
        page.wait_for_function(READY, timeout=60_000)
        fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]"
                            ".startTime")
        assert fcp <= mark(page, "plotly:start") < mark(page, "plotly:unpacked")
        watch.assert_clean()
        page.close()


# A browser whose paint timing never reports (the FCP entry never comes): plotly.js must still
# arrive, after loader.js's PAINT_WAIT_MS (3 s).
SILENT_PAINT = """(() => {
  const Real = window.PerformanceObserver;
  class Silent { constructor() {} observe() {} disconnect() {} }
  Silent.supportedEntryTypes = Real.supportedEntryTypes;
  window.PerformanceObserver = Silent;
  const get = performance.getEntriesByName.bind(performance);
  performance.getEntriesByName = (n, t) => n === 'first-contentful-paint' ? [] : get(n, t);
})();"""
# A browser without paint timing at all: loader.js waits for the first frame instead.
NO_PAINT_TIMING = """(() => {
  Object.defineProperty(PerformanceObserver, 'supportedEntryTypes',
                        { get: () => ['mark', 'measure'] });
})();"""


def test_plotly_arrives_without_paint_timing(open_page: Any, sample_report: Path,
                                             browser: Any) -> None:
    for script, at_least_ms in ((NO_PAINT_TIMING, 0), (SILENT_PAINT, 3000)):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(script)
        page, watch = open_page(sample_report, wait=False, context=context)
        page.wait_for_function(READY, timeout=60_000)
        assert mark(page, "plotly:start") >= at_least_ms
        page.evaluate("window.scrollBy(0, 40)")
        page.wait_for_function(DRAWN + ".length > 0", timeout=60_000)
        watch.assert_clean()
        context.close()


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


MOVED = """() => [...document.querySelectorAll('div.plot')].map(el => {
  const L = el._fullLayout, m = L.margin, s = L._size;
  return [el.id, ['l', 'r', 't', 'b'].filter(k => m[k] !== s[k]).map(k => [k, m[k], s[k]])];
}).filter(([, moved]) => moved.length)"""


def test_each_sample_figure_is_drawn_once(open_page: Any, sample_report: Path) -> None:
    """figure_margins sizes the margins for the labels, so plotly.js's automargin moves none
    (a moved margin means the figure was drawn a second time), in both languages; and a
    label still fits: every tick label and legend entry lies inside its figure."""
    for lang in ("zh", "en"):
        page, watch = open_page(sample_report, query=f"?lang={lang}")
        assert page.evaluate(MOVED) == [], lang
        outside = page.evaluate("""() => [...document.querySelectorAll('div.plot')].flatMap(el => {
          const box = el.getBoundingClientRect();
          return [...el.querySelectorAll('.xtick text, .ytick text, .legend .traces')]
            .map(t => t.getBoundingClientRect())
            .filter(r => r.width && (r.left < box.left || r.right > box.right ||
                                     r.top < box.top || r.bottom > box.bottom))
            .map(() => el.id);
        })""")
        assert outside == [], lang
        watch.assert_clean()
