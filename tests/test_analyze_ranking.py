"""One-tier comparisons (analyze.ranking; issue 19 item 4)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from factories import write_round

from reportgen.analyze.ranking import is_single_point, ranking
from reportgen.page.ranking import margin


def _tiers() -> pd.DataFrame:
    return pd.DataFrame({"engine": ["a", "b", "c"], "concurrency": [4.0, 4.0, 4.0],
                         "output_tok_s": [100.0, 125.0, 80.0],
                         "ttft_p50_ms": [50.0, 40.0, math.nan], "failed": [0, 0, 0]})


def test_one_tier_each_is_a_single_point_round() -> None:
    assert is_single_point(_tiers())
    two = pd.concat([_tiers(), _tiers().assign(concurrency=8.0)])
    assert not is_single_point(two)
    assert not is_single_point(_tiers().iloc[:1])   # one configuration: nothing to rank


def test_ranking_orders_each_metric_its_own_way() -> None:
    r = ranking(_tiers())
    tok = r[r["metric"] == "output_tok_s"]
    assert list(tok["engine"]) == ["b", "a", "c"] and list(tok["rank"]) == [1, 2, 3]
    assert list(tok["vs_best"]) == [1.0, 0.8, 0.64]
    ttft = r[r["metric"] == "ttft_p50_ms"]
    assert list(ttft["engine"]) == ["b", "a"]            # lower is better; c has no value
    assert "failed" not in set(r["metric"])               # no failures anywhere: no panel


def test_margin_is_relative_to_the_runner_up() -> None:
    assert margin("output_tok_s", 125.0, 100.0) == 0.25
    assert math.isclose(margin("ttft_p50_ms", 40.0, 50.0), 0.2)


def test_a_single_rate_round_draws_a_ranking_not_curves(tmp_path: Path) -> None:
    from reportgen.build import assemble_report

    built = assemble_report(write_round(tmp_path / "one", "single_rate"))
    ids = [f.id for f in built.figures.figures]
    assert "fig-8" in ids and "fig-1" not in ids and "fig-6" not in ids
    [fig] = [f for f in built.figures.figures if f.id == "fig-8"]
    assert {t["type"] for t in fig.fig["data"]} == {"bar"}
    cards = [c for s in built.page.sections if s.id == "headline"
             for blk in s.blocks for c in getattr(blk, "cards", [])]
    assert cards[0].label.en == "Highest output throughput" and cards[0].value.en == "gamma"
