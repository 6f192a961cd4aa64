"""reportgen serve in Chromium: the served page draws under its CSP, reloads itself after a
narrative edit, shows a broken edit as the error page and comes back when it is fixed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pagekit import ALL_DRAWN, Watch, figure_count

from reportgen.files.resources import sample_round_dir
from reportgen.serve import Server


def test_served_page_reloads_on_edit(browser: Any, tmp_path: Path) -> None:
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    server = Server(root, port=0, poll_s=0.05).start()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = ctx.new_page()
        watch = Watch()
        watch.attach(page)
        page.goto(server.url + "?lang=en", wait_until="load")
        page.wait_for_function(ALL_DRAWN, arg=figure_count(page), polling=20, timeout=60_000)

        prose = root / "narrative" / "crossover.en.md"
        text = prose.read_text(encoding="utf-8")
        with page.expect_navigation(timeout=60_000):  # the long poll answers, the page reloads
            prose.write_text(text + "\nWritten in the browser test.\n", encoding="utf-8")
        page.wait_for_function(ALL_DRAWN, arg=figure_count(page), polling=20, timeout=60_000)
        assert page.get_by_text("Written in the browser test.").is_visible()

        with page.expect_navigation(timeout=60_000):
            prose.write_text(text + "\n{{ nope }}\n", encoding="utf-8")
        page.wait_for_selector("#reportgen-error", timeout=60_000)
        assert "unknown placeholder name 'nope'" in page.inner_text("#reportgen-error")

        with page.expect_navigation(timeout=60_000):
            prose.write_text(text, encoding="utf-8")
        page.wait_for_function(ALL_DRAWN, arg=figure_count(page), polling=20, timeout=60_000)
        # nothing blocked by the CSP, no script error; the only requests are to the server
        assert not watch.console_errors and not watch.page_errors
        assert all(url.startswith(server.url) for url in watch.requests)
    finally:
        ctx.close()
        server.stop()
