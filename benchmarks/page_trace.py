"""Where the sample page's time goes, from first paint to every figure drawn: one scroll-through
load (as ``page_speed`` times it) under Chromium tracing, told as a table of phases.

The phases come from the page's own performance marks (loader.js: ``plotly:start``,
``plotly:unpacked``, ``plotly:compiled``, ``plotly:ready``; app.js: a measure ``fig:<id>`` per
figure drawn); the trace adds what the marks cannot see: the blob script's parse and compile
on a background thread, and how much of each figure's draw is forced style and layout. Each
figure also says whether plotly.js's automargin moved its margins (then it drew it twice).
Tracing slows the page: read the table for shares, ``page_speed`` for times.

    python benchmarks/run.py --trace        # writes the trace beside the results
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import page_speed

CATEGORIES = ",".join(["devtools.timeline", "disabled-by-default-devtools.timeline", "v8",
                       "blink.user_timing", "loading", "toplevel"])
TASK = "ThreadControllerImpl::RunTask"
FORCED = ("Layout", "UpdateLayoutTree")     # forced layout and style recalc inside a draw
BACKGROUND_COMPILE = "v8.parseOnBackground"
MARKS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const figs = Array.from(document.querySelectorAll('div.plot')).map((el) => {
    const L = el._fullLayout;
    if (!L) return [el.id, null];
    const m = L.margin, s = L._size;
    return [el.id, ['l', 'r', 't', 'b'].some((k) => m[k] !== s[k])];
  });
  return { first_paint: fcp ? fcp.startTime : null, load: nav.loadEventStart,
           marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]),
           draws: performance.getEntriesByType('measure').filter((m) => m.name.startsWith('fig:'))
             .map((m) => [m.name.slice(4), m.startTime, m.duration]),
           first_figure: window.__firstFigure || null, all_figures: window.__allFigures || null,
           pushed: figs };
}"""


@dataclass(frozen=True)
class Phase:
    name: str
    start_ms: float | None     # from navigation start
    ms: float | None           # its duration
    note: str = ""


