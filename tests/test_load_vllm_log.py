"""vllm serve startup logs: the three real 0.10.1.1 logs (hard-wrapped TP1, TP2 with a tqdm bar
sharing a line, TP4 over Ray with ANSI colours) and inline variants."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_paths import SHARED_SAMPLES

from reportgen.errors import InputError
from reportgen.load.vllm_log import parse_vllm_log

LOGS = SHARED_SAMPLES / "vllm-serve-startup-logs-v0.10.1.1"   # no licence stated: not vendored
TP1 = LOGS / "vllm-7B-1gpuA10080GB-0.5GRAM.log"
TP2 = LOGS / "vllm-7B-2gpuA10080GB-0.25GRAM-same-node.log"
TP4 = LOGS / "vllm-120B-4gpuA10080GB-0.8GRAM-diff-nodes.log"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "server.log"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.shared
def test_tp1_hard_wrapped_terminal_copy() -> None:
    v = parse_vllm_log(TP1, name="tp1.log")
    assert v.version == "0.10.1.1"
    assert v.kv_cache_tokens == 464848  # printed "464,848"
    assert (v.weights_gib, v.weights_load_s) == (14.2488, 2.993822)
    assert v.kv_cache_gib == 24.83
    assert (v.max_concurrency_tokens, v.max_concurrency_x) == (16384, 28.37)
    assert (v.graph_capture_s, v.graph_memory_gib) == (3.0, 0.5)
    assert v.num_gpu_blocks == 29053  # "...is" / ": 29053" wrapped onto two lines
    # these sit in lines the terminal wrapped at 147 columns
    assert v.gpu_memory_utilization == 0.5 and v.max_model_len == 16384
    assert v.dtype == "bfloat16" and v.tensor_parallel_size == 1 and v.ranks == 1
    assert v.enable_chunked_prefill is True and v.max_num_seqs is None
    assert v.provenance["weights_gib"] == "tp1.log:31"
    assert v.provenance["kv_cache_tokens"] == "tp1.log:43"
    assert v.provenance["gpu_memory_utilization"] == "tp1.log:3"


@pytest.mark.shared
def test_tp2_per_rank_values_and_shared_tqdm_line() -> None:
    v = parse_vllm_log(TP2, name="tp2.log")
    assert v.weights_gib == 7.1217  # per GPU: the first rank's line, not the sum
    assert v.provenance["weights_gib"] == "tp2.log:45"
    assert (v.tensor_parallel_size, v.ranks) == (2, 2)
    assert v.kv_cache_tokens == 450192 and v.kv_cache_gib == 12.02
    assert v.gpu_memory_utilization == 0.25
    # TP1's graph line is glued to the end of a tqdm bar on line 67
    assert v.graph_memory_gib == 0.65 and v.provenance["graph_memory_gib"] == "tp2.log:67"


@pytest.mark.shared
def test_tp4_ray_and_ansi_colours() -> None:
    v = parse_vllm_log(TP4, name="tp4.log")
    assert v.version == "0.10.1.1" and v.model == "gpt-oss-120b"
    assert (v.weights_gib, v.provenance["weights_gib"]) == (17.2217, "tp4.log:89")
    assert v.kv_cache_tokens == 2640144 and v.kv_cache_gib == 45.32
    assert v.max_concurrency_x == 284.25
    assert (v.graph_memory_gib, v.graph_capture_s) == (1.88, 101.0)
    assert (v.tensor_parallel_size, v.ranks) == (4, 4)
    assert v.quantization == "mxfp4" and v.dtype == "bfloat16"
    assert v.gpu_memory_utilization == 0.8


def test_old_gb_wording_is_gib_and_says_so(tmp_path: Path) -> None:
    text = ("INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 67.7229 GB\n"
            "INFO 01-30 03:18:30 gpu_worker.py:276] Available KV cache memory: 5.50 GB\n")
    v = parse_vllm_log(write(tmp_path, text), name="old.log")
    assert v.weights_gib == 67.7229 and v.weights_load_s is None
    assert v.kv_cache_gib == 5.5
    assert v.provenance["weights_gib"].startswith("old.log:1 (printed as 'GB'")
    assert "2**30" in v.provenance["weights_gib"]


def test_2026_memory_wording_and_prefixes(tmp_path: Path) -> None:
    text = (
        "\x1b[1;36m(EngineCore pid=77)\x1b[0;0m INFO 03-02 10:00:00 [gpu_model_runner.py:4879] "
        "Model loading took 12.66 GiB memory and 31.657031 seconds\n"
        "(EngineCore pid=77) INFO 03-02 10:00:09 [kv_cache_utils.py:1013] GPU KV cache size: "
        "120,064 tokens [repeated 2x across cluster]\n"
        "(APIServer pid=70) INFO 03-02 10:00:00 [utils.py:326] non-default args: "
        "{'model': 'Qwen/Qwen2.5-7B-Instruct', 'max_num_seqs': 128, "
        "'enable_chunked_prefill': False, 'dtype': 'float16'}\n"
    )
    v = parse_vllm_log(write(tmp_path, text))
    assert (v.weights_gib, v.weights_load_s) == (12.66, 31.657031)
    assert v.kv_cache_tokens == 120064
    assert v.max_num_seqs == 128 and v.enable_chunked_prefill is False
    assert v.dtype == "float16" and v.model == "Qwen/Qwen2.5-7B-Instruct"


def test_restarted_server_reads_the_last_start(tmp_path: Path) -> None:
    start = ("(APIServer pid={p}) INFO 09-04 01:28:28 [api_server.py:1805] vLLM API server "
             "version 0.10.{v}\n(EngineCore_0 pid={p}) INFO 09-04 01:29:26 "
             "[kv_cache_utils.py:849] GPU KV cache size: {k} tokens\n")
    text = start.format(p=1, v=0, k="1,000") + start.format(p=2, v=1, k="2,000")
    v = parse_vllm_log(write(tmp_path, text), name="s.log")
    assert (v.version, v.kv_cache_tokens) == ("0.10.1", 2000)
    assert v.provenance["kv_cache_tokens"] == "s.log:4"
    assert [f.line for f in v.findings] == [3]


def test_every_field_optional(tmp_path: Path) -> None:
    v = parse_vllm_log(write(tmp_path, "nothing useful here\n"))
    assert v.version is None and v.weights_gib is None and v.provenance == {}


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        parse_vllm_log(tmp_path / "no.log")


def test_non_utf8_bytes_are_replaced_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    path.write_bytes(b"junk \xff\xfe\n(EngineCore_0 pid=2) INFO 09-04 01:29:26 "
                     b"[kv_cache_utils.py:849] GPU KV cache size: 1,234 tokens\n")
    v = parse_vllm_log(path, name="s.log")
    assert v.kv_cache_tokens == 1234 and v.provenance["kv_cache_tokens"] == "s.log:2"
    assert ["not UTF-8" in f.message for f in v.findings] == [True]
