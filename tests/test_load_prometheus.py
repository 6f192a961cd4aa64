"""Prometheus text exposition scrapes and the before/after deltas."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError
from reportgen.load.prometheus import (
    canonical_labels,
    counter_delta,
    histogram_mean_delta,
    parse_labels,
    parse_prometheus,
)

BEFORE = """\
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="q"} 10.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="q"} 5.0
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="q"} 15.0 1700000000000
vllm:e2e_request_latency_seconds_sum{model_name="q"} 30.0
vllm:e2e_request_latency_seconds_count{model_name="q"} 15.0
llamacpp:n_decode_total 100
odd{path="a\\"b\\\\c\\nd" , other="x",} NaN
"""
AFTER = """\
vllm:request_success_total{model_name="q",finished_reason="stop",engine="0"} 18.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="q"} 5.0
vllm:e2e_request_latency_seconds_sum{model_name="q"} 54.0
vllm:e2e_request_latency_seconds_count{model_name="q"} 23.0
llamacpp:n_decode_total 90
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def scrapes(tmp_path: Path):
    return (parse_prometheus(write(tmp_path, "b.prom", BEFORE)),
            parse_prometheus(write(tmp_path, "a.prom", AFTER)))


def test_parse_rows_labels_and_values(scrapes) -> None:
    before, _ = scrapes
    assert list(before.columns) == ["name", "labels", "value"]
    assert len(before) == 7  # comments skipped
    bucket = before[before["name"] == "vllm:e2e_request_latency_seconds_bucket"].iloc[0]
    assert bucket["labels"] == 'le="+Inf",model_name="q"' and bucket["value"] == 15.0
    odd = before[before["name"] == "odd"].iloc[0]
    assert odd["labels"] == 'other="x",path="a\\"b\\\\c\\nd"'  # sorted, escapes kept
    assert math.isnan(odd["value"])
    assert before[before["name"] == "llamacpp:n_decode_total"]["labels"].tolist() == [""]


def test_counter_delta(scrapes) -> None:
    before, after = scrapes
    assert counter_delta(before, after, "vllm:request_success_total") == 8.0
    assert counter_delta(before, after, "vllm:request_success_total",
                         finished_reason="stop") == 8.0  # label order does not matter
    assert math.isnan(counter_delta(before, after, "vllm:request_success_total",
                                    finished_reason="abort"))  # no such series
    assert math.isnan(counter_delta(before, after, "missing_total"))


def test_counter_reset_is_nan(scrapes) -> None:
    before, after = scrapes
    assert math.isnan(counter_delta(before, after, "llamacpp:n_decode_total"))  # 100 → 90


def test_histogram_mean_delta(scrapes) -> None:
    before, after = scrapes
    assert histogram_mean_delta(before, after, "vllm:e2e_request_latency_seconds") == 3.0
    assert math.isnan(histogram_mean_delta(after, after, "vllm:e2e_request_latency_seconds"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('ok 1\nbad{le="1" 2\n', "expected ',' or '}'"),
        ("ok 1\nnovalue\n", "expected 'name{labels} value"),
        ("ok 1\nx abc\n", "not a number"),
        ("ok 1\nx 1 12.5\n", "timestamp"),
        ('ok 1\nx{a="\\q"} 1\n', "bad escape"),
        ("ok 1\n{a=\"b\"} 1\n", "expected 'metric_name"),
    ],
)
def test_bad_lines(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_prometheus(write(tmp_path, "m.prom", text), name="m/c1-before.prom")
    assert exc.value.path == "m/c1-before.prom" and exc.value.line == 2
    assert words in exc.value.message


_LABEL_TEXT = st.lists(
    st.tuples(st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,6}", fullmatch=True),
              st.text(alphabet='ab "\\\n=,}{é', max_size=6)),
    max_size=4,
).map(lambda pairs: ",".join(
    f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34)).replace(chr(10), chr(92) + "n")}"'  # noqa: E501
    for k, v in pairs))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(_LABEL_TEXT, st.sampled_from(["", " ", ","]))
def test_fast_label_path_agrees_with_the_full_parser(tmp_path_factory, body: str,
                                                     tail: str) -> None:
    path = tmp_path_factory.mktemp("p") / "m.prom"
    path.write_text(f"m{{{body}{tail if body else ''}}} 1\n", encoding="utf-8")
    expected = canonical_labels(parse_labels(body + (tail if body else "") + "}")[0])
    assert parse_prometheus(path)["labels"].tolist() == [expected]
