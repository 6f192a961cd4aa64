"""Goodput at the reader's SLO inside the page: the numbers slo.js computes in the browser
equal `reportgen tables --slo` at the defaults and at any threshold typed (the values are
embedded exactly within the budget); beyond the budget they are binned and the page gives a
range that holds the exact answer and says why; a threshold change updates them in ≤ 50 ms;
editing one field never changes another; the sentence agrees with the tables; the ECDF
figure gets its curves; no network."""

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
                good: v(td[3]), attainment: v(td[4]), ci: v(td[5]), goodput: v(td[6])};
      });
      const cap = [...document.querySelectorAll('.slo-cap tr')].map(tr => ({
        engine: tr.dataset.engine, status: tr.dataset.status,
        capacity: v(tr.querySelectorAll('td')[1]), ci: v(tr.querySelectorAll('td')[2]),
        text: tr.querySelectorAll('td')[1].querySelector('[data-l=en]').textContent}));
      const best = document.querySelector('.slo-best');
      return {tiers, cap, best: best.dataset.best,
              sentence: best.querySelector('[data-l=en]').textContent,
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
        assert r["ci"] == pytest.approx([exact["attainment_low"], exact["attainment_high"]],
                                        rel=1e-12)
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
    best = want["values"]["capacity.best"]
    assert got["best"] == (best or "")
    page.query_selector(".section-distributions").screenshot(path=str(artifacts / "slo.png"))
    watch.assert_clean()


def _agrees(got: dict[str, Any], exact: dict[str, Any]) -> None:
    rows = {(r["engine"], r["concurrency"]): r for r in exact["goodput"]}
    for r in got["tiers"]:
        want = rows[r["engine"], r["c"]]
        assert r["good"] == [want["requests_good"]] * 2, (r["engine"], r["c"])
        assert r["ci"] == pytest.approx([want["attainment_low"], want["attainment_high"]],
                                        rel=1e-12)
    caps = {r["engine"]: r for r in exact["capacity_at_slo"]}
    for c in got["cap"]:
        assert c["status"] == caps[c["engine"]]["status"], c["engine"]


def test_a_typed_threshold_gives_the_exact_answer_within_50_ms(
        open_page: Any, slo_round: Path, slo_report: Path) -> None:
    page, watch = open_page(slo_report, "?lang=en")
    _ready(page)
    before = _in_page(page)
    assert "every request's own values" in page.inner_text(".slo")   # the exact-mode note
    assert page.evaluate("window.reportSloPanels[0].data.mode") == "exact"
    page.fill("input[data-slo='ttft']", "333")
    page.fill("input[data-slo='tpot']", "41")
    page.fill("input[data-slo='target']", "50")
    got = _in_page(page)
    assert got["ms"] <= 50
    assert got["tiers"] != before["tiers"]
    _agrees(got, _tables(slo_round, Slo(ttft_ms=333, tpot_ms=41, target=0.5)))
    # a value exactly at a threshold (the generator puts TTFT = 500 ms in every tier) is good
    page.fill("input[data-slo='ttft']", "500")
    _agrees(_in_page(page), _tables(slo_round, Slo(ttft_ms=500, tpot_ms=41, target=0.5)))
    # shapes moved with the inputs
    lines = page.evaluate("""() => {
      const f = document.getElementById(document.querySelector('.slo').dataset.fig);
      return f.layout.shapes.map(s => s.x0); }""")
    assert lines == [500, 41]
    watch.assert_clean()


def test_defaults_are_exact_and_one_edit_changes_no_other_field(
        open_page: Any, tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    write_random_round(root, "\n[slo]\nttft_ms = 333.33333333\ntpot_ms = 41.123456789\n"
                             "target = 0.995\n", requests=60, tiers=(1, 4))
    page, watch = open_page(build(root, tmp_path / "r.html"), "?lang=en")
    _ready(page)
    assert page.input_value("input[data-slo='ttft']") == "333.33333333"
    assert page.input_value("input[data-slo='target']") == "99.5"
    page.fill("input[data-slo='e2el']", "100000")
    state = page.evaluate("""() => { const p = window.reportSloPanels[0];
        return [p.th.ttft, p.th.tpot, p.target]; }""")
    assert state == [333.33333333, 41.123456789, 0.995]
    got = _in_page(page)
    _agrees(got, _tables(root, Slo(ttft_ms=333.33333333, tpot_ms=41.123456789,
                                   e2el_ms=100000, target=0.995)))
    watch.assert_clean()


def test_beyond_the_budget_the_page_says_the_answer_is_a_range(
        open_page: Any, slo_round: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from reportgen.page import slo_payload
    monkeypatch.setattr(slo_payload, "EXACT_BUDGET", 100)
    page, watch = open_page(build(slo_round, tmp_path / "binned.html"), "?lang=en")
    _ready(page)
    assert "more than the 100 the page embeds exactly" in page.inner_text(".slo")
    assert page.evaluate("window.reportSloPanels[0].data.mode") == "bins"
    _agrees(_in_page(page), _tables(slo_round))           # the defaults are bin edges
    page.fill("input[data-slo='ttft']", "333")
    page.fill("input[data-slo='tpot']", "41")
    got = _in_page(page)
    assert got["ms"] <= 50
    exact = _tables(slo_round, Slo(ttft_ms=333, tpot_ms=41, target=0.9))
    rows = {(r["engine"], r["concurrency"]): r for r in exact["goodput"]}
    undecided = 0
    for r in got["tiers"]:
        lo, hi = r["good"]
        assert lo <= rows[r["engine"], r["c"]]["requests_good"] <= hi
        undecided += hi - lo
    assert 0 < undecided < 0.1 * sum(r["sent"] for r in got["tiers"])
    watch.assert_clean()


def test_the_sentence_agrees_with_the_capacity_table(open_page: Any, tmp_path: Path) -> None:
    # every tier of both configurations passes with confidence at a loose SLO: the sentence
    # says so, and no capacity reads "≥ ∞" (issue 31: "no configuration reaches the target")
    root = tmp_path / "r"
    root.mkdir()
    write_random_round(root, "\n[slo]\ne2el_ms = 1000000\ntarget = 0.5\n", requests=60,
                       tiers=(1, 4))
    page, watch = open_page(build(root, tmp_path / "r.html"), "?lang=en")
    _ready(page)
    got = _in_page(page)
    assert {c["status"] for c in got["cap"]} == {"at_least"}
    assert all("highest tier tested" in c["text"] and "\u221e" not in c["text"]
               for c in got["cap"])
    assert "every tier tested meets the target" in got["sentence"]
    assert "no configuration" not in got["sentence"]
    # an SLO nothing meets: now (and only now) the sentence says none reaches it
    page.fill("input[data-slo='e2el']", "0.001")
    got = _in_page(page)
    assert {c["status"] for c in got["cap"]} == {"none"}
    assert "no configuration reaches the target" in got["sentence"]
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


def test_repeats_give_the_same_intervals_as_the_tables(open_page: Any, tmp_path: Path) -> None:
    """Two runs per tier (a folder per repeat): the page's intervals, computed from each run's
    good count, equal the tables' (the repeats' t interval where wider than Wilson's)."""
    import numpy as np

    from benchmarks.slo_round import record

    rng = np.random.default_rng(3)
    root = tmp_path / "rq"
    for run in (1, 2):
        for c in (1, 4):
            folder = root / "alpha" / f"run{run}"
            folder.mkdir(parents=True, exist_ok=True)
            scale = (1 + c / 4) * (0.6 if run == 1 else 1.4)   # the runs disagree
            ttft = rng.lognormal(np.log(0.3 * scale), 0.4, 30)
            rows = [(float(t), float(t + 0.5), 11, "") for t in ttft]
            data = record(c, 20.0 + 3 * run + c, rows) | {"date": f"20261201-12{run}{c}00"}
            (folder / f"c{c}.json").write_text(json.dumps(data))
    page, watch = open_page(build(root, tmp_path / "rq.html"), "?lang=en")
    _ready(page)
    page.fill("input[data-slo='ttft']", "400")
    page.fill("input[data-slo='target']", "50")
    got = _in_page(page)
    exact = _tables(root, Slo(ttft_ms=400, target=0.5))
    assert {r["interval_basis"] for r in exact["goodput"]} == {"repeats"}
    from reportgen.analyze.goodput import wilson
    assert any(abs(r["attainment_low"] - wilson(r["requests_good"], r["requests_sent"])[0])
               > 0.01 for r in exact["goodput"])      # the repeats' spread is wider here
    _agrees(got, exact)
    watch.assert_clean()


def test_a_typed_load_gives_the_gpus_tables_load_gives(open_page: Any, slo_round: Path,
                                                       slo_report: Path) -> None:
    page, watch = open_page(slo_report, "?lang=en")
    _ready(page)
    # a loose objective, so both configurations have a capacity to scale
    page.fill("input[data-slo='ttft']", "5000")
    page.fill("input[data-slo='tpot']", "500")
    page.fill("input[data-slo='target']", "50")
    for value, unit in (("20", "req/s"), ("900", "tok/s")):
        page.select_option("select[data-load-unit]", unit)
        page.fill("input[data-load]", value)
        got = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
            '.slo-cap tr')].map(tr => [tr.dataset.engine,
            JSON.parse(tr.querySelectorAll('td')[4].dataset.v)]))""")
        analysis = analyze_dir(slo_round, slo=Slo(ttft_ms=5000, tpot_ms=500, target=0.5),
                               load=(float(value), unit)).analysis.first
        want = analysis.load.set_index("engine")
        assert set(got) == set(want.index)
        for engine, g in got.items():
            row = want.loc[engine]
            if math.isnan(row["replicas"]):
                assert g is None
                continue
            assert (g["replicas"], g["gpus"], g["bound"]) == (
                row["replicas"], row["gpus"], row["bound"])
            assert g["per_replica"] == pytest.approx(row["per_replica"], rel=1e-12)
        assert any(g is not None for g in got.values())
    assert "GPUs" in page.inner_text(".slo-cap")
    watch.assert_clean()
