"""reportgen.load.scan: every file of a round folder classified by its content, not its name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.load.scan import SNIFF, ScannedFile, classify, scan_round

RESULT = json.dumps({"date": "20250101-120000", "backend": "vllm", "num_prompts": 8,
                     "max_concurrency": 4, "request_rate": "inf", "duration": 2.0,
                     "completed": 8, "failed": 0, "total_input_tokens": 800,
                     "total_output_tokens": 400, "output_throughput": 200.0}).encode()
CONSOLE = b"""============ Serving Benchmark Result ============
Successful requests:                     100
Benchmark duration (s):                  10.00
Total input tokens:                      1000
Total generated tokens:                  5000
Output token throughput (tok/s):         500.00
==================================================
"""
NOT_READ = "not a benchmark result, log or sample this tool reads"
WARMUP = "warm-up run (the file name says so); not a measured run"


def kind(name: str, head: bytes) -> tuple[str, str]:
    return classify(Path(name), head)


# ------------------------------------------------------------------ results


@pytest.mark.parametrize("name", ["result.json", "result.txt", "run", "c8.out", "a.jsonl"])
def test_json_result_is_json_whatever_the_name(name: str) -> None:
    assert kind(name, RESULT) == ("json", "")


def test_json_list_and_leading_whitespace_are_json() -> None:
    assert kind("summary.json", b"[\n    " + RESULT + b"\n]") == ("json", "")
    assert kind("x.data", b"\n\n   \t" + RESULT) == ("json", "")


def test_pytorch_side_file_is_skipped_even_though_it_is_json() -> None:
    assert kind("vllm-c8.pytorch.json", b'[{"benchmark": {"name": "x"}}]') == (
        "skipped", "vLLM's PyTorch-benchmark side file (a different schema)")


@pytest.mark.parametrize("name", ["warmup.json", "warm-up-c8.json", "c8_warm_up.json",
                                  "WarmUp.JSON", "warmup-run1.txt"])
def test_warmup_json_is_skipped(name: str) -> None:
    assert kind(name, RESULT) == ("skipped", WARMUP)


def test_warmup_console_log_is_skipped_other_console_is_console() -> None:
    assert kind("warmup.log", CONSOLE) == ("skipped", WARMUP)
    assert kind("bench-short-rate1.log", CONSOLE) == ("console", "")
    assert kind("stdout.txt", b"Namespace(x=1)\n\r 10%|#\r100%|##\n" + CONSOLE) == ("console", "")


def test_a_readme_that_merely_mentions_the_table_title_is_not_console() -> None:
    head = b"# Notes\nThe client prints a Serving Benchmark Result table at the end.\n"
    assert kind("README.md", head) == ("skipped", NOT_READ)


@pytest.mark.parametrize("name", ["run=1.failure.json", "SERVE-max_num_seqs=128-failure.json",
                                  "c8.failed.json", "c8-fail.json"])
def test_failure_files(name: str) -> None:
    assert kind(name, b'{"run_number": 1, "error_type": "RuntimeError", "error": "x"}') == (
        "failure", "a failed run (its result file records the failure)")


def test_failure_name_wins_over_warmup_name() -> None:
    # vLLM's sweep writes warmup.failure.json when the warm-up run itself fails
    assert kind("warmup.failure.json", b'{"run_number": -1}')[0] == "failure"


# ------------------------------------------------------------------ binary and unknown files


@pytest.mark.parametrize("name", ["blob.bin", "blob.json", "model.safetensors", "x.log"])
def test_binary_is_skipped_whatever_the_name(name: str) -> None:
    assert kind(name, b"{\x00\x01\x02 PK") == ("skipped", "binary file")


def test_nul_byte_after_4096_bytes_is_not_taken_for_binary() -> None:
    assert kind("r.json", RESULT + b" " * 5000 + b"\x00") == ("json", "")


@pytest.mark.parametrize(("name", "head"), [
    ("README.md", b"# hi\n"),
    ("summary.csv", b",date,endpoint_type\n0,20250101,openai\n"),
    ("empty.json", b""),
    ("LICENSE", b"MIT License\n"),
    ("run.sh", b"#!/bin/sh\necho hi\n"),
    ("progress.log", b"LAUNCH x\nHEALTH ok\nRUN vllm bench serve --max-concurrency 8\n"),
])
def test_other_files_are_skipped_with_the_reason(name: str, head: bytes) -> None:
    assert kind(name, head) == ("skipped", NOT_READ)


# ------------------------------------------------------------------ logs, samples, scrapes


def test_vllm_server_log_needs_two_markers() -> None:
    two = (b"(APIServer pid=1) INFO 01-01 12:00:00 vLLM API server version 0.10.1\n"
           b"(EngineCore_0 pid=2) INFO [gpu_model_runner.py:1] Loading model\n")
    assert kind("server.log", two) == ("vllm_log", "")
    assert kind("server.log", b"(EngineCore_0 pid=2) INFO hello\n") == ("skipped", NOT_READ)


def test_llama_server_log() -> None:
    head = (b"build_info: b1234 (abcdef)\nllama_model_loader: loaded meta data\n"
            b"load_tensors: offloaded 33/33 layers\n")
    assert kind("llama.log", head) == ("llama_log", "")


def test_equal_vllm_and_llama_markers_are_not_guessed() -> None:
    head = b"vLLM API server version 1\n(EngineCore x\nllama_model_loader: a\nprint_timing: b\n"
    assert kind("mixed.log", head) == ("skipped", NOT_READ)


def test_nvidia_smi_fingerprint() -> None:
    head = (b"+-----------------------------------------------------------------------------+\n"
            b"| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n")
    assert kind("nvidia-smi.txt", head) == ("fingerprint", "")


@pytest.mark.parametrize("header", [
    b"timestamp, name, utilization.gpu [%], memory.used [MiB]\n",
    b"index, name, power.draw [W]\n",
    b"  pci.bus_id,temperature.gpu\n",
])
def test_nvidia_smi_csv(header: bytes) -> None:
    assert kind("gpu.csv", header + b"2025/01/01 12:00:00.000, NVIDIA H100, 50 %, 1 MiB\n") == (
        "gpu_csv", "")


def test_a_csv_of_something_else_is_not_gpu_samples() -> None:
    assert kind("gpu.csv", b"concurrency,tok_s\n1,50\n") == ("skipped", NOT_READ)


@pytest.mark.parametrize("head", [
    b"# HELP vllm:num_requests_running Number of requests\n"
    b"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0.0\n",
    b"  # TYPE x counter\nx 1\n",
    b"vllm:a 1\n# HELP vllm:b b\n# TYPE vllm:b gauge\nvllm:b 2\n",
])
def test_prometheus_text(head: bytes) -> None:
    assert kind("metrics-before-c8.txt", head) == ("metrics", "")


def test_launch_script_needs_a_script_suffix_and_a_launch_marker() -> None:
    assert kind("serve.sh", b"#!/bin/sh\nvllm serve m --tensor-parallel-size 2\n") == (
        "script", "")
    assert kind("launch.yaml", b"cmd: python -m sglang.launch_server --tp-size 4\n") == (
        "script", "")
    assert kind("serve", b"#!/bin/sh\nvllm serve m\n") == ("skipped", NOT_READ)  # no suffix
    assert kind("serve.sh", b'#!/bin/sh\n"${VLLM}" serve "$MODEL"\n') == ("skipped", NOT_READ)


def test_console_log_after_more_than_a_megabyte_of_progress_bar(tmp_path: Path) -> None:
    # tqdm redraws on one physical line; a long run writes megabytes before the table
    bar = b"".join(b"\r %3d%%|#| %d/20000 [00:01<00:00, 1.00it/s]" % (i % 100, i)
                   for i in range(30000))
    assert len(bar) > SNIFF
    root = tmp_path / "round"
    root.mkdir()
    (root / "bench.log").write_bytes(b"Namespace(num_prompts=20000)\n" + bar + b"\n" + CONSOLE)
    (root / "warmup.log").write_bytes(b"Namespace(num_prompts=1)\n" + bar + b"\n" + CONSOLE)
    assert [(f.rel, f.kind) for f in _scan(root)] == [
        ("bench.log", "console"), ("warmup.log", "skipped")]


# ------------------------------------------------------------------ scan_round


def _scan(root: Path) -> list[ScannedFile]:
    return scan_round(root, lambda p: "SHOWN:" + p.relative_to(root).as_posix())


def test_scan_round_walks_sorted_skips_hidden_and_the_manifest(tmp_path: Path) -> None:
    root = tmp_path / "round"
    (root / "b" / "deep").mkdir(parents=True)
    (root / "a").mkdir()
    (root / ".git").mkdir()
    (root / ".hidden").mkdir()
    (root / "narrative").mkdir()
    (root / "b" / "narrative").mkdir()
    (root / "round.toml").write_text("[round]\n")
    (root / "b" / "round.toml").write_text('title = "x"\n')
    (root / ".DS_Store").write_bytes(b"\x00\x01")
    (root / ".git" / "HEAD").write_text("ref: x\n")
    (root / ".hidden" / "r.json").write_bytes(RESULT)
    (root / "narrative" / "intro.md").write_text("# intro\n")
    (root / "b" / "narrative" / "r.json").write_bytes(RESULT)
    (root / "b" / "deep" / "z.txt").write_bytes(RESULT)
    (root / "a" / "c8.json").write_bytes(RESULT)
    (root / "README.md").write_text("# x\n")
    files = _scan(root)
    assert [(f.rel, f.kind) for f in files] == [
        ("README.md", "skipped"),
        ("a/c8.json", "json"),
        ("b/round.toml", "skipped"),   # only the round's own manifest is left out
        ("b/deep/z.txt", "json"),
        ("b/narrative/r.json", "json"),  # only the round's own narrative/ is left out
    ]
    assert files[1].shown == "SHOWN:a/c8.json"
    assert files[1].path == root / "a" / "c8.json"
    assert files[0].reason == NOT_READ


def test_link_out_of_the_round_is_skipped_with_a_reason(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(RESULT)
    root = tmp_path / "round"
    root.mkdir()
    (root / "inside.json").write_bytes(RESULT)
    (root / "out.json").symlink_to(outside)
    (root / "same.json").symlink_to(root / "inside.json")
    (root / "dangling.json").symlink_to(tmp_path / "missing.json")
    got = {f.rel: (f.kind, f.reason) for f in _scan(root)}
    assert got == {
        "dangling.json": ("skipped", "a link that leads out of the round folder; not read"),
        "inside.json": ("json", ""),
        "out.json": ("skipped", "a link that leads out of the round folder; not read"),
        "same.json": ("json", ""),
    }


def test_dangling_link_inside_the_round_is_not_a_regular_file(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    (root / "gone.json").symlink_to(root / "missing.json")
    assert [(f.rel, f.kind, f.reason) for f in _scan(root)] == [
        ("gone.json", "skipped", "not a regular file")]


def test_scan_round_classifies_a_mixed_folder(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    (root / "bench.log").write_bytes(CONSOLE)
    (root / "c8.pytorch.json").write_bytes(b"[]")
    (root / "c8.json").write_bytes(RESULT)
    (root / "metrics.txt").write_bytes(b"# HELP a a\n# TYPE a gauge\na 1\n")
    (root / "gpu.csv").write_bytes(b"timestamp, name\n1, H100\n")
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (root / "warmup.json").write_bytes(RESULT)
    assert [(f.rel, f.kind) for f in _scan(root)] == [
        ("bench.log", "console"),
        ("c8.json", "json"),
        ("c8.pytorch.json", "skipped"),
        ("gpu.csv", "gpu_csv"),
        ("img.png", "skipped"),
        ("metrics.txt", "metrics"),
        ("warmup.json", "skipped"),
    ]


def test_a_log_with_bracketed_timestamps_does_not_abort_the_round(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    (root / "c4.json").write_bytes(RESULT)
    (root / "progress.log").write_text(
        "[2025-01-01 12:00:00] RUN vllm bench serve --max-concurrency 4\n"
        '[2025-01-01 12:00:02] done: {"completed": 8, "duration": 2.0}\n')
    result = CliRunner().invoke(main, ["tables", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    skipped = json.loads(result.stdout)["skipped"]
    assert [s["file"] for s in skipped] == ["progress.log"]


def test_a_text_log_is_not_called_json(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    (root / "c4.json").write_bytes(RESULT)
    (root / "server.log").write_text("[2025-01-01 12:00:00] server_args=ServerArgs(tp_size=4)\n"
                                     "[2025-01-01 12:00:05] The server is fired up\n")
    result = CliRunner().invoke(main, ["tables", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["skipped"] == [{"file": "server.log", "reason": NOT_READ}]
