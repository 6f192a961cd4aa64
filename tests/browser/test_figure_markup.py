"""Issue 12: markup in input strings never becomes markup inside a drawn Plotly figure.

plotly.js turns `<a href>`, `<span style>`, `<b>` … in any text it draws into SVG elements (a live
link; a style that can load a URL). Engine labels and round.toml strings carry both payloads
here; in the drawn page no `<a>` and no styled span from the input exists inside a figure, the
legend shows the text literally, and the page makes no request.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from pagekit import SAMPLE, build

LINK = '<a href="https://x.invalid/">link</a>'
STYLE = '<span style="background:url(https://x.invalid/bg.png)">styled</span>'


@pytest.fixture(scope="module")
def markup_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("markup")
    round_dir = root / "round"
    shutil.copytree(SAMPLE, round_dir)
    payload = f"{LINK} {STYLE}".replace('"', '\\"')
    toml = round_dir / "round.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace('label = "vLLM BF16"', f'label = "vLLM {payload}"')
    text = text.replace('label = "llama.cpp Q4_K_M"',
                        f'label = {{ zh = "llama.cpp {payload}", en = "llama.cpp {payload}" }}')
    text = re.sub(r"(?m)^title = .*$", f'title = "T {payload}"', text, count=1)
    assert text.count("x.invalid/bg.png") == 4, "sample round.toml changed shape"
    toml.write_text(text, encoding="utf-8")
    return build(round_dir, root / "report.html")


@pytest.mark.parametrize("query", ["", "?lang=en"])
def test_no_link_or_style_from_input_inside_a_figure(open_page: Any, markup_report: Path,
                                                     query: str) -> None:
    page, watch = open_page(markup_report, query)
    found = page.evaluate(r"""() => {
        const svg = [...document.querySelectorAll('.js-plotly-plot svg')];
        return {
          links: svg.flatMap(s => [...s.querySelectorAll('a')]).length,
          // a url() that leaves the document (Plotly's own pattern fills point at #ids)
          styled: svg.flatMap(s => [...s.querySelectorAll('[style*="url("]')])
                     .filter(e => /url\((?!["']?#)/.test(e.getAttribute('style'))).length,
          legend: svg.flatMap(s => [...s.querySelectorAll('.legendtext')])
                     .map(e => e.textContent),
          ticks: svg.flatMap(s => [...s.querySelectorAll('.xtick text')])
                    .map(e => e.textContent),
        };
    }""")
    assert found["links"] == 0
    assert found["styled"] == 0
    assert any(f"vLLM {LINK} {STYLE}" in t for t in found["legend"]), found["legend"]
    assert any("llama.cpp <a href=" in t for t in found["ticks"]), found["ticks"]  # fig-3
    watch.assert_clean()
