"""llama-server logs: the three real samples (eras b and c, interleaved slots, restarts,
rejections) and small inline logs for the rarer shapes."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from data_paths import REAL_SAMPLES, SHARED_SAMPLES

from reportgen.errors import InputError
from reportgen.load import llama_log
from reportgen.load.llama_log import parse_llama_log

B8680 = REAL_SAMPLES / "llama-server-log-b8680-1slot" / "llama-server.log"   # MIT: vendored
# no licence stated for these two: read from ../shared by `shared` tests only
B9090 = SHARED_SAMPLES / "llama-server-log-b9090-4slots" / "llama-server.log"
AUG2026 = SHARED_SAMPLES / "llama-server-log-2026-08-timestamps-graphs-reused" / "llama-server.log"
ALL_SAMPLES = [pytest.param(B8680, id="b8680"),
               pytest.param(B9090, id="b9090", marks=pytest.mark.shared),
               pytest.param(AUG2026, id="aug2026", marks=pytest.mark.shared)]


def block_b(slot: int, task: int, p: tuple[float, int], e: tuple[float, int]) -> str:
    """An era-(b) block exactly as the server prints it."""
    return (
        f"slot print_timing: id {slot:2d} | task {task} | \n"
        f"prompt eval time = {p[0]:10.2f} ms / {p[1]:5d} tokens (    1.00 ms per token,   "
        f"100.00 tokens per second)\n"
        f"       eval time = {e[0]:10.2f} ms / {e[1]:5d} tokens (   10.00 ms per token,    "
        f"10.00 tokens per second)\n"
        f"      total time = {p[0] + e[0]:10.2f} ms / {p[1] + e[1]:5d} tokens\n"
    )


def era_c_lines(stamp: str, slot: int, task: int, p: tuple[float, int], e: tuple[float, int],
                graphs: int) -> list[str]:
    pre = f"{stamp} I slot print_timing: id {slot:2d} | task {task} | "
    return [
        f"{pre}prompt eval time = {p[0]:10.2f} ms / {p[1]:5d} tokens (    1.00 ms per token,   "
        "100.00 tokens per second)",
        f"{pre}       eval time = {e[0]:10.2f} ms / {e[1]:5d} tokens (   10.00 ms per token,    "
        "10.00 tokens per second)",
        f"{pre}      total time = {p[0] + e[0]:10.2f} ms / {p[1] + e[1]:5d} tokens",
        f"{pre}   graphs reused = {graphs:10d}",
    ]


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "server.log"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


# ------------------------------------------------------------------ real samples


def test_b8680_one_slot() -> None:
    log = parse_llama_log(B8680, name="b8680.log")
    t = log.timings
    assert len(t) == 101
    assert list(t.columns) == list(llama_log.TIMING_COLUMNS)
    first = t.iloc[0]
    assert (first["line"], first["slot"], first["task"]) == (303, 0, 0)
    assert (first["prompt_eval_ms"], first["prompt_tokens"]) == (3565.84, 1331)
    assert (first["eval_ms"], first["eval_tokens"]) == (3297.85, 62)
    assert (first["total_ms"], first["total_tokens"]) == (6863.68, 1393)
    assert t.loc[1, "prompt_tokens"] == 4914  # prompt-cache reuse: fewer than task.n_tokens
    assert t["graphs_reused"].isna().all() and t["t_s"].isna().all()  # era (b), no prefixes
    assert (t["run"] == 0).all() and log.restarts == [] and log.rejected.empty
    f = log.facts
    assert (f.build, f.commit) == ("b8680", "15f786e65")
    assert (f.n_slots, f.n_ctx, f.n_ctx_slot, f.n_layers) == (1, 65536, 65536, 42)
    assert f.model_buffer_mib == 7798.32  # MTL0_Mapped; the CPU_Mapped buffer is kept apart
    assert f.model_buffer_cpu_mib == 680.0
    assert f.kv_cache_mib == 1064.0  # 1024 (full) + 40 (SWA)
    assert (f.kv_cells, f.kv_type_k, f.kv_type_v) == (65536, "f16", "f16")
    assert f.kv_bytes_per_token == 1024 * 2**20 / 65536
    assert f.provenance["build"] == "b8680.log:22"
    assert f.provenance["model_buffer_mib"] == "b8680.log:173"
    assert f.model_path.endswith("gemma-4-E4B-it-Q8_0.gguf")


@pytest.mark.shared
def test_b9090_interleaved_slots_restarts_and_rejections() -> None:
    log = parse_llama_log(B9090, name="b9090.log")
    t = log.timings
    assert len(t) == 50
    assert set(t["slot"]) == {0, 1, 2, 3}
    # consecutive blocks from different slots, in log order
    assert t.loc[1:3, ["line", "slot", "task"]].values.tolist() == [
        [3270, 3, 0], [3332, 1, 6], [3386, 3, 1187]]
    assert t["line"].is_monotonic_increasing
    assert t.loc[1, "eval_ms"] == 0.0 and t.loc[1, "eval_tokens"] == 1  # 1-token generation
    # three server starts: listening lines 898, 3253, 4807; task ids restart at 0
    assert log.restarts == [3253, 4807]
    assert t.groupby("run").size().to_dict() == {0: 1, 1: 19, 2: 30}
    assert (t.loc[t["run"] == 1, "task"].iloc[0], t.loc[t["run"] == 0, "task"].iloc[0]) == (0, 14)
    # requests rejected for context size: release with n_tokens = 0, no block
    r = log.rejected
    assert len(r) == 21
    assert r.loc[0, ["line", "run", "slot", "task"]].tolist() == [3294, 1, 2, 3]
    assert r.loc[0, "error"].startswith("request (101891 tokens) exceeds the available context")
    assert not set(zip(r["run"], r["task"], strict=True)) & set(
        zip(t["run"], t["task"], strict=True))
    # facts describe the run that served the last block (the third start)
    f = log.facts
    assert f.run == 2 and (f.build, f.commit) == ("b9090", "5757c4dcb")
    assert (f.n_slots, f.n_ctx, f.n_ctx_slot) == (4, 32768, 32768)
    assert f.model_buffer_mib == pytest.approx(7196.64 + 7575.80 + 3735.91)
    assert f.model_buffer_cpu_mib == 417.66
    assert (f.kv_cache_mib, f.kv_cells, f.kv_type_k) == (4352.0, 32768, "q8_0")
    assert f.args["n_parallel"] == "4" and f.provenance["args.n_parallel"] == "b9090.log:4605"
    assert f.provenance["kv_cache_mib"] == "b9090.log:4769"


@pytest.mark.shared
def test_aug_2026_timestamps_and_graphs_reused() -> None:
    log = parse_llama_log(AUG2026)
    t = log.timings
    assert len(t) == 9
    assert list(t["graphs_reused"][:4]) == [505, 1013, 1521, 2029]
    assert list(t["task"][:4]) == [0, 515, 1033, 1551]
    assert t.loc[0, "line"] == 43
    # 3.19.814.346: the eval line's elapsed-time prefix
    assert t.loc[0, "t_s"] == pytest.approx(3 * 60 + 19.814346)
    assert t["t_s"].is_monotonic_increasing
    assert t.loc[0, ["prompt_eval_ms", "prompt_tokens", "eval_tokens"]].tolist() == [
        18996.54, 8743, 508]
    f = log.facts
    assert (f.n_slots, f.n_ctx_slot) == (1, 12288)
    assert f.model_path == "/home/mohab/models/Qwen3.6-27B-UD-Q4_K_XL.gguf"
    assert f.build is None and f.model_buffer_mib is None  # verbosity 3 hides those lines
    assert f.args["verbosity"] == "3"


@pytest.mark.parametrize("sample", ALL_SAMPLES)
def test_slow_path_agrees_with_fast_path(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_llama_log(sample)
    monkeypatch.setattr(llama_log, "_fast_blocks",
                        lambda *args: llama_log._block_arrays([], [], []))
    slow = parse_llama_log(sample)
    pd.testing.assert_frame_equal(fast.timings, slow.timings)


@pytest.mark.parametrize("sample", ALL_SAMPLES)
def test_tiny_chunks_give_the_same_result(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = parse_llama_log(sample)
    monkeypatch.setattr(llama_log, "CHUNK", 5000)
    monkeypatch.setattr(llama_log, "OVERLAP", 1200)
    chunked = parse_llama_log(sample)
    pd.testing.assert_frame_equal(whole.timings, chunked.timings)
    pd.testing.assert_frame_equal(whole.rejected, chunked.rejected)
    assert whole.restarts == chunked.restarts and whole.facts == chunked.facts


# ------------------------------------------------------------------ inline shapes


def test_zero_blocks_is_an_empty_frame(tmp_path: Path) -> None:
    log = parse_llama_log(write(tmp_path, "main: server is listening on http://x\nhello\n"))
    assert log.timings.empty and list(log.timings.columns) == list(llama_log.TIMING_COLUMNS)
    assert log.findings == []


def test_era_c_interleaved_slots_slow_path(tmp_path: Path) -> None:
    a = era_c_lines("1.00.000.100", 0, 7, (100.0, 10), (200.0, 20), 19)
    b = era_c_lines("1.00.000.200", 1, 9, (300.0, 30), (400.0, 40), 58)
    lines = [a[0], b[0], a[1], b[1], b[2], a[2], b[3], a[3]]  # two slots, lines mixed
    log = parse_llama_log(write(tmp_path, "\n".join(lines) + "\n"))
    t = log.timings
    assert t[["line", "slot", "task", "prompt_tokens", "eval_ms"]].values.tolist() == [
        [1, 0, 7, 10, 200.0], [2, 1, 9, 30, 400.0]]
    assert list(t["graphs_reused"]) == [19, 58]
    assert t.loc[0, "t_s"] == pytest.approx(60.0001)


def test_era_b_wrapper_prefix_and_intervening_line(tmp_path: Path) -> None:
    one = block_b(2, 5, (50.0, 5), (60.0, 6)).splitlines()
    text = "\n".join([one[0], "srv  log_server_r: done request: POST /v1 127.0.0.1 200",
                      "[42027] " + one[1], "[42027] " + one[2], "[42027] " + one[3]]) + "\n"
    t = parse_llama_log(write(tmp_path, text)).timings
    assert t[["line", "slot", "task", "prompt_eval_ms", "total_tokens"]].values.tolist() == [
        [1, 2, 5, 50.0, 11]]


def test_era_a_old_text_format(tmp_path: Path) -> None:
    text = (
        "INFO [           print_timings] prompt eval time     =      15.62 ms /    12 tokens "
        "(    1.30 ms per token,   768.49 tokens per second) | tid=\"1\" timestamp=1 id_slot=0 "
        "id_task=4 t_prompt_processing=15.615\n"
        "INFO [           print_timings] generation eval time =    3194.22 ms /   783 runs   "
        "(    4.08 ms per token,   245.13 tokens per second) | tid=\"1\" timestamp=1 id_slot=0 "
        "id_task=4\n"
        "INFO [           print_timings]           total time =    3209.84 ms | tid=\"1\" "
        "timestamp=1 id_slot=0 id_task=4 t_total=3209.839\n"
    )
    t = parse_llama_log(write(tmp_path, text)).timings
    row = t.iloc[0]
    assert (row["slot"], row["task"], row["prompt_tokens"], row["eval_tokens"]) == (0, 4, 12, 783)
    assert (row["total_ms"], row["total_tokens"]) == (3209.84, 795)


def test_perf_print_at_exit_is_not_a_request(tmp_path: Path) -> None:
    text = block_b(0, 1, (10.0, 1), (20.0, 2)) + (
        "llama_perf_context_print: prompt eval time =      10.00 ms /     1 tokens\n"
        "llama_perf_context_print:        eval time =      20.00 ms /     2 runs\n"
        "llama_perf_context_print:       total time =      30.00 ms /     3 tokens\n"
    )
    assert len(parse_llama_log(write(tmp_path, text)).timings) == 1


def test_crlf_tqdm_and_non_utf8_never_crash(tmp_path: Path) -> None:
    junk = (b"Fetching 3 files:   0%|  | 0/3\rFetching 3 files: 100%|\xe2\x96\x88| 3/3\n"
            b"\xff\xfe\x00x\n")
    block = block_b(1, 3, (10.0, 1), (20.0, 2)).replace("\n", "\r\n").encode()
    log = parse_llama_log(write(tmp_path, junk + block))
    assert log.timings[["line", "slot", "task"]].values.tolist() == [[3, 1, 3]]


def test_rejection_with_non_utf8_message_is_a_finding(tmp_path: Path) -> None:
    text = (b"main: server is listening on http://127.0.0.1:8080\n"
            b"srv    send_error: task id = 7, error: request \xff too long\n"
            b"slot      release: id  2 | task 7 | stop processing: n_tokens = 0, truncated = 0\n"
            b"srv  log_server_r: done request: POST /v1/messages 127.0.0.1 400\n")
    log = parse_llama_log(write(tmp_path, text), name="s.log")
    r = log.rejected
    assert r[["line", "run", "slot", "task"]].values.tolist() == [[3, 0, 2, 7]]
    assert r.loc[0, "error"] == "request \ufffd too long"
    assert [(f.line, "not UTF-8" in f.message) for f in log.findings] == [(2, True)]
    assert str(log.findings[0]).startswith("s.log:2: ")


def test_block_cut_off_at_end_of_log_is_a_finding(tmp_path: Path) -> None:
    lines = block_b(0, 1, (10.0, 1), (20.0, 2)).splitlines()
    log = parse_llama_log(write(tmp_path, "\n".join(lines[:3]) + "\n"), name="cut.log")
    assert log.timings.empty
    assert [(f.line, "total time" in f.message) for f in log.findings] == [(1, True)]


def test_restarts_and_facts_of_the_serving_run(tmp_path: Path) -> None:
    start = ("build_info: b{b}-abc123\n"
             "load_tensors:        CUDA0 model buffer size =  {gpu:.2f} MiB\n"
             "load_tensors:   CPU_Mapped model buffer size =   292.34 MiB\n"
             "srv    load_model: initializing slots, n_slots = {n}\n"
             "main: server is listening on http://127.0.0.1:8080\n")
    text = (block_b(0, 9, (1.0, 1), (2.0, 2))  # log starts mid-run
            + start.format(b=100, gpu=1000.0, n=2) + block_b(0, 0, (1.0, 1), (2.0, 2))
            + start.format(b=101, gpu=2000.0, n=4) + block_b(3, 0, (1.0, 1), (2.0, 2)))
    log = parse_llama_log(write(tmp_path, text), name="r.log")
    assert list(log.timings["run"]) == [0, 1, 2]
    assert log.restarts == [9, 18]
    f = log.facts
    assert (f.run, f.build, f.n_slots, f.model_buffer_mib) == (2, "b101", 4, 2000.0)
    assert f.provenance["model_buffer_mib"] == "r.log:15"


def test_swa_kv_blocks_are_summed(tmp_path: Path) -> None:
    text = (
        "llama_kv_cache: size = 1024.00 MiB ( 65536 cells,   4 layers,  1/1 seqs), "
        "K (f16):  512.00 MiB, V (f16):  512.00 MiB\n"
        "llama_kv_cache: size =   40.00 MiB (  1024 cells,  20 layers,  1/1 seqs), "
        "K (f16):   20.00 MiB, V (f16):   20.00 MiB\n"
        "main: server is listening on http://127.0.0.1:8080\n"
    )
    f = parse_llama_log(write(tmp_path, text)).facts
    assert (f.kv_cache_mib, f.kv_layers, f.kv_cells) == (1064.0, 24, 65536)
    assert f.kv_bytes_per_token == 16384.0
    assert math.isclose(f.kv_bytes_per_token * f.kv_cells / 2**20, 1024.0)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        parse_llama_log(tmp_path / "none.log")


@pytest.mark.parametrize(("line", "size"), [
    ("srv    load_model: prompt cache is disabled - use `--cache-ram N` to enable it", "0"),
    ("srv    load_model: prompt cache is enabled, size limit: 8192 MiB", "8192"),
])
def test_prompt_cache_state_is_read_from_the_log(tmp_path: Path, line: str, size: str) -> None:
    text = f"{line}\nmain: server is listening on http://127.0.0.1:8080\n"
    f = parse_llama_log(write(tmp_path, text), name="s.log").facts
    assert f.args["cache_ram_mib"] == size
    assert f.provenance["args.cache_ram_mib"] == "s.log:1"
