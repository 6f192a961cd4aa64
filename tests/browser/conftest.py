"""Browser fixtures: Debian chromium through Playwright, pages opened from file://.

These tests never skip: without /usr/bin/chromium they fail and say what to install.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pagekit import (
    ALL_DRAWN,
    ARGS,
    CHROMIUM,
    HOSTILE_IMG,
    HOSTILE_SCRIPT,
    REPO,
    SAMPLE,
    Watch,
    build,
    figure_count,
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    root = Path(os.environ.get("REPORTGEN_ARTIFACTS") or REPO / "artifacts")
    shots = root / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    return shots


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail(f"browser tests need Debian chromium at {CHROMIUM} "
                    "(apt-get install -y chromium fonts-wqy-microhei); they are never skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """open_page(path, query="", locale="zh-CN") → (page, watch), all figures drawn."""
    contexts = []

    def opener(path: Path, query: str = "", locale: str = "zh-CN", context: Any = None,
               wait: bool = True) -> tuple[Any, Watch]:
        ctx = context or browser.new_context(viewport={"width": 1280, "height": 900},
                                             locale=locale, accept_downloads=True)
        contexts.append(ctx)
        page = ctx.new_page()
        watch = Watch()
        watch.attach(page)
        page.goto(path.resolve().as_uri() + query, wait_until="load")
        if wait:
            n = figure_count(page)
            page.wait_for_function(ALL_DRAWN, arg=n, polling=20, timeout=60_000)
        return page, watch

    yield opener
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="session")
def sample_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(SAMPLE, tmp_path_factory.mktemp("sample") / "report.html")


@pytest.fixture(scope="session")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample round with payloads in an engine label, the title and a narrative file."""
    root = tmp_path_factory.mktemp("hostile")
    round_dir = root / "round"
    shutil.copytree(SAMPLE, round_dir)
    toml = round_dir / "round.toml"
    text = toml.read_text(encoding="utf-8")
    lines = []
    for line in text.splitlines():
        if line.startswith("title = ") and not any(x.startswith("title = ") for x in lines):
            line = (f'title = {{ zh = "标题 {HOSTILE_SCRIPT} {HOSTILE_IMG}", '
                    f'en = "Title {HOSTILE_SCRIPT} {HOSTILE_IMG}" }}')
        elif line.startswith('label = "vLLM BF16"'):
            line = f'label = "vLLM {HOSTILE_IMG} {HOSTILE_SCRIPT}"'
        lines.append(line)
    lines.append(f'[[related]]\ntitle = "{HOSTILE_IMG}"\nhref = "x.html?a=1&b=<2>"')
    patched = "\n".join(lines) + "\n"
    assert patched.count(HOSTILE_IMG) == 4, "sample round.toml changed shape"
    toml.write_text(patched, encoding="utf-8")
    narrative = round_dir / "narrative"
    narrative.mkdir(exist_ok=True)
    for lang in ("zh", "en"):
        (narrative / f"next.{lang}.md").write_text(
            f"# Next {HOSTILE_SCRIPT}\n\n{HOSTILE_IMG}\n\n- {HOSTILE_SCRIPT}\n", encoding="utf-8")
    return build(round_dir, root / "report.html")
