"""Issue 34, item 8, in the browser: text from the input is bidi-isolated and wraps in every
HTML context once the page has run its scripts (tables, cards, legends, captions, titles).

A round whose configurations are named with a raw U+202E and with a 500-character word: the
page is never wider than the window (the label made it 5,067 px at 1,280), and every text
node holding the override sits in a ``<bdi>`` or an isolating element, or after an FSI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pagekit import build

LONG = "x" * 500
MEASURE = """() => {
  const width = document.documentElement.clientWidth;
  const naked = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walk.nextNode())) {
    const text = node.nodeValue, at = text.indexOf('\\u202e');
    if (at < 0 || text.lastIndexOf('\\u2068', at) >= 0) continue;
    let held = false;
    for (let e = node.parentElement; e && !held; e = e.parentElement) {
      held = e.tagName === 'BDI' || e.tagName === 'SCRIPT' || e.tagName === 'STYLE' ||
        ['isolate', 'isolate-override', 'plaintext'].includes(getComputedStyle(e).unicodeBidi);
    }
    if (!held) naked.push(node.parentElement.tagName + ': ' + text.slice(0, 60));
  }
  return {scroll: document.documentElement.scrollWidth, width, naked};
}"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("input-text")
    round_dir = root / "round"
    round_dir.mkdir()
    rows = ["configuration,concurrency,output_tok_s,model,workload,ttft_p50_ms"]
    for name, base in (("ab\u202ecd", 10), (LONG, 20), ("plain", 30)):
        rows += [f'"{name}",{c},{base + c},"mod\u202eel","wl\u202ex",{5 + c}' for c in (1, 4)]
    (round_dir / "runs.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (round_dir / "round.toml").write_text(f'[round]\ntitle = "T\u202eitle {LONG}"\n',
                                          encoding="utf-8")
    return build(round_dir, root / "report.html")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_input_text_is_isolated_and_wraps(report: Path, lang: str, open_page: Any) -> None:
    page, watch = open_page(report, f"?lang={lang}")
    got = page.evaluate(MEASURE)
    assert got["scroll"] <= got["width"], got["scroll"]
    assert not got["naked"], got["naked"]
    assert "\u2068" in page.title()
    watch.assert_clean()
