"""Goodput, capacity at SLO and percentile tables against a hand computation on a tiny round
(tests/slo_round.py): `reportgen tables --slo`, round.toml [slo], --goodput in the results."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from benchmarks.slo_round import expected_good, write_random_round
from reportgen.analyze.goodput import (
    Z95,
    attainment_interval,
    capacity,
    capacity_table,
    cost_table,
    goodput_table,
    load_table,
    most_capacity,
    wilson,
    with_cost,
    with_replicas,
)
from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.pipeline import analyze_dir
from reportgen.slo import SloError, parse_slo
from tests.slo_round import write_round


def _tables(root: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["tables", str(root), *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _by_tier(rows: list[dict]) -> dict[tuple[str, int], dict]:
    return {(r["engine"], r["concurrency"]): r for r in rows}


def test_goodput_by_hand(tmp_path: Path) -> None:
    data = _tables(write_round(tmp_path), "--slo", "ttft_ms=500,tpot_ms=100")
    got = _by_tier(data["goodput"])
    # fast C=1: 200 ms / 100 ms good (TPOT exactly at the threshold: inclusive); TTFT at 500 ms
    # but TPOT 500 ms; TTFT 600 ms (one token, TPOT 0); a failed request → 1 of 4 over 10 s
    expected = {("fast", 1): (4, 1, 10.0), ("fast", 2): (2, 2, 5.0), ("fast", 4): (2, 1, 4.0),
                ("slow", 1): (2, 2, 8.0), ("slow", 2): (2, 1, 8.0)}
    assert set(got) == set(expected)
    for key, (sent, good, duration) in expected.items():
        row = got[key]
        assert (row["requests_sent"], row["requests_good"]) == (sent, good), key
        assert row["attainment"] == pytest.approx(good / sent)
        assert row["goodput_rps"] == pytest.approx(good / duration)
    assert data["slo"]["ttft_ms"] == 500 and data["slo"]["e2el_ms"] is None
    assert data["slo"]["target"] == 0.99


def test_capacity_by_hand(tmp_path: Path) -> None:
    data = _tables(write_round(tmp_path), "--slo", "ttft_ms=500,tpot_ms=100")
    cap = {r["engine"]: r for r in data["capacity_at_slo"]}
    # fast: attainment 0.25, 1, 0.5 at C = 1, 2, 4 → between 2 and 4: 2 + 0.01/0.5 × 2; but
    # 2 of 2 good says little: Wilson's low end is 2 / (2 + z²) ≈ 0.34 < 0.99, so C=2's
    # interval straddles the target and the round cannot tell
    assert cap["fast"]["status"] == "undecided" and cap["fast"]["undecided_tier"] == 2
    assert cap["fast"]["capacity"] == pytest.approx(2.04)
    assert (cap["fast"]["lower_tier"], cap["fast"]["upper_tier"]) == (2, 4)
    # slow: 1, 0.5 at C = 1, 2 → 1 + 0.01/0.5
    assert cap["slow"]["capacity"] == pytest.approx(1.02)
    assert cap["slow"]["status"] == "undecided" and cap["slow"]["undecided_tier"] == 1
    # no configuration is decided: none is said to carry the most load
    assert data["values"]["capacity.best"] is None
    assert data["values"]["capacity.fast.load"] == pytest.approx(2.04)
    low = {(r["engine"], r["concurrency"]): r["attainment_low"] for r in data["goodput"]}
    assert low["fast", 2] == pytest.approx(2 / (2 + Z95**2))


def test_percentiles_by_hand(tmp_path: Path) -> None:
    data = _tables(write_round(tmp_path))
    assert "goodput" not in data and "slo" not in data   # no objective anywhere
    rows = {(r["engine"], r["concurrency"], r["metric"]): r for r in data["distributions"]}
    ttft = rows["fast", 1, "ttft"]      # successful requests: 200, 500, 600 ms
    assert ttft["count"] == 3
    assert ttft["p50_ms"] == pytest.approx(500)
    assert ttft["p90_ms"] == pytest.approx(580)       # linear: 500 + 0.8 × 100
    assert ttft["p99_9_ms"] == pytest.approx(599.8)
    tpot = rows["fast", 1, "tpot"]      # the one-token request is not in the TPOT distribution
    assert tpot["count"] == 2 and tpot["p50_ms"] == pytest.approx(300)
    itl = rows["fast", 1, "itl"]        # 10 gaps of 100 ms and 4 of 500 ms, pooled
    assert itl["count"] == 14 and itl["mean_ms"] == pytest.approx(3000 / 14)
    assert rows["fast", 1, "e2el"]["p50_ms"] == pytest.approx(1200)


def test_round_toml_slo_is_the_default_and_the_command_line_wins(tmp_path: Path) -> None:
    root = write_round(tmp_path, '\n[slo]\nttft_ms = 250\ntarget = 0.5\n')
    data = _tables(root)
    assert data["slo"]["ttft_ms"] == 250 and data["slo"]["target"] == 0.5
    assert "round.toml [slo]" in data["slo"]["source"]
    # TTFT only: fast C=1 → 200 ms of 4 requests
    assert _by_tier(data["goodput"])["fast", 1]["requests_good"] == 1
    assert _by_tier(data["goodput"])["slow", 2]["requests_good"] == 1
    over = _tables(root, "--slo", "e2el_ms=1300")
    assert over["slo"]["ttft_ms"] is None and over["slo"]["target"] == 0.99
    assert _by_tier(over["goodput"])["fast", 2]["requests_good"] == 2   # 600, 1300 ms


def test_goodput_argument_in_the_results(tmp_path: Path) -> None:
    root = write_round(tmp_path)
    path = root / "fast" / "bench" / "c1.json"
    record = json.loads(path.read_text())
    record["goodput"] = "ttft:500 tpot:100"          # --metadata goodput="ttft:500 tpot:100"
    path.write_text(json.dumps(record))
    data = _tables(root, "--slo-target", "0.5")
    assert data["slo"]["tpot_ms"] == 100 and data["slo"]["target"] == 0.5
    assert "goodput" in data["slo"]["source"]


@pytest.mark.parametrize("text", ["[slo]\n", "[slo]\nttft_ms = -1\n",
                                  "[slo]\nttft_ms = 5\ntarget = 2\n", "[slo]\nttfts = 5\n"])
def test_bad_slo_table_names_round_toml(tmp_path: Path, text: str) -> None:
    root = write_round(tmp_path, "\n" + text)
    if text == "[slo]\n":     # an empty table states nothing: no objective
        assert analyze_dir(root).analysis.first.slo is None
        return
    with pytest.raises(InputError, match=r"round\.toml"):
        analyze_dir(root)


@pytest.mark.parametrize("text", ["ttft=abc", "ttft_ms=0", "latency=5", ""])
def test_bad_slo_option_exits_2(tmp_path: Path, text: str) -> None:
    with pytest.raises(SloError):
        parse_slo(text)
    result = CliRunner().invoke(main, ["tables", str(write_round(tmp_path)), "--slo", text])
    assert result.exit_code == 2 and "--slo" in result.stderr


def test_capacity_rules() -> None:
    loads = np.array([1.0, 2.0, 4.0])
    assert capacity(loads, np.array([0.5, 0.4, 0.3]), 0.99)[1] == "none"
    assert math.isnan(capacity(loads, np.array([0.5, 0.4, 0.3]), 0.99)[0])
    # non-monotonic: the last tier that meets the target counts
    cap, status, *_ = capacity(loads, np.array([1.0, 0.9, 1.0]), 0.99)
    assert (cap, status) == (4.0, "at_least")
    # an unbounded rate after the last good tier: no line to interpolate along
    cap, status, *_ = capacity(np.array([1.0, math.inf]), np.array([1.0, 0.0]), 0.99)
    assert (cap, status) == (1.0, "at_least")
    cap, status, *_ = capacity(loads, np.array([1.0, 0.98, 0.0]), 0.99)
    assert status == "interpolated" and cap == pytest.approx(1.5)


def test_generated_round_matches_its_known_answers(tmp_path: Path) -> None:
    """A larger generated round (values exactly at the thresholds included): every tier's good
    count equals the generator's own count at several thresholds."""
    written = write_random_round(tmp_path, requests=120)
    for ttft_ms, tpot_ms in ((500, 50), (333, 41), (2000, 200)):
        data = _tables(tmp_path, "--slo", f"ttft_ms={ttft_ms},tpot_ms={tpot_ms}")
        got = _by_tier(data["goodput"])
        assert len(got) == len(written)
        for (engine, c), (duration, rows) in written.items():
            good = expected_good(rows, ttft_ms, tpot_ms)
            assert got[engine, c]["requests_good"] == good, (engine, c, ttft_ms)
            assert got[engine, c]["requests_sent"] == len(rows)
            assert got[engine, c]["goodput_rps"] == pytest.approx(good / duration)


