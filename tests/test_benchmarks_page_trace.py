"""benchmarks/page_trace.py: the phase table from the page's marks and a trace's events
(synthetic, hand-checked: ms from navigation start, trace times in µs)."""

from __future__ import annotations

from benchmarks.page_trace import Trace, phases, table

PID, MAIN, POOL = 7, 1, 2
T0 = 1_000_000          # navigationStart, µs


def span(name: str, at_ms: float, ms: float, tid: int = MAIN) -> dict:
    return {"ph": "X", "pid": PID, "tid": tid, "name": name, "ts": T0 + at_ms * 1000,
            "dur": ms * 1000}


EVENTS = [
    {"ph": "M", "pid": PID, "tid": MAIN, "name": "thread_name",
     "args": {"name": "CrRendererMain"}},
    {"ph": "M", "pid": PID, "tid": POOL, "name": "thread_name",
     "args": {"name": "ThreadPoolForegroundWorker"}},
    {"ph": "R", "pid": PID, "tid": MAIN, "name": "navigationStart", "ts": T0},
    {"ph": "R", "pid": PID, "tid": MAIN, "name": "plotly:start", "ts": T0 + 100_000},
    span("v8.parseOnBackground", 160, 200, POOL),
    span("ThreadControllerImpl::RunTask", 150, 20),     # 10 ms of it inside [160, 360)
    span("ThreadControllerImpl::RunTask", 300, 30),     # all 30
    span("ThreadControllerImpl::RunTask", 400, 50),     # fig-1's draw
    span("UpdateLayoutTree", 410, 4),
    span("Layout", 420, 6),
    span("Layout", 421, 2),                             # inside the one above: not counted
]
TIMES = {
    "first_paint": 120.0, "load": 110.0, "first_figure": 452.0, "all_figures": 520.0,
    "marks": [["plotly:start", 100.0], ["plotly:unpacked", 160.0],
              ["plotly:compiled", 360.0], ["plotly:ready", 390.0]],
    "draws": [["fig-2", 460.0, 40.0], ["fig-1", 400.0, 50.0]],
    "pushed": [["fig-1", True], ["fig-2", False]],
}


def test_phases_from_marks_and_trace() -> None:
    rows = {p.name: p for p in phases(TIMES, Trace(EVENTS))}
    assert rows["plotly.js unpacked (base64 + gzip)"].ms == 60
    compiled = rows["blob script compiled and run"]
    assert (compiled.start_ms, compiled.ms) == (160, 200)
    assert compiled.note == ("main thread busy 40 ms; background parse+compile 200 ms "
                             "from 160")
    assert rows["modules run in slices"].ms == 30
    assert rows["wait before the first draw"].ms == 10
    assert rows["draw fig-1"].note == ("style+layout 10 ms (automargin moved the margins: "
                                       "drawn twice)")
    assert rows["draw fig-2"].note == "style+layout 0 ms"
    both = rows["all draws, first start to last end"]
    assert (both.start_ms, both.ms) == (400, 100)
    assert both.note == "drawing 90 ms, between draws 10 ms"
    assert "draw fig-1" in table(list(rows.values()))
