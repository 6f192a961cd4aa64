"""A large round's page packs the blocks the page reads (render.PAGE_PACK_ABOVE): the figures'
data (report-figs-body), the SLO panel's data and the same-speed curves, as base64 of gzip; its
exact per-request values with TPOT derived in the page and stored as shortest decimals when that
is smaller (slo_payload._stored_values). Built here with the threshold at 0, so a small round
takes the large round's path: every figure draws, and the SLO panel's numbers equal `reportgen
tables --slo` at the defaults and at a typed threshold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pagekit import build
from test_slo import SLO, _agrees, _in_page, _ready, _tables

from benchmarks.slo_round import write_random_round
from reportgen import render
from reportgen.render import figures_of
from reportgen.slo import Slo


def _round_to_decimals(root: Path, places: int) -> None:
    """Each request's TTFT and latency to ``places`` decimals of a second, as a client that
    writes milliseconds with a few decimals does."""
    for path in root.glob("*/bench/*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key in ("ttfts", "latencies"):
            data[key] = [round(v, places) for v in data[key]]
        path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("packed_round")
    write_random_round(root, SLO, requests=80, tiers=(1, 4, 16))
    _round_to_decimals(root, 4)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(render, "PAGE_PACK_ABOVE", 0)
        page = build(root, tmp_path_factory.mktemp("packed_page") / "report.html")
    return root, page


def test_the_packed_blocks_are_in_the_page(packed: tuple[Path, Path]) -> None:
    _, page = packed
    html = page.read_text(encoding="utf-8")
    assert 'id="report-figs-body"' in html
    assert '<script type="application/octet-stream" class="slo-data">' in html
    figs = figures_of(html)["figs"]
    assert isinstance(figs, list) and figs
    assert all("fig" in f and "i18n" in f for f in figs)


def test_a_packed_page_draws_its_figures_and_its_slo_panel_is_exact(
        open_page: Any, packed: tuple[Path, Path]) -> None:
    root, report = packed
    page, watch = open_page(report, "?lang=en")
    _ready(page)
    data = page.evaluate("({tpot: window.reportSloPanels[0].data.tpot,"
                         " encoding: window.reportSloPanels[0].data.encoding})")
    assert data == {"tpot": "derived", "encoding": "decimal"}
    _agrees(_in_page(page), _tables(root))
    page.fill("input[data-slo='ttft']", "333")
    page.fill("input[data-slo='tpot']", "41")
    _agrees(_in_page(page), _tables(root, Slo(ttft_ms=333, tpot_ms=41, target=0.9)))
    page.evaluate("window.reportDrawAll()")
    page.wait_for_function("document.documentElement.dataset.rendered === 'true'",
                           timeout=30_000)
    n = len(figures_of(report.read_text(encoding="utf-8"))["figs"])  # type: ignore[arg-type]
    assert page.evaluate("document.querySelectorAll('.js-plotly-plot').length") == n
    watch.assert_clean()
