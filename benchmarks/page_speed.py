"""How soon a report is readable, in headless Chromium, paired with a plain plotly page.

The plain page is what ``plotly.io.to_html`` gives for the same figures (the report's own
figure dicts, template applied, plotly.js inlined once): every figure drawn at load. GuideLLM
0.8.1's own self-contained report (``benchmarks/data/guidellm-0.8.1``: GuideLLM's code, its own
run's data) is the third page: its charts are SVG it draws itself at load, a figure there is a
visible ``div.chart`` holding an ``svg``. Loads alternate report / plain page / GuideLLM's.
Per load, from navigation start:

- ``first_paint``: first-contentful-paint;
- ``first_figure``: the first plot container holding an SVG, found by a requestAnimationFrame
  probe (a reader who stays at the top sees no figure when none is on the first screen; the
  number then comes from the scroll-through load);
- ``longest_task_still``: the longest main-thread task (Long Tasks API: only tasks > 50 ms
  are reported, 0 means none) after first paint, over ``STILL_S`` seconds without scrolling;
- ``all_figures``: every figure drawn, on a second load where the reader scrolls through
  the page one screen per ``SCROLL_STEP_MS`` from the load event.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

VIEWPORT = {"width": 1280, "height": 900}
STILL_S = 3.0
SCROLL_STEP_MS = 20

PROBE = """
(() => {
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { /* no Long Tasks API */ }
  // plotly figures; GuideLLM's charts where shown (a tab hides some). TIMES counts them too.
  window.__figures = () => [...document.querySelectorAll('div.plot, div.plotly-graph-div')]
    .concat([...document.querySelectorAll('div.chart')].filter((c) => c.offsetParent !== null));
  function tick() {
    const plots = window.__figures();
    let drawn = 0;
    plots.forEach((p) => { if (p.querySelector('.main-svg, svg')) drawn++; });
    if (drawn && !window.__firstFigure) window.__firstFigure = performance.now();
    if (plots.length && drawn === plots.length && !window.__allFigures) {
      window.__allFigures = performance.now();
      return;
    }
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();
"""
TIMES = """() => {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const paint = fcp ? fcp.startTime : null;
  const after = window.__longTasks.filter(([s]) => paint !== null && s >= paint);
  return { first_paint: paint, first_figure: window.__firstFigure || null,
           all_figures: window.__allFigures || null,
           longest_task: after.reduce((m, [, d]) => Math.max(m, d), 0),
           figures: window.__figures().length };
}"""
GUIDELLM_REPORT = Path(__file__).parent / "data" / "guidellm-0.8.1" / "report.html"
SCROLL = """async (step) => {
  const h = window.innerHeight;
  for (let y = 0; y <= document.documentElement.scrollHeight; y += h) {
    window.scrollTo(0, y);
    await new Promise((r) => setTimeout(r, step));
  }
}"""


def plain_plotly_page(report: Path, out: Path) -> Path:
    """The report's figures as one page of ``plotly.io.to_html`` divs (plotly.js inlined in
    the first), in the language the report opens in."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from reportgen.render import figures_of

    try:   # a large round's figures are packed in part: figures_of puts them back
        data: dict[str, Any] = figures_of(report.read_text(encoding="utf-8"))
    except ValueError:
        raise RuntimeError(f"{report}: no report-figs block") from None
    parts = []
    for i, f in enumerate(data["figs"]):
        layout = dict(f["fig"]["layout"], template=data["template"])
        fig = go.Figure({"data": f["fig"]["data"], "layout": layout})
        parts.append(pio.to_html(fig, full_html=False, include_plotlyjs=i == 0,
                                 div_id=f["id"], config={"responsive": True}))
    out.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>plain</title>"
                   "</head><body>" + "\n".join(parts) + "</body></html>", encoding="utf-8")
    return out


def _load(context: Any, url: str, scroll: bool) -> dict[str, Any]:
    page = context.new_page()
    try:
        page.goto(url, wait_until="load")
        if scroll:
            page.evaluate(SCROLL, SCROLL_STEP_MS)
            page.wait_for_function("() => window.__allFigures", polling=20, timeout=120_000)
        else:
            page.wait_for_timeout(STILL_S * 1000)
        return dict(page.evaluate(TIMES))
    finally:
        page.close()


def measure(report: Path, work: Path, repeats: int, chromium: str,
            args: list[str]) -> dict[str, dict[str, float | None]]:
    """Medians (ms from navigation start) per page: ``report``, ``plain`` and ``guidellm``."""
    from playwright.sync_api import sync_playwright

    plain = plain_plotly_page(report, work / "plain-plotly.html")
    pages = {"report": report.resolve().as_uri(), "plain": plain.resolve().as_uri(),
             "guidellm": GUIDELLM_REPORT.resolve().as_uri()}
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in pages}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=args)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(PROBE)
            for i in range(repeats + 1):          # the first round warms caches: not counted
                for name, url in pages.items():
                    still = _load(context, url, scroll=False)
                    moved = _load(context, url, scroll=True)
                    if i:
                        runs[name].append({
                            "first_paint": still["first_paint"],
                            "first_figure": still["first_figure"] or moved["first_figure"],
                            "first_figure_without_scrolling": still["first_figure"],
                            "longest_task_still": still["longest_task"],
                            "all_figures": moved["all_figures"],
                            "figures": moved["figures"]})
        finally:
            browser.close()

    def med(rows: list[dict[str, Any]], key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return statistics.median(values) if values else None

    return {name: {key: med(rows, key) for key in rows[0]} for name, rows in runs.items()}
