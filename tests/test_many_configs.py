"""Rounds of many configurations: crossovers against a reference (linear, not every pair), the
Pareto view, the packed data block, and the speed of analysis as the count grows."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed

from benchmarks import many_configs
from reportgen.analyze import crossover as xo
from reportgen.analyze.pareto import (
    frontier_mask,
    pareto_points,
    run_points,
    same_speed,
    same_speed_repeats,
)
from reportgen.analyze.run import RoundAnalysis, analyze_round
from reportgen.errors import InputError
from reportgen.files import datablock
from reportgen.load.manifest import check_comparisons, parse_manifest
from reportgen.load.records import LoadedRound
from reportgen.load.round import load_round
from reportgen.reference.gpus import lookup_gpu
from reportgen.render import figures_of


def _tiers(rows: list[tuple[str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame([(e, c, t, False) for e, c, t in rows],
                        columns=["engine", "concurrency", "output_tok_s", "excluded"])


# ---------------------------------------------------------------- which pairs

def test_pairs_are_the_reference_against_each_other_then_the_asked_ones() -> None:
    order = ["a", "b", "c", "d"]
    assert xo.comparison_pairs(order) == [("a", "b"), ("a", "c"), ("a", "d")]
    assert xo.comparison_pairs(order, "c") == [("c", "a"), ("c", "b"), ("c", "d")]
    # asked pairs follow; one already compared (either way round) or naming a configuration
    # this workload lacks is left out
    got = xo.comparison_pairs(order, "a", [("b", "d"), ("c", "a"), ("d", "b"), ("b", "zz")])
    assert got == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "d")]
    assert xo.comparison_pairs(order, "missing") == [("a", "b"), ("a", "c"), ("a", "d")]
    assert xo.comparison_pairs(["a"]) == [] and xo.comparison_pairs([]) == []


def test_grid_crossings_equal_the_pairwise_ones() -> None:
    """The one-grid crossover table finds exactly what pair_ratios + crossings find per pair,
    with tiers missing here and there, an excluded tier and a NaN throughput."""
    rng = np.random.default_rng(3)
    rows = []
    for i in range(12):
        knee = 2.0 ** rng.uniform(0, 7)
        for c in (1, 2, 4, 8, 16, 32, 64, 128):
            if rng.random() < 0.1:
                continue  # a tier this configuration did not run
            thr = c * 100.0 / (1 + (c / knee) ** rng.uniform(0.5, 1.2))
            rows.append((f"e{i}", float(c), math.nan if rng.random() < 0.05 else thr,
                         bool(rng.random() < 0.05)))
    tiers = pd.DataFrame(rows, columns=["engine", "concurrency", "output_tok_s", "excluded"])
    order = [f"e{i}" for i in range(12)]
    pairs = xo.comparison_pairs(order, "e5", [("e1", "e2"), ("e3", "e9")])
    table = xo.crossover_table(tiers, pairs)
    expected = []
    for a, b in pairs:
        r = xo.pair_ratios(tiers, a, b)
        expected += [{"engine_a": a, "engine_b": b, **hit}
                     for hit in xo.crossings(r["concurrency"], r["ratio"])]
    assert len(expected) > 3  # the data really cross
    assert table.to_dict("records") == expected


# ---------------------------------------------------------------- round.toml

def _round_toml(tmp_path: Path, extra: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "round.toml"
    path.write_text('[round]\ntitle = "t"\n' + extra + '\n[[engines]]\nid = "a"\n'
                    '[[engines]]\nid = "b"\n[[engines]]\nid = "c"\n', encoding="utf-8")
    return path


def test_reference_and_compare_are_read(tmp_path: Path) -> None:
    m = parse_manifest(_round_toml(tmp_path, 'reference = "b"\ncompare = [["a", "c"]]'),
                       lookup_gpu)
    assert m.reference == "b" and m.compare == (("a", "c"),)
    m = parse_manifest(_round_toml(tmp_path, ""), lookup_gpu)
    assert m.reference is None and m.compare == ()


@pytest.mark.parametrize(("extra", "message", "line"), [
    ('reference = "x"', "[round.reference]: expected an engine id from [[engines]] (a, b, c), "
                        "got 'x'", 3),
    ('compare = [["a", "zz"]]', "[round.compare]: expected an engine id from [[engines]]", 3),
    ('compare = [["a"]]', '[round.compare]: expected pairs of two different engine ids', 3),
    ('compare = [["a", "a"]]', "pairs of two different engine ids", 3),
    ('compare = "a,b"', "[round.compare]: expected a list of pairs", 3),
    ("reference = 3", "[round.reference]: expected a non-empty string", 3),
])
def test_bad_reference_names_the_key(tmp_path: Path, extra: str, message: str,
                                     line: int) -> None:
    path = _round_toml(tmp_path, extra)
    with pytest.raises(InputError) as info:
        parse_manifest(path, lookup_gpu)
    assert message in str(info.value) and info.value.line == line


def test_reference_checked_against_configurations_found(tmp_path: Path) -> None:
    """A folder without [[engines]] learns its configuration ids only from the files."""
    (tmp_path / "round.toml").write_text('[round]\nreference = "gone"\n', encoding="utf-8")
    bare = parse_manifest(tmp_path / "round.toml", lookup_gpu)
    found = parse_manifest(_round_toml(tmp_path / "listed", ""), lookup_gpu).engines
    check_comparisons(dataclasses.replace(bare, reference="a", compare=(("b", "c"),),
                                          engines=found))
    with pytest.raises(InputError, match=r"\[round\.reference\]: expected a configuration id "
                                         r"\(a, b, c\), got 'gone'"):
        check_comparisons(dataclasses.replace(bare, engines=found))


# ---------------------------------------------------------------- Pareto view

def test_frontier_follows_plot_pareto() -> None:
    # x per user, y per GPU: (10, 1) best x; (8, 3) better y; (8, 2) dominated by (8, 3);
    # (5, 3) ties (8, 3) on y: kept (plot_pareto keeps y >= best − 1e-9); (4, 9) best y;
    # (3, 1) dominated; NaN never on it
    x = np.array([10.0, 8.0, 8.0, 5.0, 4.0, 3.0, np.nan])
    y = np.array([1.0, 3.0, 2.0, 3.0, 9.0, 1.0, 50.0])
    assert frontier_mask(x, y).tolist() == [True, True, False, True, True, False, False]
    # an ineligible (excluded) point neither joins nor shadows the frontier
    eligible = np.array([True, False, True, True, True, True, True])
    assert frontier_mask(x, y, eligible).tolist() == [True, False, True, True, True, False,
                                                      False]


def test_pareto_points_per_user_and_per_gpu() -> None:
    # per-user speed = 1000 ÷ TPOT p50 (the page's one definition), not output ÷ concurrency
    tiers = _tiers([("a", 1, 100.0), ("a", 8, 640.0), ("b", 1, 150.0), ("b", 8, 1000.0),
                    ("b", 16, math.nan)]).assign(tpot_p50_ms=[10.0, 12.5, 6.25, 8.0, 9.0])
    got = pareto_points(tiers, {"a": 1, "b": 4})
    assert got["tok_s_per_user"].tolist() == [100.0, 80.0, 160.0, 125.0]
    assert got["tok_s_per_gpu"].tolist() == [100.0, 640.0, 37.5, 250.0]
    assert got["gpus"].tolist() == [1, 1, 4, 4]
    assert got["frontier"].tolist() == [False, True, True, True]


def test_throughput_at_the_same_per_user_speed_by_hand() -> None:
    # a: (speed, tok/s/GPU) = (100, 100) at C=1, (80, 640) at C=8; b: (160, 37.5), (125, 250)
    tiers = _tiers([("a", 1, 100.0), ("a", 8, 640.0), ("b", 1, 150.0), ("b", 8, 1000.0)]
                   ).assign(tpot_p50_ms=[10.0, 12.5, 6.25, 8.0])
    got = same_speed(pareto_points(tiers, {"a": 1, "b": 4}), ["a", "b"],
                     speeds=(90.0, 80.0, 130.0, 200.0))
    row = {(r.engine, r.tok_s_per_user): r for r in got.itertuples()}
    # a at 90: halfway from 100 to 80 → halfway from 100 to 640 tok/s/GPU
    assert row["a", 90.0].tok_s_per_gpu == pytest.approx(370.0)
    assert row["a", 90.0].status == "interpolated"
    assert (row["a", 90.0].lower_tier, row["a", 90.0].upper_tier) == (1.0, 8.0)
    assert row["a", 80.0].tok_s_per_gpu == 640.0 and row["a", 80.0].status == "measured"
    assert row["a", 130.0].status == "not_reached" and math.isnan(row["a", 130.0].tok_s_per_gpu)
    # b at 80: even its highest tier (125 tok/s/user) is faster: at least 250 tok/s/GPU
    assert row["b", 80.0].status == "at_least" and row["b", 80.0].tok_s_per_gpu == 250.0
    # b at 130: (160 → 125) crosses 130 at 30/35 of the way: 37.5 + 30/35 × 212.5
    assert row["b", 130.0].tok_s_per_gpu == pytest.approx(37.5 + 30 / 35 * 212.5)
    assert row["b", 200.0].status == "not_reached"


def test_same_speed_intervals_from_repeats_by_hand() -> None:
    # two repeats of C=1 and C=2 on 1 GPU: TPOT p50 10 ms and 20 ms (100 and 50 tok/s/user)
    # in both; repeat 1 makes 100 and 200 tok/s, repeat 2 120 and 240
    runs = pd.DataFrame({
        "engine": ["a"] * 4, "concurrency": [1, 2, 1, 2], "repeat": [1, 1, 2, 2],
        "tpot_median_ms": [10.0, 20.0, 10.0, 20.0], "duration_s": [10.0] * 4,
        "total_output_tokens": [1000.0, 2000.0, 1200.0, 2400.0]})
    points = run_points(runs, {"a": 1})
    assert points["tok_s_per_gpu"].tolist() == [100.0, 200.0, 120.0, 240.0]
    tiers = _tiers([("a", 1, 110.0), ("a", 2, 220.0)]).assign(tpot_p50_ms=[10.0, 20.0])
    got = same_speed_repeats(same_speed(pareto_points(tiers, {"a": 1}), ["a"],
                                        speeds=(75.0, 50.0, 200.0)), points)
    row = {r.tok_s_per_user: r for r in got.itertuples()}
    # at 75 tok/s/user each repeat crosses halfway: 150 and 180; mean 165, sd 15·√2,
    # half = t(0.975, 1) · 15·√2 / √2 = 12.706 · 15
    half = 12.706204736174696 * 15
    assert (row[75.0].tok_s_per_gpu_low, row[75.0].tok_s_per_gpu_high) == pytest.approx(
        (max(0.0, 165 - half), 165 + half))
    assert row[75.0].repeats == 2
    # at 50: 200 and 240 → mean 220, half 12.706 · 20
    assert row[50.0].tok_s_per_gpu_high == pytest.approx(220 + 12.706204736174696 * 20)
    # not reached by any repeat: no interval
    assert math.isnan(row[200.0].tok_s_per_gpu_low) and math.isnan(row[200.0].repeats)
    # a single run per tier gives no interval at all
    assert run_points(runs[runs["repeat"] == 1], {"a": 1}).empty


# ---------------------------------------------------------------- the page

@pytest.fixture(scope="module")
def many_rounds(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    root = tmp_path_factory.mktemp("many")
    out = {}
    for n in (64, 300):
        out[n] = root / f"r{n}"
        many_configs.make(out[n], configs=n, tiers=12)
    return out


def test_64_configurations_build_a_page_under_3_mb(many_rounds: dict[int, Path],
                                                   tmp_path: Path) -> None:
    from reportgen.build import build_report
    from reportgen.sources.diff import diff_sources, tables_from_html

    html = build_report(many_rounds[64], tmp_path / "r.html")
    size = html.stat().st_size
    assert size <= 3_000_000, f"{size:,} bytes"
    text = html.read_text(encoding="utf-8")
    # the data block is packed; reportgen diff reads it back intact
    assert '<script type="application/x-xz" id="report-data">/Td6WFo' in text
    assert len(tables_from_html(html)["tiers"]) == 64 * 12
    assert not diff_sources(html, many_rounds[64]).groups
    figs = figures_of(text)
    pareto = [f for f in figs["figs"] if f["id"] == "fig-7"]
    assert pareto
    assert [t["name"] for t in pareto[0]["fig"]["data"]][:2] == [
        "全部配置与并发档", "Pareto 前沿"]
    assert 'id="fig-7"' in text


def test_64_configurations_with_requests_fold_their_tables_and_merge_their_curves(
        tmp_path: Path) -> None:
    """Issue 35: per-request arrays at 64 × 12 (4 requests per tier here). The large tables
    come folded, their rows packed in report-rows (every row kept); the line figures draw a
    few merged traces, not one per configuration."""
    import base64
    import gzip

    from reportgen.build import build_report
    from reportgen.sources.diff import tables_from_html

    many_configs.make(tmp_path / "r", configs=64, tiers=12, requests=4)
    html = build_report(tmp_path / "r", tmp_path / "r.html")
    text = html.read_text(encoding="utf-8")
    packed = re.search(r'id="report-rows">([A-Za-z0-9+/=]+)</script>', text)
    assert packed
    tables = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    bodies = re.findall(r'<tbody data-rows="(\d+)"></tbody>', text)
    assert [int(i) for i in bodies] == list(range(len(tables)))
    assert 64 * 12 in [len(t) for t in tables]              # the full tiers table
    assert len(tables_from_html(html)["tiers"]) == 64 * 12  # and the data block
    # what the first layout sees: the cells outside the folds
    assert text.count("<td") < 4_000, text.count("<td")
    assert text.count('<details class="fold fold-rows">') >= len(tables) - 1
    figs = figures_of(text)
    for f in figs["figs"]:
        if f["id"] in ("fig-1", "fig-2", "fig-4", "fig-6"):
            assert len(f["fig"]["data"]) <= 16, (f["id"], len(f["fig"]["data"]))


def test_two_configurations_get_the_pareto_view_one_does_not() -> None:
    import dataclasses

    from reportgen.figures.ranking import pareto_figure
    from reportgen.figures.registry import build_figures
    from reportgen.files.resources import sample_round_dir, templates_dir
    from reportgen.text.i18n import load_ui

    ra = analyze_round(load_round(sample_round_dir()))
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    assert len(ra.first.engines) == 2 and pareto_figure(ra.first, ui, "en") is not None
    assert "fig-7" in [f.id for f in build_figures(ra.first, ui, "en")]
    one = dataclasses.replace(ra.first, engines=ra.first.engines.iloc[:1])
    assert pareto_figure(one, ui, "en") is None


def test_packed_block_round_trip_and_refuses_junk() -> None:
    small = json.dumps({"a": 1})
    assert datablock.pack(small) == ("application/json", small)
    big = json.dumps({"v": [f"{i / 7:.15f}" for i in range(100_000)]})
    kind, body = datablock.pack(big)
    assert kind == "application/x-xz" and len(body) < len(big) / 2
    assert datablock.pack(big) == (kind, body)  # deterministic
    assert datablock.unpack(body.encode()) == big.encode()
    assert datablock.unpack(small.encode()) == small.encode()
    with pytest.raises(ValueError, match="does not decode"):
        datablock.unpack(b"/Td6WFoAAAA**")
    with pytest.raises(ValueError, match="more than"):
        datablock.unpack(body.encode(), limit=1000)


# ---------------------------------------------------------------- speed

def _analyze_cpu_s(loaded: LoadedRound, repeats: int) -> tuple[float, RoundAnalysis]:
    """Best CPU seconds of analyze_round (this machine's other load stays out), and a result."""
    best = math.inf
    for _ in range(repeats):
        began = time.process_time()
        result = analyze_round(loaded)
        best = min(best, time.process_time() - began)
    return best, result


def test_analysis_is_fast_and_linear(many_rounds: dict[int, Path],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Target 2 s at 64 configurations × 12 tiers (benchmarks/run.py); 6 s here for slow CI.
    300 configurations cost about 300/64 times as much, not (300/64)² ≈ 22 times, and their
    curves are compared 299 times (each against the reference), not 44,850."""
    t64, _ = _analyze_cpu_s(load_round(many_rounds[64]), 2)
    loaded = load_round(many_rounds[300])
    calls = []
    real = xo.crossings
    monkeypatch.setattr("reportgen.analyze.crossover.crossings",
                        lambda c, r: calls.append(1) or real(c, r))
    t300, result = _analyze_cpu_s(loaded, 1)
    assert len(calls) == 299
    assert t64 <= 6.0, f"{t64:.2f} s"
    assert t300 <= 300 / 64 * t64 * 2.0, f"64: {t64:.2f} s, 300: {t300:.2f} s"
    analysis = result.first
    assert set(analysis.crossovers["engine_a"]) <= {"cfg000"}
    assert analysis.reference == "cfg000"
