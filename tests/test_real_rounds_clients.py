"""The shared real folders written by other clients (real_rounds under REPORTGEN_SHARED, else
../shared: inference-perf and llmperf, no round.toml): every run the raw files hold appears
once in `reportgen tables`' runs table with the numbers parsed here from the raw files, in the
right configuration and tier; the files that are not runs are listed with their reason.
Marked `shared` (tests/data_paths.py finds the folder; conftest skips without it, and fails in
CI)."""

from __future__ import annotations

import functools
import json
from pathlib import PurePosixPath
from typing import Any

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.load.round import load_round
from tests.data_paths import SHARED_ROUNDS

ROUNDS = SHARED_ROUNDS
IPERF = "inference-perf-6-configs-rate-stages-h100"
LLMPERF = "llmperf-leaderboard-hosted-apis"

pytestmark = pytest.mark.shared


@functools.cache
def tables(name: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["tables", str(ROUNDS / name), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def runs(name: str) -> dict[str, dict[str, Any]]:
    rows = tables(name)["runs"]
    out = {r["source"]: r for r in rows}
    assert len(out) == len(rows)
    return out


def skipped(name: str) -> dict[str, str]:
    return {s["file"].removeprefix(f"{name}/"): s["reason"] for s in tables(name)["skipped"]}


def test_inference_perf_every_stage_is_a_run_at_its_rate() -> None:
    root = ROUNDS / IPERF
    stages = sorted(root.rglob("stage_*_lifecycle_metrics.json"))
    assert len(stages) == 42
    got = runs(IPERF)
    assert len(got) == len(stages)
    assert tables(IPERF)["round"]["axis"] == "request_rate"
    grids: dict[str, list[float]] = {}
    for p in stages:
        o = json.loads(p.read_text(encoding="utf-8"))
        ok = o["successes"]
        row = got[p.relative_to(root).as_posix()]
        folder = p.parts[-3]  # <configuration>/results/stage_N_…
        assert row["engine"] == folder.replace("+", "-").lower()  # the folder names it
        assert row["request_rate"] == pytest.approx(o["load_summary"]["requested_rate"])
        assert row["output_tok_s"] == pytest.approx(ok["throughput"]["output_tokens_per_sec"],
                                                    rel=1e-6)
        assert row["completed"] == ok["count"]
        assert row["failed"] == o["failures"]["count"]
        lat = ok["latency"]
        for column, key in (("ttft_p50_ms", "time_to_first_token"),
                            ("itl_p50_ms", "inter_token_latency"),
                            ("tpot_p50_ms", "time_per_output_token"),
                            ("e2el_p50_ms", "request_latency")):
            assert row[column] == pytest.approx(lat[key]["median"] * 1000, rel=1e-9), column
        grids.setdefault(row["engine"], []).append(row["request_rate"])
    assert len(grids) == 6
    assert len({tuple(sorted(g)) for g in grids.values()}) > 1  # each its own rate grid


def test_inference_perf_reports_that_are_not_runs_are_listed() -> None:
    root = ROUNDS / IPERF
    listed = skipped(IPERF)
    for p in root.rglob("summary_lifecycle_metrics.json"):
        assert "every stage together" in listed[p.relative_to(root).as_posix()]
    for p in root.rglob("*_prometheus_metrics.json"):
        assert "Prometheus" in listed[p.relative_to(root).as_posix()]


def test_llmperf_every_summary_is_a_run_with_its_numbers() -> None:
    root = ROUNDS / LLMPERF
    files = sorted((root / "raw_data" / "summary").glob("*.json"))
    assert len(files) == 19
    got = runs(LLMPERF)
    assert len(got) == len(files)
    assert tables(LLMPERF)["round"]["axis"] == "concurrency"
    for p in files:
        o = json.loads(p.read_text(encoding="utf-8"))
        row = got[p.relative_to(root).as_posix()]
        assert row["concurrency"] == o["num_concurrent_requests"]
        assert row["output_tok_s"] == pytest.approx(
            o["results_mean_output_throughput_token_per_s"], rel=1e-6)
        assert row["ttft_p50_ms"] == pytest.approx(o["results_ttft_s_quantiles_p50"] * 1000)
        assert row["e2el_p50_ms"] == pytest.approx(
            o["results_end_to_end_latency_s_quantiles_p50"] * 1000)
        assert row["completed"] == o["results_num_completed_requests"]
        assert row["failed"] == o["results_number_errors"]
        assert row["itl_p50_ms"] is None  # llmperf's "inter_token_latency" is not an ITL
    assert len({r["engine"] for r in got.values()}) == 19


def test_llmperf_requests_are_joined_to_their_runs() -> None:
    root = ROUNDS / LLMPERF
    listed = skipped(LLMPERF)
    loaded = load_round(root)
    assert set(loaded.summary["client"]) == {"llmperf"}
    labels = [e.label.en for e in loaded.manifest.engines]
    assert len(set(labels)) == len(labels) == 19  # two providers' "…/llama-2-70b-chat" apart
    for p in sorted((root / "raw_data" / "individual").glob("*.json")):
        rel = p.relative_to(root).as_posix()
        assert "joined to that run" in listed[rel]
        items = [x for x in json.loads(p.read_text(encoding="utf-8")) if isinstance(x, dict)]
        source = f"{LLMPERF}/raw_data/summary/{PurePosixPath(rel).name}"
        req = loaded.requests[loaded.requests["source"] == source]
        assert len(req) == len(items), rel
        assert int(req["success"].sum()) == sum(x["error_code"] is None for x in items), rel
