"""Cost per million tokens in the page: the reader types a price and thresholds, and the
cost cells slo.js computes equal `reportgen tables --slo --price` (the ``cost`` table) at
that price and SLO, within 50 ms; the cheapest configuration it names is the analysis's;
without a price the section is one sentence saying how to give one."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from pagekit import build

from benchmarks.slo_round import write_random_round
from reportgen.pipeline import analyze_dir
from reportgen.slo import Slo

SLO = "\n[slo]\nttft_ms = 500\ntpot_ms = 50\ntarget = 0.9\n"


@pytest.fixture(scope="module")
def cost_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cost_round")
    write_random_round(root, SLO)
    return root


def _ready(page: Any) -> None:
    page.wait_for_function("[...document.querySelectorAll('.slo')]"
                           ".every(e => e.dataset.sloReady === 'true')", timeout=20_000)


def _cost(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
      const v = td => JSON.parse(td.dataset.v);
      const rows = [...document.querySelectorAll('.slo-cost tr')].map(tr => {
        const td = tr.querySelectorAll('td');
        return {engine: tr.dataset.engine, c: Number(tr.dataset.c), out: v(td[2]),
                total: v(td[3]), good_out: v(td[4]), good_total: v(td[5])};
      });
      const line = document.querySelector('.slo-cost-line');
      return {rows, cheapest: line.dataset.cheapest,
              hidden: document.querySelector('.slo-cost-wrap').hidden,
              sentence: line.querySelector('[data-l=en]').textContent,
              ms: window.__sloLastUpdateMs};
    }""")


def _agrees(got: dict[str, Any], root: Path, slo: Slo, price: float) -> None:
    analysis = analyze_dir(root, slo=slo, price=price).analysis.first
    want = {(r["engine"], float(r["concurrency"])): r for r in analysis.cost.to_dict("records")}
    assert len(got["rows"]) == len(want) == 8
    for r in got["rows"]:
        row = want[r["engine"], r["c"]]
        for key, column in (("out", "usd_per_m_output"), ("total", "usd_per_m_total")):
            assert r[key] == pytest.approx(row[column], rel=1e-12), (key, r)
        for key, column in (("good_out", "usd_per_m_good_output"),
                            ("good_total", "usd_per_m_good_total")):
            if math.isnan(row[column]):
                assert r[key] == [None, None]
            else:
                assert r[key] == pytest.approx([row[column]] * 2, rel=1e-12), (key, r)
    cheapest = analysis.values.get("cost.cheapest_all") or ""
    assert got["cheapest"] == cheapest


def test_a_typed_price_and_slo_give_the_cost_tables_cost_gives(
        open_page: Any, cost_round: Path, tmp_path: Path) -> None:
    report = build(cost_round, tmp_path / "report.html")
    page, watch = open_page(report, "?lang=en")
    _ready(page)
    # no price given anywhere: one sentence says how to give one, no table, no dash
    before = _cost(page)
    assert before["hidden"] and before["rows"] == []
    assert "--price" in before["sentence"] and "\u2014" not in before["sentence"]
    page.fill("input[data-price]", "2.5")
    got = _cost(page)
    assert not got["hidden"] and got["ms"] <= 50
    _agrees(got, cost_round, Slo(ttft_ms=500, tpot_ms=50, target=0.9), 2.5)
    page.fill("input[data-slo='ttft']", "333")
    page.fill("input[data-slo='tpot']", "41")
    page.fill("input[data-slo='target']", "50")
    page.fill("input[data-price]", "4")
    tight = _cost(page)
    assert tight["ms"] <= 50
    _agrees(tight, cost_round, Slo(ttft_ms=333, tpot_ms=41, target=0.5), 4.0)
    assert "cheapest" in tight["sentence"] and tight["cheapest"]
    watch.assert_clean()


def test_round_toml_price_is_the_default_and_a_load_names_the_fewest_gpus(
        open_page: Any, cost_round: Path, tmp_path: Path) -> None:
    root = tmp_path / "priced"
    write_random_round(root.mkdir() or root, SLO + "\n[cost]\ngpu_hour_usd = 3\n")
    report = build(root, tmp_path / "report.html")
    page, watch = open_page(report, "?lang=en")
    _ready(page)
    assert page.input_value("input[data-price]") == "3"
    _agrees(_cost(page), root, Slo(ttft_ms=500, tpot_ms=50, target=0.9), 3.0)
    page.fill("input[data-slo='ttft']", "5000")
    page.fill("input[data-slo='tpot']", "500")
    page.fill("input[data-slo='target']", "50")
    page.fill("input[data-load]", "20")
    got = _cost(page)
    load = analyze_dir(root, slo=Slo(ttft_ms=5000, tpot_ms=500, target=0.5),
                       load=(20.0, "req/s")).analysis.first.load
    assert "usd_per_h" in load.columns
    want = ",".join(load.loc[load["cheapest"], "engine"])
    assert want and got["cheapest"] == want
    fewest = float(load.loc[load["cheapest"], "gpus"].iloc[0])
    assert f"{fewest:.0f} GPUs" in got["sentence"] and "an hour" in got["sentence"]
    watch.assert_clean()
