"""A decode step means a decode step (issue 30, item 7): the single-stream step, the wait
ratio, the per-slot rate and the roofline attainment use the pooled ITL p50 only when the
client's ITL is a gap between decode steps and its median is at least 1 ms; else the
per-request TPOT p50, and the page says which."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from reportgen.analyze.tiers import MIN_STEP_MS, decode_step, latency_shape
from reportgen.pipeline import analyze_dir
from reportgen.reference.clients import itl_is_step

CLIENTS = Path(__file__).parent / "data" / "clients"
INFERENCE_PERF = CLIENTS / "inference-perf-0.7.0"


def _tiers(itl: list[float], tpot: list[float], engine: str = "e") -> pd.DataFrame:
    return pd.DataFrame({"engine": [engine] * len(itl), "concurrency": [1.0, 2.0][:len(itl)],
                         "itl_p50_ms": itl, "tpot_p50_ms": tpot,
                         "tpot_mean_ms": [t * 1.5 for t in tpot], "itl_mean_ms": itl})


def test_a_sub_millisecond_pooled_itl_is_never_the_step() -> None:
    # one tier's ITL median 0.03 ms: the whole configuration takes its TPOT p50
    tiers, basis = decode_step(_tiers([0.03, 5.0], [4.0, 6.0]), {"e": None})
    assert basis == {"e": "tpot"}
    assert tiers["step_p50_ms"].tolist() == [4.0, 6.0]
    shaped = latency_shape(tiers)
    assert shaped["wait_ratio"].tolist() == [0.5, 0.5]       # 6/4 − 1, 9/6 − 1
    assert shaped["per_slot_tok_s"].tolist() == [250.0, 1000.0 / 6.0]
    assert shaped["itl_mean_over_p50"].tolist() == [1.0, 1.0]  # still the ITL's own ratio


def test_an_itl_of_decode_steps_is_kept() -> None:
    tiers, basis = decode_step(_tiers([MIN_STEP_MS, 5.0], [4.0, 6.0]), {"e": True})
    assert basis == {"e": "itl"} and tiers["step_p50_ms"].tolist() == [1.0, 5.0]


def test_a_client_whose_itl_counts_chunk_zeros_uses_tpot_whatever_the_value() -> None:
    tiers, basis = decode_step(_tiers([8.0, 9.0], [4.0, 6.0]), {"e": False})
    assert basis == {"e": "tpot"} and tiers["step_p50_ms"].tolist() == [4.0, 6.0]


def test_no_tpot_and_no_real_itl_leaves_the_step_unknown() -> None:
    tiers, basis = decode_step(_tiers([0.05, 0.04], [math.nan, math.nan]), {"e": None})
    assert basis == {} and tiers["step_p50_ms"].isna().all()


def test_the_client_table_says_whose_itl_is_a_decode_step() -> None:
    assert itl_is_step("vllm") is True and itl_is_step("sglang") is True
    assert itl_is_step("inference-perf") is False and itl_is_step("aiperf") is False
    assert itl_is_step("tidy") is None


def test_genuine_inference_perf_gets_its_tpot_as_the_step_and_says_so() -> None:
    stages = sorted((INFERENCE_PERF / "results").glob("stage_*_lifecycle_metrics.json"))
    own = [json.loads(p.read_text())["successes"]["latency"] for p in stages]
    analyzed = analyze_dir(INFERENCE_PERF)
    [a] = analyzed.analysis.parts
    facts = a.round.engines[0]
    assert facts.step_basis == "tpot"
    step = a.tiers.sort_values("concurrency")["step_p50_ms"].tolist()
    assert step == [s["time_per_output_token"]["median"] * 1000.0 for s in own]
    assert min(step) >= MIN_STEP_MS


def test_the_page_says_the_step_is_tpot_where_it_is() -> None:
    from reportgen.build import assemble_report
    from tests.page_audit import _sections, _texts

    built = assemble_report(INFERENCE_PERF)
    texts = [t.en for _, s in _sections(built.page) for _, t in _texts(s)]
    assert any("decode step of run is the per-request TPOT p50" in t for t in texts)
    # no card or sentence offers a pooled ITL median under 1 ms as a step
    assert not any("Single-stream decode step" in t and " 0.0" in t.split("|")[1]
                   for t in texts if "|" in t)
