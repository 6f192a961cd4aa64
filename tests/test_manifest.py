"""round.toml parsing: the sample parses; every mistake names the file and the key."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.load.manifest import parse_manifest
from reportgen.reference.gpus import lookup_gpu

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090" / "round.toml"

MINIMAL = """
[round]
title = "t"
[hardware]
gpu = "RTX 4090"
[workload]
input_tokens = 1024
output_tokens = 256
[model]
name = "m"
[[engines]]
id = "a"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "round.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_sample_manifest() -> None:
    m = parse_manifest(SAMPLE, lookup_gpu)
    assert [e.id for e in m.engines] == ["vllm", "llamacpp"]
    assert m.bandwidth_gb_s == 1008
    assert m.kv_bytes_per_token == 57344
    assert m.engine("llamacpp").log_segments.warmup == 31
    assert sum(m.engine("llamacpp").log_segments.tiers) == 1328
    assert m.is_excluded("llamacpp", 32) and not m.is_excluded("vllm", 32)
    assert m.title.get("en").startswith("vLLM BF16 vs")


def test_minimal_fills_gpu_from_table_and_defaults(tmp_path: Path) -> None:
    m = parse_manifest(write(tmp_path, MINIMAL), lookup_gpu)
    assert (m.bandwidth_gb_s, m.memory_gib) == (1008.0, 24.0)
    assert m.default_language == "zh"
    assert m.engines[0].dir == "a" and m.engines[0].label.en == "a"
    assert math.isnan(m.kv_bytes_per_token) and math.isnan(m.engines[0].weight_bytes_per_step)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: t.replace("input_tokens = 1024", 'input_tokens = "1024"'),
         "[workload.input_tokens]: expected an integer, got '1024'"),
        (lambda t: t.replace("output_tokens = 256", "output_tokens = -1"),
         "[workload.output_tokens]: expected a value > 0"),
        (lambda t: t.replace('gpu = "RTX 4090"', 'gpu = "RTX 4090"\nbandwith_gb_s = 1'),
         "unknown key 'bandwith_gb_s' in [hardware]; did you mean 'bandwidth_gb_s'?"),
        (lambda t: t.replace('id = "a"', 'id = "A b"'), "[engines[0].id]: expected an id"),
        (lambda t: t.replace('id = "a"', 'id = "a"\ndir = "../elsewhere"'),
         "expected a folder inside the round directory"),
        (lambda t: t + '[[engines]]\nid = "a"\n', "expected unique engine ids"),
        (lambda t: t + "[analysis]\nexclude_from_conclusions = { b = [32] }\n",
         "an engine id from [[engines]] (a), got 'b'"),
        (lambda t: t + 'log_segments = { warmup = 1, tiers = [] }\n',
         "[engines[0].log_segments.tiers]: expected a non-empty list"),
        (lambda t: t.replace('title = "t"', 'title = "t"\ndefault_language = "fr"'),
         "[round.default_language]: expected \"zh\" or \"en\""),
        (lambda t: t.replace('title = "t"', 'title = "t"\naxis = "time"'),
         '[round.axis]: expected "concurrency" or "request_rate"'),
        (lambda t: t.replace('id = "a"', 'id = "a"\ntensor_parallel = 0'),
         "[engines[0].tensor_parallel]: expected an integer >= 1"),
    ],
)
def test_bad_manifest_names_key(tmp_path: Path, edit, expected: str) -> None:
    path = write(tmp_path, edit(MINIMAL))
    with pytest.raises(InputError) as info:
        parse_manifest(path, lookup_gpu)
    assert str(info.value).startswith(str(path))
    assert expected in str(info.value)


def test_toml_syntax_error_has_line(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('name = "m"', "name = "))
    with pytest.raises(InputError) as info:
        parse_manifest(path, lookup_gpu)
    assert info.value.line == 10
    assert "invalid TOML" in str(info.value)


def test_not_utf8_and_missing(tmp_path: Path) -> None:
    path = tmp_path / "round.toml"
    path.write_bytes(b'[round]\ntitle = "\xff"\n')
    with pytest.raises(InputError, match="not UTF-8"):
        parse_manifest(path, lookup_gpu)
    with pytest.raises(InputError, match=r"round\.toml not found"):
        parse_manifest(tmp_path / "nope" / "round.toml", lookup_gpu)


def test_every_table_is_optional(tmp_path: Path) -> None:
    """round.toml may say as little as it likes: the rest is inferred from the files, and
    what nobody can infer stays unknown (NaN / empty), never a made-up default."""
    m = parse_manifest(write(tmp_path, '[hardware]\ngpu = "Mystery 9000"\n'), lookup_gpu)
    assert m.gpu == "Mystery 9000" and math.isnan(m.bandwidth_gb_s)
    assert math.isnan(m.input_tokens) and m.model_name == "" and m.engines == ()
    assert m.title.en.endswith("benchmark report") and m.axis is None
    m = parse_manifest(write(tmp_path, '[round]\naxis = "request_rate"\n[hardware]\n'
                             'gpu_count = 4\n[[engines]]\nid = "a"\ntensor_parallel = 4\n'),
                       lookup_gpu)
    assert m.axis == "request_rate" and m.gpu_count == 4 and m.gpu_count_given
    assert m.engines[0].tensor_parallel == 4 and m.engines[0].gpus_per_replica == 4
    assert not m.engines[0].dir_given


def test_each_value_carries_its_provenance(tmp_path: Path) -> None:
    """The manifest is the one reader of round.toml: it records the line of every key it
    states and which built-in table filled the rest, so nothing downstream re-reads the file."""
    path = write(tmp_path, MINIMAL + 'log_segments = { warmup = 1, tiers = [2] }\nversion = "b1"\n')
    lines = path.read_text(encoding="utf-8").splitlines()
    m = parse_manifest(path, lookup_gpu, name="r/round.toml")

    def line(prefix: str) -> int:
        return next(i for i, text in enumerate(lines, 1) if text.startswith(prefix))

    gpu = m.provenance("hardware.gpu")
    assert gpu is not None and (gpu.kind, gpu.line) == ("round.toml", line("gpu ="))
    assert str(gpu) == f"r/round.toml:{line('gpu =')}"
    assert m.line_of("engines.a.log_segments") == line("log_segments")
    assert m.line_of("engines.a.version") == line("version")
    assert m.line_of("workload.output_tokens") == line("output_tokens")
    bandwidth = m.provenance("hardware.bandwidth_gb_s")
    assert bandwidth is not None and (bandwidth.kind, bandwidth.detail) == ("GPU table", "RTX 4090")
    assert m.bandwidth_from_table and m.line_of("hardware.bandwidth_gb_s") is None
    assert m.provenance("model.kv_bytes_per_token") is None  # stated nowhere: unknown

    stated = parse_manifest(write(tmp_path, MINIMAL.replace(
        'gpu = "RTX 4090"', 'gpu = "RTX 4090"\nbandwidth_gb_s = 900')), lookup_gpu)
    assert not stated.bandwidth_from_table
    assert stated.provenance("hardware.bandwidth_gb_s").kind == "round.toml"
    assert stated.provenance("hardware.memory_gib").kind == "GPU table"
