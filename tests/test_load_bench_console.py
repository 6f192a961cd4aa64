"""Benchmark client console output: the real vLLM logs parse to the values their result JSONs
hold (at the printed precision), the Namespace line supplies the run's settings, SGLang's table
maps onto vLLM's keys, and a broken table is an InputError naming the file and line."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from data_paths import REAL_ROUNDS, SHARED_SAMPLES

from reportgen.errors import InputError
from reportgen.load.bench_console import looks_like_console, parse_console, parse_namespace

JAN_2026 = SHARED_SAMPLES / "vllm-bench-serve-result-2026-01"   # no licence stated: not vendored
JAN_TXT = JAN_2026 / "run_1_TP8_DP1_CTX1024_C100_P100_O128.txt"
JAN_JSON = JAN_2026 / "run_1_TP8_DP1_CTX1024_C100_P100_O128.json"
SWEEP = REAL_ROUNDS / "a100-vs-tpu-request-rate-sweep"
SWEEP_LOGS = sorted(SWEEP.glob("vllm-bench-*/bench-results/*/bench-short-rate*.log"))
WARMUP_LOGS = sorted(SWEEP.glob("vllm-bench-*/bench-results/*/warmup.log"))

# The vLLM rows below are built with the format strings of vllm/benchmarks/serve.py@def9ce85
# (`"{:<40} {:<10}"` for counts, `"{:<40} {:<10.2f}"` for the rest, 50-wide rules).
HEADER = "{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="=")
RULE = "=" * 50


def row(label: str, value: object) -> str:
    return "{:<40} {:<10}".format(label, value)  # noqa: UP032 - serve.py's own string


def row2(label: str, value: float) -> str:
    return "{:<40} {:<10.2f}".format(label, value)  # noqa: UP032 - as serve.py


def section(title: str) -> str:
    return "{s:{c}^{n}}".format(s=title, n=50, c="-")


def vllm_block(completed: int = 10, duration: float = 5.0, ttft: float = 12.5,
               concurrency: int | None = None) -> list[str]:
    lines = [HEADER, row("Successful requests:", completed), row("Failed requests:", 0)]
    if concurrency is not None:
        lines.append(row("Maximum request concurrency:", concurrency))
    lines += [
        row2("Benchmark duration (s):", duration),
        row("Total input tokens:", completed * 100),
        row("Total generated tokens:", completed * 10),
        row2("Request throughput (req/s):", completed / duration),
        row2("Output token throughput (tok/s):", completed * 10 / duration),
        row2("Peak output token throughput (tok/s):", 42.0),
        row2("Peak concurrent requests:", 3),
        row2("Total token throughput (tok/s):", completed * 110 / duration),
        section("Time to First Token"),
        row2("Mean TTFT (ms):", ttft),
        row2("Median TTFT (ms):", ttft - 1),
        row2("P99 TTFT (ms):", ttft + 10),
        RULE,
    ]
    return lines


def vllm_namespace(**override: object) -> str:
    args: dict[str, object] = {
        "subparser": "'bench'", "seed": 0, "num_prompts": 10, "dataset_name": "'random'",
        "random_input_len": 100, "random_output_len": 10, "random_range_ratio": 0.0,
        "sharegpt_output_len": None, "backend": "'openai'", "max_concurrency": None,
        "model": "'org/model'", "input_len": None, "output_len": None, "tokenizer": None,
        "request_rate": "inf", "burstiness": 1.0, "ignore_eos": False,
    }
    args.update(override)
    return "Namespace(" + ", ".join(f"{k}={v}" for k, v in args.items()) + ")"


def parse_text(text: str, name: str = "run.log") -> list[tuple[dict[str, object], int]]:
    return parse_console(text.encode(), name)


def printed(value: float) -> str:
    """How `{:<10.2f}` shows a JSON value: the precision the console keeps."""
    return f"{value:.2f}"


# ---------------------------------------------------------------- real files


@pytest.mark.shared
def test_jan_2026_sample_equals_its_json_at_printed_precision() -> None:
    (record, line), = parse_console(JAN_TXT.read_bytes(), JAN_TXT.name)
    data = json.loads(JAN_JSON.read_text())
    lines = JAN_TXT.read_bytes().split(b"\n")
    assert b"Serving Benchmark Result" in lines[line - 1]
    assert line == 17
    counts = ("completed", "failed", "total_input_tokens", "total_output_tokens", "num_prompts",
              "max_concurrency")
    for key in counts:
        assert record[key] == data[key] and isinstance(record[key], int), key
    floats = [k for k in record if k not in counts and isinstance(data.get(k), float)]
    # every printed float row and all 12 printed latency rows (no std: never printed)
    assert len(floats) == 18 and all(not k.startswith("std_") for k in record)
    assert len([k for k in floats if k.endswith("_ms")]) == 12
    for key in floats:
        assert printed(record[key]) == printed(data[key]), key
    assert printed(record["max_concurrent_requests"]) == printed(data["max_concurrent_requests"])
    assert record["request_rate"] == data["request_rate"] == "inf"
    assert record["burstiness"] == data["burstiness"] == 1.0
    assert record["backend"] == data["backend"] and record["model_id"] == data["model_id"]
    # keys the console never shows are absent rather than invented
    assert {"request_goodput", "std_ttft_ms", "date", "rtfx"}.isdisjoint(record)
    assert record["client"] == "vllm"
    assert record["dataset_name"] == "random"
    assert (record["random_input_len"], record["random_output_len"]) == (1024, 128)
    assert record["random_range_ratio"] == 0.0 and isinstance(record["random_range_ratio"], float)
    assert record["seed"] == 0 and record["ignore_eos"] is True
    # tokenizer=None / input_len=None / sharegpt_output_len=None: not set, so not carried
    assert {"tokenizer", "input_len", "output_len", "sharegpt_output_len"}.isdisjoint(record)


def test_sweep_logs_are_present_with_their_progress_line() -> None:
    assert len(SWEEP_LOGS) == 14
    raw = SWEEP_LOGS[0].read_bytes()
    longest = max(raw.split(b"\n"), key=len)
    assert len(longest) > 20_000 and longest.count(b"\r") > 300


@pytest.mark.parametrize("log", SWEEP_LOGS, ids=lambda p: f"{p.parts[-4]}/{p.name}")
def test_sweep_log_matches_its_result_json(log: Path) -> None:
    result = json.loads((log.parent / log.name.replace("bench-", "result-")
                         .replace(".log", ".json")).read_text())
    records = parse_console(log.read_bytes(), log.name)
    if log.parts[-4] == "vllm-bench-gpu" and log.name == "bench-short-rate2.log":
        # this captured log stops at 79 % of the progress bar: no table was ever printed
        assert records == [] and not looks_like_console(log.read_bytes())
        return
    (record, line), = records
    assert b"Serving Benchmark Result" in log.read_bytes().split(b"\n")[line - 1]
    assert record["completed"] == result["completed"] == 1000
    assert record["failed"] == result["failed"] == 0
    for key in ("output_throughput", "duration", "median_ttft_ms", "median_itl_ms"):
        assert abs(record[key] - result[key]) <= 0.005 + 1e-9, key
    # settings from the argparse Namespace line
    assert record["max_concurrency"] is None and result["max_concurrency"] is None
    assert record["request_rate"] == result["request_rate"]
    assert record["num_prompts"] == result["num_prompts"] == 1000
    assert record["model_id"] == result["model_id"]
    assert record["dataset_name"] == "random"
    assert (record["random_input_len"], record["random_output_len"]) == (1024, 256)
    assert record["ignore_eos"] is False  # as printed (before vLLM may force it for random)
    # no in-table concurrency row (no cap) and, at rate inf, no configured-rate row
    text = log.read_text()
    assert ("Request rate configured (RPS):" in text) == (result["request_rate"] != "inf")


@pytest.mark.parametrize("log", WARMUP_LOGS, ids=lambda p: p.parts[-4])
def test_warmup_log_parses_like_any_run(log: Path) -> None:
    (record, _), = parse_console(log.read_bytes(), log.name)
    assert record["num_prompts"] == record["completed"] == 50
    assert record["request_rate"] == 4.0


# ---------------------------------------------------------------- hand-made vLLM output


def test_several_runs_each_get_their_own_namespace_and_line() -> None:
    lines = [
        vllm_namespace(num_prompts=10, request_rate=2.0, max_concurrency=4),
        "Traffic request rate: 2.0",
        "Burstiness factor: 1.0 (Poisson process)",
        "Maximum request concurrency: 4",
        *vllm_block(completed=10, concurrency=4),
        "",
        vllm_namespace(num_prompts=20, request_rate="inf", random_input_len=200),
        "Traffic request rate: inf",
        "Maximum request concurrency: None",
        *vllm_block(completed=20, ttft=30.0),
    ]
    (first, line1), (second, line2) = parse_text("\n".join(lines))
    assert (line1, line2) == (5, 26)
    assert lines[line1 - 1] == lines[line2 - 1] == HEADER
    assert (first["num_prompts"], first["request_rate"], first["max_concurrency"]) == (10, 2.0, 4)
    assert (second["num_prompts"], second["request_rate"]) == (20, "inf")
    assert second["max_concurrency"] is None and second["random_input_len"] == 200
    assert first["mean_ttft_ms"] == 12.5 and second["mean_ttft_ms"] == 30.0
    assert first["completed"] == 10 and second["completed"] == 20


def test_lines_of_an_earlier_run_without_table_do_not_leak() -> None:
    # a run that died before its table (like the truncated GPU rate-2 log), then a new run
    lines = [vllm_namespace(request_rate=2.0, max_concurrency=8), "Traffic request rate: 2.0",
             "Maximum request concurrency: 8", "  3%|3    | 30/1000",
             vllm_namespace(request_rate="inf"), *vllm_block()]
    (record, line), = parse_text("\n".join(lines))
    assert line == 6 and record["request_rate"] == "inf" and record["max_concurrency"] is None


def test_lines_above_one_table_do_not_carry_to_the_next() -> None:
    lines = ["Traffic request rate: 2.0", "Burstiness factor: 0.5 (Gamma distribution)",
             "Maximum request concurrency: 8", *vllm_block(concurrency=8), *vllm_block()]
    (first, _), (second, _) = parse_text("\n".join(lines))
    assert (first["request_rate"], first["max_concurrency"]) == (2.0, 8)
    assert first["burstiness"] == 0.5
    assert {"request_rate", "max_concurrency", "burstiness"}.isdisjoint(second)


def test_table_cut_at_end_of_file_keeps_what_was_printed() -> None:
    (record, _), = parse_text("\n".join(vllm_block()[:-5]))  # no latency rows, no rule
    assert record["completed"] == 10 and "mean_ttft_ms" not in record
    with pytest.raises(InputError) as err:
        parse_text("\n".join(["x", *vllm_block()[:3]]))  # cut before the duration row
    assert err.value.line == 2


def test_only_a_namespace_line_counts_as_settings() -> None:
    text = "\n".join(["error: bad Namespace(seed=5, num_prompts=9)", *vllm_block()])
    (record, _), = parse_text(text)
    assert "seed" not in record and "num_prompts" not in record


def test_truncated_real_log_followed_by_a_complete_one() -> None:
    gpu = SWEEP / "vllm-bench-gpu" / "bench-results" / "20260427-104816-gemma4-gpu"
    first = (gpu / "bench-short-rate2.log").read_bytes()
    second = (gpu / "bench-short-rateinf.log").read_bytes()
    (record, line), = parse_console(first + b"\n" + second, "both.log")
    assert line == first.count(b"\n") + 1 + 12
    assert record["request_rate"] == "inf" and record["completed"] == 1000


def test_block_without_namespace_has_values_but_no_settings() -> None:
    (record, line), = parse_text("\n".join(["some wrapper output", *vllm_block()]))
    assert line == 2
    assert record["completed"] == 10 and record["duration"] == 5.0
    assert record["median_ttft_ms"] == 11.5 and record["p99_ttft_ms"] == 22.5
    settings = {"num_prompts", "request_rate", "max_concurrency", "dataset_name", "model_id",
                "random_input_len", "seed", "ignore_eos", "burstiness", "backend"}
    assert settings.isdisjoint(record)
    assert record["client"] == "vllm"


def test_values_are_int_when_printed_integral() -> None:
    (record, _), = parse_text("\n".join(vllm_block()))
    assert isinstance(record["completed"], int) and isinstance(record["total_input_tokens"], int)
    assert isinstance(record["duration"], float)
    # vLLM prints the observed peak with {:.2f}: "3.00" stays a float
    assert record["max_concurrent_requests"] == 3.0
    assert isinstance(record["max_concurrent_requests"], float)


def test_none_concurrency_in_the_table_and_above_it() -> None:
    fork = [HEADER, row("Successful requests:", 5), row("Failed requests:", 0),
            row("Maximum request concurrency:", "None"), row2("Benchmark duration (s):", 1.0),
            RULE]
    (record, _), = parse_text("\n".join(fork))
    assert "max_concurrency" in record and record["max_concurrency"] is None
    (record, _), = parse_text("\n".join(["Maximum request concurrency: None", *vllm_block()]))
    assert "max_concurrency" in record and record["max_concurrency"] is None
    (record, _), = parse_text("\n".join(vllm_block(concurrency=64)))
    assert record["max_concurrency"] == 64


def test_inf_rate_from_namespace_line_and_table() -> None:
    (record, _), = parse_text("\n".join([vllm_namespace(request_rate="inf"), *vllm_block()]))
    assert record["request_rate"] == "inf"
    (record, _), = parse_text("\n".join(["Traffic request rate: inf", *vllm_block()]))
    assert record["request_rate"] == "inf"


def test_configured_rate_row_yields_to_exact_namespace_rate() -> None:
    block = vllm_block()
    block.insert(3, row2("Request rate configured (RPS):", 0.125))  # printed "0.12"
    (record, _), = parse_text("\n".join(block))
    assert record["request_rate"] == 0.12  # all there is: the rounded row
    (record, _), = parse_text("\n".join([vllm_namespace(request_rate=0.125), *block]))
    assert record["request_rate"] == 0.125


def test_model_fetched_from_server_is_the_printed_model_id() -> None:
    text = "\n".join([vllm_namespace(model=None), "Model not specified, fetching first model "
                      "from server...", "First model name: served, first model id: org/root",
                      *vllm_block()])
    (record, _), = parse_text(text)
    assert record["model_id"] == "org/root"


def test_general_input_output_len_aliases_are_carried() -> None:
    (record, _), = parse_text("\n".join([vllm_namespace(input_len=2048, output_len=64,
                                                        tokenizer="'org/tok'", seed=7),
                                         *vllm_block()]))
    assert (record["input_len"], record["output_len"]) == (2048, 64)
    assert record["tokenizer"] == "org/tok" and record["seed"] == 7


def test_percentile_with_decimals_and_all_metric_names() -> None:
    block = [
        *vllm_block()[:-1],
        row2("P99.9 TTFT (ms):", 40.0),
        section("Time per Output Token (excl. 1st token)"), row2("Mean TPOT (ms):", 2.0),
        section("Inter-token Latency"), row2("P50 ITL (ms):", 3.0),
        section("End-to-end Latency"), row2("Median E2EL (ms):", 400.0),
        section("Client-side Queueing"), row2("Mean Client Queue Time (ms):", 5.0),
        row2("Median probe E2EL (ms):", 6.0),
        row2("Mean Mystery (ms):", 7.0),  # a metric this parser does not know: not guessed
        RULE,
    ]
    (record, _), = parse_text("\n".join(block))
    assert record["p99.9_ttft_ms"] == 40.0 and record["mean_tpot_ms"] == 2.0
    assert record["p50_itl_ms"] == 3.0 and record["median_e2el_ms"] == 400.0
    assert record["mean_client_queue_time_ms"] == 5.0
    assert record["probe_median_e2el_ms"] == 6.0
    assert not any("mystery" in k.lower() for k in record)


def test_old_benchmark_serving_table() -> None:
    # benchmarks/benchmark_serving.py@0049e29c: no failed/peak rows, capital-T "Token"
    old = [HEADER, row("Successful requests:", 100), row2("Benchmark duration (s):", 9.5),
           row("Total input tokens:", 1000), row("Total generated tokens:", 500),
           row2("Request throughput (req/s):", 10.53),
           row2("Output token throughput (tok/s):", 52.63),
           row2("Total Token throughput (tok/s):", 157.89), RULE]
    (record, _), = parse_text("\n".join(old))
    assert record["total_token_throughput"] == 157.89
    assert "failed" not in record and "max_output_tokens_per_s" not in record


def test_crlf_and_carriage_return_progress_before_the_header() -> None:
    lines = vllm_block()
    lines[0] = " 50%|#####     | 5/10\r100%|##########| 10/10\r" + lines[0]
    (record, line), = parse_console("\r\n".join(lines).encode(), "win.log")
    assert line == 1 and record["completed"] == 10 and record["duration"] == 5.0


def test_megabyte_progress_line_parses_in_linear_time() -> None:
    bar = "".join(f"\r {i % 100:3d}%|#####     | {i}/100000 [00:01<00:01, 9.9it/s]"
                  for i in range(60_000))
    assert len(bar) > 3_000_000
    text = "\n".join([vllm_namespace(), "Starting main benchmark run...", bar, *vllm_block()])
    start = time.perf_counter()
    (record, line), = parse_text(text)
    assert time.perf_counter() - start < 5.0
    assert line == 4 and record["completed"] == 10
    assert looks_like_console((bar + "\n" + HEADER).encode()) is True


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    raw = b"\xff\xfe garbage\n" + "\n".join(vllm_block()).encode()
    (record, line), = parse_console(raw, "bin.log")
    assert line == 2 and record["completed"] == 10


# ---------------------------------------------------------------- SGLang


def sglang_output() -> str:
    """Console text built with the exact format strings of SGLang's
    python/sglang/bench_serving.py @ 0033168f0f58b2bc05aa0273bd475d9c01bafb1c (`benchmark()`:
    a leading "\\n" before the header, "not set" for no concurrency cap, no TPOT section,
    P95/Max ITL) and `run_benchmark()`'s `print(f"benchmark_args={args}")`. The Namespace
    values are made up; the argument names are that file's."""
    namespace = (
        "benchmark_args=Namespace(backend='sglang', base_url=None, host='0.0.0.0', port=30000, "
        "dataset_name='random', dataset_path='', model='meta-llama/Llama-3.1-8B-Instruct', "
        "tokenizer=None, num_prompts=200, sharegpt_output_len=None, random_input_len=1024, "
        "random_output_len=256, random_range_ratio=0.5, request_rate=8.0, "
        "max_concurrency=None, output_file=None, disable_tqdm=False, disable_stream=False, "
        "disable_ignore_eos=False, extra_request_body=None, seed=1, warmup_requests=1)"
    )
    out = [namespace, "#Input tokens: 153600", "#Output tokens: 38400",
           "Starting warmup with 1 sequences...",
           "Warmup completed with 1 sequences. Starting main benchmark run..."]
    backend, request_rate, max_concurrency = "sglang", 8.0, None
    out.append("\n{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    out.append("{:<40} {:<10}".format("Backend:", backend))
    out.append("{:<40} {:<10}".format("Traffic request rate:", request_rate))
    out.append("{:<40} {:<10}".format(
        "Max request concurrency:", max_concurrency if max_concurrency else "not set"))
    out.append("{:<40} {:<10}".format("Successful requests:", 200))
    out.append("{:<40} {:<10.2f}".format("Benchmark duration (s):", 31.234))
    out.append("{:<40} {:<10}".format("Total input tokens:", 153600))
    out.append("{:<40} {:<10}".format("Total generated tokens:", 38400))
    out.append("{:<40} {:<10}".format("Total generated tokens (retokenized):", 38211))
    out.append("{:<40} {:<10.2f}".format("Request throughput (req/s):", 6.403))
    out.append("{:<40} {:<10.2f}".format("Input token throughput (tok/s):", 4917.7))
    out.append("{:<40} {:<10.2f}".format("Output token throughput (tok/s):", 1229.4))
    out.append("{:<40} {:<10.2f}".format("Total token throughput (tok/s):", 6147.1))
    out.append("{:<40} {:<10.2f}".format("Concurrency:", 7.84))
    out.append("{s:{c}^{n}}".format(s="End-to-End Latency", n=50, c="-"))
    out.append("{:<40} {:<10.2f}".format("Mean E2E Latency (ms):", 1224.5))
    out.append("{:<40} {:<10.2f}".format("Median E2E Latency (ms):", 1180.25))
    out.append("{s:{c}^{n}}".format(s="Time to First Token", n=50, c="-"))
    out.append("{:<40} {:<10.2f}".format("Mean TTFT (ms):", 45.5))
    out.append("{:<40} {:<10.2f}".format("Median TTFT (ms):", 40.125))
    out.append("{:<40} {:<10.2f}".format("P99 TTFT (ms):", 130.0))
    out.append("{s:{c}^{n}}".format(s="Inter-Token Latency", n=50, c="-"))
    out.append("{:<40} {:<10.2f}".format("Mean ITL (ms):", 4.6))
    out.append("{:<40} {:<10.2f}".format("Median ITL (ms):", 4.2))
    out.append("{:<40} {:<10.2f}".format("P95 ITL (ms):", 7.5))
    out.append("{:<40} {:<10.2f}".format("P99 ITL (ms):", 12.0))
    out.append("{:<40} {:<10.2f}".format("Max ITL (ms):", 80.0))
    out.append("=" * 50)
    return "\n".join(out) + "\n"


def test_sglang_table_maps_to_vllm_keys() -> None:
    text = sglang_output()
    assert looks_like_console(text.encode())
    (record, line), = parse_text(text)
    assert text.split("\n")[line - 1].startswith("=" * 12 + " Serving Benchmark Result")
    assert line == 7  # the "\n" printed before the header is its own (blank) line 6
    assert record["client"] == "sglang"
    assert record["backend"] == "sglang" and record["request_rate"] == 8.0
    assert "max_concurrency" in record and record["max_concurrency"] is None  # "not set"
    assert (record["completed"], record["duration"]) == (200, 31.23)
    assert record["total_output_tokens"] == 38400
    assert record["total_output_tokens_retokenized"] == 38211
    assert record["total_token_throughput"] == 6147.1
    assert record["input_throughput"] == 4917.7
    assert record["concurrency"] == 7.84 and "max_concurrent_requests" not in record
    assert (record["mean_e2el_ms"], record["median_e2el_ms"]) == (1224.5, 1180.25)
    assert record["median_ttft_ms"] == 40.12 and record["p99_ttft_ms"] == 130.0
    assert (record["p95_itl_ms"], record["max_itl_ms"]) == (7.5, 80.0)
    assert not any("tpot" in k for k in record)  # this version prints no TPOT rows
    assert "failed" not in record  # SGLang prints no failed count
    # settings from the benchmark_args=Namespace(...) line
    assert record["num_prompts"] == 200 and record["model_id"].endswith("8B-Instruct")
    assert (record["random_input_len"], record["random_output_len"]) == (1024, 256)
    assert record["random_range_ratio"] == 0.5 and record["seed"] == 1
    assert "ignore_eos" not in record  # SGLang has disable_ignore_eos: not renamed or guessed


def test_sglang_multi_rate_tables_share_one_namespace_but_keep_their_rate() -> None:
    one = sglang_output()
    second = one[one.index("\n\n") + 1:].replace(
        "{:<40} {:<10}".format("Traffic request rate:", 8.0),
        "{:<40} {:<10}".format("Traffic request rate:", "inf"))
    (a, _), (b, _) = parse_text(one + second)
    assert a["request_rate"] == 8.0 and b["request_rate"] == "inf"
    assert a["num_prompts"] == b["num_prompts"] == 200


def test_sglang_trace_rate_is_not_a_number_and_is_left_out() -> None:
    text = sglang_output().replace("{:<40} {:<10}".format("Traffic request rate:", 8.0),
                                   "{:<40} {:<10}".format("Traffic request rate:", "trace"))
    (record, _), = parse_text(text)
    assert record["request_rate"] == 8.0  # the Namespace's, not "trace"


# ---------------------------------------------------------------- errors


def test_table_without_successful_requests_names_the_header_line() -> None:
    text = "\n".join(["Namespace(seed=0)", HEADER, row2("Benchmark duration (s):", 1.0), RULE])
    with pytest.raises(InputError) as err:
        parse_text(text, "broken.log")
    assert err.value.line == 2 and err.value.path == "broken.log"
    assert "Successful requests" in err.value.message


def test_table_without_duration_and_cut_off_by_the_next_header() -> None:
    text = "\n".join([HEADER, row("Successful requests:", 3), *vllm_block()])
    with pytest.raises(InputError) as err:
        parse_text(text)
    assert err.value.line == 1 and "Benchmark duration" in err.value.message


def test_value_that_is_not_a_number_names_its_line() -> None:
    lines = vllm_block()
    lines[4] = row("Total input tokens:", "lots")
    with pytest.raises(InputError) as err:
        parse_text("\n".join(["x", *lines]), "bad.log")
    assert err.value.line == 6
    assert "Total input tokens" in err.value.message and "number" in err.value.message
    assert str(err.value).startswith("bad.log:6: ")


def test_fractional_concurrency_cap_is_an_error() -> None:
    with pytest.raises(InputError) as err:
        parse_text("\n".join(vllm_block(concurrency=2.5)))  # type: ignore[arg-type]
    assert err.value.line == 4


def test_no_table_at_all_gives_no_records() -> None:
    assert parse_text("INFO starting\nTraffic request rate: inf\n 10%|#  | 1/10\r") == []
    assert parse_console(b"", "empty.log") == []


# ---------------------------------------------------------------- detection


@pytest.mark.shared
def test_looks_like_console_on_the_jan_2026_sample() -> None:
    assert looks_like_console(JAN_TXT.read_bytes()[:1 << 20])
    assert not looks_like_console(JAN_JSON.read_bytes())


def test_looks_like_console() -> None:
    assert looks_like_console(SWEEP_LOGS[0].read_bytes()[:1 << 20])
    assert not looks_like_console(SWEEP_LOGS[0].with_name("result-short-rate1.json").read_bytes())
    assert looks_like_console(b"progress\r" + HEADER.encode() + b"\n")
    assert looks_like_console(("\n" + "{s:{c}^{n}}".format(
        s=" Serving Benchmark Result ", n=50, c="=")).encode())
    # the phrase alone is not a header: JSON, prose, a plain server log
    assert not looks_like_console(b'{"note": "Serving Benchmark Result"}')
    assert not looks_like_console(b"see the Serving Benchmark Result table below\n")
    assert not looks_like_console(b"INFO 04-27 Started server process\n")
    assert not looks_like_console(b"=" * 5000 + b" Serving Benchmark Result ===")


# ---------------------------------------------------------------- Namespace tokenizer


def test_namespace_values_respect_quotes_brackets_and_reprs() -> None:
    pairs = parse_namespace(
        "Namespace(a=1, b='x, y)', c=\"it's, (fine)\", d={(256, 256, 1): 0.5, (7, 8): 1.0}, "
        "f=<function Sub.cmd at 0x7afccb58d1c0>, g=[25.0, 50.0], h=inf, i=None, j=True, "
        "k='a\\'b, c', l={'image': 255, 'video': 1}, m=-0.5, n=<Thing a, x=1>, o=2)")
    assert pairs is not None
    assert pairs["a"] == 1 and pairs["b"] == "x, y)" and pairs["c"] == "it's, (fine)"
    assert pairs["d"] == {(256, 256, 1): 0.5, (7, 8): 1.0}
    assert pairs["g"] == [25.0, 50.0] and pairs["h"] == math.inf
    assert pairs["i"] is None and pairs["j"] is True and pairs["k"] == "a'b, c"
    assert pairs["l"] == {"image": 255, "video": 1} and pairs["m"] == -0.5
    assert "f" in pairs and pairs["f"] not in (None, "")  # kept as "not a literal"
    assert pairs["o"] == 2 and "n" in pairs and "x" not in pairs
    assert list(pairs) == list("abcdfghijklmno")


def test_namespace_code_is_never_evaluated() -> None:
    pairs = parse_namespace("Namespace(model=__import__('os').getcwd(), seed=3)")
    assert pairs is not None and pairs["seed"] == 3
    assert not isinstance(pairs["model"], str)
    text = "\n".join(["Namespace(model=__import__('os').getcwd(), seed=3)", *vllm_block()])
    (record, _), = parse_text(text)
    assert "model_id" not in record and record["seed"] == 3


def test_cut_off_namespace_is_ignored_not_fatal() -> None:
    assert parse_namespace("Namespace(seed=0, model='abc") is None
    text = "\n".join(["Namespace(seed=0, num_prompts=5, model='ab", *vllm_block()])
    (record, _), = parse_text(text)
    assert "seed" not in record and "num_prompts" not in record and record["completed"] == 10
