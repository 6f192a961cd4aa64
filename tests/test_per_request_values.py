"""One rule for per-request values (issue 30 item 10, issue 34 item 1): a successful request's
missing, negative or non-finite time is unknown (NaN), never 0; an unknown value is never
good at any SLO; ``check`` counts and names the unknown ones; errored and incomplete requests
are sent and never good; a unit conversion divides as the SLO thresholds do."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.checks import unknown_values
from reportgen.analyze.goodput import good_requests
from reportgen.load.bench_json import bench_rows
from reportgen.load.formats import aiperf, guidellm, llmperf
from reportgen.slo import parse_slo

# a TTFT in ms whose value * 0.001 lies above value / 1000 in floating point
ODD_MS = 0.1280150451354062


def _aiperf_line(ttft: object, error: object = None) -> str:
    metrics: dict[str, object] = {"request_latency": {"value": 200.0, "unit": "ms"},
                                  "input_sequence_length": {"value": 8, "unit": "tokens"},
                                  "output_sequence_length": {"value": 4, "unit": "tokens"}}
    if ttft is not None:
        metrics["time_to_first_token"] = {"value": ttft, "unit": "ms"}
    return json.dumps({"metadata": {"benchmark_phase": "profiling"}, "metrics": metrics,
                       "error": error})


def _aiperf(*lines: str) -> dict[str, list[object]]:
    [run] = aiperf.read("\n".join(lines).encode(), "profile_export.jsonl")
    return run.record


def test_a_threshold_equal_to_a_requests_own_ttft_keeps_it_good() -> None:
    assert ODD_MS * 0.001 > ODD_MS / 1000.0        # the case the old conversion missed
    rec = _aiperf(_aiperf_line(ODD_MS))
    frame = pd.DataFrame({"success": [True], "ttft_s": rec["ttfts"], "tpot_s": [math.nan],
                          "e2el_s": [0.2]})
    assert good_requests(frame, parse_slo(f"ttft_ms={ODD_MS!r}")).tolist() == [True]


@pytest.mark.parametrize("ttft", [None, -5.0, "n/a"])
def test_aiperf_missing_or_negative_ttft_is_unknown(ttft: object) -> None:
    rec = _aiperf(_aiperf_line(ttft), _aiperf_line(10.0))
    assert math.isnan(rec["ttfts"][0]) and rec["ttfts"][1] == pytest.approx(0.01)
    # a failed request keeps vLLM's 0: it is never used
    assert _aiperf(_aiperf_line(None, {"message": "boom"}))["ttfts"] == [0.0]


def test_llmperf_null_ttft_is_unknown_and_never_good() -> None:
    items = [{"ttft_s": None, "end_to_end_latency_s": 1.0, "number_input_tokens": 8,
              "number_output_tokens": 4, "error_code": None},
             {"ttft_s": 0.05, "end_to_end_latency_s": 1.0, "number_input_tokens": 8,
              "number_output_tokens": 4, "error_code": None}]
    [run] = llmperf.read(json.dumps(items).encode(), "x_individual_responses.json")
    assert math.isnan(run.record["ttfts"][0]) and run.record["ttfts"][1] == 0.05
    got = bench_rows([(run.record | {"duration": 1.0, "completed": 2}, 1)], "x.json",
                     unknown=True)
    [req] = got.requests
    ttft = req.floats["ttft_s"]
    frame = pd.DataFrame({"success": [True, True], "ttft_s": ttft, "tpot_s": [np.nan] * 2,
                          "e2el_s": [1.0, 1.0]})
    # at any threshold the unknown TTFT is not good (it was 0 ms, good at ttft_ms=1)
    assert good_requests(frame, parse_slo("ttft_ms=1")).tolist() == [False, False]
    assert good_requests(frame, parse_slo("ttft_ms=1e9")).tolist() == [False, True]


def test_a_vllm_file_still_refuses_nan() -> None:
    from reportgen.errors import InputError
    with pytest.raises(InputError, match="NaN"):
        bench_rows([({"duration": 1.0, "completed": 1, "ttfts": [math.nan]}, 1)], "v.json")


def test_check_counts_and_names_the_unknown_values() -> None:
    requests = pd.DataFrame({
        "source": ["a.json"] * 3 + ["b.json"] * 2, "record": [0] * 5, "engine": ["e"] * 5,
        "success": pd.array([True, True, False, True, True], dtype="boolean"),
        "ttft_s": [math.nan, 0.1, 0.0, math.nan, math.nan],   # b.json states no TTFT at all
        "latency_s": [1.0, math.nan, 0.0, 1.0, 1.0]})
    rows = unknown_values(requests)
    got = sorted((r.params["where"], r.params["metric"], r.params["n"], r.params["total"])
                 for r in rows)
    assert got == [("a.json", "E2EL", 1, 2), ("a.json", "TTFT", 1, 2)]
    assert all(r.id == "requests.unknown" and r.status == "warn" for r in rows)


def test_guidellm_errored_and_incomplete_requests_are_sent() -> None:
    ok_req = {"time_to_first_token_ms": 20.0, "request_latency": 0.5, "prompt_tokens": 8,
              "output_tokens": 4}
    dist = {"successful": {"mean": 2.0, "median": 2.0, "std_dev": 0.0, "count": 14,
                           "total_sum": 28.0, "percentiles": {"p99": 3.0}}}
    bench = {"type_": "generative_benchmark", "start_time": 10.0, "end_time": 12.0,
             "config": {"strategy": {"type_": "concurrent", "streams": 2}},
             "metrics": {"request_totals": {"successful": 14, "errored": 1, "incomplete": 1,
                                            "total": 16},
                         "time_to_first_token_ms": dist, "output_token_count": dist,
                         "request_latency": dist},
             "requests": {"successful": [ok_req] * 14, "errored": [ok_req], "incomplete": []}}
    raw = json.dumps({"metadata": {"guidellm_version": "0.8.0"}, "benchmarks": [bench]})
    [run] = guidellm.read(raw.encode(), "benchmarks.json")
    errors = run.record["errors"]
    assert len(errors) == 16 and sum(e != "" for e in errors) == 2
    success = [e == "" for e in errors]
    frame = pd.DataFrame({"success": success,
                          "ttft_s": run.record["ttfts"], "tpot_s": [0.01] * 16,
                          "e2el_s": run.record["latencies"]})
    good = good_requests(frame, parse_slo("ttft_ms=1000"))
    assert good.sum() / len(good) == 0.875                  # 14 of 16, not 14 of 14
