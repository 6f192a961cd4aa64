"""discover() + load_round() on small round folders built in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from data_paths import REAL_SAMPLES, SHARED_SAMPLES

from reportgen.errors import InputError
from reportgen.load.discover import discover, display_path
from reportgen.load.round import load_round, sniff_log_kind

TOML = """\
[round]
title = "t"
[hardware]
gpu = "RTX 4090"
[workload]
input_tokens = 1024
output_tokens = 256
[model]
name = "m"
{model_extra}
[[engines]]
id = "vllm"
kind = "vllm"
[[engines]]
id = "llama"
{llama_extra}
"""
PROM = """\
# TYPE vllm:request_success_total counter
vllm:request_success_total{{finished_reason="stop"}} {n}
"""


def result(conc: int | None, *, detail: bool = False) -> str:
    rec: dict[str, object] = {
        "backend": "openai", "num_prompts": 2, "max_concurrency": conc, "request_rate": "inf",
        "duration": 4.0, "completed": 2, "failed": 0, "output_throughput": 128.0,
        "median_itl_ms": 20.0,
    }
    if detail:
        rec.update(ttfts=[0.1, 0.2], itls=[[0.02, 0.02], [0.03]], errors=["", ""],
                   output_lens=[3, 2], input_lens=[8, 8])
    return json.dumps(rec)


def block(task: int) -> str:
    return (f"slot print_timing: id  0 | task {task} | \n"
            "prompt eval time =      10.00 ms /    10 tokens (    1.00 ms per token,  1000.00 "
            "tokens per second)\n"
            "       eval time =      20.00 ms /     2 tokens (   10.00 ms per token,   100.00 "
            "tokens per second)\n"
            "      total time =      30.00 ms /    12 tokens\n")


LLAMA_LOG = ("build_info: b9741-eab8ee41f\n"
             "llama_kv_cache: size = 1792.00 MiB ( 32768 cells,  28 layers,  4/4 seqs), "
             "K (f16):  896.00 MiB, V (f16):  896.00 MiB\n"
             "main: server is listening on http://0.0.0.0:8080\n"
             + "".join(block(t) for t in range(5)))
VLLM_LOG = ("(APIServer pid=1) INFO 11-18 13:50:01 [api_server.py:1805] vLLM API server version "
            "0.27.1\n(EngineCore_0 pid=2) INFO 11-18 13:51:01 [gpu_worker.py:276] Available KV "
            "cache memory: 4.00 GiB\n(EngineCore_0 pid=2) INFO 11-18 13:51:02 "
            "[kv_cache_utils.py:849] GPU KV cache size: 74,898 tokens\n")


def make_round(tmp_path: Path, *, model_extra: str = "", llama_extra: str = "",
               vllm_tiers: tuple[int, ...] = (1, 2), llama_tiers: tuple[int, ...] = (1, 2),
               llama_log: str | None = LLAMA_LOG) -> Path:
    root = tmp_path / "r2-test"
    (root / "vllm" / "bench").mkdir(parents=True)
    (root / "llama" / "bench").mkdir(parents=True)
    (root / "round.toml").write_text(
        TOML.format(model_extra=model_extra, llama_extra=llama_extra), encoding="utf-8")
    for c in vllm_tiers:
        (root / "vllm" / "bench" / f"c{c}.json").write_text(result(c, detail=c == 1))
    for c in llama_tiers:
        (root / "llama" / "bench" / f"c{c}.json").write_text(result(c))
    (root / "vllm" / "bench" / "c1.pytorch.json").write_text("[]")
    (root / "vllm" / "server.log").write_text(VLLM_LOG)
    if llama_log is not None:
        (root / "llama" / "server.log").write_text(llama_log)
    (root / "vllm" / "metrics").mkdir()
    (root / "vllm" / "metrics" / "c1-before.prom").write_text(PROM.format(n=0))
    (root / "vllm" / "metrics" / "c1-after.prom").write_text(PROM.format(n=2))
    (root / "vllm" / "gpu.csv").write_text(
        "timestamp, index, memory.used [MiB]\n2026/11/18 13:55:00.000, 0, 21000 MiB\n")
    (root / "vllm" / "fingerprint.txt").write_text("engine: vllm\n")
    return root


def test_loads_and_tags_everything(tmp_path: Path) -> None:
    root = make_round(tmp_path)
    loaded = load_round(root)
    s = loaded.summary
    assert list(s.columns[:3]) == ["engine", "source", "record"]
    assert s[["engine", "source", "concurrency"]].values.tolist() == [
        ["vllm", "r2-test/vllm/bench/c1.json", 1.0], ["vllm", "r2-test/vllm/bench/c2.json", 2.0],
        ["llama", "r2-test/llama/bench/c1.json", 1.0],
        ["llama", "r2-test/llama/bench/c2.json", 2.0]]
    assert list(loaded.requests["engine"]) == ["vllm", "vllm"]
    itls = loaded.itls.frame()
    assert list(itls["request"]) == [0, 0, 1]
    assert list(itls["itl_s"]) == [0.02, 0.02, 0.03]
    vllm, llama = loaded.engines["vllm"], loaded.engines["llama"]
    assert vllm.vllm_log is not None and vllm.vllm_log.kv_cache_tokens == 74898
    # kind unset: recognised from the content
    assert llama.llama_log is not None and llama.vllm_log is None
    assert len(llama.llama_log.timings) == 5
    assert llama.llama_log.path == "r2-test/llama/server.log"
    assert vllm.gpu.loc[0, "memory_used_mib"] == 21000.0
    assert vllm.fingerprint.values == {"engine": "vllm"}
    assert list(vllm.metrics) == [1] and vllm.metrics[1][1].loc[0, "value"] == 2.0
    assert loaded.findings == []


def test_display_path_is_relative_to_the_rounds_parent(tmp_path: Path) -> None:
    root = make_round(tmp_path)
    assert display_path(root / "vllm" / "bench" / "c1.json", root) == \
        "r2-test/vllm/bench/c1.json"
    assert display_path(Path("/elsewhere/x.json"), root) == "/elsewhere/x.json"
    files = discover(root)
    assert [p.name for p in files.engines["vllm"].bench] == ["c1.json", "c2.json"]


def test_no_bench_results_names_the_folder(tmp_path: Path) -> None:
    root = make_round(tmp_path, llama_tiers=())
    with pytest.raises(InputError) as exc:
        load_round(root)
    assert exc.value.path == "r2-test/llama/bench" and "no *.json result files" in str(exc.value)


def test_missing_engine_folder(tmp_path: Path) -> None:
    root = make_round(tmp_path)
    for p in sorted((root / "llama").rglob("*"), reverse=True):
        p.rmdir() if p.is_dir() else p.unlink()
    (root / "llama").rmdir()
    with pytest.raises(InputError, match="r2-test/llama: folder for engine 'llama' not found"):
        load_round(root)


def test_manifest_errors_use_the_same_path_style(tmp_path: Path) -> None:
    root = make_round(tmp_path, model_extra="colour = 1")
    with pytest.raises(InputError) as exc:
        load_round(root)
    assert exc.value.path == "r2-test/round.toml" and "colour" in exc.value.message


def test_duplicate_tier_names_both_files(tmp_path: Path) -> None:
    root = make_round(tmp_path)
    (root / "vllm" / "bench" / "c2-rerun.json").write_text(result(2))
    with pytest.raises(InputError) as exc:
        load_round(root)
    message = str(exc.value)
    assert "concurrency 2 appears twice for engine 'vllm'" in message
    assert "r2-test/vllm/bench/c2.json" in message and "r2-test/vllm/bench/c2-rerun.json" in message


def test_missing_tier_and_unknown_folder_are_findings(tmp_path: Path) -> None:
    root = make_round(tmp_path, llama_tiers=(1,))
    (root / "sglang").mkdir()
    (root / "narrative").mkdir()
    (root / "vllm" / "metrics" / "c2-before.prom").write_text(PROM.format(n=1))
    (root / "vllm" / "bench" / "c8.json").write_text(result(None))
    loaded = load_round(root)
    found = [(f.path, f.engine, f.message) for f in loaded.findings]
    assert ("r2-test/sglang", None, "folder is not an engine listed in round.toml; ignored") \
        in found
    assert any(p == "r2-test/llama/bench" and e == "llama" and "C=2" in m for p, e, m in found)
    assert any(p == "r2-test/vllm/metrics/c2-before.prom" and "c2-after.prom" in m
               for p, _, m in found)
    assert any(p == "r2-test/vllm/bench/c8.json" and "max_concurrency" in m for p, _, m in found)
    assert len(found) == 4


def test_log_segments_must_add_up(tmp_path: Path) -> None:
    ok = make_round(tmp_path / "a", llama_extra="log_segments = { warmup = 1, tiers = [2, 2] }")
    assert len(load_round(ok).engines["llama"].llama_log.timings) == 5
    bad = make_round(tmp_path / "b", llama_extra="log_segments = { warmup = 1, tiers = [2, 3] }")
    with pytest.raises(InputError) as exc:
        load_round(bad)
    assert exc.value.path == "r2-test/llama/server.log"
    assert "has 5 print_timing blocks" in exc.value.message and "add up to 6" in exc.value.message


def test_log_segments_without_a_log(tmp_path: Path) -> None:
    root = make_round(tmp_path, llama_extra="log_segments = { warmup = 0, tiers = [1, 1] }",
                      llama_log=None)
    with pytest.raises(InputError, match="no llama-server log"):
        load_round(root)


def test_kv_bytes_per_token_precedence(tmp_path: Path) -> None:
    derived = load_round(make_round(tmp_path / "a"))
    llama, vllm = derived.engines["llama"], derived.engines["vllm"]
    assert llama.kv_bytes_per_token == 57344.0  # 1792 MiB / 32768 cells
    assert llama.kv_bytes_per_token_source.startswith("r2-test/llama/server.log:2")
    assert vllm.kv_bytes_per_token == pytest.approx(4.0 * 2**30 / 74898)
    assert "74,898 tokens" in vllm.kv_bytes_per_token_source

    model = load_round(make_round(tmp_path / "b", model_extra="kv_bytes_per_token = 1000"))
    assert model.engines["llama"].kv_bytes_per_token == 1000.0
    assert model.engines["llama"].kv_bytes_per_token_source == \
        "round.toml [model].kv_bytes_per_token"

    both = load_round(make_round(tmp_path / "c", model_extra="kv_bytes_per_token = 1000",
                                 llama_extra="kv_bytes_per_token = 30000"))
    assert both.engines["llama"].kv_bytes_per_token == 30000.0
    assert both.engines["vllm"].kv_bytes_per_token == 1000.0


def test_log_kind_detection_and_mismatch(tmp_path: Path) -> None:
    root = make_round(tmp_path / "a", llama_log="nothing to recognise\n")
    loaded = load_round(root)
    llama = loaded.engines["llama"]
    assert llama.llama_log is None and llama.vllm_log is None
    assert [f.path for f in loaded.findings] == ["r2-test/llama/server.log"]

    wrong = make_round(tmp_path / "b", llama_extra='kind = "vllm"')
    with pytest.raises(InputError, match="looks like a llama-server log"):
        load_round(wrong)
    assert sniff_log_kind(wrong / "vllm" / "server.log") == "vllm"
    assert sniff_log_kind(wrong / "llama" / "server.log") == "llamacpp"


def test_bad_file_inside_a_round_is_named_relative(tmp_path: Path) -> None:
    root = make_round(tmp_path)
    (root / "llama" / "bench" / "c2.json").write_text('{"duration": 1,\n "completed": ')
    with pytest.raises(InputError) as exc:
        load_round(root)
    assert str(exc.value).startswith("r2-test/llama/bench/c2.json:2: not valid JSON")


@pytest.mark.parametrize(
    ("folder", "kind"),
    [(REAL_SAMPLES / "llama-server-log-b8680-1slot", "llamacpp"),
     pytest.param(SHARED_SAMPLES / "llama-server-log-b9090-4slots", "llamacpp",
                  marks=pytest.mark.shared),
     pytest.param(SHARED_SAMPLES / "llama-server-log-2026-08-timestamps-graphs-reused",
                  "llamacpp", marks=pytest.mark.shared),
     pytest.param(SHARED_SAMPLES / "vllm-serve-startup-logs-v0.10.1.1", "vllm",
                  marks=pytest.mark.shared)],
    ids=lambda v: v.name if isinstance(v, Path) else v,
)
def test_sniff_real_logs(folder: Path, kind: str) -> None:
    logs = sorted(folder.glob("*.log"))
    assert logs and {sniff_log_kind(p) for p in logs} == {kind}
