"""Shared pieces of the browser tests (constants, the page watcher, building reports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_runs" / "round2-rtx4090"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HOSTILE_SCRIPT = "</script><script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=alert(2)>"
# Every figure drawn: the page flag, and an SVG with a layout in each plot container. Figures
# are drawn as they near the viewport; the predicate asks for all of them (idempotent).
ALL_DRAWN = """(n) => (window.reportDrawAll && window.reportDrawAll(), true) &&
  document.documentElement.dataset.rendered === 'true' &&
  document.querySelectorAll('.js-plotly-plot').length === n &&
  [...document.querySelectorAll('.js-plotly-plot')].every(g => g.querySelector('.main-svg') &&
                                                             g._fullLayout)"""


@dataclass
class Watch:
    """Everything that must stay empty while a report page is open."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: r.url.startswith(("file:", "data:", "blob:"))
                or self.requests.append(r.url))

    def assert_clean(self) -> None:
        assert self.console_errors == []
        assert self.page_errors == []
        assert self.dialogs == []
        assert self.requests == []


def figure_count(page: Any) -> int:
    return page.evaluate(
        "JSON.parse(document.getElementById('report-figs').textContent).figs.length")


def build(round_dir: Path, out: Path, lang: str | None = None) -> Path:
    from reportgen.build import build_report

    return build_report(round_dir, out, lang)
