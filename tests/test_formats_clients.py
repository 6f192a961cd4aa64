"""The AIPerf, GenAI-Perf and GuideLLM readers on files the real clients wrote
(tests/data/clients/, see each README) and on small hand-made variants of them. Expected values
are parsed here from the raw files, never typed in."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest
import yaml

from reportgen.errors import InputError
from reportgen.load.bench_json import bench_rows
from reportgen.load.formats import READERS, aiperf, genai_perf, guidellm
from tests.client_fixtures import CLIENTS, FIXTURES, HEAD, claim, read_folder


def files(folder: str, name: str) -> list[Path]:
    found = sorted((CLIENTS / folder).rglob(name))
    assert found, f"no {name} under tests/data/clients/{folder}"
    return found


def test_every_fixture_folder_is_there_and_fully_claimed() -> None:
    for folder in FIXTURES:
        root = CLIENTS / folder
        assert (root / "README.md").is_file(), folder
        data = [p for p in root.rglob("*") if p.is_file() and p.suffix in
                (".json", ".jsonl", ".csv", ".yaml")]
        assert data, folder
        unclaimed = [p.relative_to(root).as_posix() for p in data if claim(p, root) is None]
        # every file a client wrote is claimed: a run, its requests, or listed as not a run
        assert not unclaimed, f"{folder}: no reader claims {unclaimed}"


def test_readers_are_registered_once_each() -> None:
    clients = [r.CLIENT for r in READERS]
    assert {"aiperf", "genai-perf", "guidellm"} <= set(clients)
    assert len(clients) == len(set(clients))


# ---------------------------------------------------------------- GuideLLM


def _dist(bench: dict, name: str) -> dict:
    return bench["metrics"][name]["successful"]


@pytest.mark.parametrize("folder", [f for f in FIXTURES if f.startswith("guidellm")])
def test_guidellm_json_values_come_from_the_successful_distributions(folder: str) -> None:
    for path in files(folder, "benchmarks.json"):
        data = json.loads(path.read_bytes())
        runs = guidellm.read(path.read_bytes(), path.name)
        assert len(runs) == len(data["benchmarks"]) > 0
        for run, bench in zip(runs, data["benchmarks"], strict=True):
            rec = run.record
            totals = bench["metrics"].get("request_totals") or bench["request_totals"]
            assert rec["completed"] == totals["successful"]
            assert rec["failed"] == totals["errored"] + totals["incomplete"]
            assert rec["duration"] == pytest.approx(bench["end_time"] - bench["start_time"])
            ttft = _dist(bench, "time_to_first_token_ms")
            assert rec["median_ttft_ms"] == ttft["median"]
            assert rec["p99_ttft_ms"] == ttft["percentiles"]["p99"]
            assert rec["p99.9_ttft_ms"] == ttft["percentiles"]["p999"]
            itl = _dist(bench, "inter_token_latency_ms")
            assert rec["mean_tpot_ms"] == rec["mean_itl_ms"] == itl["mean"]
            assert rec["median_e2el_ms"] == pytest.approx(
                _dist(bench, "request_latency")["median"] * 1000)
            # the client's own figure (the page computes tokens ÷ duration and shows both)
            assert rec["output_throughput"] == _dist(bench, "output_tokens_per_second")["mean"]
            holder = bench.get("config") or bench["args"]
            strategy, profile = holder["strategy"], holder["profile"]
            kind = strategy["type_"]
            if (profile.get("kind") or profile.get("type_")) == "sweep":
                # every benchmark of a sweep on the rate axis at its measured rate
                measured = _dist(bench, "requests_per_second")["mean"]
                assert rec["request_rate"] == measured and "max_concurrency" not in rec
                assert run.units["request_rate"].startswith(f"measured: the {kind} benchmark")
                assert run.settings["strategy"][0] == "sweep"
                continue
            if kind == "synchronous":
                assert rec["max_concurrency"] == 1
            elif kind == "concurrent":
                assert rec["max_concurrency"] == strategy["streams"]
            elif kind == "throughput":
                assert rec["request_rate"] == "inf"
            else:
                assert rec["request_rate"] == strategy["rate"]
            assert run.settings["strategy"][0] == kind
            assert run.definitions["tpot"].startswith("GuideLLM inter_token_latency")


@pytest.mark.parametrize("folder", [f for f in FIXTURES if f.startswith("guidellm")])
def test_guidellm_sweep_is_one_rate_sweep_at_measured_rates(folder: str) -> None:
    """A sweep (synchronous, throughput, then constant/Poisson rates) is one series on the
    rate axis: each benchmark at its measured requests per second, as GuideLLM draws it, the
    target rate (where there was one) in the note; the 512 cap is no concurrency tier."""
    [path] = files(folder, "sweep/benchmarks.json")
    benches = json.loads(path.read_bytes())["benchmarks"]
    runs = guidellm.read(path.read_bytes(), "sweep/benchmarks.json")
    kinds = [b["config"]["strategy"]["type_"] for b in benches]
    assert kinds[:2] == ["synchronous", "throughput"]
    assert set(kinds[2:]) <= {"poisson", "constant"} and len(kinds) > 2
    for run, bench, kind in zip(runs, benches, kinds, strict=True):
        rate = bench["metrics"]["requests_per_second"]["successful"]["mean"]
        assert run.record["request_rate"] == rate
        note = run.units["request_rate"]
        target = bench["config"]["strategy"].get("rate")
        assert note.startswith(f"measured: the {kind} benchmark of a GuideLLM sweep")
        assert (f"target {target:g} req/s" if target else "no target rate") in note
    rows = bench_rows([(r.record, r.line) for r in runs], "b.json").rows
    assert all(math.isnan(r["concurrency"]) for r in rows)
    # the last target equals throughput's measured rate (profiles/sweep.py): at targets two
    # benchmarks would share one point; measured, they are four
    assert len({r.record["request_rate"] for r in runs}) == len(runs)


def _sweep_bench(kind: str, rps: float | None, ok: int = 4, **strategy: object) -> dict:
    dist = {"successful": {"mean": 2.0, "median": 2.0, "std_dev": 0.0, "count": ok,
                           "total_sum": 4.0 * ok, "percentiles": {}}}
    metrics: dict = {"request_totals": {"successful": ok, "errored": 0, "incomplete": 0},
                     "time_to_first_token_ms": dist, "output_token_count": dist,
                     "request_latency": dist}
    if rps is not None:
        metrics["requests_per_second"] = {"successful": {"mean": rps, "count": ok}}
    return {"type_": "generative_benchmark", "start_time": 10.0, "end_time": 12.0,
            "config": {"strategy": {"type_": kind, **strategy},
                       "profile": {"type_": "sweep", "max_concurrency": 512}},
            "metrics": metrics}


def test_guidellm_sweep_hand_checkable() -> None:
    """synchronous at 1.5 req/s measured, throughput at 6, constant 3.75 (target) measured
    3.5, constant 6 (target) with no rate in the file: 8 requests / 2 s = 4."""
    raw = json.dumps({"benchmarks": [
        _sweep_bench("synchronous", 1.5, max_concurrency=1),
        _sweep_bench("throughput", 6.0, max_concurrency=512),
        _sweep_bench("constant", 3.5, rate=3.75, max_concurrency=512),
        _sweep_bench("poisson", None, ok=8, rate=6.0, max_concurrency=512)],
        "metadata": {"guidellm_version": "0.6.0"}}).encode()
    runs = guidellm.read(raw, "b.json")
    assert [r.record["request_rate"] for r in runs] == [1.5, 6.0, 3.5, 4.0]
    assert not any("max_concurrency" in r.record for r in runs)
    assert "target 3.75 req/s" in runs[2].units["request_rate"]
    assert "successful requests / duration" in runs[3].units["request_rate"]
    assert "target 6 req/s" in runs[3].units["request_rate"]
    assert runs[3].record["burstiness"] == 1.0
    assert "no target rate" in runs[0].units["request_rate"]
    assert {r.settings["strategy"][0] for r in runs} == {"sweep"}


def test_guidellm_plain_concurrent_profile_stays_on_the_concurrency_axis() -> None:
    for folder in (f for f in FIXTURES if f.startswith("guidellm")):
        [path] = files(folder, "concurrent/benchmarks.json")
        benches = json.loads(path.read_bytes())["benchmarks"]
        runs = guidellm.read(path.read_bytes(), "b.json")
        assert [r.record["max_concurrency"] for r in runs] == [
            b["config"]["strategy"]["streams"] for b in benches]
        assert not any("request_rate" in r.units for r in runs)


@pytest.mark.parametrize("folder", ["guidellm-0.8.1"])  # 0.4 wrote no YAML (--outputs json,yaml)
def test_guidellm_yaml_reads_as_its_json(folder: str) -> None:
    for path in files(folder, "benchmarks.yaml"):
        twin = path.with_suffix(".json")
        assert guidellm.sniff(path.name, path.read_bytes()[:HEAD]) == "GuideLLM benchmarks.yaml"
        from_yaml = guidellm.read(path.read_bytes(), path.name)
        from_json = guidellm.read(twin.read_bytes(), twin.name)
        assert [r.record for r in from_yaml] == [r.record for r in from_json]


def test_guidellm_per_request_arrays_match_the_file() -> None:
    [path] = files("guidellm-0.8.1", "concurrent/benchmarks.json")
    data = json.loads(path.read_bytes())
    for run, bench in zip(guidellm.read(path.read_bytes(), "b.json"), data["benchmarks"],
                          strict=True):
        good = bench["requests"]["successful"]
        assert run.record["ttfts"] == pytest.approx(
            [r["time_to_first_token_ms"] / 1000 for r in good])
        assert run.record["output_lens"] == [r["output_tokens"] for r in good]


def _guidellm_minimal(**strategy: object) -> bytes:
    dist = {"successful": {"mean": 2.0, "median": 2.0, "std_dev": 0.0, "count": 2,
                           "total_sum": 4.0, "percentiles": {"p99": 3.0}}}
    bench = {"type_": "generative_benchmark", "start_time": 10.0, "end_time": 12.0,
             "config": {"strategy": strategy},
             "metrics": {"request_totals": {"successful": 2, "errored": 1, "incomplete": 1,
                                            "total": 4},
                         "time_to_first_token_ms": dist, "output_token_count": dist,
                         "request_latency": dist}}
    return json.dumps({"metadata": {"guidellm_version": "0.8.0"},
                       "benchmarks": [bench]}).encode()


def test_guidellm_small_hand_checkable_benchmark() -> None:
    raw = _guidellm_minimal(type_="constant", rate=1.5)
    assert guidellm.sniff("benchmarks.json", raw) == "GuideLLM benchmarks.json"
    [run] = guidellm.read(raw, "b.json")
    rec = run.record
    assert (rec["completed"], rec["failed"], rec["num_prompts"]) == (2, 2, 4)
    assert rec["duration"] == 2.0
    assert rec["request_rate"] == 1.5
    assert rec["output_throughput"] == 2.0  # 4 tokens / 2 s
    assert rec["p99_ttft_ms"] == 3.0
    assert rec["median_e2el_ms"] == 2000.0  # request_latency is in seconds
    row = bench_rows([(rec, run.line)], "b.json").rows[0]
    assert (row["completed"], row["failed"], row["request_rate"]) == (2, 2, 1.5)


def test_guidellm_errors_name_the_file() -> None:
    with pytest.raises(InputError, match=r"b\.json.*schema not supported"):
        guidellm.read(b'{"benchmarks": [{"type_": "generative_benchmark"}]}', "b.json")
    with pytest.raises(InputError, match=r"b\.json"):
        guidellm.read(_guidellm_minimal(type_="concurrent", streams=2)[:-40], "b.json")
    with pytest.raises(InputError, match=r"b\.yaml.*YAML"):
        guidellm.read(b"benchmarks:\n  - type_: generative_benchmark\n   bad: [", "b.yaml")


# ---------------------------------------------------------------- AIPerf


def _aiperf_runs(folder: str) -> list[Path]:
    return files(folder, "profile_export_aiperf.json")


def test_aiperf_summary_values_and_units_come_from_the_blocks() -> None:
    for path in _aiperf_runs("aiperf-0.13.0"):
        data = json.loads(path.read_bytes())
        [run] = aiperf.read(path.read_bytes(), path.as_posix())
        rec = run.record
        assert data["time_to_first_token"]["unit"] == "ms"
        assert rec["median_ttft_ms"] == data["time_to_first_token"]["p50"]
        assert rec["mean_tpot_ms"] == data["inter_token_latency"]["avg"]
        assert rec["mean_itl_ms"] == data["inter_chunk_latency"]["avg"]
        assert rec["completed"] == data["request_count"]["avg"]
        assert data["benchmark_duration"]["unit"] == "sec"
        assert rec["duration"] == pytest.approx(data["benchmark_duration"]["avg"])
        assert rec["output_throughput"] == data["output_token_throughput"]["avg"]
        phase = [p for p in data["input_config"]["phases"] if p["type"] != "warmup"][-1]
        assert rec.get("max_concurrency") == phase.get("concurrency")
        assert rec.get("request_rate") == phase.get("rate", "inf")
        assert run.key == "profile_export" and not run.not_a_run


def test_aiperf_csv_gives_the_json_values() -> None:
    for path in _aiperf_runs("aiperf-0.13.0"):
        csv_path = path.with_suffix(".csv")
        shown = csv_path.relative_to(CLIENTS).as_posix()
        assert aiperf.sniff(shown, csv_path.read_bytes()[:HEAD]).startswith("AIPerf summary CSV")
        [from_csv] = aiperf.read(csv_path.read_bytes(), shown)
        [from_json] = aiperf.read(path.read_bytes(), path.as_posix())
        for key in ("median_ttft_ms", "p99_e2el_ms", "mean_tpot_ms", "output_throughput",
                    "duration", "completed"):
            assert from_csv.record[key] == pytest.approx(from_json.record[key], abs=0.006)
        # the CSV has no settings: the axis comes from the artifact folder's name
        assert from_csv.record.get("max_concurrency") == from_json.record.get("max_concurrency")
        assert from_csv.record.get("request_rate") == from_json.record.get("request_rate")


def test_aiperf_jsonl_is_the_runs_requests() -> None:
    for path in _aiperf_runs("aiperf-0.13.0"):
        jsonl = path.parent / "profile_export.jsonl"
        lines = [json.loads(x) for x in jsonl.read_text().splitlines() if x.strip()]
        prof = [x for x in lines if x["metadata"]["benchmark_phase"] == "profiling"]
        [run] = aiperf.read(jsonl.read_bytes(), "profile_export.jsonl")
        assert run.requests_of == "profile_export" and run.record["errors"] == [""] * len(prof)
        assert run.record["ttfts"] == pytest.approx(
            [x["metrics"]["time_to_first_token"]["value"] / 1000 for x in prof])
        assert [len(g) for g in run.record["itls"]] == [
            len(x["metrics"]["inter_chunk_latency"]["value"]) for x in prof]
        [summary] = aiperf.read(path.read_bytes(), "s.json")
        assert len(prof) == summary.record["completed"]


def test_aiperf_sweep_aggregate_is_listed_never_counted() -> None:
    [path] = files("aiperf-0.13.0", "profile_export_aiperf_sweep.json")
    assert "sweep aggregate" in aiperf.sniff(path.name, path.read_bytes()[:HEAD])
    [run] = aiperf.read(path.read_bytes(), path.name)
    assert run.not_a_run and not run.record


def test_aiperf_unknown_unit_is_refused_not_guessed() -> None:
    [path] = _aiperf_runs("aiperf-0.13.0")[:1]
    data = json.loads(path.read_bytes())
    data["time_to_first_token"]["unit"] = "fortnights"
    with pytest.raises(InputError, match=r"s\.json.*time_to_first_token.*fortnights"):
        aiperf.read(json.dumps(data).encode(), "s.json")
    data["time_to_first_token"]["unit"] = "s"  # a stated unit is followed, whatever the size
    [run] = aiperf.read(json.dumps(data).encode(), "s.json")
    assert run.record["median_ttft_ms"] == data["time_to_first_token"]["p50"] * 1000


def test_aiperf_old_config_layout() -> None:
    """Up to 0.12 the settings were under input_config.loadgen / input.prompt."""
    raw = json.dumps({
        "aiperf_version": "0.3.0", "request_count": {"unit": "requests", "avg": 4},
        "benchmark_duration": {"unit": "sec", "avg": 2.0},
        "time_to_first_token": {"unit": "ms", "avg": 50.0, "p50": 49.0},
        "input_config": {"endpoint": {"model_names": ["m"]},
                         "loadgen": {"concurrency": None, "request_rate": 2.5},
                         "input": {"prompt": {"input_tokens": {"mean": 128, "stddev": 0}}}},
    }).encode()
    [run] = aiperf.read(raw, "p.json")
    assert run.record["request_rate"] == 2.5 and "max_concurrency" not in run.record
    assert run.record["model_id"] == "m" and run.record["input_len"] == 128
    assert run.record["median_ttft_ms"] == 49.0 and run.record["duration"] == 2.0


# ---------------------------------------------------------------- GenAI-Perf


GENAI_REAL = CLIENTS.parent / "genai-perf-real" / "profile_export_genai_perf.json"


def test_genai_perf_published_file_without_counts_is_a_run_of_unknown_size() -> None:
    """A real 24.12-era summary (tests/data/genai-perf-real/SOURCE.md) has no request_count:
    it is a run whose throughputs and latencies are read, its requests and time unknown (never
    0), and says so."""
    raw = GENAI_REAL.read_bytes()
    data = json.loads(raw)
    assert genai_perf.sniff("artifacts/x/profile_export_genai_perf.json", raw[:HEAD])
    [run] = genai_perf.read(raw, "profile_export_genai_perf.json")
    assert not run.not_a_run
    rec = run.record
    assert "completed" not in rec and "duration" not in rec and "total_output_tokens" not in rec
    assert "request_count" in run.units["completed"]
    assert rec["output_throughput"] == data["output_token_throughput"]["avg"]
    assert rec["request_throughput"] == data["request_throughput"]["avg"]
    assert rec["median_ttft_ms"] == data["time_to_first_token"]["p50"]
    assert rec["max_concurrency"] == data["input_config"]["concurrency"]


def test_genai_perf_without_counts_builds_a_page_without_zero_counts(tmp_path: Path) -> None:
    """The whole load: the run is placed at its concurrency with its throughput; its request
    count is unknown (NaN), so the page states no failed-request total."""
    from reportgen.load.round import load_round

    data = json.loads(GENAI_REAL.read_bytes())
    runs = load_round(GENAI_REAL.parent).runs
    [row] = runs.to_dict("records")
    assert row["concurrency"] == data["input_config"]["concurrency"]
    assert row["output_tok_s"] == pytest.approx(data["output_token_throughput"]["avg"])
    assert math.isnan(row["completed"]) and math.isnan(row["duration_s"])
    from click.testing import CliRunner

    from reportgen.cli import main

    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["build", str(GENAI_REAL.parent), "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    # no "0 / 0" failed requests, no "— / —" lengths: neither is stated
    assert "Failed requests" not in page and "In / Out" not in page


def test_genai_perf_with_counts_uses_the_blocks() -> None:
    """The published file's blocks plus a request_count and the nested config of 0.0.14+
    (hand-made from a published 24.12-era file; the real 0.0.16 fixture is tested below)."""
    data = json.loads(GENAI_REAL.read_bytes())
    data["request_count"] = {"unit": "count", "avg": 500}
    flat = data.pop("input_config")
    data["input_config"] = {"model_names": flat["model"],
                            "perf_analyzer": {"stimulus": {"concurrency": 100}},
                            "input": {"synthetic_tokens": {"mean": 200, "stddev": 0},
                                      "output_tokens": {"mean": 500, "stddev": 0}}}
    [run] = genai_perf.read(json.dumps(data).encode(), "g.json")
    rec = run.record
    assert rec["median_ttft_ms"] == data["time_to_first_token"]["p50"]
    assert rec["mean_tpot_ms"] == data["inter_token_latency"]["avg"]  # GenAI-Perf's "ITL"
    assert "mean_itl_ms" not in rec
    assert rec["output_throughput"] == data["output_token_throughput"]["avg"]
    assert rec["duration"] == pytest.approx(500 / data["request_throughput"]["avg"])
    assert rec["total_output_tokens"] == round(data["output_sequence_length"]["avg"] * 500)
    assert (rec["max_concurrency"], rec["model_id"]) == (100, "ensemble")
    assert (rec["input_len"], rec["output_len"]) == (200, 500)


def test_genai_perf_csv_axis_from_the_artifact_folder() -> None:
    """GenAI-Perf's CSV exporter layout (export_data/csv_exporter.py): a stats table, a blank
    row, a Metric,Value table with thousands separators."""
    text = (
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n"
        "Time To First Token (ms),40.00,30.00,90.00,88.00,80.00,70.00,50.00,41.00,35.00,"
        "33.00,32.00,31.00\r\n"
        "Inter Token Latency (ms),5.00,4.00,7.00,6.90,6.50,6.00,5.50,5.10,4.80,4.50,4.20,"
        "4.10\r\n\r\n"
        "Metric,Value\r\n"
        'Output Token Throughput (tokens/sec),"1,234.50"\r\n'
        "Request Throughput (per sec),2.00\r\n"
        "Request Count (count),10.00\r\n")
    shown = "artifacts/m-openai-chat-concurrency8/profile_export_genai_perf.csv"
    assert genai_perf.sniff(shown, text.encode()) and not aiperf.sniff(shown, text.encode())
    [run] = genai_perf.read(text.encode(), shown)
    rec = run.record
    rows = list(csv.reader(io.StringIO(text)))
    assert rec["median_ttft_ms"] == float(rows[1][8]) == 41.0
    assert rec["output_throughput"] == 1234.5
    assert (rec["completed"], rec["duration"], rec["max_concurrency"]) == (10, 5.0, 8)
    assert "folder" in run.settings["max_concurrency"][1]


def test_genai_perf_old_flat_config() -> None:
    raw = json.dumps({
        "request_throughput": {"unit": "requests/sec", "avg": 2.0},
        "request_latency": {"unit": "ms", "avg": 500.0, "p99": 900.0},
        "request_count": {"unit": "count", "avg": 10},
        "input_config": {"model": ["m"], "concurrency": 8, "synthetic_input_tokens_mean": 200,
                         "synthetic_input_tokens_stddev": 0},
    }).encode()
    assert genai_perf.sniff("profile_export_genai_perf.json", raw)
    [run] = genai_perf.read(raw, "g.json")
    rec = run.record
    assert rec["max_concurrency"] == 8 and rec["duration"] == 5.0  # 10 requests / 2 per s
    assert rec["p99_e2el_ms"] == 900.0 and rec["input_len"] == 200 and rec["model_id"] == "m"


# ---------------------------------------------------------------- into the common record


@pytest.mark.parametrize("folder", FIXTURES)
def test_every_run_passes_through_bench_rows(folder: str) -> None:
    runs = 0
    for claimed in read_folder(CLIENTS / folder):
        for run in claimed.runs:
            if run.not_a_run or run.requests_of:
                continue
            runs += 1
            got = bench_rows([(run.record, run.line)], claimed.shown)
            [row] = got.rows
            assert row["completed"] == run.record["completed"]
            assert row["duration_s"] == pytest.approx(run.record["duration"])
            assert row["output_throughput_tok_s"] == pytest.approx(
                run.record["output_throughput"])
            assert row["ttft_median_ms"] == pytest.approx(run.record["median_ttft_ms"])
            conc = run.record.get("max_concurrency")
            assert row["concurrency"] == conc or (conc is None and math.isnan(
                row["concurrency"]))
            assert run.client == "" or run.client == claimed.reader.CLIENT
    assert runs >= 3


def test_yaml_parser_is_a_safe_one() -> None:
    with pytest.raises(InputError):
        guidellm.read(b"benchmarks: !!python/object/apply:os.system ['true']\n", "b.yaml")
    assert yaml.__version__


def test_guidellm_published_file() -> None:
    """GuideLLM's own test asset, a real 0.3 sweep benchmark (tests/data/guidellm-real)."""
    root = CLIENTS.parent / "guidellm-real"
    raw = (root / "benchmarks_stripped.json").read_bytes()
    bench = json.loads(raw)["benchmarks"][0]
    [run] = guidellm.read(raw, "benchmarks_stripped.json")
    rec = run.record
    # the synchronous benchmark of a sweep (args.profile.type_): at its measured rate
    assert bench["args"]["profile"]["type_"] == "sweep"
    assert rec["request_rate"] == bench["metrics"]["requests_per_second"]["successful"]["mean"]
    assert "max_concurrency" not in rec
    assert rec["completed"] == bench["request_totals"]["successful"]
    assert rec["failed"] == bench["request_totals"]["errored"] + bench["request_totals"][
        "incomplete"]
    ttft = bench["metrics"]["time_to_first_token_ms"]["successful"]
    assert rec["median_ttft_ms"] == ttft["median"]
    assert "ntpot" not in str(sorted(rec))  # 0.3's TPOT matches no other client's: left out
    assert (rec["input_len"], rec["output_len"]) == (256, 128)  # from its data spec
    [from_yaml] = guidellm.read((root / "benchmarks_stripped.yaml").read_bytes(), "b.yaml")
    assert from_yaml.record == rec
    row = bench_rows([(rec, run.line)], "benchmarks_stripped.json").rows[0]
    assert row["request_rate"] == rec["request_rate"] and row["completed"] == rec["completed"]


