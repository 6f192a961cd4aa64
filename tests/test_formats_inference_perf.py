"""reportgen.load.formats.inference_perf on verbatim inference-perf reports (tests/data) and on
a hand-written stage small enough to check by eye. Expected values are read from the raw JSON
here, never typed in."""

from __future__ import annotations

import json
import shutil
from itertools import pairwise
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


# ------------------------------------------- per-request data of every stage, split by stage


def _request(start: float, ttft: float, gap: float, n_out: int, flavour: str,
             error: str | None = None) -> dict:
    """One entry of per_request_lifecycle_metrics.json (reportgen/base.py), in the token-time
    layout of each version: ``flat`` (≤ 0.4), ``response_info`` (0.5), ``response_metrics``
    (0.6+)."""
    times = [start + ttft + k * gap for k in range(n_out)] if error is None else []
    end = times[-1] if times else start + 0.5
    resp = {"output_tokens": n_out if error is None else 0, "output_token_times": times}
    info: dict = {"input_tokens": 10}
    if flavour == "flat":
        info.update(resp)
    else:
        info[flavour] = resp
    return {"start_time": start, "end_time": end, "request": "{}", "response": None,
            "info": info,
            "error": {"error_type": "HTTP 500", "error_msg": error} if error else None}


def _stage_report(n_ok: int, n_failed: int, rate: float) -> dict:
    tput = {k: v * rate for k, v in TINY["successes"]["throughput"].items()}
    return {**TINY, "load_summary": {"count": n_ok + n_failed, "requested_rate": rate},
            "successes": {**TINY["successes"], "count": n_ok, "throughput": tput},
            "failures": {"count": n_failed}}


def _stages_folder(root: Path, flavour: str) -> list[dict]:
    """Stage 0 at 1 req/s: requests at t = 100, 101 (TTFT 0.1 s); stage 1 at 2 req/s:
    t = 110, 110.5, 111, the second failed (TTFT 0.3 s). Written in completion order, not
    in order of sending, as inference-perf's collector keeps them."""
    reqs = [_request(110.0, 0.3, 0.02, 4, flavour), _request(100.0, 0.1, 0.01, 3, flavour),
            _request(111.0, 0.3, 0.02, 4, flavour), _request(101.0, 0.1, 0.01, 3, flavour),
            _request(110.5, 0.3, 0.02, 4, flavour, error="boom")]
    (root / "results").mkdir(parents=True)
    (root / "results" / "per_request_lifecycle_metrics.json").write_text(json.dumps(reqs))
    (root / "results" / "stage_0_lifecycle_metrics.json").write_text(
        json.dumps(_stage_report(2, 0, 1.0)))
    (root / "results" / "stage_1_lifecycle_metrics.json").write_text(
        json.dumps(_stage_report(2, 1, 2.0)))
    return reqs


@pytest.mark.parametrize("flavour", ["flat", "response_info", "response_metrics"])
def test_per_request_file_is_sorted_by_start_and_read_in_seconds(flavour: str,
                                                                 tmp_path: Path) -> None:
    reqs = _stages_folder(tmp_path / "r", flavour)
    raw = (tmp_path / "r" / "results" / "per_request_lifecycle_metrics.json").read_bytes()
    assert ip.sniff("per_request_lifecycle_metrics.json", raw)
    [part] = ip.read(raw, "per_request_lifecycle_metrics.json")
    assert part.requests_of == "stage_*" and not part.not_a_run
    rec = part.record
    assert rec["ttfts"][:2] == pytest.approx([0.1, 0.1])   # stage 0 first: t = 100, 101
    assert rec["ttfts"][2] == pytest.approx(0.3)
    assert rec["errors"] == ["", "", "", "HTTP 500: boom", ""]
    assert rec["ttfts"][3] == 0.0 and rec["output_lens"] == [3, 3, 4, 0, 4]
    assert rec["latencies"][0] == pytest.approx(0.1 + 2 * 0.01)
    assert rec["itls"][0] == pytest.approx([0.01, 0.01]) and rec["itls"][3] == []
    assert len(reqs) == 5


