"""Issue 19, item 2, in the browser: on every shared real folder's page (every view, both
languages) no two point labels or annotations of a figure overprint each other, and every
figure's y axis carries tick labels (a log axis over a narrow range used to have none)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from data_paths import real_round_params
from pagekit import build

from reportgen.errors import InputError

FOLDERS = real_round_params()   # vendored, then ../shared only (marked `shared`)

# per figure: the overlapping pairs of its drawn point labels and annotations (boxes of
# visible, non-empty text that share more than 4 px²), and its y tick labels
MEASURE = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(g => g.getBoundingClientRect().width > 0)
  .map(g => {
    const boxes = [...g.querySelectorAll('.textpoint text, .annotation-text')]
      .filter(t => t.textContent.trim())
      .map(t => ({text: t.textContent, r: t.getBoundingClientRect()}))
      .filter(b => b.r.width > 0 && b.r.height > 0);
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0 && h > 0 && w * h > 4) overlaps.push(boxes[i].text + ' / ' + boxes[j].text);
    }
    const yticks = [...g.querySelectorAll('.ytick text')].filter(t => t.textContent.trim());
    return {id: g.id, overlaps, yticks: yticks.length};
  })"""


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_overprinted_labels_and_every_y_axis_labelled(
        folder: Path, open_page: Any, tmp_path: Path) -> None:
    try:
        report = build(folder, tmp_path / "report.html")
    except InputError:   # no reader for this client yet: tests/test_every_round.py
        return
    for lang in ("en", "zh"):
        page, watch = open_page(report, f"?lang={lang}")
        buttons = page.locator(".view-btn")
        views = max(1, buttons.count())
        measured = 0
        for i in range(views):
            if buttons.count():
                buttons.nth(i).click()
                page.wait_for_timeout(150)   # the shown view's figures are resized
            for fig in page.evaluate(MEASURE):
                measured += 1
                assert fig["overlaps"] == [], f"{folder} {lang} {fig['id']}: {fig['overlaps']}"
                assert fig["yticks"] > 0, f"{folder} {lang} {fig['id']}: no y tick labels"
        assert measured > 0
        assert watch.page_errors == [] and watch.requests == []