def test_client_files_benchmark_runs_at_a_tiny_scale(tmp_path: Path) -> None:
    """benchmarks/client_fixture_files.py (2,000 files per format) on 3 files a format."""
    import sys

    sys.path.insert(0, str(CLIENTS.parents[2]))
    from benchmarks import client_fixture_files as client_files

    for fmt, make in client_files.FORMATS.items():
        root = tmp_path / fmt.replace(" ", "_")
        paths = client_files.write(root, make, 3)
        seconds, runs = client_files.time_reading(root, paths)
        assert runs == 3 * (3 if fmt.startswith("guidellm") else 1), fmt
        assert client_files.time_floor(paths) > 0 and seconds > 0


def test_aiperf_03_reads_loadgen_settings_and_its_jsonl() -> None:
    for path in _aiperf_runs("aiperf-0.3.0"):
        data = json.loads(path.read_bytes())
        [run] = aiperf.read(path.read_bytes(), path.name)
        rec, loadgen = run.record, data["input_config"]["loadgen"]
        assert rec.get("max_concurrency") == loadgen.get("concurrency")
        assert rec.get("request_rate") == (loadgen.get("request_rate") or "inf")
        assert rec["median_ttft_ms"] == data["time_to_first_token"]["p50"]
        assert rec["mean_tpot_ms"] == data["inter_token_latency"]["avg"]
        assert "loadgen" in run.settings[next(iter(
            k for k in ("max_concurrency", "request_rate") if k in run.settings))][1]
        jsonl = path.parent / "profile_export.jsonl"
        [reqs] = aiperf.read(jsonl.read_bytes(), jsonl.name)
        assert len(reqs.record["ttfts"]) == rec["completed"]