class Trace:
    """The renderer's events of one traced load, times in ms from its navigation start."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        marks = [e for e in events if str(e.get("name", "")).startswith("plotly:")]
        if not marks:
            raise RuntimeError("trace: the page set no plotly:* mark")
        self.pid = marks[0]["pid"]
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                 if e.get("ph") == "M" and e.get("name") == "thread_name"}
        self.main = next(k for k, v in names.items() if v == "CrRendererMain" and k[0] == self.pid)
        navs = [e["ts"] for e in events if e.get("name") == "navigationStart"
                and e.get("pid") == self.pid]
        self.t0 = max(navs)
        self.spans = sorted(((e["ts"] - self.t0) / 1000, e["dur"] / 1000, e["name"],
                             (e["pid"], e["tid"]) == self.main)
                            for e in events if e.get("pid") == self.pid and e.get("ph") == "X"
                            and "dur" in e and e["ts"] >= self.t0)

    def busy(self, lo: float, hi: float) -> float:
        """Main-thread task time within [lo, hi)."""
        return sum(min(s + d, hi) - max(s, lo) for s, d, n, main in self.spans
                   if main and n == TASK and s < hi and s + d > lo)

    def forced(self, lo: float, hi: float) -> float:
        """Style and layout on the main thread within [lo, hi] (outermost events only)."""
        total, end = 0.0, -1.0
        for s, d, n, main in self.spans:
            if main and n in FORCED and lo <= s and s + d <= hi and s >= end:
                total, end = total + d, s + d
        return total

    def background_compile(self) -> tuple[float, float] | None:
        """(start, ms) of the longest background parse-and-compile of a script."""
        runs = [(s, d) for s, d, n, main in self.spans if not main and n == BACKGROUND_COMPILE]
        return max(runs, key=lambda r: r[1]) if runs else None


def phases(t: dict[str, Any], trace: Trace) -> list[Phase]:
    """The table: what happens between navigation start and every figure drawn."""
    mark = {name: at for name, at in t["marks"]}
    out = [Phase("first paint (FCP)", 0.0, t["first_paint"]),
           Phase("load event", 0.0, t["load"])]

    def step(name: str, a: str, b: str, note: str = "") -> None:
        if a in mark and b in mark:
            out.append(Phase(name, mark[a], mark[b] - mark[a], note))

    step("plotly.js unpacked (base64 + gzip)", "plotly:start", "plotly:unpacked")
    bg = trace.background_compile()
    busy = ""
    if "plotly:unpacked" in mark and "plotly:compiled" in mark:
        lo, hi = mark["plotly:unpacked"], mark["plotly:compiled"]
        busy = f"main thread busy {trace.busy(lo, hi):.0f} ms"
    if bg:
        busy += f"; background parse+compile {bg[1]:.0f} ms from {bg[0]:.0f}"
    step("blob script compiled and run", "plotly:unpacked", "plotly:compiled", busy)
    step("modules run in slices", "plotly:compiled", "plotly:ready")
    draws = sorted(t["draws"], key=lambda d: d[1])
    pushed = dict(t["pushed"])
    if draws and "plotly:ready" in mark:
        out.append(Phase("wait before the first draw", mark["plotly:ready"],
                         draws[0][1] - mark["plotly:ready"]))
    for fid, start, ms in draws:
        again = " (automargin moved the margins: drawn twice)" if pushed.get(fid) else ""
        out.append(Phase(f"draw {fid}", start, ms,
                         f"style+layout {trace.forced(start, start + ms):.0f} ms{again}"))
    if draws:
        first, last = draws[0], draws[-1]
        span = last[1] + last[2] - first[1]
        out.append(Phase("all draws, first start to last end", first[1], span,
                         f"drawing {sum(d[2] for d in draws):.0f} ms, between draws "
                         f"{span - sum(d[2] for d in draws):.0f} ms"))
    out.append(Phase("first figure seen (rAF probe)", 0.0, t["first_figure"]))
    out.append(Phase("all figures seen (rAF probe)", 0.0, t["all_figures"]))
    return out


def trace(report: Path, out: Path, chromium: str, args: list[str]) -> list[Phase]:
    """Trace one scroll-through load of ``report`` (after an untraced warm-up load); the
    trace is written to ``out`` (open it in chrome://tracing or Perfetto)."""
    from playwright.sync_api import sync_playwright

    url = report.resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=args)
        try:
            context = browser.new_context(viewport=page_speed.VIEWPORT)
            context.add_init_script(page_speed.PROBE)
            page_speed._load(context, url, scroll=True)        # warms caches, as measure() does
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            events: list[dict[str, Any]] = []
            done: list[bool] = []
            cdp.on("Tracing.dataCollected", lambda e: events.extend(e["value"]))
            cdp.on("Tracing.tracingComplete", lambda e: done.append(True))
            cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"})
            page.goto(url, wait_until="load")
            page.evaluate(page_speed.SCROLL, page_speed.SCROLL_STEP_MS)
            page.wait_for_function("() => window.__allFigures", polling=20, timeout=120_000)
            page.wait_for_timeout(200)                         # the last measure lands
            times = dict(page.evaluate(MARKS))
            cdp.send("Tracing.end")
            while not done:
                page.wait_for_timeout(50)
        finally:
            browser.close()
    out.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    return phases(times, Trace(events))


def table(rows: list[Phase]) -> str:
    def ms(v: float | None) -> str:
        return "—" if v is None else f"{v:.0f}"
    lines = [f"{'phase':44s} {'at ms':>7s} {'ms':>7s}  note", "-" * 100]
    lines += [f"{p.name:44s} {ms(p.start_ms):>7s} {ms(p.ms):>7s}  {p.note}" for p in rows]
    return "\n".join(lines)
