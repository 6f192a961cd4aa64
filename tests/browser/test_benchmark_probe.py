"""The page benchmark's probe (benchmarks/page_speed.py) sees what each page it compares draws:
the report's plotly figures once drawn, and GuideLLM's own report's SVG charts, counting only
those shown (its other tabs hold more)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import page_speed


def _times(browser: Any, url: str, scroll: bool) -> dict[str, Any]:
    context = browser.new_context(viewport=page_speed.VIEWPORT)
    context.add_init_script(page_speed.PROBE)
    try:
        return page_speed._load(context, url, scroll=scroll)
    finally:
        context.close()


def test_probe_counts_guidellm_charts_shown(browser: Any) -> None:
    got = _times(browser, page_speed.GUIDELLM_REPORT.resolve().as_uri(), scroll=True)
    assert got["figures"] == 3                 # the Summary tab's three charts
    assert 0 < got["first_figure"] <= got["all_figures"]


def test_probe_waits_for_every_report_figure(browser: Any, sample_report: Path) -> None:
    n = sample_report.read_text(encoding="utf-8").count('<div class="plot"')
    still = _times(browser, sample_report.resolve().as_uri(), scroll=False)
    assert still["figures"] == n and still["all_figures"] is None   # none drawn while still
    moved = _times(browser, sample_report.resolve().as_uri(), scroll=True)
    assert moved["figures"] == n and moved["all_figures"] >= moved["first_figure"] > 0
