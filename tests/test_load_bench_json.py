"""vllm bench serve result files: the real samples load with the values printed in them, and
every malformed input is an InputError naming the file and line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from data_paths import SHARED_SAMPLES

from reportgen.errors import InputError
from reportgen.load import bench_json
from reportgen.load.bench_json import list_bench_files, load_bench_file

SAMPLES = SHARED_SAMPLES   # no licence stated for these two: not vendored
JAN_2026 = SAMPLES / "vllm-bench-serve-result-2026-01" / "run_1_TP8_DP1_CTX1024_C100_P100_O128.json"
JSONL_2025 = SAMPLES / "vllm-benchmark-serving-results-jsonl-2025-05" / "results.json"

BASE = {
    "date": "20261118-135452", "backend": "openai", "model_id": "m", "num_prompts": 3,
    "request_rate": "inf", "max_concurrency": 2, "duration": 2.0, "completed": 3, "failed": 0,
    "total_input_tokens": 30, "total_output_tokens": 9, "request_throughput": 1.5,
    "output_throughput": 4.5, "total_token_throughput": 19.5,
    "mean_ttft_ms": 100.0, "median_ttft_ms": 90.0, "p99.9_ttft_ms": 150.0,
}
DETAIL = {
    "input_lens": [10, 10, 10], "output_lens": [3, 4, 2],
    "ttfts": [0.1, 0.2, 0.05], "latencies": [0.5, 0.7, 0.3],
    "itls": [[0.1, 0.2], [0.1, 0.1, 0.1], [0.25]],
    "errors": ["", "", ""], "generated_texts": ["a", "b", "c"],
}


def write(tmp_path: Path, text: str, name: str = "r.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def record(**changes: object) -> dict[str, object]:
    out = dict(BASE)
    for key, value in changes.items():
        if value is None and key.startswith("drop_"):
            out.pop(key[5:], None)
        else:
            out[key] = value
    return out


# ------------------------------------------------------------------ real samples


@pytest.mark.shared
def test_jan_2026_single_object() -> None:
    bench = load_bench_file(JAN_2026, name="x.json")
    row = bench.summary.iloc[0]
    assert len(bench.summary) == 1
    assert row["source"] == "x.json"
    assert row["concurrency"] == 100
    assert row["duration_s"] == pytest.approx(2.3843966838903725)
    assert row["request_rate"] == math.inf  # written as the string "inf"
    assert (row["num_prompts"], row["completed"], row["failed"]) == (100, 100, 0)
    assert row["ttft_p99_ms"] == pytest.approx(1426.806576703675)  # milliseconds, untouched
    assert row["e2el_mean_ms"] == pytest.approx(2337.042404243257)
    assert row["peak_output_throughput_tok_s"] == 7924.0
    assert math.isnan(row["request_goodput_req_s"])  # null in the file
    assert not row["has_detail"]
    assert bench.requests.empty and bench.itls.empty
    assert list(bench.requests.columns) == list(bench_json.REQUEST_COLUMNS)


@pytest.mark.shared
def test_jsonl_2025_nine_records_with_typo_and_no_failed_key() -> None:
    raw = JSONL_2025.read_text(encoding="utf-8")
    assert '"request_goodput:": null' in raw and '"failed"' not in raw
    bench = load_bench_file(JSONL_2025)
    s = bench.summary
    assert list(s["record"]) == list(range(9))
    assert s["concurrency"].isna().all()  # max_concurrency: null (rate-limited runs)
    assert list(s["request_rate"]) == [10.0, 30.0, math.inf] * 3
    assert list(s["num_prompts"]) == [300, 900, 900] * 3
    assert (s["failed"] == 0).all()  # derived: num_prompts − completed
    assert "request_goodput_req_s" in s.columns and s["request_goodput_req_s"].isna().all()
    assert s.loc[8, "duration_s"] == pytest.approx(21.835562008000124)
    assert [m["deployment"] for m in s["metadata"]] == ["no-features"] * 3 + ["base"] * 3 + [
        "kvcache"] * 3
    assert s.loc[0, "metadata"]["input_len"] == "1000"  # metadata stays a string
    assert "e2el_mean_ms" not in s.columns  # that run did not ask for e2el


# ------------------------------------------------------------------ parsing rules


def test_typo_key_value_is_read(tmp_path: Path) -> None:
    rec = record(**{"request_goodput:": 1.25})
    bench = load_bench_file(write(tmp_path, json.dumps(rec)))
    assert bench.summary.loc[0, "request_goodput_req_s"] == 1.25


def test_missing_failed_is_derived(tmp_path: Path) -> None:
    rec = record(num_prompts=10, completed=8, drop_failed=None)
    assert "failed" not in rec
    bench = load_bench_file(write(tmp_path, json.dumps(rec)))
    assert bench.summary.loc[0, "failed"] == 2


def test_percentile_with_dot_and_column_order(tmp_path: Path) -> None:
    s = load_bench_file(write(tmp_path, json.dumps(record()))).summary
    assert s.loc[0, "ttft_p99_9_ms"] == 150.0
    metric_cols = [c for c in s.columns if c.startswith("ttft_")]
    assert metric_cols == ["ttft_mean_ms", "ttft_median_ms", "ttft_p99_9_ms"]


def test_jsonl_with_blank_lines_from_append_result(tmp_path: Path) -> None:
    text = json.dumps(record(max_concurrency=1)) + "\n\n" + json.dumps(record(max_concurrency=4))
    s = load_bench_file(write(tmp_path, text)).summary
    assert list(s["concurrency"]) == [1.0, 4.0] and list(s["record"]) == [0, 1]


def test_pretty_printed_single_object(tmp_path: Path) -> None:
    s = load_bench_file(write(tmp_path, json.dumps(record(max_concurrency=8), indent=2))).summary
    assert len(s) == 1 and s.loc[0, "concurrency"] == 8


def test_detail_arrays_are_seconds(tmp_path: Path) -> None:
    bench = load_bench_file(write(tmp_path, json.dumps(record(**DETAIL))), name="d.json")
    req, itl = bench.requests, bench.itls.frame()
    assert bench.summary.loc[0, "has_detail"]
    assert list(req["ttft_s"]) == [0.1, 0.2, 0.05]  # seconds stay seconds
    assert list(req["latency_s"]) == [0.5, 0.7, 0.3]
    assert list(req["itl_count"]) == [2, 3, 1]
    assert req["itl_sum_s"].to_numpy() == pytest.approx([0.3, 0.3, 0.25])
    assert req["start_s"].isna().all()  # not in the file → NaN, not 0
    assert list(req["success"]) == [True, True, True]
    assert list(itl["request"]) == [0, 0, 1, 1, 1, 2]
    assert itl["itl_s"].to_numpy() == pytest.approx([0.1, 0.2, 0.1, 0.1, 0.1, 0.25])
    assert set(itl["source"]) == {"d.json"}


def test_failed_request_in_detail(tmp_path: Path) -> None:
    detail = dict(DETAIL, errors=["", "Bad Request", ""], output_lens=[3, 0, 2])
    req = load_bench_file(write(tmp_path, json.dumps(record(**detail)))).requests
    assert list(req["success"]) == [True, False, True]
    assert req.loc[1, "error"] == "Bad Request"


def test_only_latencies_and_queue_times(tmp_path: Path) -> None:
    rec = record(latencies=[0.5, 0.6, 0.7], queue_times=[0.0, 0.01, 0.02])
    bench = load_bench_file(write(tmp_path, json.dumps(rec)))
    assert not bench.summary.loc[0, "has_detail"]
    assert list(bench.requests["queue_s"]) == [0.0, 0.01, 0.02]
    assert bench.requests["ttft_s"].isna().all() and bench.requests["success"].isna().all()
    assert bench.itls.empty


def test_itls_many_samples_numpy_path(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    itls = [list(rng.uniform(0.01, 0.02, size=n)) for n in (0, 5, 1000)]
    rec = record(num_prompts=3, ttfts=[0.1] * 3, itls=itls, output_lens=[1, 6, 1001])
    bench = load_bench_file(write(tmp_path, json.dumps(rec)))
    assert len(bench.itls) == 1005
    assert list(bench.requests["itl_count"]) == [0, 5, 1000]
    assert bench.requests.loc[2, "itl_sum_s"] == pytest.approx(sum(itls[2]))


def test_works_without_orjson(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_json, "orjson", None)
    path = write(tmp_path, json.dumps(record(**DETAIL)))
    bench = load_bench_file(path)
    assert len(bench.itls) == 6 and bench.summary.loc[0, "concurrency"] == 2


def test_list_bench_files_skips_side_files(tmp_path: Path) -> None:
    for name in ("c16.json", "c2.json", "c2.pytorch.json", "notes.txt", "c1.jsonl",
                 ".hidden.json", "c2.timeline.html"):
        write(tmp_path, "{}", name)
    (tmp_path / "sub.json").mkdir()
    assert [p.name for p in list_bench_files(tmp_path)] == ["c1.jsonl", "c2.json", "c16.json"]


# ------------------------------------------------------------------ errors name file:line


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('{"duration": 1.0,\n "completed": }', 2, "not valid JSON"),
        ("", None, "empty file"),
        ("[1, 2]", 1, "JSON array"),
        ('"just a string"', 1, "expected a JSON object"),
    ],
)
def test_json_errors(tmp_path: Path, text: str, line: int | None, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load_bench_file(path, name="bad.json")
    assert exc.value.path == "bad.json" and exc.value.line == line
    assert words in exc.value.message
    assert str(exc.value).startswith("bad.json")


def test_broken_jsonl_line_is_named(tmp_path: Path) -> None:
    good = json.dumps(record())
    path = write(tmp_path, f"{good}\n\n{good[:40]}\n{good}\n")
    with pytest.raises(InputError) as exc:
        load_bench_file(path, name="r.jsonl")
    assert str(exc.value).startswith("r.jsonl:3: not valid JSON")


def test_jsonl_record_error_names_its_line(tmp_path: Path) -> None:
    lines = [json.dumps(record()), json.dumps(record(duration=-1.0))]
    with pytest.raises(InputError) as exc:
        load_bench_file(write(tmp_path, "\n".join(lines)), name="r.jsonl")
    assert exc.value.line == 2 and "duration" in exc.value.message


@pytest.mark.parametrize(
    ("literal", "key"),
    [("NaN", "duration"), ("Infinity", "mean_ttft_ms"), ("-Infinity", "total_output_tokens")],
)
def test_nan_and_infinity_literals_rejected(tmp_path: Path, literal: str, key: str) -> None:
    text = json.dumps(record(), indent=1).replace(f'"{key}": {json.dumps(BASE[key])}',
                                                  f'"{key}": {literal}')
    assert literal in text
    with pytest.raises(InputError) as exc:
        load_bench_file(write(tmp_path, text), name="n.json")
    assert f"key '{key}'" in exc.value.message and "NaN/Infinity" in exc.value.message
    # the pretty-printed file puts every key on its own line: the error points at it
    assert text.splitlines()[exc.value.line - 1].lstrip().startswith(f'"{key}"')


def test_request_rate_infinity_number_is_allowed(tmp_path: Path) -> None:
    text = json.dumps(record()).replace('"request_rate": "inf"', '"request_rate": Infinity')
    assert load_bench_file(write(tmp_path, text)).summary.loc[0, "request_rate"] == math.inf


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"duration": 0}, "duration > 0"),
        ({"duration": -3.5}, "duration > 0"),
        ({"duration": "12"}, "expected a number"),
        ({"completed": 4}, "exceed num_prompts = 3"),
        ({"completed": 2.5}, "whole number"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"request_rate": "fast"}, "request_rate"),
        ({"drop_duration": None}, "missing key 'duration'"),
        ({"ttfts": [0.1, 0.2]}, "differ in length"),
        ({"ttfts": [0.1, "0.2", 0.3]}, "list of numbers"),
        ({"itls": [[0.1], ["x"], []]}, "request 1"),
        ({"itls": [[0.1], 0.2, []]}, "request 1"),
        ({"errors": ["", None, ""]}, "list of strings"),
        ({"label": 5}, "expected a string"),
    ],
)
def test_bad_values(tmp_path: Path, changes: dict[str, object], words: str) -> None:
    rec = record(**dict(DETAIL, **{k: v for k, v in changes.items()
                                   if not k.startswith("drop_")}))
    for key in changes:
        if key.startswith("drop_"):
            rec.pop(key[5:])
    with pytest.raises(InputError) as exc:
        load_bench_file(write(tmp_path, json.dumps(rec)), name="v.json")
    assert exc.value.path == "v.json" and exc.value.line == 1
    assert words in exc.value.message


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b'{"duration": 1, "completed": 1, "label": "\xff"}')
    with pytest.raises(InputError, match="UTF-8"):
        load_bench_file(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_bench_file(tmp_path / "nope.json")


def test_inconsistent_counts_are_findings(tmp_path: Path) -> None:
    rec = record(num_prompts=4, completed=3, failed=0, ttfts=[0.1, 0.2])
    bench = load_bench_file(write(tmp_path, json.dumps(rec)), name="f.json")
    messages = sorted(f.message for f in bench.findings)
    assert messages == ["record 0: completed 3 + failed 0 != num_prompts 4",
                        "record 0: per-request arrays hold 2 requests, num_prompts = 4"]
    assert {f.path for f in bench.findings} == {"f.json"}


@pytest.mark.parametrize(("itls", "error"), [
    ([[0.1, 0.2], [True], [0.25]], "request 1: expected a list of numbers"),   # bools alone
    ([[0.1, 0.2], ["0.1"], [0.25]], "request 1: expected a list of numbers"),
    ([[0.1, 0.2], [[0.1]], [0.25]], "request 1: expected a"),
    ([[0.1, 0.2], [-0.1], [0.25]], "expected gaps >= 0 s, got -0.1"),
])
def test_gaps_converted_at_once_refuse_what_each_request_refused(
        tmp_path: Path, itls: list[list[object]], error: str) -> None:
    with pytest.raises(InputError, match=error.replace("[", r"\[")):
        load_bench_file(write(tmp_path, json.dumps(record(**dict(DETAIL, itls=itls)))))


def test_gaps_of_zero_and_integers_read_as_before(tmp_path: Path) -> None:
    itls = [[0.1, 0.0], [1, 2, 0], [0.25]]
    bench = load_bench_file(write(tmp_path, json.dumps(record(**dict(DETAIL, itls=itls)))))
    assert bench.itls.frame()["itl_s"].tolist() == [0.1, 0.0, 1.0, 2.0, 0.0, 0.25]
    assert list(bench.requests["itl_count"]) == [2, 3, 1]
