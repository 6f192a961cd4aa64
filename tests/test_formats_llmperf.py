"""reportgen.load.formats.llmperf on a verbatim llmperf run (tests/data/llmperf: summary and
the same run's requests) and on a hand-written summary. Expected values come from the raw JSON
or are checkable by eye."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.load.formats import llmperf
from reportgen.load.round import load_round

DATA = Path(__file__).parent / "data" / "llmperf"
SUMMARY = DATA / "lepton_70b_summary.json"
REQUESTS = DATA / "lepton_70b_individual_responses.json"

TINY = {  # 10 requests started, 8 completed in 16 s (30 per minute), 5 concurrent
    "version": "2023-08-31", "model": "m", "mean_input_tokens": 100, "stddev_input_tokens": 0,
    "mean_output_tokens": 50, "stddev_output_tokens": 0, "num_concurrent_requests": 5,
    "results": {"ttft_s": {"quantiles": {"p50": 0.2, "p99": 0.4}, "mean": 0.25, "min": 0.1},
                "end_to_end_latency_s": {"quantiles": {"p50": 2.0}, "mean": 2.0},
                "inter_token_latency_s": {"quantiles": {"p50": 0.04}, "mean": 0.04},
                "number_output_tokens": {"mean": 50.0}, "number_input_tokens": {"mean": 100.0},
                "num_requests_started": 10, "number_errors": 2,
                "mean_output_throughput_token_per_s": 25.0, "num_completed_requests": 8,
                "num_completed_requests_per_min": 30.0},
    "timestamp": 1703638336,
}


def test_a_hand_written_summary_nested_or_flat() -> None:
    raw = json.dumps(TINY).encode()
    assert llmperf.sniff("x_summary.json", raw) is None  # nested keys: not llmperf's own output
    flat = json.dumps(llmperf._flat(TINY)).encode()
    assert llmperf.sniff("x_summary.json", flat) == "ray llmperf summary (*_summary.json)"
    [run] = llmperf.read(flat, "r/m_100_50_summary.json")
    rec = run.record
    assert run.key == "m_100_50"
    assert rec["duration"] == 16.0        # 8 completed at 30 per minute
    assert rec["completed"] == 8 and rec["failed"] == 2 and rec["num_prompts"] == 10
    assert rec["total_output_tokens"] == 400 and rec["output_throughput"] == 25.0
    assert rec["max_concurrency"] == 5 and "request_rate" not in rec
    assert rec["median_ttft_ms"] == 200.0 and rec["p99_ttft_ms"] == 400.0
    assert rec["mean_ttft_ms"] == 250.0 and rec["median_e2el_ms"] == 2000.0
    # llmperf's inter_token_latency_s is end-to-end time per output token: not an ITL
    assert rec["median_ntpot_ms"] == 40.0 and "median_itl_ms" not in rec
    assert rec["input_len"] == 100 and rec["output_len"] == 50
    assert rec["random_range_ratio"] == 0.0 and rec["date"] == "20231227-005216"


def test_the_real_summary_and_its_requests() -> None:
    o = json.loads(SUMMARY.read_bytes())
    [run] = llmperf.read(SUMMARY.read_bytes(), SUMMARY.name)
    rec = run.record
    assert rec["total_output_tokens"] / rec["duration"] == pytest.approx(
        o["results_mean_output_throughput_token_per_s"], rel=1e-6)
    assert rec["median_ttft_ms"] == pytest.approx(o["results_ttft_s_quantiles_p50"] * 1000)
    assert rec["failed"] == o["results_number_errors"]
    items = json.loads(REQUESTS.read_bytes())
    assert llmperf.sniff(REQUESTS.name, REQUESTS.read_bytes())
    [part] = llmperf.read(REQUESTS.read_bytes(), REQUESTS.name)
    assert part.requests_of == run.key == "lepton_70b"
    errors = part.record["errors"]
    assert len(errors) == len(items)
    assert sum(e == "" for e in errors) == o["results_num_completed_requests"]
    ok = [x for x in items if x["error_code"] is None]
    assert [t for t, e in zip(part.record["ttfts"], errors, strict=True) if not e] == \
        [x["ttft_s"] for x in ok]


def test_a_folder_joins_the_requests_to_their_run(tmp_path: Path) -> None:
    root = tmp_path / "round"
    (root / "summary").mkdir(parents=True)
    (root / "individual").mkdir()
    shutil.copy(SUMMARY, root / "summary" / "lepton_70b.json")
    shutil.copy(REQUESTS, root / "individual" / "lepton_70b.json")
    loaded = load_round(root)
    assert len(loaded.summary) == 1
    assert loaded.summary["client"].tolist() == ["llmperf"]
    assert "joined to that run" in dict(loaded.skipped)["individual/lepton_70b.json"]
    items = json.loads(REQUESTS.read_bytes())
    req = loaded.requests
    assert len(req) == len(items)
    assert int(req["success"].sum()) == sum(x["error_code"] is None for x in items)


def test_requests_without_their_summary_are_listed(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    shutil.copy(SUMMARY, root / "a_summary.json")
    shutil.copy(REQUESTS, root / "b_individual_responses.json")
    loaded = load_round(root)
    assert "not joined" in dict(loaded.skipped)["b_individual_responses.json"]
    assert loaded.requests.empty
