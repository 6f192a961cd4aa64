"""Goodput at the reader's SLO inside the page: at the default thresholds the numbers slo.js
computes in the browser equal `reportgen tables --slo`; a threshold change updates them in
≤ 50 ms, bounded by the exact answer; the ECDF figure gets its curves; no network."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from pagekit import build

from benchmarks.slo_round import write_random_round
from reportgen.pipeline import analyze_dir
from reportgen.slo import Slo
from reportgen.tables import to_json_dict

SLO = "\n[slo]\nttft_ms = 500\ntpot_ms = 50\ntarget = 0.9\n"


@pytest.fixture(scope="module")
def slo_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slo_round")
    write_random_round(root, SLO)
    return root


@pytest.fixture(scope="module")
def slo_report(slo_round: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(slo_round, tmp_path_factory.mktemp("slo_page") / "report.html")


def _ready(page: Any) -> None:
    page.wait_for_function("[...document.querySelectorAll('.slo')]"
                           ".every(e => e.dataset.sloReady === 'true')", timeout=20_000)


def _in_page(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
      const v = td => JSON.parse(td.dataset.v);
      const tiers = [...document.querySelectorAll('.slo-tiers tr')].map(tr => {
        const td = tr.querySelectorAll('td');
        return {engine: tr.dataset.engine, c: Number(tr.dataset.c), sent: v(td[2]),
                good: v(td[3]), attainment: v(td[4]), goodput: v(td[5])};
      });
      const cap = [...document.querySelectorAll('.slo-cap tr')].map(tr => ({
        engine: tr.dataset.engine, status: tr.dataset.status,
        capacity: v(tr.querySelectorAll('td')[1])}));
      return {tiers, cap, best: document.querySelector('.slo-best').dataset.best,
              ms: window.__sloLastUpdateMs};
    }""")


def _tables(root: Path, slo: Slo | None = None) -> dict[str, Any]:
    return json.loads(json.dumps(to_json_dict(analyze_dir(root, slo=slo).analysis)))


def test_in_page_numbers_equal_the_tables_at_the_defaults(open_page: Any, slo_round: Path,
                                                          slo_report: Path,
                                                          artifacts: Path) -> None:
    page, watch = open_page(slo_report, "?lang=en")
    _ready(page)
    got = _in_page(page)
    want = _tables(slo_round)
    rows = {(r["engine"], r["concurrency"]): r for r in want["goodput"]}
    assert len(got["tiers"]) == len(rows) == 8
    for r in got["tiers"]:
        exact = rows[r["engine"], r["c"]]
        assert r["sent"] == exact["requests_sent"]
        assert r["good"] == [exact["requests_good"]] * 2          # decided: lo = hi
        assert r["attainment"] == [exact["attainment"]] * 2
        assert r["goodput"] == [exact["goodput_rps"]] * 2
    caps = {r["engine"]: r for r in want["capacity_at_slo"]}
    assert {c["engine"] for c in got["cap"]} == set(caps)
    for c in got["cap"]:
        exact = caps[c["engine"]]
        assert c["status"] == exact["status"]
        if exact["capacity"] is None:
            assert c["capacity"] == [None, None]
        else:
            assert c["capacity"][0] == pytest.approx(exact["capacity"], rel=1e-12)
    assert got["best"] == want["values"]["capacity.best"] == "alpha"
    page.query_selector(".section-distributions").screenshot(path=str(artifacts / "slo.png"))
    watch.assert_clean()


def test_a_threshold_change_updates_within_50_ms_and_bounds_the_exact_answer(
        open_page: Any, slo_round: Path, slo_report: Path) -> None:
    page, watch = open_page(slo_report, "?lang=en")
    _ready(page)
    before = _in_page(page)
    page.fill("input[data-slo='ttft']", "333")
    page.fill("input[data-slo='tpot']", "41")
    page.fill("input[data-slo='target']", "50")
    got = _in_page(page)
    assert got["ms"] <= 50
    assert got["tiers"] != before["tiers"]
    exact = _tables(slo_round, Slo(ttft_ms=333, tpot_ms=41, target=0.5))
    rows = {(r["engine"], r["concurrency"]): r for r in exact["goodput"]}
    undecided = 0
    for r in got["tiers"]:
        lo, hi = r["good"]
        assert lo <= rows[r["engine"], r["c"]]["requests_good"] <= hi
        undecided += hi - lo
    # ±1 % bins: only requests within about 2 % of a threshold stay undecided
    assert undecided < 0.1 * sum(r["sent"] for r in got["tiers"])
    # shapes moved with the inputs
    lines = page.evaluate("""() => {
      const f = document.getElementById(document.querySelector('.slo').dataset.fig);
      return f.layout.shapes.map(s => s.x0); }""")
    assert lines == [333, 41]
    watch.assert_clean()


def test_the_ecdf_figure_is_filled_for_the_picked_tier(open_page: Any,
                                                       slo_report: Path) -> None:
    page, watch = open_page(slo_report, "?lang=zh")
    _ready(page)
    page.wait_for_function("""() => { const f = document.getElementById(
        document.querySelector('.slo').dataset.fig);
        return f.data.every(t => t.x.length > 0); }""", timeout=10_000)
    first = page.evaluate("""() => document.getElementById(
        document.querySelector('.slo').dataset.fig).data.map(t => t.x.length)""")
    page.select_option("select[data-slo='tier']", "64.0")
    ys = page.evaluate("""() => document.getElementById(
        document.querySelector('.slo').dataset.fig).data.map(t => t.y[t.y.length - 1])""")
    after = page.evaluate("""() => document.getElementById(
        document.querySelector('.slo').dataset.fig).data.map(t => t.x.length)""")
    assert after != first
    assert all(math.isclose(y, 1.0) for y in ys)       # every ECDF ends at 100 %
    # the input label strings are escaped text: the label's tags are not markup
    assert page.evaluate("document.querySelectorAll('.slo-tiers b').length") == 0
    watch.assert_clean()
