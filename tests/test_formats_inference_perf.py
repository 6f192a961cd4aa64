"""reportgen.load.formats.inference_perf on verbatim inference-perf reports (tests/data) and on
a hand-written stage small enough to check by eye. Expected values are read from the raw JSON
here, never typed in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.load.formats import inference_perf as ip
from reportgen.load.round import load_round

DATA = Path(__file__).parent / "data" / "inference_perf"
STAGE = DATA / "stage_0_lifecycle_metrics.json"


def _stats(v: float) -> dict[str, float]:
    return {"mean": v, "median": v, "p90": v * 2, "min": v / 2, "max": v * 3}


TINY = {  # 4 requests in 2 s at 2 req/s; latencies in seconds
    "load_summary": {"count": 4, "requested_rate": 2.0, "achieved_rate": 2.0},
    "successes": {
        "count": 4,
        "latency": {"time_to_first_token": _stats(0.05), "request_latency": _stats(1.0),
                    "inter_token_latency": _stats(0.01), "time_per_output_token": _stats(0.02),
                    "normalized_time_per_output_token": _stats(0.04)},
        "throughput": {"input_tokens_per_sec": 200.0, "output_tokens_per_sec": 100.0,
                       "total_tokens_per_sec": 300.0, "requests_per_sec": 2.0},
    },
    "failures": {"count": 1},
}


def test_a_hand_written_stage_in_the_common_record() -> None:
    raw = json.dumps(TINY).encode()
    assert ip.sniff("stage_0_lifecycle_metrics.json", raw) == "inference-perf lifecycle report"
    [run] = ip.read(raw, "r/stage_0_lifecycle_metrics.json")
    rec = run.record
    assert run.client == "inference-perf" and not run.not_a_run
    assert rec["duration"] == 2.0          # 4 successes / 2 req/s
    assert rec["completed"] == 4 and rec["failed"] == 1 and rec["num_prompts"] == 5
    assert rec["total_output_tokens"] == 200 and rec["total_input_tokens"] == 400
    assert rec["request_rate"] == 2.0 and "max_concurrency" not in rec
    assert rec["median_ttft_ms"] == 50.0 and rec["p90_ttft_ms"] == 100.0
    assert rec["median_e2el_ms"] == 1000.0 and rec["median_itl_ms"] == 10.0
    assert rec["median_tpot_ms"] == 20.0 and rec["median_ntpot_ms"] == 40.0
    assert not any(k.startswith(("min_", "max_")) for k in rec)  # min/max are not statistics here
    assert "seconds" in run.units["latency"]


def test_benchmark_time_wins_and_a_concurrency_stage_has_its_concurrency() -> None:
    data = {**TINY, "benchmark_time_seconds": 2.5,
            "load_summary": {**TINY["load_summary"], "concurrency": 8}}
    [run] = ip.read(json.dumps(data).encode(), "stage_1_lifecycle_metrics.json")
    assert run.record["duration"] == 2.5 and run.record["max_concurrency"] == 8


def test_the_real_stage_file() -> None:
    raw = STAGE.read_bytes()
    o = json.loads(raw)
    [run] = ip.read(raw, STAGE.name)
    rec = run.record
    ok = o["successes"]
    assert rec["request_rate"] == o["load_summary"]["requested_rate"]
    assert rec["completed"] == ok["count"]
    assert rec["duration"] == pytest.approx(ok["count"] / ok["throughput"]["requests_per_sec"])
    assert rec["total_output_tokens"] / rec["duration"] == pytest.approx(
        ok["throughput"]["output_tokens_per_sec"], rel=1e-6)
    lat = ok["latency"]
    assert rec["median_ttft_ms"] == pytest.approx(lat["time_to_first_token"]["median"] * 1000)
    assert rec["p99.9_e2el_ms"] == pytest.approx(lat["request_latency"]["p99.9"] * 1000)


@pytest.mark.parametrize(("name", "why"), [
    ("summary_lifecycle_metrics.json", "every stage together"),
    ("stage_0_prometheus_metrics.json", "Prometheus"),
])
def test_reports_that_are_not_runs_say_why(name: str, why: str) -> None:
    raw = (DATA / name).read_bytes()
    assert ip.sniff(name, raw)
    [run] = ip.read(raw, name)
    assert why in run.not_a_run


def test_not_claimed_other_json() -> None:
    assert ip.sniff("x.json", b'{"duration": 1, "completed": 2}') is None
    assert ip.sniff("x.json", b"[1, 2]") is None


def test_broken_report_names_the_file() -> None:
    with pytest.raises(InputError, match=r"stage_0_lifecycle_metrics\.json"):
        ip.read(b'{"load_summary": [], "successes": {}}', "stage_0_lifecycle_metrics.json")
    bad = {**TINY, "successes": {**TINY["successes"], "count": -1}}
    with pytest.raises(InputError, match=r"successes\.count"):
        ip.read(json.dumps(bad).encode(), "s.json")


def test_a_folder_of_reports_loads_with_the_client_column(tmp_path: Path) -> None:
    root = tmp_path / "round"
    (root / "results").mkdir(parents=True)
    for f in DATA.glob("*.json"):
        shutil.copy(f, root / "results" / f.name)
    (root / "results" / "stage_1_lifecycle_metrics.json").write_text(json.dumps(TINY))
    loaded = load_round(root)
    assert sorted(loaded.summary["request_rate"]) == [1.0, 2.0]
    assert set(loaded.summary["client"]) == {"inference-perf"}
    skipped = dict(loaded.skipped)
    assert "every stage together" in skipped["results/summary_lifecycle_metrics.json"]
    assert "Prometheus" in skipped["results/stage_0_prometheus_metrics.json"]
