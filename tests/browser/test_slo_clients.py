"""On every vendored client fixture with per-request data (AIPerf, GuideLLM, inference-perf,
llmperf), the page's counts at a typed SLO equal `reportgen tables --slo` exactly: the
thresholds typed are the round's own median TTFT and p90 TPOT, so requests lie on both
sides of them; and at a typed price its $ per 1M good output tokens equal `tables --slo
--price`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pagekit import build

from reportgen.pipeline import analyze_dir
from reportgen.slo import Slo
from reportgen.tables import to_json_dict

DATA = Path(__file__).resolve().parents[1] / "data"
ROUNDS = ("clients/aiperf-0.3.0", "clients/aiperf-0.8.0", "clients/aiperf-0.13.0",
          "clients/guidellm-0.4.0", "clients/guidellm-0.8.1", "clients/inference-perf-0.7.0",
          "llmperf")


def _tables(root: Path, slo: Slo | None = None) -> dict[str, Any]:
    return json.loads(json.dumps(to_json_dict(analyze_dir(root, slo=slo).analysis)))


@pytest.mark.parametrize("name", ROUNDS)
def test_typed_slo_counts_equal_the_tables(open_page: Any, tmp_path: Path, name: str) -> None:
    root = DATA / name
    dist = _tables(root)["distributions"]
    ttft = sorted(r["p50_ms"] for r in dist if r["metric"] == "ttft")[0]
    tpot = sorted(r["p90_ms"] for r in dist if r["metric"] == "tpot")[0]
    page, watch = open_page(build(root, tmp_path / "r.html"), "?lang=en")
    page.wait_for_function("[...document.querySelectorAll('.slo')]"
                           ".every(e => e.dataset.sloReady === 'true')", timeout=20_000)
    # typed into every panel (one per workload view; the hidden ones too)
    page.evaluate("""([ttft, tpot]) => document.querySelectorAll('.slo').forEach(p => {
        for (const [k, v] of [['ttft', ttft], ['tpot', tpot]]) {
          const box = p.querySelector(`input[data-slo='${k}']`);
          box.value = v;
          box.dispatchEvent(new Event('input'));
        } })""", [repr(ttft), repr(tpot)])
    got = page.evaluate("""() => [...document.querySelectorAll('.slo-tiers tr')].map(tr => {
        const td = tr.querySelectorAll('td');
        return [tr.dataset.engine, tr.dataset.c, JSON.parse(td[3].dataset.v)]; })""")
    want = _tables(root, Slo(ttft_ms=ttft, tpot_ms=tpot))["goodput"]
    # every panel (one per workload) against every workload's rows, as multisets
    pairs = sorted((e, c, good[0], good[1]) for e, c, good in got)
    exact = sorted((r["engine"], "inf" if r["concurrency"] is None else repr(
        float(r["concurrency"])), r["requests_good"], r["requests_good"]) for r in want)
    assert [(e, _c(c), lo, hi) for e, c, lo, hi in pairs] == [
        (e, _c(c), lo, hi) for e, c, lo, hi in exact]
    assert any(r["requests_good"] > 0 for r in want)                       # thresholds
    assert any(r["requests_good"] < r["requests_sent"] for r in want)      # split them
    # a typed price: $ per 1M good output tokens equal `tables --slo --price`'s cost table
    page.evaluate("""() => document.querySelectorAll('.slo').forEach(p => {
        const box = p.querySelector('input[data-price]');
        box.value = '2.5';
        box.dispatchEvent(new Event('input')); })""")
    cost = page.evaluate("""() => [...document.querySelectorAll('.slo-cost tr')].map(tr =>
        [tr.dataset.engine, JSON.parse(tr.querySelectorAll('td')[4].dataset.v)])""")
    priced = json.loads(json.dumps(to_json_dict(analyze_dir(
        root, slo=Slo(ttft_ms=ttft, tpot_ms=tpot), price=2.5).analysis)))["cost"]
    shown = sorted((e, v[0] if v[0] is not None else -1.0) for e, v in cost)
    exact_cost = sorted((r["engine"], r["usd_per_m_good_output"]
                         if r["usd_per_m_good_output"] is not None else -1.0) for r in priced)
    assert [e for e, _ in shown] == [e for e, _ in exact_cost]
    assert [v for _, v in shown] == pytest.approx([v for _, v in exact_cost], rel=1e-12)
    watch.assert_clean()


def _c(text: str) -> float:
    return float(text)