GENAI = "genai-perf-0.0.16"


def test_genai_perf_real_summary_and_csv_agree_and_state_the_stimulus() -> None:
    """The real client's JSON and CSV of one run give the same record (the CSV rounded to two
    decimals); the JSON's stimulus, the CSV's folder name, give the axis."""
    for path in files(GENAI, "profile_export_genai_perf.json"):
        data = json.loads(path.read_bytes())
        [run] = genai_perf.read(path.read_bytes(), path.name)
        [csv_run] = genai_perf.read(path.with_suffix(".csv").read_bytes(),
                                    path.with_suffix(".csv").relative_to(CLIENTS).as_posix())
        rec, stimulus = run.record, data["input_config"]["perf_analyzer"]["stimulus"]
        assert rec["median_ttft_ms"] == data["time_to_first_token"]["p50"]
        assert rec["completed"] == data["request_count"]["avg"]
        assert csv_run.record["median_ttft_ms"] == pytest.approx(rec["median_ttft_ms"], abs=0.005)
        if "concurrency" in stimulus:
            assert rec["max_concurrency"] == csv_run.record["max_concurrency"] \
                == stimulus["concurrency"]
        else:
            assert rec["request_rate"] == csv_run.record["request_rate"] \
                == stimulus["request_rate"]


def test_genai_perf_raw_export_is_listed_not_read() -> None:
    """perf_analyzer's profile_export.json beside the summary is the same run's raw
    timestamps: listed with why, never a second run."""
    paths = files(GENAI, "profile_export.json")
    for path in paths:
        assert claim(path, CLIENTS / GENAI) is genai_perf
        [run] = genai_perf.read(path.read_bytes(), path.name)
        assert "profile_export_genai_perf.json" in run.not_a_run and not run.record


