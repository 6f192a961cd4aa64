"""llama-server log → one row per ``print_timing`` block, rejected requests, restarts, and the
startup facts (build, slots, context, model / KV buffers).

Logs can be gigabytes, so nothing here loops over lines in Python. The file is read in 16 MiB
chunks (small enough to stay in cache across the passes below). Each pass looks for one literal
with ``bytes.find`` (``prompt eval time``, ``stop processing: n_``, ``listening``), which is
faster than letting ``re`` search for a pattern's literal prefix; the block / rejection regexes
are then only *matched* at those places, and match groups are converted column-wise with numpy.
Line numbers: newlines counted between consecutive hits on a numpy mask of the chunk.

print_timing eras handled:
  (a) ≤ 2024 text log: ``INFO [ print_timings] prompt eval time = … | … id_slot=0 id_task=0``
  (b) header ``slot print_timing: id  N | task T | `` + three unprefixed timing lines
  (c) mid-2026: every timing line prefixed with ``slot print_timing: id N | task T |`` and a
      fourth line ``graphs reused = N`` (a cumulative counter)
Blocks whose lines are contiguous (the normal case; a block is emitted at once) are read by
one regex; a chunk where that regex misses some ``prompt eval time`` lines is re-read line
event by line event (slow path), keying open blocks by (slot, task) and attaching unprefixed
lines to the latest header.

Runs: each ``server is listening`` line starts a run (0-based ``run`` column). Startup facts
describe the run that served the last print_timing block (or the last run): they are read from
the startup text before its listening line.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from reportgen.errors import Finding, InputError
from reportgen.files.safe_read import InputStream, open_input

CHUNK = 16 << 20
OVERLAP = 64 << 10  # CHUNK must be well above 2 × OVERLAP
KIND = "llama_log"  # its size cap in reportgen.files.safe_read.CAPS
STARTUP_WINDOW = 8 << 20  # how far before a listening line its startup text may begin
PROMPT_LIT = b"prompt eval time"

# A continuation line of a block: optional timestamp, optional era-(c) slot prefix. Spelled
# out (no lazy ``.*?``) so the regex engine never backtracks along a line.
CONT = (rb"(?:\d+\.\d\d\.\d\d\d\.\d\d\d [IWEDT] )?"
        rb"(?:slot print_timing: id +\d+ \| task +-?\d+ \| )?")
TAIL = (rb" *eval time = +([\d.]+) ms / +(\d+) tokens[^\n]*\n" + CONT
        + rb" *total time = +([\d.]+) ms / +(\d+) tokens"
        rb"(?:[^\n]*\n" + CONT + rb" *graphs reused = +(\d+))?")
# era (b): header line, then the three timing lines (groups: slot, task, anchor, prompt ms,
# prompt tokens, eval ms, eval tokens, total ms, total tokens, graphs)
BLOCK_B = re.compile(
    rb"print_timing: id +(\d+) \| task +(-?\d+) \| *\r?\n" + CONT
    + rb"()prompt eval time = +([\d.]+) ms / +(\d+) tokens[^\n]*\n" + CONT + TAIL
)
# era (c): starts at the rarest literal; slot, task and the timestamp come from the eval line
# (groups: prompt ms, prompt tokens, timestamp, slot, task, eval ms, …, graphs)
BLOCK_C = re.compile(
    rb"prompt eval time = +([\d.]+) ms / +(\d+) tokens[^\n]*\n"
    rb"(?:(\d+\.\d\d\.\d\d\d\.\d\d\d) [IWEDT] )?slot print_timing: id +(\d+) \| task +(-?\d+) \| "
    + TAIL
)
ERA_C_HINT = b"| prompt eval time"
HEADER = re.compile(rb"print_timing: id +(\d+) \| task +(-?\d+) \| *\r?\n")
TIME_LINE = re.compile(rb" time += +([\d.]+) ms(?: / +(\d+) (?:tokens|runs))?")
GRAPHS = re.compile(rb"graphs reused = +(\d+)")
SLOT_TASK = re.compile(rb"print_timing: id +(\d+) \| task +(-?\d+) \|")
OLD_SLOT_TASK = re.compile(rb"id_slot=(\d+) id_task=(-?\d+)")
REJECT = re.compile(
    rb"release: id +(\d+) \| task +(-?\d+) \| stop processing: n_(?:tokens|past) = 0,"
)
LISTEN = b"listening"
REJECT_LIT = b"stop processing: n_"  # in every REJECT match, rarer than its start
LISTEN_CONTEXT = (b"server is ", b"llama_server: ", b"HTTP server ")
TIMESTAMP = re.compile(
    rb"(?<!\d)(\d{1,9})\.(\d\d)\.(\d\d\d)\.(\d\d\d)(?:\x1b\[[0-9;]*m)? (?:\x1b\[[0-9;]*m)?[IWEDT] "
)
SEND_ERROR = b"send_error: task id = "

TIMING_COLUMNS = (
    "block", "line", "run", "slot", "task", "prompt_eval_ms", "prompt_tokens", "eval_ms",
    "eval_tokens", "total_ms", "total_tokens", "graphs_reused", "t_s",
)
REJECTED_COLUMNS = ("line", "run", "slot", "task", "error", "t_s")


@dataclass
class LlamaFacts:
    build: str | None = None
    commit: str | None = None
    n_slots: int | None = None
    n_ctx: int | None = None
    n_ctx_slot: int | None = None
    model_buffer_mib: float | None = None  # GPU buffers summed (CPU when there is no GPU one)
    model_buffer_cpu_mib: float | None = None
    kv_cache_mib: float | None = None  # all llama_kv_cache blocks (SWA ones too) summed
    kv_cells: int | None = None
    kv_type_k: str | None = None
    kv_type_v: str | None = None
    kv_layers: int | None = None
    kv_bytes_per_token: float | None = None  # full-context cache bytes / cells
    n_layers: int | None = None
    model_path: str | None = None
    args: dict[str, str] = field(default_factory=dict)
    run: int | None = None  # which run these facts describe
    provenance: dict[str, str] = field(default_factory=dict)


@dataclass
class LlamaLog:
    path: str
    timings: pd.DataFrame
    facts: LlamaFacts
    rejected: pd.DataFrame
    restarts: list[int]  # 1-based lines of the listening lines that start runs 1, 2, …
    findings: list[Finding] = field(default_factory=list)


# ---------------------------------------------------------------- streaming

Chunk = bytes | bytearray  # what the scanners read: _chunks yields its reused bytearray


def _chunks(f: InputStream) -> Iterator[tuple[bytearray, int, int, int]]:
    """Yield (buf, base, lo, hi): ``buf`` holds file bytes [base, base + len(buf)); hits
    anchored in [lo, hi) belong to this chunk. ``buf`` reaches OVERLAP bytes past ``hi`` (so a
    block starting before ``hi`` ends inside it) and starts up to OVERLAP bytes before ``lo``
    (so an era-(b) header just before ``lo`` is visible). ``lo`` and ``hi`` are line starts.

    One bytearray is reused and filled with ``readinto``: copying 64 MB per chunk would cost
    as much as a regex pass. The caller must be done with ``buf`` before asking for the next.
    """
    try:
        size = os.fstat(f.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        size = CHUNK
    # a small log gets a small buffer (+1 so EOF shows as short), but never below the overlaps
    # the cutting needs: a log still growing while it is read can outgrow its fstat size
    cap = max(min(CHUNK, size + 1), 4 * OVERLAP)
    buf = bytearray(cap)
    view = memoryview(buf)
    keep = base = lo = 0
    while True:
        total = keep
        while total < cap:
            n = f.readinto(view[total:])
            if not n:
                break
            total += n
        if total < cap:  # end of file
            view.release()
            yield buf[:total], base, lo, total
            return
        hi = buf.rfind(b"\n", lo, cap - OVERLAP) + 1
        if hi <= lo:  # one enormous line: cut anywhere
            hi = cap - OVERLAP
        yield buf, base, lo, hi
        back = buf.rfind(b"\n", 0, max(hi - OVERLAP, 0)) + 1
        if back == 0:  # no line start in reach: keep OVERLAP bytes so the window still moves
            back = max(hi - OVERLAP, 1)
        keep = cap - back
        buf[:keep] = buf[back:]  # the look-back for the next chunk (≤ 2 × OVERLAP)
        base += back
        lo = hi - back


def _line_start(buf: Chunk, pos: int) -> int:
    return buf.rfind(b"\n", 0, pos) + 1


def _t_s(buf: Chunk, pos: int) -> float:
    """Elapsed seconds from an ``M.SS.mmm.uuu L `` prefix on the line holding ``pos``."""
    m = TIMESTAMP.search(buf, _line_start(buf, pos), pos)
    if m is None:
        return np.nan
    mins, secs, ms, us = (int(g) for g in m.groups())
    return mins * 60 + secs + ms / 1e3 + us / 1e6


BLOCK_FIELDS = ("slot", "task", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens",
                "total_ms", "total_tokens", "graphs_reused")
INT_FIELDS = {"slot", "task", "prompt_tokens", "eval_tokens", "total_tokens"}


def _block_arrays(pos: list[int], rows: list[tuple[Any, ...]], t_s: list[float]
                  ) -> dict[str, np.ndarray]:
    out = {"pos": np.asarray(pos, dtype=np.int64), "t_s": np.asarray(t_s, dtype=np.float64)}
    cols = list(zip(*rows, strict=True)) if rows else [()] * len(BLOCK_FIELDS)
    for key, values in zip(BLOCK_FIELDS, cols, strict=True):
        out[key] = np.asarray(values, dtype=np.int64 if key in INT_FIELDS else np.float64)
    return out


def _timestamps(buf: Chunk, pos: np.ndarray) -> np.ndarray:
    """t_s per block (vectorised). Skipped (NaN) when neither the first nor the last block of
    the chunk carries a timestamp prefix, which keeps un-timestamped logs cheap."""
    if pos.size == 0 or (np.isnan(_t_s(buf, int(pos[0]))) and np.isnan(_t_s(buf, int(pos[-1])))):
        return np.full(pos.size, np.nan)
    hits = [TIMESTAMP.search(buf, buf.rfind(b"\n", 0, p) + 1, p) for p in pos.tolist()]
    parts = np.array([h.groups() if h else (b"0", b"0", b"0", b"-1") for h in hits],
                     dtype="S12").astype(np.float64)
    out = parts @ np.array([60.0, 1.0, 1e-3, 1e-6])
    out[parts[:, 3] < 0] = np.nan
    return cast(np.ndarray, out)


def _find_all(buf: Chunk, literal: bytes, lo: int, hi: int) -> list[int]:
    """Start of every occurrence of ``literal`` beginning in [lo, hi)."""
    out = []
    end = min(hi + len(literal) - 1, len(buf))
    at = buf.find(literal, lo, end)
    while at >= 0:
        out.append(at)
        at = buf.find(literal, at + 1, end)
    return out


def _fast_blocks(buf: Chunk, lo: int, hi: int, prompts: list[int]) -> dict[str, np.ndarray]:
    """All contiguous blocks owned by this chunk, converted column-wise (no per-block Python
    beyond collecting the match groups). The era-(c) regex is matched at each ``prompt eval
    time`` in ``prompts`` when its shape occurs; the era-(b) one searches only when blocks are
    still missing."""
    start = _line_start(buf, max(lo - 1024, 0))
    parts = []
    if ERA_C_HINT in buf:
        parts.append(_convert(buf, BLOCK_C, start, lo, hi, anchor_group=0,
                              order=(3, 4, 0, 1, 5, 6, 7, 8, 9), stamp=2, starts=prompts))
    if sum(p["pos"].size for p in parts) < len(prompts):
        parts.append(_convert(buf, BLOCK_B, start, lo, hi, anchor_group=3,
                              order=(0, 1, 3, 4, 5, 6, 7, 8, 9), stamp=None))
    parts = [p for p in parts if p["pos"].size]
    if not parts:
        return _block_arrays([], [], [])
    if len(parts) == 1:
        return parts[0]
    merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    order = np.argsort(merged["pos"], kind="stable")
    return {k: v[order] for k, v in merged.items()}


def _convert(buf: Chunk, pattern: re.Pattern[bytes], start: int, lo: int, hi: int, *,
             anchor_group: int, order: tuple[int, ...], stamp: int | None,
             starts: list[int] | None = None) -> dict[str, np.ndarray]:
    """Matches of one block regex → column arrays. ``order`` maps BLOCK_FIELDS to group
    indexes (0-based); ``stamp`` is the group holding the eval line's timestamp, if any.
    ``starts``: match only there (the positions where the pattern's literal begins), as
    finditer would, instead of searching from ``start``."""
    if starts is None:
        matches = list(pattern.finditer(buf, start))
    else:
        matches, end = [], -1
        for at in starts:
            if at >= end and (m := pattern.match(buf, at)) is not None:
                matches.append(m)
                end = m.end()
    if matches:
        anchors = np.fromiter((m.start(anchor_group) for m in matches), dtype=np.int64,
                              count=len(matches))
        keep = (anchors >= lo) & (anchors < hi)
        if not keep.all():
            matches = [m for m, k in zip(matches, keep.tolist(), strict=True) if k]
    n = len(matches)
    if n == 0:
        return _block_arrays([], [], [])
    fields = [i + 1 for i in order[:-1]]  # group numbers of slot … total_tokens
    flat = np.fromiter(map(float, itertools.chain.from_iterable(m.group(*fields) for m in matches)),
                       dtype=np.float64, count=n * len(fields)).reshape(n, len(fields))
    out: dict[str, np.ndarray] = {
        "pos": np.fromiter((m.start() for m in matches), dtype=np.int64, count=n)}
    for j, key in enumerate(BLOCK_FIELDS[:-1]):
        out[key] = flat[:, j].astype(np.int64) if key in INT_FIELDS else flat[:, j].copy()
    out["graphs_reused"] = _optional_numbers([m.group(order[-1] + 1) for m in matches])
    stamps = [m.group(stamp + 1) for m in matches] if stamp is not None else []
    if any(stamps):
        out["t_s"] = np.array([_stamp_s(t) for t in stamps], dtype=np.float64)
    else:  # era (b) with --log-timestamps: only the header line has one
        out["t_s"] = _timestamps(buf, out["pos"])
    return out


def _stamp_s(stamp: bytes) -> float:
    """b"M.SS.mmm.uuu" → seconds; None → NaN."""
    if not stamp:
        return np.nan
    return (int(stamp[:-11]) * 60 + int(stamp[-10:-8]) + int(stamp[-7:-4]) / 1e3
            + int(stamp[-3:]) / 1e6)


def _optional_numbers(values: list[bytes | None]) -> np.ndarray:
    """None (the group did not take part in the match) → NaN."""
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _slow_blocks(
    buf: Chunk, lo: int, hi: int, findings: list[tuple[int, str]],
) -> dict[str, np.ndarray]:
    """Line events in order: headers, timing lines, graphs lines. Blocks are owned by the chunk
    holding their ``prompt eval time`` line."""
    start = _line_start(buf, max(lo - OVERLAP // 2, 0))
    events: list[tuple[int, str, re.Match[bytes]]] = []
    events += [(m.start(), "hdr", m) for m in HEADER.finditer(buf, start)]
    events += [(m.start(), "time", m) for m in TIME_LINE.finditer(buf, start)]
    events += [(m.start(), "graphs", m) for m in GRAPHS.finditer(buf, start)]
    events.sort(key=lambda e: e[0])

    header: tuple[int, int, int] | None = None  # (pos, slot, task) of the latest era-(b) header
    open_blocks: dict[tuple[int, int], dict[str, Any] | None] = {}
    done: dict[tuple[int, int], int] = {}
    pos_out: list[int] = []
    rows: list[tuple[Any, ...]] = []
    stamps: list[float] = []
    for pos, kind, m in events:
        ls = _line_start(buf, pos)
        prefix = buf[ls:pos]
        if kind == "hdr":
            header = (pos, int(m.group(1)), int(m.group(2)))
            continue
        st = SLOT_TASK.search(prefix)
        if kind == "graphs":
            if st is not None:
                idx = done.pop((int(st.group(1)), int(st.group(2))), None)
                if idx is not None:
                    rows[idx] = (*rows[idx][:-1], float(m.group(1)))
            continue
        if b"_print" in prefix or b"perf" in prefix:
            continue  # llama_perf_context_print / common_perf_print at exit: not a request
        what = ("prompt" if prefix.endswith(b"prompt eval") else
                "eval" if prefix.endswith(b"eval") else
                "total" if prefix.endswith(b"total") else None)
        if what is None:
            continue
        if st is not None:  # era (c)
            key, block_pos = (int(st.group(1)), int(st.group(2))), st.start() + ls
        elif b"print_timings]" in prefix:  # era (a)
            eol = buf.find(b"\n", pos)
            old = OLD_SLOT_TASK.search(buf, pos, len(buf) if eol < 0 else eol)
            if old is None:
                continue
            key, block_pos = (int(old.group(1)), int(old.group(2))), ls
        elif header is not None:  # era (b): unprefixed, belongs to the latest header
            key, block_pos = (header[1], header[2]), header[0]
        else:
            if what == "prompt" and lo <= pos < hi:
                findings.append((pos, "timing lines without a print_timing header; skipped"))
            continue
        if what == "prompt":
            anchor = ls + prefix.rfind(b"prompt eval")
            owned = lo <= anchor < hi
            open_blocks[key] = {"pos": block_pos, "prompt": m} if owned else None
        elif what == "eval":
            blk = open_blocks.get(key)
            if blk is not None:
                blk["eval"] = m
        else:
            blk = open_blocks.pop(key, None)
            if header is not None and key == (header[1], header[2]):
                header = None
            if blk is None:
                continue
            if "eval" not in blk:
                findings.append((blk["pos"], "print_timing block without an 'eval time' line; "
                                             "skipped"))
                continue
            p, e = blk["prompt"], blk["eval"]
            ptok, etok = int(p.group(2) or 0), int(e.group(2) or 0)
            ttok = int(m.group(2)) if m.group(2) else ptok + etok
            done[key] = len(rows)
            pos_out.append(blk["pos"])
            rows.append((key[0], key[1], float(p.group(1)), ptok, float(e.group(1)), etok,
                         float(m.group(1)), ttok, np.nan))
            stamp = _t_s(buf, e.start())  # the eval line's timestamp, as in the fast path
            stamps.append(stamp if stamp == stamp else _t_s(buf, blk["pos"]))
    for blk in open_blocks.values():
        if blk is not None:
            findings.append((blk["pos"], "print_timing block without a 'total time' line "
                                         "(log cut off?); skipped"))
    order = sorted(range(len(rows)), key=pos_out.__getitem__)
    pos_sorted = [pos_out[i] for i in order]
    return _block_arrays(pos_sorted, [rows[i] for i in order], [stamps[i] for i in order])


def _number_lines(buf: Chunk, lo: int, hi: int, line_at_lo: int, rel: np.ndarray
                  ) -> tuple[np.ndarray, int]:
    """1-based lines of positions ``rel`` (any order) and the line number at ``hi``; newlines
    are counted between consecutive positions, so the chunk is scanned once — by numpy, on a
    newline mask, several times faster than ``bytes.count``."""
    order = np.argsort(rel, kind="stable")
    srt = rel[order]
    out = np.empty(rel.size, dtype=np.int64)
    back = srt < lo  # an era-(b) header in the look-back: count backwards
    for i in np.flatnonzero(back).tolist():
        out[order[i]] = line_at_lo - buf.count(b"\n", int(srt[i]), lo)
    bounds = [lo, *srt[~back].tolist(), hi]
    end = max(bounds)
    newline = np.frombuffer(buf, dtype=np.uint8, count=end - lo, offset=lo) == ord("\n")
    counts = [np.count_nonzero(newline[a - lo:b - lo]) for a, b in itertools.pairwise(bounds)]
    lines = line_at_lo + np.cumsum(np.asarray(counts, dtype=np.int64))
    out[order[~back]] = lines[:-1]
    return out, int(lines[-1])


class _Collector:
    """Per-chunk results, concatenated at the end. Positions are global byte offsets."""

    def __init__(self) -> None:
        self.blocks: list[dict[str, np.ndarray]] = []
        self.rejected: list[tuple[int, int, int, int, str | None, float]] = []  # pos, line, …
        self.listen: list[tuple[int, int]] = []  # (pos, line)
        self.findings: list[tuple[int, str]] = []  # (line, message)
        self.line_at_lo = 1

    def scan(self, buf: Chunk, base: int, lo: int, hi: int) -> None:
        # every "prompt eval time" line must end up in a block, except llama_perf_* at exit
        prompts = _find_all(buf, PROMPT_LIT, lo, hi)
        n_lit = len(prompts)
        blocks = _fast_blocks(buf, lo, hi, prompts) if n_lit else _block_arrays([], [], [])
        if n_lit != blocks["pos"].size:
            n_lit -= buf.count(b"_print: " + PROMPT_LIT, max(lo - 8, 0), hi + len(PROMPT_LIT) + 7)
        slow: list[tuple[int, str]] = []
        if n_lit != blocks["pos"].size:
            blocks = _slow_blocks(buf, lo, hi, slow)

        rejected = []
        for m in _rejections(buf, lo, hi):
            pos = m.start()
            task = m.group(2)
            err_at = buf.rfind(SEND_ERROR + task + b",", max(pos - 4096, 0), pos)
            error = None
            if err_at >= 0:
                end = buf.find(b"\n", err_at)
                text = buf[err_at + len(SEND_ERROR):end if end >= 0 else len(buf)]
                error = text.split(b"error: ", 1)[-1].strip().decode("utf-8", errors="replace")
                if "\ufffd" in error:
                    slow.append((err_at, "bytes that are not UTF-8 were replaced in an error "
                                         "message"))
            rejected.append((pos, int(m.group(1)), int(task), error, _t_s(buf, pos)))
        listen = [at for at in _find_all(buf, LISTEN, lo, hi - len(LISTEN) + 1)
                  if buf[max(at - 16, 0):at].endswith(LISTEN_CONTEXT)]

        rel = np.concatenate([
            blocks["pos"], np.asarray([r[0] for r in rejected] + listen + [p for p, _ in slow],
                                      dtype=np.int64),
        ])
        lines, self.line_at_lo = _number_lines(buf, lo, hi, self.line_at_lo, rel)
        n = blocks["pos"].size
        blocks["line"] = lines[:n]
        blocks["pos"] = blocks["pos"] + base
        self.blocks.append(blocks)
        k = n
        for pos, slot, task, error, t_s in rejected:
            self.rejected.append((base + pos, int(lines[k]), slot, task, error, t_s))
            k += 1
        for pos in listen:
            self.listen.append((base + pos, int(lines[k])))
            k += 1
        for _, message in slow:
            self.findings.append((int(lines[k]), message))
            k += 1


def _rejections(buf: Chunk, lo: int, hi: int) -> Iterator[re.Match[bytes]]:
    """REJECT matches starting in [lo, hi), in order: found by their rarer middle literal,
    then matched from the ``release: id`` before it on the same line (the one finditer would
    find: a match cannot span lines)."""
    last = -1
    for at in _find_all(buf, REJECT_LIT, lo, hi + 512):
        start = buf.rfind(b"release: id", buf.rfind(b"\n", 0, at) + 1, at)
        if last < start < hi and start >= lo and (m := REJECT.match(buf, start)) is not None:
            last = start
            yield m


def _scan(f: InputStream) -> _Collector:
    col = _Collector()
    for buf, base, lo, hi in _chunks(f):
        col.scan(buf, base, lo, hi)
    return col


# ---------------------------------------------------------------- startup facts

FACT = {
    "build_info": re.compile(rb"build_info: b?(\d+)-([0-9a-f]+)"),
    "build_old": re.compile(rb"\bbuild: (\d+) \(([0-9a-f]+)\)"),
    "n_slots": re.compile(rb"n_slots = (\d+)"),
    "n_ctx": re.compile(rb"(?:llama_context|llama_new_context_with_model): n_ctx += (\d+)"),
    "n_ctx_slot_init": re.compile(rb"load_model: initializing[^\n]*?n_ctx_slot = (\d+)"),
    "n_ctx_slot_new": re.compile(rb"new slot,? n_ctx(?:_slot)? = (\d+)"),
    "n_ctx_seq": re.compile(rb"llama_context: n_ctx_seq += (\d+)"),
    "buffer": re.compile(rb"load_tensors: +(\S+) model buffer size = +([\d.]+) MiB"),
    "kv": re.compile(
        rb"llama_kv_cache(?:_unified)?: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, "
        rb"+\d+/\d+ seqs\), K \((\w+)\): +[\d.]+ MiB, V \((\w+)\): +[\d.]+ MiB"
    ),
    "kv_old": re.compile(
        rb"KV self size += +([\d.]+) MiB, K \((\w+)\): +[\d.]+ MiB, V \((\w+)\): +[\d.]+ MiB"
    ),
    "model_path": re.compile(rb"load_model: loading model '([^'\n]+)'"),
    "n_layer": re.compile(rb"(?:print_info|llm_load_print_meta): n_layer += (\d+)"),
}
ARG_PATTERNS = {
    "n_parallel": re.compile(rb"using n_parallel = (\d+)"),
    "n_threads": re.compile(rb"system_info: n_threads = (\d+)"),
    "n_seq_max": re.compile(rb"llama_context: n_seq_max += (\S+)"),
    "n_batch": re.compile(rb"llama_context: n_batch += (\S+)"),
    "n_ubatch": re.compile(rb"llama_context: n_ubatch += (\S+)"),
    "flash_attn": re.compile(rb"llama_context: flash_attn += (\S+)"),
    "kv_unified": re.compile(rb"(?:llama_context: kv_unified += |kv_unified = '?)(\w+)"),
    "offloaded_layers": re.compile(rb"offloaded (\d+/\d+) layers to GPU"),
    # "prompt cache is disabled - use `--cache-ram N` to enable it" means a size of 0
    "cache_ram_mib": re.compile(
        rb"prompt cache is (?:enabled, size limit: (\d+) MiB|disabled)"),
    "verbosity": re.compile(rb"verbosity = (\d+)"),
}
BUILD_ANCHORS = (b"build_info: ", b"build: ")  # first lines a server process prints
LOAD_ANCHOR = b"load_model: loading model"  # when the build line is hidden (verbosity 3)


def _startup_region(
    f: InputStream, start: int, end: int,
) -> tuple[bytes, int]:
    """Bytes [start, end) cut to the last server start inside (a crashed attempt before it
    must not add its buffers); returns (region, file offset of region[0])."""
    f.seek(start)
    region = f.read(end - start)
    cut = max(region.rfind(a) for a in BUILD_ANCHORS)
    if cut < 0:
        cut = region.rfind(LOAD_ANCHOR)
    if cut > 0:
        # keep a few lines before the anchor (e.g. "main: n_parallel is set ..." precedes it)
        for _ in range(8):
            cut = region.rfind(b"\n", 0, max(cut - 1, 0))
            if cut < 0:
                break
        cut += 1
        return region[cut:], start + cut
    return region, start


def _facts(region: bytes, first_line: int, name: str, run: int | None) -> LlamaFacts:
    facts = LlamaFacts(run=run)
    prov = facts.provenance

    def line(pos: int) -> int:
        return first_line + region.count(b"\n", 0, pos)

    def last(key: str) -> re.Match[bytes] | None:
        hit = None
        for hit in FACT[key].finditer(region):  # noqa: B007 - we want the last one
            pass
        return hit

    def text(value: bytes) -> str:
        return value.decode("utf-8", errors="replace")

    if m := (last("build_info") or last("build_old")):
        facts.build, facts.commit = f"b{text(m.group(1))}", text(m.group(2))
        prov["build"] = prov["commit"] = f"{name}:{line(m.start())}"
    for attr, keys in (("n_slots", ("n_slots",)), ("n_ctx", ("n_ctx",)),
                       ("n_ctx_slot", ("n_ctx_slot_init", "n_ctx_slot_new", "n_ctx_seq")),
                       ("n_layers", ("n_layer",))):
        for key in keys:
            if m := last(key):
                setattr(facts, attr, int(m.group(1)))
                prov[attr] = f"{name}:{line(m.start())}"
                break
    if m := last("model_path"):
        facts.model_path = text(m.group(1))
        prov["model_path"] = f"{name}:{line(m.start())}"

    gpu: list[tuple[float, int]] = []
    cpu: list[tuple[float, int]] = []
    for m in FACT["buffer"].finditer(region):
        (cpu if m.group(1).upper().startswith(b"CPU") else gpu).append(
            (float(m.group(2)), line(m.start())))
    if cpu:
        facts.model_buffer_cpu_mib = sum(v for v, _ in cpu)
        prov["model_buffer_cpu_mib"] = _lines_note(name, [ln for _, ln in cpu])
    if gpu or cpu:
        used = gpu or cpu
        facts.model_buffer_mib = sum(v for v, _ in used)
        prov["model_buffer_mib"] = _lines_note(name, [ln for _, ln in used]) + (
            "" if gpu else " (no GPU buffer: CPU buffers)")

    kv = [(float(m.group(1)), int(m.group(2)), int(m.group(3)), text(m.group(4)),
           text(m.group(5)), line(m.start())) for m in FACT["kv"].finditer(region)]
    if kv:
        facts.kv_cache_mib = sum(k[0] for k in kv)
        cells = max(k[1] for k in kv)
        full = [k for k in kv if k[1] == cells]  # the non-SWA cache grows with context
        facts.kv_cells = cells
        facts.kv_layers = sum(k[2] for k in kv)
        facts.kv_type_k, facts.kv_type_v = kv[0][3], kv[0][4]
        facts.kv_bytes_per_token = sum(k[0] for k in full) * 2**20 / cells
        note = _lines_note(name, [k[5] for k in kv])
        for attr in ("kv_cache_mib", "kv_layers"):
            prov[attr] = note
        prov["kv_cells"] = prov["kv_type_k"] = prov["kv_type_v"] = f"{name}:{full[0][5]}"
        prov["kv_bytes_per_token"] = (
            f"{_lines_note(name, [k[5] for k in full])} "
            f"({sum(k[0] for k in full):.2f} MiB / {cells} cells)"
        )
    elif m := last("kv_old"):
        facts.kv_cache_mib = float(m.group(1))
        facts.kv_type_k, facts.kv_type_v = text(m.group(2)), text(m.group(3))
        prov["kv_cache_mib"] = prov["kv_type_k"] = prov["kv_type_v"] = f"{name}:{line(m.start())}"

    for key, pattern in ARG_PATTERNS.items():
        hit = None
        for hit in pattern.finditer(region):  # noqa: B007 - the last one describes this run
            pass
        if hit is not None:
            facts.args[key] = text(hit.group(1) or b"0")
            prov[f"args.{key}"] = f"{name}:{line(hit.start())}"
    return facts


def _lines_note(name: str, lines: list[int]) -> str:
    if len(lines) == 1:
        return f"{name}:{lines[0]}"
    return f"{name}:{lines[0]} (sum of lines {', '.join(str(n) for n in lines)})"


# ---------------------------------------------------------------- entry point


def parse_llama_log(path: Path, *, name: str | None = None) -> LlamaLog:
    """Parse a llama-server log. ``name`` is how the file is shown in errors, findings and
    provenance (default: the path as given). Zero blocks is not an error here."""
    shown = str(path) if name is None else name
    try:
        with open_input(path, shown, KIND) as f:
            col = _scan(f)
            blocks = {k: np.concatenate([b[k] for b in col.blocks]) for k in col.blocks[0]}
            rej_pos = np.asarray([r[0] for r in col.rejected], dtype=np.int64)
            listen = np.asarray([p for p, _ in col.listen], dtype=np.int64)
            events = np.concatenate([blocks["pos"], rej_pos])
            # events before the first listening line are run 0; if there are any, the log
            # begins mid-run and the first listening line already starts run 1
            offset = int(bool(listen.size and events.size and events.min() < listen[0]))
            facts = _read_facts(f, listen, [ln for _, ln in col.listen], events, offset, shown)
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror}") from None
    except OverflowError:  # a corrupt block: a count or id beyond 64 bits
        raise InputError(shown, "a print_timing block holds a number too large for a token "
                                "count, slot or task id (corrupt log?)") from None

    def runs(pos: np.ndarray) -> np.ndarray:
        run = np.searchsorted(listen, pos, side="right") - 1 + offset
        return np.maximum(run, 0).astype(np.int64)

    n = blocks["pos"].size
    timings = pd.DataFrame({
        "block": np.arange(n, dtype=np.int64),
        "line": blocks["line"].astype(np.int64),
        "run": runs(blocks["pos"]),
        **{key: blocks[key] for key in BLOCK_FIELDS},
        "t_s": blocks["t_s"],
    }, columns=list(TIMING_COLUMNS))
    rejected = pd.DataFrame({
        "line": np.asarray([r[1] for r in col.rejected], dtype=np.int64),
        "run": runs(rej_pos),
        "slot": np.asarray([r[2] for r in col.rejected], dtype=np.int64),
        "task": np.asarray([r[3] for r in col.rejected], dtype=np.int64),
        "error": pd.Series([r[4] for r in col.rejected], dtype=object),
        "t_s": np.asarray([r[5] for r in col.rejected], dtype=np.float64),
    }, columns=list(REJECTED_COLUMNS))
    restarts = [ln for i, (_, ln) in enumerate(col.listen) if i + offset >= 1]
    findings = [Finding(shown, message, line) for line, message in col.findings]
    return LlamaLog(path=shown, timings=timings, facts=facts, rejected=rejected,
                    restarts=restarts, findings=findings)


def _read_facts(
    f: InputStream, listen: np.ndarray, listen_lines: list[int], events: np.ndarray, offset: int,
    name: str,
) -> LlamaFacts:
    """Facts of the run that served the last block or rejection (else of the last run), read
    from the startup text before that run's listening line."""
    if listen.size == 0:
        first = int(events.min()) if events.size else STARTUP_WINDOW
        region, start = _startup_region(f, 0, min(first, STARTUP_WINDOW))
        f.seek(0)
        return _facts(region, f.read(start).count(b"\n") + 1, name, 0)
    k = listen.size - 1
    if events.size:
        k = max(int(np.searchsorted(listen, events.max(), side="right")) - 1, 0)
    end = int(listen[k])
    lower = int(listen[k - 1]) + 1 if k > 0 else 0
    region, _ = _startup_region(f, max(lower, end - STARTUP_WINDOW), end)
    return _facts(region, listen_lines[k] - region.count(b"\n"), name, k + offset)