def test_per_request_data_is_split_by_stage(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _stages_folder(root, "response_metrics")
    loaded = load_round(root)
    req = loaded.requests.merge(loaded.summary[["source", "record", "request_rate"]],
                                on=["source", "record"])
    by_rate = req.groupby("request_rate")
    assert by_rate.size().to_dict() == {1.0: 2, 2.0: 3}
    assert by_rate["success"].sum().to_dict() == {1.0: 2, 2.0: 2}
    ttft = req[req["success"].astype(bool)].groupby("request_rate")["ttft_s"].mean()
    assert ttft.to_dict() == pytest.approx({1.0: 0.1, 2.0: 0.3})
    skipped = dict(loaded.skipped)
    assert "split in order of sending" in skipped["results/per_request_lifecycle_metrics.json"]


def test_per_request_data_that_does_not_add_up_is_listed_not_guessed(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _stages_folder(root, "flat")
    # stage 1 now says 3 successes: the requests in order of sending hold 2
    (root / "results" / "stage_1_lifecycle_metrics.json").write_text(
        json.dumps(_stage_report(3, 0, 2.0)))
    loaded = load_round(root)
    why = dict(loaded.skipped)["results/per_request_lifecycle_metrics.json"]
    assert "not split" in why and "stage_1" in why
    assert loaded.requests.empty


REAL = Path(__file__).parent / "data" / "clients" / "inference-perf-0.7.0"


def test_the_real_clients_per_request_file_splits_into_its_stages() -> None:
    """inference-perf 0.7.0's own files (tests/data/clients/inference-perf-0.7.0/README.md):
    each stage gets exactly its requests, and the TTFT and E2E latency medians of the
    requests it gets are the ones inference-perf reports for that stage."""
    loaded = load_round(REAL)
    stages = sorted((REAL / "results").glob("stage_*_lifecycle_metrics.json"))
    assert len(stages) == 3
    req = loaded.requests.merge(loaded.summary[["source", "record", "request_rate"]],
                                on=["source", "record"])
    n = req.groupby("request_rate").size()
    for path in stages:
        o = json.loads(path.read_bytes())
        rate = o["load_summary"]["requested_rate"]
        assert n[rate] == o["load_summary"]["count"]
        mine = req[(req["request_rate"] == rate) & req["success"].astype(bool)]
        lat = o["successes"]["latency"]
        assert mine["ttft_s"].median() == pytest.approx(lat["time_to_first_token"]["median"])
        assert mine["latency_s"].median() == pytest.approx(lat["request_latency"]["median"])
    assert len(req) == len(json.loads(
        (REAL / "results" / "per_request_lifecycle_metrics.json").read_bytes()))


@pytest.mark.parametrize(("name", "why"), [
    ("config.yaml", "configuration as it ran"),
    ("inference-perf.partial.stage_0.yaml", "benchmark-report schema"),
    ("validation.json", "validation of its own reports"),
])
def test_the_real_clients_side_files_say_what_they_are(name: str, why: str) -> None:
    raw = (REAL / "results" / name).read_bytes()
    assert why in (ip.sniff(name, raw[:65536]) or "")
    [run] = ip.read(raw, name)
    assert why in run.not_a_run


def test_computed_metrics_without_info_read_the_same(tmp_path: Path) -> None:
    """0.7 with ``per_request_fields: {info: false, computed_metrics: true}``: the client's own
    per-request TTFT, gaps and token counts give the same arrays as the token times."""
    reqs = _stages_folder(tmp_path / "r", "response_metrics")
    lean = []
    for r in reqs:
        times = r["info"]["response_metrics"]["output_token_times"]
        entry = {"start_time": r["start_time"], "end_time": r["end_time"], "error": r["error"]}
        if r["error"] is None:
            entry["computed_metrics"] = {
                "request_latency": r["end_time"] - r["start_time"],
                "time_to_first_token": times[0] - r["start_time"],
                "inter_token_latencies": [b - a for a, b in pairwise(times)],
                "input_tokens": 10, "output_tokens": len(times)}
        lean.append(entry)
    raw = json.dumps(lean).encode()
    assert ip.sniff("per_request_lifecycle_metrics.json", raw)
    [full] = ip.read(json.dumps(reqs).encode(), "p.json")
    [part] = ip.read(raw, "p.json")
    for key in ("ttfts", "latencies", "output_lens", "errors"):
        assert part.record[key] == pytest.approx(full.record[key]), key
    ok = [i for i, e in enumerate(full.record["errors"]) if not e]
    # a failed request's prompt length is in info only
    assert [part.record["input_lens"][i] for i in ok] == [full.record["input_lens"][i]
                                                          for i in ok]
    for mine, theirs in zip(part.record["itls"], full.record["itls"], strict=True):
        assert mine == pytest.approx(theirs)
