"""reportgen.load.formats.inferencex: decode-SLO results (vendored, tests/data/inferencex) whose
latencies are seconds by definition, and a hand-written agentic summary in the schema of
InferenceX's utils/agentic/aggregation. Expected values are read from the raw JSON here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.load.formats import inferencex as ix
from reportgen.load.round import load_round

DATA = Path(__file__).parent / "data" / "inferencex"
TEP8 = DATA / "minimax_m25_vllm_tep8_isl1024_osl128_conc16.json"

AGENTIC = {  # 12 requests of 2 s at concurrency 4, 10 ok; latencies in seconds
    "hw": "b200", "conc": 4, "model": "org/m", "framework": "sglang", "precision": "fp4",
    "scenario_type": "agentic-coding", "tp": 8, "ep": 8, "dp_attention": True,
    "num_requests_total": 12, "num_requests_successful": 10,
    "request_accounting": {"records_total": 12, "records_error_dropped": 2},
    "request_metrics": {
        "latency": {"ttft": {"mean": 0.5, "p50": 0.4, "p90": 0.9, "std": 0.1},
                    "itl": {"mean": 0.02, "p50": 0.02}, "tpot": {"mean": 0.02, "p50": 0.02},
                    "e2el": {"mean": 2.0, "p50": 2.0}},
        "throughput": {"output": {"tokens_per_second": 50.0}, "duration_seconds": 20.0},
    },
}


def test_decode_slo_latencies_are_seconds_by_definition() -> None:
    raw = TEP8.read_bytes()
    o = json.loads(raw)
    assert ix.sniff(TEP8.name, raw)
    [run] = ix.read(raw, TEP8.name)
    rec = run.record
    for metric in ("ttft", "e2el", "tpot"):
        assert rec[f"median_{metric}_ms"] == pytest.approx(o[f"median_{metric}"] * 1000)
        assert rec[f"p99_{metric}_ms"] == pytest.approx(o[f"p99_{metric}"] * 1000)
        assert f"median_{metric}" not in rec
    assert rec["output_throughput"] == o["output_throughput"]
    assert "seconds" in run.units["latency"]


def test_a_plain_vllm_result_is_not_claimed() -> None:
    raw = json.dumps({"duration": 1.0, "completed": 2, "median_ttft_ms": 3.0}).encode()
    assert ix.sniff("r.json", raw) is None


def test_agentic_summary_in_the_common_record() -> None:
    [run] = ix.read(json.dumps(AGENTIC).encode(), "agg_x.json")
    rec = run.record
    assert rec["duration"] == 20.0 and rec["completed"] == 10 and rec["failed"] == 2
    assert rec["total_output_tokens"] == 1000 and rec["max_concurrency"] == 4
    assert rec["median_ttft_ms"] == 400.0 and rec["p90_ttft_ms"] == 900.0
    assert rec["mean_tpot_ms"] == 20.0 and "mean_itl_ms" not in rec  # AIPerf's ITL is a TPOT
    assert rec["tp"] == "8" and rec["dp_attention"] == "true"
    assert run.settings["tensor_parallel"][0] == "8"


def test_agentic_flat_schema() -> None:
    flat = {k: v for k, v in AGENTIC.items() if k != "request_metrics"}
    flat |= {"p50_ttft": 0.4, "mean_e2el": 2.0, "output_tput_tps": 50.0,
             "duration_seconds": 20.0}
    assert ix.sniff("agg.json", json.dumps(flat).encode())
    [run] = ix.read(json.dumps(flat).encode(), "agg.json")
    assert run.record["median_ttft_ms"] == 400.0 and run.record["mean_e2el_ms"] == 2000.0
    assert run.record["duration"] == 20.0


def test_a_folder_keeps_layouts_and_stated_lengths_apart(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    for f in DATA.glob("*.json"):
        shutil.copy(f, root / f.name)
    loaded = load_round(root)
    s = loaded.summary
    assert set(s["client"]) == {"inferencex"}
    assert len(s) == 4
    # TEP8 and DEP8 at one workload and concurrency: two configurations, not two repeats
    cells = s.groupby(["engine", "workload", "concurrency"]).size()
    assert cells.max() == 1
    assert len(set(s["engine"])) == 2
    # 18432 and 20480 are within 10 % of each other; the names state them: two workloads
    labels = {w.id for w in loaded.workloads}
    assert labels == {"1024-128", "18432-128", "20480-128"}
    for path in DATA.glob("*.json"):
        o = json.loads(path.read_bytes())
        row = s[s["source"].str.endswith(path.name)].iloc[0]
        assert row["ttft_median_ms"] == pytest.approx(o["median_ttft"] * 1000)
