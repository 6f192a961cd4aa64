"""A llama-server log (mid-2026 format: `M.SS.mmm.uuu L ` prefix on every line, one SLT_INF per
timing line, cumulative `graphs reused`) for the same requests the bench JSON records.

Every request leaves: slot selection, launch, new prompt, prompt done, optional debug lines per
generated token (that is what makes real verbose logs gigabytes long; their count per token is
the size knob), `n_decoded = …` progress lines every 3 s, `done request`, the four-line
print_timing block and the release line. One request of a tier may be rejected (no block).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from benchmarks.linefmt import Fixed, Int, LineSet, Pick
from benchmarks.synth import OUTPUT_TOKENS, EngineModel, TierRun

N_SLOTS = 128
N_CTX = 262_144
N_CTX_SLOT = N_CTX // N_SLOTS
WORDS = [b"the", b" model", b" token", b" cache", b",", b" of", b" and", b".", b" GPU",
         b" batch", b" a", b"\\n", b" step", b" latency", b" serve", b" to"]
# Approximate bytes of each debug line kind, prefix included (used only to size the log).
DEBUG_LINE_BYTES = (117.0, 70.4, 69.4, 120.4, 66.0, 55.0, 57.0, 56.0)
BYTES_PER_REQUEST = 1320.0


def _slot(fn: bytes):
    head = b"slot " + fn + b": id "

    def parts(c: dict[str, np.ndarray]) -> list:
        return [head, Int(c["slot"], 2), b" | task ", Int(c["task"]), b" | "]

    return parts


_avail, _launch, _update = _slot(b"get_availabl"), _slot(b"launch_slot_"), _slot(b"update_slots")
_token, _timing, _release = _slot(b"process_toke"), _slot(b"print_timing"), _slot(b"     release")


def t_avail(c):
    return [b"slot get_availabl: id ", Int(c["slot"], 2),
            b" | task -1 | selected slot by LRU, t_last = ", Int(c["a"])]


def t_launch(c):
    return [*_launch(c), b"processing task, is_child = 0"]


def t_new_prompt(c):
    return [*_update(c), b"new prompt, n_ctx_slot = ", Int(c["a"]),
            b", n_keep = 0, task.n_tokens = ", Int(c["b"])]


def t_prompt_done(c):
    return [*_update(c), b"prompt processing done, n_tokens = ", Int(c["b"]),
            b", batch.n_tokens = ", Int(c["b"])]


def t_token(c):
    return [*_token(c), b"n_decoded = ", Int(c["a"]), b", n_remaining = ", Int(c["b"]),
            b", next token: ", Int(c["c"], 5), b" '", Pick(c["w"], WORDS), b"'"]


def t_send(c):
    return [b"srv          send: sending result for task id = ", Int(c["task"])]


def t_post(c):
    return [b"que          post: new task, id = ", Int(c["a"]), b"/1, front = 0"]


def t_decode(c):
    return [*_update(c), b"slot decode token, n_ctx = ", Int(c["a"]), b", n_tokens = ", Int(c["b"]),
            b", truncated = 0"]


def t_progress(c):
    return [*_timing(c), b"n_decoded = ", Int(c["a"], 6), b", tg = ", Fixed(c["f1"], 6, 2),
            b" t/s, tg_3s = ", Fixed(c["f2"], 6, 2), b" t/s"]


def t_done(c):
    return [b"srv  log_server_r: done request: POST /v1/completions 127.0.0.1 ",
            Pick(c["a"], [b"200", b"400"])]


def _per_token(c, label: bytes):
    return [*_timing(c), label, Fixed(c["f1"], 10, 2), b" ms / ", Int(c["b"], 5), b" tokens (",
            Fixed(c["f2"], 8, 2), b" ms per token, ", Fixed(c["f3"], 8, 2), b" tokens per second)"]


def t_prompt_eval(c):
    return _per_token(c, b"prompt eval time = ")


def t_eval(c):
    return _per_token(c, b"       eval time = ")


def t_total(c):
    return [*_timing(c), b"      total time = ", Fixed(c["f1"], 10, 2), b" ms / ", Int(c["b"], 5),
            b" tokens"]


def t_graphs(c):
    return [*_timing(c), b"   graphs reused = ", Int(c["a"], 10)]


def t_release(c):
    return [*_release(c), b"stop processing: n_tokens = ", Int(c["b"]), b", truncated = 0"]


def t_send_error(c):
    return [b"srv    send_error: task id = ", Int(c["task"]), b", error: request (", Int(c["a"]),
            b" tokens) exceeds the available context size (", Int(c["b"]),
            b" tokens), try increasing it"]


def t_idle(c):
    return [b"srv  update_slots: all slots are idle"]


def t_batch(c):
    return [b"srv  update_slots: decoding batch, n_tokens = ", Int(c["a"])]


def t_slots_done(c):
    return [b"srv  update_slots: run slots completed"]


def t_wait(c):
    return [b"que    start_loop: waiting for new tasks"]


def t_wake(c):
    return [b"que    start_loop: processing new tasks"]


# Debug lines that verbose servers print around every generated token, in print order.
DEBUG_KINDS = (t_token, t_send, t_post, t_decode, t_batch, t_slots_done, t_wait, t_wake)


def debug_lines_per_token(target_bytes: float, requests: int, tokens: int) -> float:
    """How many debug lines per generated token bring the log to about ``target_bytes``."""
    budget = (target_bytes - requests * BYTES_PER_REQUEST) / max(tokens, 1)
    rate = 0.0
    for size in DEBUG_LINE_BYTES:
        if budget <= 0:
            break
        take = min(1.0, budget / size)
        rate += take
        budget -= take * size
    return rate


def graph_reuse_fraction(concurrency: int) -> float:
    # Single stream reuses nearly every decode graph; batches of changing shape rarely do.
    return 0.99 * concurrency**-1.25


def gguf_name(engine: EngineModel) -> str:
    return f"Qwen2.5-7B-Instruct-{engine.label.split()[-1]}.gguf"


def startup_text(engine: EngineModel, verbosity: int) -> bytes:
    gguf_mib = engine.weight_bytes / 2**20
    cpu_mib = round(gguf_mib * 0.0655, 2)
    kv_mib = N_CTX * 57344 / 2**20
    lines = [
        (412, "I", "build_info: b9420-eab8ee41f"),
        (431, "I", "system_info: n_threads = 16 (n_threads_batch = 16) / 32 | CUDA : ARCHS = 890 "
                   "| USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | CPU : AVX2 = 1 | OPENMP = 1 | "),
        (56_555, "I", f"cmn  common_param: common_params_print_info: verbosity = {verbosity}"),
        (57_402, "W", "srv  llama_server: CORS is set to allow all origins ('*') and no API key "
                      "is set"),
        (58_285, "I", f"srv    load_model: loading model '/models/{gguf_name(engine)}'"),
        (1_402_118, "I", "load_tensors: offloaded 29/29 layers to GPU"),
        (1_402_130, "I", f"load_tensors:        CUDA0 model buffer size = "
                         f"{gguf_mib - cpu_mib:8.2f} MiB"),
        (1_402_131, "I", f"load_tensors:   CPU_Mapped model buffer size = {cpu_mib:8.2f} MiB"),
        (1_900_004, "I", f"llama_context: n_seq_max     = {N_SLOTS}"),
        (1_900_005, "I", f"llama_context: n_ctx         = {N_CTX}"),
        (1_900_006, "I", f"llama_context: n_ctx_seq     = {N_CTX_SLOT}"),
        (1_900_007, "I", "llama_context: n_batch       = 2048"),
        (1_900_008, "I", "llama_context: n_ubatch      = 512"),
        (1_900_009, "I", "llama_context: flash_attn    = enabled"),
        (1_900_010, "I", "llama_context: kv_unified    = false"),
        (1_951_220, "I", f"llama_kv_cache:      CUDA0 KV buffer size = {kv_mib:8.2f} MiB"),
        (1_951_260, "I", f"llama_kv_cache: size = {kv_mib:8.2f} MiB ({N_CTX:6d} cells,  28 layers,"
                         f" {N_SLOTS}/{N_SLOTS} seqs), K (f16): {kv_mib / 2:8.2f} MiB, V (f16): "
                         f"{kv_mib / 2:8.2f} MiB"),
        (2_004_400, "I", "sched_reserve:      CUDA0 compute buffer size =   304.00 MiB"),
        (2_104_000, "I", f"srv    load_model: initializing, n_slots = {N_SLOTS}, n_ctx_slot = "
                         f"{N_CTX_SLOT}, kv_unified = 'false'"),
        (2_110_500, "I", "srv  llama_server: model loaded"),
        (2_110_503, "I", "srv  llama_server: listening on http://127.0.0.1:8080"),
    ]
    out = []
    for t, level, text in lines:
        stamp = f"{t // 60_000_000}.{t // 1_000_000 % 60:02d}.{t // 1000 % 1000:03d}.{t % 1000:03d}"
        out.append(f"{stamp} {level} {text}\n")
    return "".join(out).encode()


@dataclass
class LogState:
    """Counters that run across tiers within one server process."""

    task: int = 0
    graphs: int = 0
    blocks: int = 0


def tier_lines(run: TierRun, server_start_perf: float, debug_rate: float, state: LogState,
               rng: np.random.Generator) -> tuple[LineSet, int]:
    """Every log line of one tier; returns the lines and the number of print_timing blocks."""
    lines = LineSet()
    n = run.requests
    ok = ~run.failed
    arrive = np.rint((run.start_times - server_start_perf) * 1e6).astype(np.int64) + 300
    order = np.argsort(arrive, kind="stable")
    task = np.empty(n, np.int64)
    task[order] = state.task + np.arange(n) * (OUTPUT_TOKENS + 3)
    state.task += n * (OUTPUT_TOKENS + 3)
    slot = np.arange(n) % run.concurrency
    tie = np.arange(n) * 16
    inp = run.input_lens
    out = run.output_lens

    lines.add(t_avail, "I", arrive, slot=slot, a=286_000_000_000 + arrive, tie=tie)
    lines.add(t_launch, "I", arrive + 60, slot=slot, task=task, tie=tie + 1)
    lines.add(t_new_prompt, "I", arrive + 130, slot=slot, task=task, a=N_CTX_SLOT, b=inp,
              tie=tie + 2)

    # Rejected requests: an error, a release with nothing processed, HTTP 400.
    bad = np.flatnonzero(run.failed)
    lines.add(t_send_error, "E", arrive[bad] + 200, task=task[bad], a=inp[bad], b=N_CTX_SLOT)
    lines.add(t_release, "I", arrive[bad] + 260, slot=slot[bad], task=task[bad], b=0)
    lines.add(t_done, "I", arrive[bad] + 300, a=1)

    good = np.flatnonzero(ok)
    ttft_us = np.rint(run.ttfts[good] * 1e6).astype(np.int64)
    first = arrive[good] + ttft_us
    lines.add(t_prompt_done, "I", arrive[good] + np.rint(ttft_us * 0.97).astype(np.int64),
              slot=slot[good], task=task[good], b=inp[good], tie=tie[good] + 3)

    # Token times: first token after TTFT, then the recorded ITLs.
    cum = np.concatenate([np.zeros((good.size, 1)), np.cumsum(run.itl[good], axis=1)], axis=1)
    tok_t = first[:, None] + np.rint(cum * 1e6).astype(np.int64)  # (good, OUTPUT_TOKENS)
    j = np.broadcast_to(np.arange(OUTPUT_TOKENS), tok_t.shape)
    req = np.broadcast_to(good[:, None], tok_t.shape)
    if debug_rate > 0:
        per = (np.floor((j + 1) * debug_rate) - np.floor(j * debug_rate)).astype(np.int64).ravel()
        tok_flat, j_flat, req_flat = tok_t.ravel(), j.ravel(), req.ravel()
        for k, kind in enumerate(DEBUG_KINDS):
            sel = np.flatnonzero(per > k)
            r, jj = req_flat[sel], j_flat[sel]
            cols = {"slot": slot[r], "task": task[r]}
            if kind is t_token:
                cols |= {"a": jj + 1, "b": out[r] - jj - 1, "c": rng.integers(0, 151_000, sel.size),
                         "w": rng.integers(0, len(WORDS), sel.size)}
            elif kind is t_post:
                cols["a"] = task[r] + jj + 1  # each decode step queues a task: ids jump per request
            elif kind is t_decode:
                cols |= {"a": N_CTX_SLOT, "b": inp[r] + jj + 1}
            elif kind is t_batch:
                cols["a"] = run.concurrency
            lines.add(kind, "D", tok_flat[sel] + 5 * k, tie=tie[r] + 4, **cols)

    # `n_decoded = N, tg = …` every ~3 s once 100 tokens are out.
    since = (tok_t - tok_t[:, 99:100]) // 3_000_000
    mark = np.zeros(tok_t.shape, dtype=bool)
    mark[:, 99] = True
    mark[:, 100:] = since[:, 100:] > since[:, 99:-1]
    rr, jj = np.nonzero(mark)
    elapsed = (tok_t[rr, jj] - first[rr]) / 1e6 + 1e-3
    tg = (jj + 1) / elapsed
    lines.add(t_progress, "I", tok_t[rr, jj] + 40, slot=slot[good[rr]], task=task[good[rr]],
              a=jj + 1, f1=tg, f2=tg * rng.uniform(0.9, 1.1, rr.size), tie=tie[good[rr]] + 5)

    # done request, the print_timing block, release, just after the last token's debug lines.
    end = tok_t[:, -1] + 5 * len(DEBUG_KINDS) + 20
    prompt_ms = ttft_us * 0.97 / 1000
    eval_ms = (end - first) / 1000
    by_end = np.argsort(end, kind="stable")
    deltas = rng.binomial(OUTPUT_TOKENS - 1, graph_reuse_fraction(run.concurrency), good.size)
    graphs = np.empty(good.size, np.int64)
    graphs[by_end] = state.graphs + np.cumsum(deltas[by_end])
    state.graphs = int(graphs.max()) if graphs.size else state.graphs
    s, t, g_in, g_out = slot[good], task[good], inp[good], out[good]
    lines.add(t_done, "I", end - 10, a=0, tie=tie[good] + 6)
    common = dict(key_us=end, slot=s, task=t)
    lines.add(t_prompt_eval, "I", end, f1=prompt_ms, b=g_in, f2=prompt_ms / g_in,
              f3=g_in / prompt_ms * 1000, tie=tie[good] + 7, **common)
    lines.add(t_eval, "I", end + 3, f1=eval_ms, b=g_out, f2=eval_ms / g_out,
              f3=g_out / eval_ms * 1000, tie=tie[good] + 8, **common)
    lines.add(t_total, "I", end + 4, f1=prompt_ms + eval_ms, b=g_in + g_out, tie=tie[good] + 9,
              **common)
    lines.add(t_graphs, "I", end + 10, a=graphs, tie=tie[good] + 10, **common)
    lines.add(t_release, "I", end + 260, slot=s, task=t, b=g_in + g_out - 1, tie=tie[good] + 11)
    last = max(int(end.max()) if end.size else 0, int(arrive.max()) + 300)
    lines.add(t_idle, "I", np.array([last + 1200]))
    state.blocks += good.size
    return lines, good.size


def write_tier(fh: BinaryIO, run: TierRun, server_start_perf: float, debug_rate: float,
               state: LogState, rng: np.random.Generator) -> tuple[int, int]:
    """Append one tier to the log; returns (bytes written, print_timing blocks)."""
    lines, blocks = tier_lines(run, server_start_perf, debug_rate, state, rng)
    return lines.write(fh), blocks