def _pooled_gaps_ms(jsonl: Path) -> list[float]:
    """Every chunk gap of every record of an AIPerf profile_export.jsonl, in ms."""
    gaps: list[float] = []
    for line in jsonl.read_text(encoding="utf-8").splitlines():
        if line.strip():
            value = json.loads(line)["metrics"].get("inter_chunk_latency")
            gaps += value["value"] if isinstance(value, dict) else value or []
    return gaps


@pytest.mark.parametrize(("version", "estimated"), [
    ("0.3.0", False), ("0.8.0", True), ("0.13.0", False)])
def test_aiperf_itl_percentiles_estimated_by_a_t_digest(version: str, estimated: bool) -> None:
    """AIPerf 0.8 - 0.11 keep inter_chunk_latency in a t-digest: the summary's p99 is not the
    exact percentile of the gaps in profile_export.jsonl (its mean is). The reader says so, and
    the self-check compares only what is exact; other versions are compared whole."""
    import numpy as np

    from reportgen.analyze.checks import arrays_vs_summary
    from reportgen.analyze.request_stats import recompute_stats
    from reportgen.load.round import load_round

    folder = sorted((CLIENTS / f"aiperf-{version}").rglob("profile_export.jsonl"))[0].parent
    summary = json.loads((folder / "profile_export_aiperf.json").read_text(encoding="utf-8"))
    gaps = _pooled_gaps_ms(folder / "profile_export.jsonl")
    icl = summary["inter_chunk_latency"]
    assert icl["avg"] == pytest.approx(float(np.mean(gaps)), rel=1e-9)
    exact_p99 = float(np.percentile(gaps, 99))
    assert (abs(icl["p99"] - exact_p99) > 1e-6 * exact_p99) is estimated
    [run] = aiperf.read((folder / "profile_export_aiperf.json").read_bytes(), "x.json")
    assert any(e.metric == "itl" and e.percentiles for e in run.not_recomputable) is estimated

    loaded = load_round(folder)
    checks = arrays_vs_summary(loaded.summary, recompute_stats(loaded.requests, loaded.itls))
    assert checks and all(c.status == "pass" for c in checks), [c.status for c in checks]
    # a mean that disagrees still fails, estimated percentiles or not
    wrong = loaded.summary.assign(itl_mean_ms=loaded.summary["itl_mean_ms"] * 1.1)
    assert any(c.status == "fail" for c in arrays_vs_summary(
        wrong, recompute_stats(loaded.requests, loaded.itls)))


@pytest.mark.parametrize("version", ["0.4.0", "0.8.1"])
def test_guidellm_percentiles_are_not_compared_with_linear_ones(version: str) -> None:
    """GuideLLM's percentiles are the first value whose cumulative probability reaches p (and
    its TPOT distribution is weighted by output tokens - 1): a summary median that is not numpy's
    linear median of the requests is no failure; a mean that disagrees still is."""
    from reportgen.analyze.checks import arrays_vs_summary
    from reportgen.analyze.request_stats import recompute_stats
    from reportgen.load.round import load_round

    folder = CLIENTS / f"guidellm-{version}" / "concurrent"
    loaded = load_round(folder)
    recomputed = recompute_stats(loaded.requests, loaded.itls)
    checks = arrays_vs_summary(loaded.summary, recomputed)
    assert checks and all(c.status == "pass" for c in checks), [c.status for c in checks]
    wrong = loaded.summary.assign(ttft_mean_ms=loaded.summary["ttft_mean_ms"] * 1.1)
    assert any(c.status == "fail" for c in arrays_vs_summary(wrong, recomputed))