def test_build_slo_sets_the_page_defaults(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    root = write_round(tmp_path / "r")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["build", "-q", str(root), "-o", str(out),
                                       "--slo", "ttft_ms=250,e2el_ms=1300", "--slo-target", "0.5"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert 'data-slo="ttft" value="250"' in html and 'data-slo="target" value="50"' in html
    assert 'data-slo="tpot" value' not in html          # not part of this objective
    bad = CliRunner().invoke(main, ["build", "-q", str(root), "-o", str(out), "--slo", "x=1"])
    assert bad.exit_code == 2 and "--slo" in bad.stderr


def _verdict_round(tiers: dict[float, tuple[int, int]], target: float) -> dict[str, object]:
    """The capacity row of one configuration whose tiers had (good, sent) requests."""
    rows = []
    for c, (good, sent) in tiers.items():
        rows += [{"engine": "e", "concurrency": c, "source": f"c{c}", "record": 0,
                  "success": i < good, "ttft_s": 0.1, "tpot_s": 0.01, "e2el_s": 1.0}
                 for i in range(sent)]
    per_request = pd.DataFrame(rows)
    durations = pd.DataFrame({"engine": ["e"] * len(tiers), "concurrency": list(tiers),
                              "duration_s": [10.0] * len(tiers)})
    goodput = goodput_table(per_request, durations, parse_slo("ttft_ms=500", target))
    return dict(capacity_table(goodput, target, ["e"]).iloc[0])


def test_wilson_by_hand() -> None:
    # all good: the low end is n / (n + z²), the high end 1; none good: mirrored
    assert wilson(20, 20) == pytest.approx((20 / (20 + Z95**2), 1.0))
    assert wilson(0, 20) == pytest.approx((0.0, 1 - 20 / (20 + Z95**2)))
    # half good: symmetric about 1/2
    lo, hi = wilson(5, 10)
    assert lo + hi == pytest.approx(1.0) and lo < 0.5 < hi
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_repeats_widen_the_interval() -> None:
    # runs of 10 with 10 and 0 good: mean 0.5, sd √0.5, half = t(1) · √0.5 / √2 = 12.706 / 2
    lo, hi, basis = attainment_interval([10, 0], [10, 10])
    assert basis == "repeats" and (lo, hi) == (0.0, 1.0)
    # identical repeats: no spread, so the binomial interval of the pooled 20 stands
    lo, hi, basis = attainment_interval([10, 10], [10, 10])
    assert basis == "repeats" and (lo, hi) == pytest.approx(wilson(20, 20))
    assert attainment_interval([7], [10])[2] == "binomial"


def test_every_tier_passing_is_at_least_the_highest_tier() -> None:
    # 20 of 20 at every tier, target 0.5: the low end 20 / 23.84 ≈ 0.84 ≥ 0.5 everywhere
    row = _verdict_round({1.0: (20, 20), 2.0: (20, 20), 4.0: (20, 20)}, 0.5)
    assert row["status"] == "at_least" and row["capacity"] == 4.0
    assert row["capacity_low"] == row["capacity_high"] == 4.0


def test_a_tier_exactly_at_the_target_cannot_tell() -> None:
    # 8 of 10 at C=2 with target 0.8: the point meets it, but Wilson's interval around 0.8
    # straddles it; C=4 (0 of 10: high end 1 − 10/13.84 ≈ 0.28) fails surely
    row = _verdict_round({1.0: (20, 20), 2.0: (8, 10), 4.0: (0, 10)}, 0.8)
    assert row["status"] == "undecided" and row["undecided_tier"] == 2.0
    assert row["capacity"] == pytest.approx(2.0)          # 2 + (0.8 − 0.8) / 0.8 × 2


def test_a_straddling_interval_and_a_decided_crossing() -> None:
    # target 0.5: C=1 20/20 (low 0.84) passes, C=2 5/10 straddles → cannot tell at C=2
    row = _verdict_round({1.0: (20, 20), 2.0: (5, 10), 4.0: (0, 20)}, 0.5)
    assert row["status"] == "undecided" and row["undecided_tier"] == 2.0
    # C=2 0/20 fails surely (high 0.16): decided between 1 and 2, point 1 + 0.5 / 1 × 1
    row = _verdict_round({1.0: (20, 20), 2.0: (0, 20)}, 0.5)
    assert row["status"] == "interpolated" and row["capacity"] == pytest.approx(1.5)
    lo, hi = 20 / (20 + Z95**2), 1 - 20 / (20 + Z95**2)
    # along the low ends: 1 + (lo − 0.5) / lo; along the high ends: 1 + 0.5 / (1 − hi)
    assert row["capacity_low"] == pytest.approx(1 + (lo - 0.5) / lo)
    assert row["capacity_high"] == pytest.approx(1 + 0.5 / (1 - hi))


def test_a_lead_inside_the_intervals_is_no_lead() -> None:
    frame = pd.DataFrame([
        {"engine": "a", "capacity": 3.0, "capacity_low": 2.5, "capacity_high": 3.5,
         "status": "interpolated"},
        {"engine": "b", "capacity": 2.8, "capacity_low": 2.0, "capacity_high": 2.6,
         "status": "interpolated"}])
    assert most_capacity(frame) is None                   # 2.5 is not above 2.6
    frame.loc[1, "capacity_high"] = 2.4
    assert most_capacity(frame) == "a"
    frame.loc[1, "status"] = "at_least"                   # b's capacity has no ceiling
    assert most_capacity(frame) is None


DATA = Path(__file__).resolve().parent / "data"


def test_tables_slo_says_which_configurations_have_no_per_request_data() -> None:
    result = CliRunner().invoke(main, ["tables", str(DATA / "clients" / "genai-perf-0.0.16"),
                                       "--slo", "ttft_ms=500"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)["no_per_request"]
    assert rows and {r["client"] for r in rows} == {"genai-perf"}
    assert "profile_export.json" in rows[0]["why"]["en"] and rows[0]["why"]["zh"]
    assert "no goodput table" in result.stderr and "GenAI-Perf" in result.stderr
    assert "--save-detailed" not in result.stderr          # not vLLM's flags for GenAI-Perf
    # without --slo (and no [slo]) nothing is said
    plain = CliRunner().invoke(main, ["tables", str(DATA / "clients" / "genai-perf-0.0.16")])
    assert "no_per_request" not in json.loads(plain.stdout) and not plain.stderr


def test_a_guidellm_list_that_is_not_the_run_is_named() -> None:
    folder = DATA / "guidellm-real"
    raw = json.loads((folder / "benchmarks_stripped.json").read_text(encoding="utf-8"))
    bench = raw["benchmarks"][0]
    listed = len(bench["requests"]["successful"])
    totals = bench["metrics"].get("request_totals") or bench["request_totals"]
    counted = totals["successful"]                    # what the reader counts (its _totals)
    assert listed != counted
    result = CliRunner().invoke(main, ["tables", str(folder), "--slo", "ttft_ms=500"])
    (row,) = json.loads(result.stdout)["no_per_request"][:1]
    assert row["client"] == "guidellm" and row["reason"] == "listed_not_counted"
    assert f"list of {listed} for a run that counts {counted}" in row["why"]["en"]
    assert "--sample-requests" in row["why"]["en"]


def test_vllm_runs_without_arrays_name_vllm_flags(tmp_path: Path) -> None:
    written = write_random_round(tmp_path, detailed=False, requests=10, tiers=(1,))
    assert written
    result = CliRunner().invoke(main, ["tables", str(tmp_path), "--slo", "ttft_ms=500"])
    rows = json.loads(result.stdout)["no_per_request"]
    assert [r["engine"] for r in rows] == ["alpha", "beta"]
    assert all("--save-detailed" in r["why"]["en"] for r in rows)


def test_replicas_and_gpus_for_a_load_by_hand() -> None:
    rates = pd.DataFrame({"engine": ["a", "a", "b", "b", "c"],
                          "concurrency": [2.0, 4.0, 2.0, 4.0, 2.0],
                          "req_s": [10.0, 20.0, 5.0, 8.0, 9.0],
                          "output_tok_s": [1000.0, 1600.0, 500.0, 800.0, 900.0]})
    frame = pd.DataFrame([
        {"engine": "a", "capacity": 3.0, "status": "interpolated", "lower_tier": 2.0,
         "upper_tier": 4.0},
        {"engine": "b", "capacity": 4.0, "status": "at_least", "lower_tier": 4.0,
         "upper_tier": math.nan},
        {"engine": "c", "capacity": 2.5, "status": "undecided", "lower_tier": 2.0,
         "upper_tier": math.nan}])
    got = with_replicas(frame, rates, {"a": 2, "b": 1})
    # a: halfway from C=2 to C=4 → 15 req/s, 1300 tok/s per replica of 2 GPUs
    assert got.loc[0, "replica_req_s"] == 15.0 and got.loc[0, "replica_output_tok_s"] == 1300.0
    assert got.loc[0, "per_gpu_req_s"] == 7.5
    assert got.loc[1, "replica_req_s"] == 8.0              # b: at its highest tier, a bound
    assert math.isnan(got.loc[2, "replica_req_s"])         # c: cannot tell, no number
    load = load_table(got, 40.0, "req/s").set_index("engine")
    assert (load.loc["a", "replicas"], load.loc["a", "gpus"]) == (3.0, 6.0)   # ⌈40 / 15⌉
    assert load.loc["b", "replicas"] == 5.0 and load.loc["b", "bound"] == "at_most"
    assert math.isnan(load.loc["c", "gpus"]) and load.loc["c", "bound"] == ""
    tokens = load_table(got, 2600.0, "tok/s").set_index("engine")
    assert tokens.loc["a", "replicas"] == 2.0              # 2600 / 1300


def test_tables_load_option(tmp_path: Path) -> None:
    root = write_round(tmp_path)
    data = _tables(root, "--slo", "ttft_ms=500,tpot_ms=100", "--load", "3req/s")
    assert {r["engine"] for r in data["load"]} == {"fast", "slow"}
    assert all(r["unit"] == "req/s" and r["load"] == 3 for r in data["load"])
    bad = CliRunner().invoke(main, ["tables", str(root), "--slo", "ttft_ms=5", "--load", "x"])
    assert bad.exit_code == 2 and "--load" in bad.stderr
    none = CliRunner().invoke(main, ["tables", str(root), "--load", "3req/s"])
    assert none.exit_code == 2 and "needs an SLO" in none.stderr


def test_cost_per_million_tokens_by_hand(tmp_path: Path) -> None:
    data = _tables(write_round(tmp_path), "--slo", "ttft_ms=500,tpot_ms=100", "--price", "3.6")
    got = _by_tier(data["cost"])
    # 1 GPU at $3.6 an hour costs $0.001 a second. fast C=1 ran 10 s ($0.01); its completed
    # requests made 11 + 5 + 1 output tokens (the failed one none) and 3 × 8 input tokens;
    # only the first (TTFT 200 ms, TPOT 100 ms) is good: 11 output, 19 total tokens
    fast = got["fast", 1]
    assert (fast["output_tokens"], fast["total_tokens"]) == (17, 41)
    assert (fast["good_output_tokens"], fast["good_total_tokens"]) == (11, 19)
    assert fast["usd_per_m_output"] == pytest.approx(0.01 / 17e-6)
    assert fast["usd_per_m_total"] == pytest.approx(0.01 / 41e-6)
    assert fast["usd_per_m_good_output"] == pytest.approx(0.01 / 11e-6)
    assert fast["usd_per_m_good_total"] == pytest.approx(0.01 / 19e-6)
    assert fast["meets_target"] is False and fast["gpus"] == 1
    # slow C=2: 8 s ($0.008), 2 × 11 output tokens, the second good only
    assert got["slow", 2]["usd_per_m_good_output"] == pytest.approx(0.008 / 11e-6)
    assert got["fast", 2]["usd_per_m_good_output"] == pytest.approx(0.005 / 17e-6)
    # at the 99 % target no tier of 2 or 4 requests meets it with confidence: none is named
    assert not any(r["meets_target"] for r in data["cost"])
    assert data["values"]["cost.cheapest"] is None
    # at 30 %: 2 of 2 good has Wilson's low end 2 / (2 + z²) ≈ 0.34, so fast C=2 and slow C=1
    # meet it with confidence (1 of 2, 1 of 4 do not); the lower $ per 1M good output tokens
    # of the two is fast C=2's (5 s for 17 tokens, against slow C=1's 8 s for 22)
    loose = _tables(tmp_path, "--slo", "ttft_ms=500,tpot_ms=100",
                    "--slo-target", "0.3", "--price", "3.6")
    assert {k for k, r in _by_tier(loose["cost"]).items() if r["meets_target"]} == {
        ("fast", 2), ("slow", 1)}
    assert loose["values"]["cost.cheapest"] == "fast"
    assert loose["values"]["cost.cheapest_tier"] == 2
    assert math.isnan(got["fast", 1]["energy_per_good_output_token_j"] or math.nan)


def test_the_cost_of_goodput_rises_when_the_slo_tightens(tmp_path: Path) -> None:
    root = write_round(tmp_path)
    loose = _by_tier(_tables(root, "--slo", "ttft_ms=800,tpot_ms=100", "--price", "3.6")["cost"])
    tight = _by_tier(_tables(root, "--slo", "ttft_ms=500,tpot_ms=100", "--price", "3.6")["cost"])
    # slow C=2: TTFT 700 and 200 ms, both TPOT 100 ms: 22 good output tokens, then 11
    assert loose["slow", 2]["usd_per_m_good_output"] == pytest.approx(0.008 / 22e-6)
    assert tight["slow", 2]["usd_per_m_good_output"] == pytest.approx(0.008 / 11e-6)
    for key, row in tight.items():
        # the cost over all completed requests does not depend on the SLO
        assert row["usd_per_m_output"] == loose[key]["usd_per_m_output"]
        if row["usd_per_m_good_output"] is not None and \
                loose[key]["usd_per_m_good_output"] is not None:
            assert row["usd_per_m_good_output"] >= loose[key]["usd_per_m_good_output"]


def test_round_toml_price_is_the_default_and_the_command_line_wins(tmp_path: Path) -> None:
    root = write_round(tmp_path, '\n[cost]\ngpu_hour_usd = 7.2\n')
    data = _tables(root, "--slo", "ttft_ms=500,tpot_ms=100")
    assert _by_tier(data["cost"])["fast", 1]["usd_per_gpu_h"] == 7.2
    loaded = analyze_dir(root).loaded.manifest
    assert loaded.gpu_hour_usd == 7.2
    assert str(loaded.provenance("cost.gpu_hour_usd")).endswith("round.toml:" + str(
        (root / "round.toml").read_text().splitlines().index("gpu_hour_usd = 7.2") + 1))
    data = _tables(root, "--slo", "ttft_ms=500,tpot_ms=100", "--price", "3.6")
    assert _by_tier(data["cost"])["fast", 1]["usd_per_m_output"] == pytest.approx(0.01 / 17e-6)
    # no SLO: no cost table (the cost of goodput needs one)
    assert "cost" not in _tables(root)


@pytest.mark.parametrize("text", ["gpu_hour_usd = -1", 'gpu_hour_usd = "2.5"',
                                  "usd = 2.5"])
def test_bad_cost_table_names_round_toml(tmp_path: Path, text: str) -> None:
    root = write_round(tmp_path, "\n[cost]\n" + text + "\n")
    result = CliRunner().invoke(main, ["tables", str(root)])
    assert result.exit_code == 2 and "round.toml" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("price", ["0", "-2", "nan", "inf"])
def test_bad_price_option_exits_2(tmp_path: Path, price: str) -> None:
    result = CliRunner().invoke(main, ["tables", str(write_round(tmp_path)), "--slo",
                                       "ttft_ms=500", "--price", price])
    assert result.exit_code == 2 and "--price" in result.stderr


def test_energy_per_good_token_and_the_load_cost_by_hand() -> None:
    requests = pd.DataFrame({
        "engine": ["a"] * 3, "concurrency": [1.0] * 3, "source": ["f"] * 3,
        "record": [0] * 3, "request": [0, 1, 2], "success": [True, True, False],
        "input_tokens": [10.0, 10.0, 10.0], "output_tokens": [100.0, 50.0, 0.0],
        "ttft_s": [0.1, 0.9, math.nan], "tpot_s": [0.01, 0.01, math.nan],
        "e2el_s": [1.0, 1.4, math.nan]})
    durations = pd.DataFrame({"engine": ["a"], "concurrency": [1.0], "duration_s": [1800.0]})
    telemetry = pd.DataFrame({"engine": ["a"], "concurrency": [1.0], "energy_j": [300.0]})
    slo = parse_slo("ttft_ms=500", 0.5, "test")
    row = cost_table(requests, durations, slo, {"a": 4}, 2.0, telemetry).iloc[0]
    # 4 GPUs × $2 × 0.5 h = $4; 150 output tokens, 170 total; one good request: 100, 110
    assert row["usd_per_m_output"] == pytest.approx(4 / 150e-6)
    assert row["usd_per_m_total"] == pytest.approx(4 / 170e-6)
    assert row["usd_per_m_good_output"] == pytest.approx(4 / 100e-6)
    assert row["usd_per_m_good_total"] == pytest.approx(4 / 110e-6)
    assert row["energy_per_good_output_token_j"] == pytest.approx(3.0)
    # an unknown token count makes the sum unknown, never short
    unknown = requests.assign(output_tokens=[100.0, math.nan, 0.0])
    assert math.isnan(cost_table(unknown, durations, slo, {"a": 4}, 2.0).iloc[0][
        "usd_per_m_output"])
    load = pd.DataFrame({"engine": ["a", "b", "c"], "gpus": [8.0, 6.0, math.nan]})
    priced = with_cost(load, 2.5)
    assert list(priced["usd_per_h"][:2]) == [20.0, 15.0]
    assert list(priced["cheapest"]) == [False, True, False]
