#!/usr/bin/env python3
"""Rebuild the Round 2 raw files from the published Round 2 summary tables.

The real Round 2 raw files were not kept; only the published figures survive
(tests/data/round2-reference: tiers.csv, graph_reuse.csv, published_figures.toml). This script
writes, under sample_runs/round2-rtx4090/, files those figures can be computed from, each in
its engine's native format:

  vllm/bench/*.json, llamacpp/bench/*.json   vllm bench serve --save-result (one per tier)
  vllm/server.log                            vllm serve 0.27.1 startup + periodic stats lines
  vllm/metrics/c<C>-{before,after}.prom      Prometheus scrapes around every tier
  vllm/gpu.csv                               nvidia-smi --query-gpu ... -l 1 during the vLLM run
  {vllm,llamacpp}/fingerprint.txt            nvidia-smi + key: value lines
  llamacpp/server.log                        llama-server log, mid-2026 format, 1,359 blocks

Every published figure is reproduced at its printed precision; everything else (per-request
spread, timestamps, log texture) is synthetic but drawn from fixed seeds, so a re-run writes
byte-identical files. Only the standard library and numpy are used.

    python tools/reconstruct_round2.py [--reference DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import heapq
import json
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = REPO / "tests" / "data" / "round2-reference"
DEFAULT_OUT = REPO / "sample_runs" / "round2-rtx4090"

SEED = 20261118
MODEL = "Qwen/Qwen2.5-7B-Instruct"
INPUT_TOKENS = 1024
OUTPUT_TOKENS = 256
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64)
TZ = dt.timezone(dt.timedelta(hours=8))  # the lab clock; only used for epoch-valued fields
LLAMA_BUILD = 9741
LLAMA_COMMIT = "eab8ee41f"
LLAMA_SLOTS = 64
LLAMA_CTX = 262_144
LLAMA_WARMUP_REQUESTS = 28  # real warm-up; the published segmentation counts 31 (see README)
VLLM_KV_TOKENS = 120_064
VLLM_BLOCK = 16
GPU_NAME = "NVIDIA GeForce RTX 4090"
GPU_TOTAL_MIB = 24564

# wall clock of the two runs (local time of the lab)
VLLM_LAUNCH = dt.datetime(2026, 11, 18, 13, 50, 4, 318000)
VLLM_FIRST_TIER = dt.datetime(2026, 11, 18, 13, 52, 6, 912000)
LLAMA_LAUNCH = dt.datetime(2026, 11, 18, 15, 7, 12, 640000)
LLAMA_WARMUP_AT = 41.27  # s after llama-server start
LLAMA_FIRST_TIER_GAP = 27.46  # s between the end of the warm-up and the C=1 tier
TIER_GAPS = (24.62, 23.91, 25.34, 24.07, 26.18, 24.83)  # client restart between tiers, s


def rng_for(*key: object) -> np.random.RandomState:
    """An independent generator (frozen legacy stream) per purpose, so editing one part of the
    reconstruction never reshuffles the numbers of another."""
    text = "/".join(str(k) for k in key)
    return np.random.RandomState((SEED + sum((i + 1) * ord(c) for i, c in enumerate(text)))
                                 % 2**32)


# ------------------------------------------------------------------------------------------
# Published figures → value windows
# ------------------------------------------------------------------------------------------


def window(text: str) -> tuple[float, float]:
    """Half-open interval of values that print as `text` with the same number of decimals."""
    s = text.strip()
    decimals = len(s.split(".")[1]) if "." in s else 0
    value = float(s)
    half = 0.5 * 10.0**-decimals
    if s.startswith("-") and value == 0.0:
        return -half, 0.0  # "-0.0" needs a small negative value
    return value - half, value + half


def pick(lo: float, hi: float, frac: float = 0.5) -> float:
    return lo + (hi - lo) * frac


def shows(value: float, text: str) -> bool:
    decimals = len(text.split(".")[1]) if "." in text else 0
    return f"{value:.{decimals}f}" == text


def intersect(*wins: tuple[float, float]) -> tuple[float, float]:
    lo = max(w[0] for w in wins)
    hi = min(w[1] for w in wins)
    if not lo < hi:
        raise ValueError(f"empty intersection {wins}")
    return lo, hi


@dataclass
class Published:
    tiers: dict[tuple[str, int], dict[str, str]]
    reuse: dict[int, dict[str, str]]
    figures: dict


def load_reference(ref: Path) -> Published:
    with (ref / "tiers.csv").open(newline="", encoding="utf-8") as f:
        tiers = {(r["engine"], int(r["concurrency"])): r for r in csv.DictReader(f)}
    with (ref / "graph_reuse.csv").open(newline="", encoding="utf-8") as f:
        reuse = {int(r["concurrency"]): r for r in csv.DictReader(f)}
    with (ref / "published_figures.toml").open("rb") as f:
        figures = tomllib.load(f)
    return Published(tiers, reuse, figures)


# ------------------------------------------------------------------------------------------
# Samples with a pinned median (and optionally a pinned p99 and mean)
# ------------------------------------------------------------------------------------------


def _p99_offset(n: int, hi: np.ndarray) -> float:
    """np.percentile(x, 99) − median, in units of the upper-half shape, for shaped()'s layout."""
    k = len(hi)
    pos = 0.99 * (n - 1)
    i = math.floor(pos)
    frac = pos - i
    a = hi[i - (n - k)]
    b = hi[min(i + 1 - (n - k), k - 1)]
    return float(a + frac * (b - a))


def shaped(
    rng: np.random.RandomState,
    n: int,
    med: float,
    *,
    lo_gamma: float,
    hi_gamma: float,
    a: float,
    b: float | None = None,
    p99: float | None = None,
    mean: float | None = None,
    tail: float = 0.0,
    a_max: float | None = None,
) -> np.ndarray:
    """Sorted sample of n values whose median is `med`.

    Lower half: med − a·d, upper half: med + b·u, with d, u jittered power-law shapes in [0, 1]
    (`tail` stretches the top 1.5 %). With `p99`, b is fixed by it and `mean` is met by solving
    a, re-shaping the upper half (its power) when a would leave [0, a_max]. Without `p99`,
    `mean` is met by solving b (or a, when the mean lies below the median).
    """
    k = (n - 1) // 2 if n % 2 else (n - 2) // 2
    u = (np.arange(k) + 0.5) / k
    jitter_lo = 1.0 + 0.12 * rng.standard_normal(k)
    jitter_hi = 1.0 + 0.12 * rng.standard_normal(k)
    a_cap = a_max if a_max is not None else float("inf")

    def shapes(hg: float) -> tuple[np.ndarray, np.ndarray]:
        lo = np.sort(np.clip(u**lo_gamma * jitter_lo, 0.002, None))
        hi = u**hg * jitter_hi
        hi = hi * (1.0 + tail * np.clip((u - 0.985) / 0.015, 0.0, None))
        return lo, np.sort(np.clip(hi, 0.002, None))

    def assemble(lo: np.ndarray, hi: np.ndarray, a_: float, b_: float) -> np.ndarray:
        eps = 1e-9 * max(abs(med), 1.0)
        middle = [med] if n % 2 else [med - eps, med + eps]
        return np.concatenate([np.sort(med - a_ * lo), middle, med + b_ * hi])

    if p99 is None:
        lo, hi = shapes(hi_gamma)
        b_ = b if b is not None else a
        a_ = a
        if mean is not None:
            b_ = (n * (mean - med) + a * lo.sum()) / hi.sum()
            if b_ < 0:
                b_ = b if b is not None else 0.0
                a_ = (b_ * hi.sum() - n * (mean - med)) / lo.sum()
                if a_ > a_cap:
                    raise ValueError(f"cannot shape n={n} med={med} mean={mean}")
        return assemble(lo, hi, a_, b_)

    def solve(hg: float) -> tuple[np.ndarray, float]:
        lo, hi = shapes(hg)
        b_ = (p99 - med) / _p99_offset(n, hi)
        if mean is None:
            return assemble(lo, hi, a, b_), a
        a_ = (b_ * hi.sum() - n * (mean - med)) / lo.sum()
        return assemble(lo, hi, a_, b_), a_

    values, a_sol = solve(hi_gamma)
    if mean is None or 0.0 <= a_sol <= a_cap:
        return values
    # a larger upper power pulls upper mass toward the median, so a falls as the power rises
    target = 0.3 * min(a_cap, a) if a_sol < 0 else a_cap
    g_lo, g_hi = 0.05, 12.0
    for _ in range(80):
        mid = 0.5 * (g_lo + g_hi)
        if solve(mid)[1] > target:
            g_lo = mid
        else:
            g_hi = mid
    values, a_sol = solve(0.5 * (g_lo + g_hi))
    if not (-1e-12 <= a_sol <= a_cap * (1 + 1e-9)) or abs(a_sol - target) > 1e-6 * (1 + target):
        raise ValueError(f"cannot shape n={n} med={med} p99={p99} mean={mean}")
    return values


def itl_values(rng: np.random.RandomState, n: int, med: float, mean: float,
               p99: float) -> np.ndarray:
    """A pooled ITL sample (any unit) with exact median, mean and p99: a smooth skewed shape
    when the tail is mild, else steady decode steps plus a cluster of stalled steps (the
    steps that waited behind another request's prefill)."""
    state = rng.get_state()
    try:
        return shaped(rng, n, med, lo_gamma=0.8, hi_gamma=3.0, a=med * 0.03, p99=p99,
                      mean=mean, a_max=med * 0.2, tail=0.5)
    except ValueError:
        rng.set_state(state)
    pos = 0.99 * (n - 1)
    z = np.sort(rng.standard_normal(n))
    for m in range(n - math.floor(pos) + 1, n // 4):
        body = np.sort(med + 0.012 * med * z[: n - m])
        body += med - (0.5 * (body[n // 2 - 1] + body[n // 2]) if n % 2 == 0 else body[n // 2])
        w = np.sort(((np.arange(m) + 0.5) / m) ** 1.3 * (1 + 0.08 * rng.standard_normal(m)))
        w = (w - w[0]) / (w[-1] - w[0])
        i = math.floor(pos) - (n - m)
        omega = w[i] + (pos - math.floor(pos)) * (w[min(i + 1, m - 1)] - w[i])
        denom = w.sum() - m * omega
        if denom <= 0:
            continue
        r = (n * mean - body.sum() - m * p99) / denom
        low = p99 - r * omega
        if r > 0 and low > body[-1] * 1.02:
            return np.concatenate([body, low + r * w])
    raise ValueError(f"cannot shape ITL n={n} med={med} mean={mean} p99={p99}")


def rank_assign(values: np.ndarray, keys: np.ndarray, rng: np.random.RandomState,
                noise: float) -> np.ndarray:
    """Give the sorted `values` to requests by the rank of their (noisy) keys, so large TTFTs
    go with long requests as they do in a real run."""
    scale = float(np.std(keys)) or 1.0
    order = np.argsort(keys + noise * scale * rng.standard_normal(len(keys)), kind="stable")
    out = np.empty(len(values))
    out[order] = np.sort(values)
    return out


def stat_block(values_s: np.ndarray) -> dict[str, float]:
    """vLLM's process_one_metric on a list of seconds: mean, median, std, p50, p99 in ms."""
    x = list(values_s)
    return {
        "mean": float(np.mean(x or 0) * 1000),
        "median": float(np.median(x or 0) * 1000),
        "std": float(np.std(x or 0) * 1000),
        "p50": float(np.percentile(x or 0, 50) * 1000),
        "p99": float(np.percentile(x or 0, 99) * 1000),
    }


# ------------------------------------------------------------------------------------------
# Client simulation (vllm bench serve: one asyncio semaphore of size C, FIFO)
# ------------------------------------------------------------------------------------------


@dataclass
class Schedule:
    start: np.ndarray  # s after benchmark start
    end: np.ndarray


def simulate(latency: np.ndarray, conc: int, gaps: np.ndarray, first: np.ndarray) -> Schedule:
    """Request j starts when a semaphore slot frees (plus a hand-over gap) and runs latency[j]."""
    n = len(latency)
    start = np.zeros(n)
    heap = [(float(first[w]), w) for w in range(conc)]
    heapq.heapify(heap)
    for j in range(n):
        free, w = heapq.heappop(heap)
        start[j] = free + (gaps[j] if j >= conc else 0.0)
        heapq.heappush(heap, (start[j] + latency[j], w))
    return Schedule(start, start + latency)


def client_timing(rng: np.random.RandomState, n: int,
                  conc: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Per-request hand-over gaps, first-wave start offsets, the tail between the last response
    and the duration stamp, and the first start offset."""
    gaps = rng.uniform(0.00022, 0.00058, n)
    first = np.sort(rng.uniform(0.00030, 0.00030 + 0.00011 * conc, conc))
    tail = float(rng.uniform(0.0009, 0.0016))
    return gaps, first, tail, float(first[0])


# ------------------------------------------------------------------------------------------
# Tier data
# ------------------------------------------------------------------------------------------


@dataclass
class Tier:
    engine: str
    conc: int
    requests: int
    completed: int
    duration: float
    ok: np.ndarray  # bool per request
    out_tokens: np.ndarray  # per request, 0 when failed
    latency: np.ndarray  # s, client E2EL (failed: time to the error)
    ttft: np.ndarray  # s, per request
    tpot: np.ndarray  # s, per successful request (summary source)
    start: np.ndarray  # s after benchmark start
    itl: dict[str, float]  # ms: mean, median, std, p50, p99 (pooled)
    itl_rows: list[np.ndarray] | None = None  # s, only for the --save-detailed tier
    first_offset: float = 0.0
    wall_start: dt.datetime | None = None
    extra: dict = field(default_factory=dict)

    @property
    def wall_end(self) -> dt.datetime:
        assert self.wall_start is not None
        return self.wall_start + dt.timedelta(seconds=self.duration)


def deficits(rng: np.random.RandomState, n: int, total_short: int, cap: int = 6) -> np.ndarray:
    """Spread a token shortfall over n requests, at most `cap` per request."""
    if total_short > n * cap:
        raise ValueError("shortfall too large")
    d = np.zeros(n, dtype=int)
    left = total_short
    while left:
        i = rng.randint(n)
        if d[i] < cap:
            d[i] += 1
            left -= 1
    return d


def duration_window(pub: dict[str, str], completed: int, out_total: int) -> tuple[float, float]:
    """Durations that print as the published duration, output and total throughput."""
    lo, hi = window(pub["duration_s"])
    o_lo, o_hi = window(pub["output_tok_s"])
    t_lo, t_hi = window(pub["total_tok_s"])
    tokens = INPUT_TOKENS * completed + out_total
    lo = max(lo, out_total / o_hi, tokens / t_hi)
    hi = min(hi, out_total / o_lo, tokens / t_lo)
    if not lo < hi:
        raise ValueError(f"no duration fits {pub}")
    return lo, hi


def tier_targets(pub: Published, engine: str, conc: int) -> dict[str, tuple[float, float]]:
    """Value windows (ms) for every summary statistic the reference pins."""
    row = pub.tiers[(engine, conc)]
    f = pub.figures
    short = "vllm" if engine == "vllm" else "llamacpp"
    t: dict[str, tuple[float, float]] = {
        "ttft_median": window(row["ttft_p50_ms"]),
        "ttft_p99": window(row["ttft_p99_ms"]),
        "itl_median": window(row["itl_p50_ms"]),
        "itl_mean": window(row["itl_mean_ms"]),
        "itl_p99": window(row["itl_p99_ms"]),
        "e2el_median": window(row["e2el_p50_ms"]),
    }
    if conc == 1:
        t["ttft_median"] = window(str(f["prefill"][f"{short}_ttft_p50_ms"]))
    if conc in (1, 64):
        t["tpot_median"] = window(f"{f['tpot_range'][f'{short}_c{conc}_ms']:.2f}")
    waves = f["waves"].get(f"{short}_c{conc}_e2el_p50_s")
    if waves is not None:  # E2EL p50 in seconds at 2 decimals
        lo, hi = window(f"{waves:.2f}")
        t["e2el_median"] = intersect(t["e2el_median"], (lo * 1000, hi * 1000))
    return t


def vllm_step_bytes(pub: Published) -> float:
    """Bytes one single-stream vLLM decode step reads: bf16 weights + one request's KV."""
    ba = pub.figures["byte_accounting"]
    return float(ba["vllm_matmul_params"] * ba["vllm_bytes_per_param"]
                 + ba["kv_tokens_per_slot"] * ba["kv_bytes_per_token"])


def llama_step_bytes(pub: Published) -> float:
    """The same for llama.cpp: the GGUF file + one request's KV."""
    ba = pub.figures["byte_accounting"]
    return float(round(ba["llamacpp_gguf_gb"] * 1e9)
                 + ba["kv_tokens_per_slot"] * ba["kv_bytes_per_token"])


def wait_window(pub: Published, engine: str, conc: int, itl_median: float) -> tuple[float, float]:
    """Mean TPOT values that give the published wait ratio with this ITL median."""
    lo, hi = window(pub.tiers[(engine, conc)]["wait_ratio_pct"])
    return itl_median * (1 + lo / 100), itl_median * (1 + hi / 100)


# Per-tier shape of the client E2EL distribution around its pinned median: lower and upper
# power, lower and upper spread (fractions of the median; the side that must carry the mean is
# solved), top-tail stretch, how much earlier than the last one the other full slots finish
# (fraction of the median), and whether each slot's last request is its fastest (the final
# partial wave of N % C requests runs with fewer requests in flight).
LATENCY_SHAPE = {
    ("vllm", 2): (0.8, 1.6, 0.0015, 0.002, 0.5, 0.0006, False),
    ("vllm", 4): (0.6, 1.6, 0.0012, 0.002, 0.3, 0.0004, False),
    ("vllm", 8): (0.6, 1.5, 0.0012, 0.002, 0.3, 0.0003, False),
    ("vllm", 16): (0.8, 1.4, 0.004, 0.005, 0.3, 0.002, True),
    ("vllm", 32): (0.9, 1.4, 0.004, 0.006, 0.6, 0.003, False),
    ("vllm", 64): (0.9, 1.3, 0.004, 0.006, 0.6, 0.003, False),
    ("llamacpp", 1): (0.9, 1.4, 0.0012, 0.002, 0.5, 0.0, False),
    ("llamacpp", 2): (0.9, 2.2, 0.06, 0.3, 0.8, 0.05, False),
    ("llamacpp", 4): (0.9, 2.0, 0.06, 0.3, 0.8, 0.05, False),
    ("llamacpp", 8): (0.9, 1.8, 0.06, 0.3, 0.8, 0.05, False),
    ("llamacpp", 16): (0.9, 1.5, 0.06, 0.2, 0.5, 0.03, True),
    ("llamacpp", 32): (0.9, 1.4, 0.004, 0.008, 0.4, 0.004, False),
    ("llamacpp", 64): (0.9, 1.4, 0.0015, 0.002, 0.3, 0.0004, False),
}


@dataclass
class Chains:
    latency: np.ndarray  # per request index (start order)
    start: np.ndarray
    ok: np.ndarray


def chain_schedule(engine: str, conc: int, n: int, n_failed: int, med: float, t_end: float,
                   gaps: np.ndarray, first: np.ndarray, rng: np.random.RandomState) -> Chains:
    """E2EL per request for a run of n requests at concurrency C ending at t_end.

    Each semaphore slot of the client runs its requests back to back; the slots that run the
    most requests end at t_end (one exactly, the others a little earlier), the others end just
    after the last request started (else they would have taken it). The E2EL multiset has the
    pinned median and the mean those chains imply; values go to slots so their sums balance,
    and request indices follow start order, as the client's FIFO semaphore hands them out.
    """
    lo_g, hi_g, a_rel, b_rel, tail, end_rel, last_small = LATENCY_SHAPE[(engine, conc)]
    fail_latency = 0.0021  # an immediate HTTP 500
    counts = [n // conc + (1 if w < n % conc else 0) for w in range(conc)]
    real = list(counts)
    fail_slot, fail_pos = -1, -1
    if n_failed:
        full_slots = [w for w in range(conc) if counts[w] == max(counts)]
        fail_slot = full_slots[rng.randint(len(full_slots))]
        fail_pos = int(rng.randint(2, counts[fail_slot] - 1))
        real[fail_slot] -= 1
    top = max(real)
    full = [w for w in range(conc) if real[w] == top]
    short = [w for w in range(conc) if real[w] < top]
    ends = {w: t_end - (0.0 if k == 0 else rng.uniform(0, end_rel * med))
            for k, w in enumerate(rng.permutation(full))}
    gap_of = {w: gaps[w * 64: w * 64 + counts[w]] for w in range(conc)}

    def budget(w: int, end: float) -> float:
        spent = float(gap_of[w][1:].sum()) + (fail_latency if w == fail_slot else 0.0)
        return end - float(first[w]) - spent

    n_ok = sum(real)
    short_end_guess = t_end - med
    budgets = {w: budget(w, ends.get(w, short_end_guess)) for w in range(conc)}
    mean = sum(budgets.values()) / n_ok
    values = shaped(rng, n_ok, med, lo_gamma=lo_g, hi_gamma=hi_g, a=a_rel * med,
                    b=b_rel * med, mean=mean, tail=tail, a_max=0.9 * med)
    # balance: largest first, to the slot with the most budget left per open position
    chains: dict[int, list[float]] = {w: [] for w in range(conc)}
    for v in values[::-1]:
        w = max((w for w in range(conc) if len(chains[w]) < real[w]),
                key=lambda w: (budgets[w] - sum(chains[w])) / (real[w] - len(chains[w])))
        chains[w].append(float(v))
    for w in range(conc):
        order = list(rng.permutation(len(chains[w])))
        chains[w] = [chains[w][i] for i in order]
        if last_small and w in full:
            k = int(np.argmin(chains[w]))
            chains[w].append(chains[w].pop(k))

    def rescale() -> None:
        for w in full:
            f = budget(w, ends[w]) / sum(chains[w])
            chains[w] = [v * f for v in chains[w]]
        latest_start = max(ends[w] - chains[w][-1] for w in full)
        for w in short:
            end = latest_start + 0.0003 + 0.003 * rng.rand()
            f = budget(w, end) / sum(chains[w])
            chains[w] = [v * f for v in chains[w]]

    rescale()
    for _ in range(200):  # pull the median back onto its target without moving slot sums
        flat = np.array([v for w in range(conc) for v in chains[w]])
        off = med - float(np.median(flat))
        if abs(off) < 2e-6 * med:
            break
        cut = float(np.sort(flat)[n_ok // 2])  # both middle values move with the lower group
        for w in range(conc):  # a zero-sum shift inside each slot keeps its sum
            n_lo = sum(v <= cut for v in chains[w])
            if 0 < n_lo < len(chains[w]):
                ratio = n_lo / (len(chains[w]) - n_lo)
                chains[w] = [v + off if v <= cut else v - off * ratio for v in chains[w]]
        rescale()
    else:
        raise ValueError(f"{engine} C={conc}: E2EL median did not settle")

    lat, start, ok = [], [], []
    for w in range(conc):
        items = list(chains[w])
        if w == fail_slot:
            items.insert(fail_pos, -1.0)
        t = float(first[w])
        for k, v in enumerate(items):
            if k:
                t += float(gap_of[w][k])
            good = v >= 0
            start.append(t)
            lat.append(v if good else fail_latency)
            ok.append(good)
            t += lat[-1]
    order = np.argsort(start, kind="stable")
    result = Chains(np.array(lat)[order], np.array(start)[order], np.array(ok)[order])
    if min(result.latency[result.ok]) <= 0 or abs((result.start + result.latency).max()
                                                  - t_end) > 1e-9:
        raise ValueError(f"{engine} C={conc}: inconsistent chains")
    return result


def make_tier(pub: Published, engine: str, conc: int, out_total: int, *,
              extra: dict[str, tuple[float, float]] | None = None,
              duration_frac: tuple[float, float] = (0.72, 0.9)) -> Tier:
    """A tier saved without --save-detailed: its summary statistics come from internal
    per-request arrays that are not written. `extra` narrows statistic windows further (figures
    derived from several tiers); `duration_frac` says where in its window the duration falls."""
    row = pub.tiers[(engine, conc)]
    n = int(row["requests"])
    completed = int(row["completed"])
    rng = rng_for("tier", engine, conc)
    targets = tier_targets(pub, engine, conc)
    for key, win in (extra or {}).items():
        targets[key] = intersect(targets[key], win)

    d_lo, d_hi = duration_window(row, completed, out_total)
    duration = pick(d_lo, d_hi, rng.uniform(*duration_frac))
    gaps, first, tail, first_offset = client_timing(rng, 64 * conc, conc)
    short = "vllm" if engine == "vllm" else "llamacpp"
    gap_pct = pub.figures["waves"].get(f"{short}_c{conc}_gap_pct")
    if gap_pct is not None:  # duration per wave vs E2EL p50, as published
        g_lo, g_hi = window(str(gap_pct))
        per_wave = duration / math.ceil(n / conc) * 1000
        targets["e2el_median"] = intersect(targets["e2el_median"],
                                           (per_wave / (1 + g_hi / 100),
                                            per_wave / (1 + g_lo / 100)))
    e_lo, e_hi = targets["e2el_median"]
    med_l = pick(e_lo, e_hi, rng.uniform(0.3, 0.7)) / 1000
    chains = chain_schedule(engine, conc, n, n - completed, med_l, duration - tail, gaps, first,
                            rng)
    latency, ok = chains.latency, chains.ok
    out = np.zeros(n, dtype=int)
    out[ok] = OUTPUT_TOKENS - deficits(rng, completed, OUTPUT_TOKENS * completed - out_total)

    # pooled ITL (ms): median and p99 from the tables; the mean is the table's for llama.cpp
    # and equals the mean TPOT for vLLM (one chunk per token, 255 gaps per request)
    med_win = targets["itl_median"]
    if engine == "vllm":  # the median must leave room for mean = TPOT mean at the wait ratio
        w_lo, w_hi = window(row["wait_ratio_pct"])
        m_lo, m_hi = targets["itl_mean"]
        med_win = intersect(med_win, (m_lo / (1 + w_hi / 100), m_hi / (1 + w_lo / 100)))
    itl_med = pick(*med_win, rng.uniform(0.3, 0.7))
    tpot_mean_win = wait_window(pub, engine, conc, itl_med)
    n_bar = out_total / completed
    if engine == "vllm":
        tpot_mean = pick(*intersect(tpot_mean_win, targets["itl_mean"]), rng.uniform(0.3, 0.7))
        itl_mean = tpot_mean
    else:
        tpot_mean = pick(*tpot_mean_win, rng.uniform(0.3, 0.7))
        # llama.cpp streams one chunk more than it has token gaps (the final empty chunk), so
        # the pooled ITL mean sits a factor (n−1)/n under the mean TPOT where the tables allow
        lo, hi = targets["itl_mean"]
        itl_mean = min(max(tpot_mean * (n_bar - 1) / n_bar, pick(lo, hi, rng.uniform(0.1, 0.2))),
                       pick(lo, hi, rng.uniform(0.8, 0.9)))
    itl_p99 = pick(*targets["itl_p99"], rng.uniform(0.25, 0.75))
    chunks = out_total if engine == "llamacpp" else completed * (OUTPUT_TOKENS - 1)
    itl_pool = itl_values(rng, chunks, itl_med / 1000, itl_mean / 1000, itl_p99 / 1000)

    lat_ok = latency[ok]
    # TPOT per request: median from the tables where published, else what the medians imply
    ttft_med = pick(*targets["ttft_median"], rng.uniform(0.25, 0.75))
    if "tpot_median" in targets:
        tpot_med = pick(*targets["tpot_median"], rng.uniform(0.3, 0.7))
    else:
        guess = (med_l * 1000 - ttft_med) / (n_bar - 1)
        tpot_med = min(max(guess, itl_med * 0.98), tpot_mean * 1.25)
    tpot = shaped(rng, completed, tpot_med / 1000, lo_gamma=0.8, hi_gamma=1.4,
                  a=tpot_med / 1000 * 0.04, b=tpot_med / 1000 * 0.08,
                  mean=tpot_mean / 1000, a_max=tpot_med / 1000 * 0.5)[rng.permutation(completed)]

    # TTFT: median and p99 from the tables; the mean closes E2EL = TTFT + (n−1)·TPOT on means
    # wherever the published mean TPOT allows it (see README for the tiers where it cannot)
    ttft_p99 = pick(*targets["ttft_p99"], rng.uniform(0.25, 0.75))
    closing = float(np.mean(lat_ok)) * 1000 - (n_bar - 1) * float(np.mean(tpot)) * 1000
    lower_room = 0.62 * ttft_med
    state = rng.get_state()
    try:
        ttft = shaped(rng, completed, ttft_med / 1000, lo_gamma=0.5, hi_gamma=1.6,
                      a=lower_room / 1000 * 0.35, p99=ttft_p99 / 1000, mean=closing / 1000,
                      a_max=lower_room / 1000, tail=0.3)
        closed = True
    except ValueError:
        rng.set_state(state)
        ttft = shaped(rng, completed, ttft_med / 1000, lo_gamma=0.5, hi_gamma=1.6,
                      a=lower_room / 1000 * 0.35, p99=ttft_p99 / 1000, tail=0.3)
        closed = False
    ttft_full = np.zeros(n)
    ttft_full[ok] = rank_assign(ttft, lat_ok, rng, 0.8)
    if np.any(ttft_full[ok] >= lat_ok * 0.9):
        raise ValueError(f"{engine} C={conc}: a TTFT exceeds its request's E2EL")

    tier = Tier(engine, conc, n, completed, duration, ok, out, latency, ttft_full, tpot,
                chains.start, stat_block(itl_pool), first_offset=first_offset)
    tier.extra["itl_pool"] = itl_pool
    tier.extra["closing_mean"] = closed
    return tier


# ------------------------------------------------------------------------------------------
# vLLM C=1 with --save-detailed: every summary key recomputed from the arrays
# ------------------------------------------------------------------------------------------


def make_detailed_vllm_c1(pub: Published) -> Tier:
    row = pub.tiers[("vllm", 1)]
    n = int(row["requests"])
    gaps_per = OUTPUT_TOKENS - 1
    rng = rng_for("detailed", "vllm", 1)
    targets = tier_targets(pub, "vllm", 1)
    d_lo, d_hi = duration_window(row, n, n * OUTPUT_TOKENS)
    duration_target = pick(d_lo, d_hi, rng.uniform(0.4, 0.6))
    gaps, first, tail, first_offset = client_timing(rng, n, 1)

    # everything between the first start and the duration stamp is latency + hand-over gaps
    latency_sum = duration_target - tail - first_offset - float(gaps[1:].sum())
    # ITL p50 also sets the published effective bandwidth (step bytes / ITL p50); the ITL mean
    # (= TPOT mean, one chunk per token) sits a hair under it, which prints as "-0.0 %"
    step_bytes = vllm_step_bytes(pub)
    eff_lo, eff_hi = window(str(pub.figures["byte_accounting"]["vllm_effective_gb_s"]))
    below = rng.uniform(1.00003, 1.00012)  # median / mean
    med_win = intersect(targets["itl_median"], (step_bytes / eff_hi / 1e6,
                                                step_bytes / eff_lo / 1e6),
                        (targets["itl_mean"][0] * below, targets["itl_mean"][1] * below))
    itl_median = pick(*med_win, rng.uniform(0.3, 0.7)) / 1000
    itl_mean_target = itl_median / below
    ttft_mean = (latency_sum - n * gaps_per * itl_mean_target) / n
    ttft = shaped(rng, n, pick(*targets["ttft_median"], rng.uniform(0.3, 0.6)) / 1000,
                  lo_gamma=0.7, hi_gamma=1.3, a=0.0021,
                  p99=pick(*targets["ttft_p99"], rng.uniform(0.3, 0.6)) / 1000,
                  mean=ttft_mean, a_max=0.012, tail=0.2)
    itl_mean = (latency_sum - float(ttft.sum())) / (n * gaps_per)
    if not (shows(itl_mean * 1000, row["itl_mean_ms"])
            and shows((itl_mean / itl_median - 1) * 100, row["wait_ratio_pct"])):
        raise ValueError(f"vLLM C=1: ITL mean {itl_mean} does not fit the tables")

    # raw per-step noise: steady steps, some faster ones, rare scheduler hiccups (size λ)
    body = 0.000045 * rng.standard_normal((n, gaps_per))
    fast = (rng.rand(n, gaps_per) < 0.10) * rng.uniform(0.00008, 0.00022, (n, gaps_per))
    slow = (rng.rand(n, gaps_per) < 0.018) * rng.uniform(0.6, 1.2, (n, gaps_per))
    p99_target = pick(*targets["itl_p99"], rng.uniform(0.35, 0.65)) / 1000

    def fit(lam: float) -> np.ndarray:
        """Affine map of the pooled raw noise onto the exact ITL median and mean."""
        raw = body - fast + lam * slow
        m0, mu0 = float(np.median(raw)), float(np.mean(raw))
        if m0 - mu0 <= 0:
            return np.full_like(raw, np.inf)
        return (itl_median - itl_mean) / (m0 - mu0) * (raw - mu0) + itl_mean

    lam_lo, lam_hi = 0.0, 0.0001
    while np.isfinite(fit(lam_hi)).all():
        lam_hi *= 1.5
    for _ in range(80):
        mid = 0.5 * (lam_lo + lam_hi)
        trial = fit(mid)
        if np.isfinite(trial).all() and np.percentile(trial, 99) < p99_target:
            lam_lo = mid
        else:
            lam_hi = mid
    itls = fit(lam_lo)
    # pair TTFTs with requests so the E2EL median lands mid-window (pairing moves no sum)
    sums = itls.sum(axis=1)
    centre = 0.5 * sum(targets["e2el_median"]) / 1000
    best, best_off = ttft, float("inf")
    for _ in range(4000):
        trial = ttft[rng.permutation(n)]
        off = abs(float(np.median(trial + sums)) - centre)
        if off < best_off:
            best, best_off = trial, off
        if best_off < 0.00005:
            break
    ttft = best
    rows = [itls[i].copy() for i in range(n)]
    latency = np.array([float(ttft[i] + sum(rows[i])) for i in range(n)])
    sched = simulate(latency, 1, gaps, first)
    duration = float(sched.end.max()) + tail
    tier = Tier("vllm", 1, n, n, duration, np.ones(n, dtype=bool), np.full(n, OUTPUT_TOKENS),
                latency, ttft, (latency - ttft) / gaps_per, sched.start,
                stat_block(np.concatenate(rows)), itl_rows=rows, first_offset=first_offset)
    return tier


# ------------------------------------------------------------------------------------------
# Bench JSON (vllm bench serve --save-result, one single-line object per tier)
# ------------------------------------------------------------------------------------------


def peak_tokens_and_concurrency(t: Tier, base: float) -> tuple[float, int]:
    """max_output_tokens_per_s and max_concurrent_requests as calculate_metrics computes them;
    where no ITLs exist, tokens are spread evenly between first and last token."""
    idx = np.flatnonzero(t.ok)
    starts = base + t.start[idx]
    lats = t.latency[idx]
    min_start = float(starts.min())
    buckets = int(np.ceil(float((starts + lats).max()) - min_start)) + 1
    per_second = np.zeros(buckets)
    for k, i in enumerate(idx):
        first_tok = starts[k] + t.ttft[i]
        if t.itl_rows is not None:
            times = first_tok + np.concatenate([[0.0], np.cumsum(t.itl_rows[i])])
        else:
            times = np.linspace(first_tok, starts[k] + lats[k], int(t.out_tokens[i]))
        b = (times - min_start).astype(int)
        np.add.at(per_second, b[(b >= 0) & (b < buckets)], 1)
    events = sorted([(float(s), 1) for s in starts]
                    + [(float(s + x), -1) for s, x in zip(starts, lats, strict=True)])
    cur = peak = 0
    for _, delta in events:
        cur += delta
        peak = max(peak, cur)
    return float(per_second.max()), peak


def bench_record(t: Tier, date: str, detailed_base: float | None = None) -> dict:
    """The result dict in the key order vllm bench serve writes it."""
    ok = t.ok
    total_in = INPUT_TOKENS * t.completed
    total_out = int(t.out_tokens.sum())
    rec: dict = {
        "date": date,
        "endpoint_type": "openai",
        "backend": "openai",
        "label": None,
        "model_id": MODEL,
        "tokenizer_id": MODEL,
        "num_prompts": t.requests,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": t.conc,
        "duration": t.duration,
        "completed": t.completed,
        "failed": t.requests - t.completed,
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "request_throughput": t.completed / t.duration,
        "request_goodput": None,
        "output_throughput": total_out / t.duration,
        "total_token_throughput": (total_in + total_out) / t.duration,
    }
    base = detailed_base if detailed_base is not None else 0.0
    blocks = {
        "ttft": stat_block(t.ttft[ok]),
        "tpot": stat_block(t.tpot),
        "itl": t.itl,
        "e2el": stat_block(t.latency[ok]),
    }
    if t.itl_rows is not None:
        assert detailed_base is not None
        starts = [float(detailed_base + s) for s in t.start]
        arrival = detailed_base + t.first_offset * 0.5
        rec |= {
            "input_lens": [INPUT_TOKENS] * t.requests,
            "output_lens": [int(x) for x in t.out_tokens],
            "ttfts": [float(x) for x in t.ttft],
            "itls": [[float(x) for x in r] for r in t.itl_rows],
            "latencies": [float(x) for x in t.latency],
            "start_times": starts,
            "queue_times": [s - (arrival + 3.1e-6 * j) for j, s in enumerate(starts)],
            "generated_texts": [f"<reconstructed: {int(x)} tokens>" for x in t.out_tokens],
            "errors": [""] * t.requests,
        }
        # exactly calculate_metrics: TPOT per request from latency and TTFT, ITL pooled
        lat, ttft = np.array(rec["latencies"]), np.array(rec["ttfts"])
        blocks["tpot"] = stat_block((lat - ttft) / (np.array(rec["output_lens"]) - 1))
        blocks["itl"] = stat_block(np.concatenate([np.array(r) for r in rec["itls"]]))
    peak_tok, peak_conc = peak_tokens_and_concurrency(t, base)
    rec["max_output_tokens_per_s"] = peak_tok
    rec["max_concurrent_requests"] = peak_conc
    for metric in ("ttft", "tpot", "itl", "e2el"):
        for stat in ("mean", "median", "std", "p50", "p99"):
            rec[f"{stat}_{metric}_ms"] = blocks[metric][stat]
    return rec


def result_name(t: Tier, date: str) -> str:
    return f"openai-infqps-concurrency{t.conc}-{MODEL.split('/')[-1]}-{date}.json"


def schedule_tiers(tiers: list[Tier], first: dt.datetime) -> None:
    at = first
    for k, t in enumerate(tiers):
        t.wall_start = at
        if k < len(TIER_GAPS):
            at = t.wall_end + dt.timedelta(seconds=TIER_GAPS[k])


def stamp(t: Tier) -> str:
    """The result's `date`: datetime.now() right after the benchmark returns."""
    return (t.wall_end + dt.timedelta(seconds=0.061)).strftime("%Y%m%d-%H%M%S")


def epoch(moment: dt.datetime) -> float:
    return moment.replace(tzinfo=TZ).timestamp()


# ------------------------------------------------------------------------------------------
# llama-server log (mid-2026: `M.SS.mmm.uuu L ` prefix, one SLT_INF per timing line)
# ------------------------------------------------------------------------------------------


def elapsed_prefix(seconds: float, level: str = "I") -> str:
    us = round(seconds * 1e6)
    minutes, rest = divmod(us, 60_000_000)
    secs, rest = divmod(rest, 1_000_000)
    ms, us_ = divmod(rest, 1000)
    return f"{minutes}.{secs:02d}.{ms:03d}.{us_:03d} {level} "


@dataclass
class LlamaRequest:
    tier: int  # index into CONCURRENCY, -1 for the warm-up
    index: int
    t0: float  # server receive time, s since process start
    ttft: float
    latency: float
    tokens: int
    ok: bool = True
    prompt_eval_us: int = 0
    slot: int = -1
    task: int = -1
    t_last_slot: int = -1
    graphs: int = 0


def llama_warmup(rng: np.random.RandomState) -> Tier:
    """The harness warm-up before the sweep: 28 requests at concurrency 4 (no bench file)."""
    n, conc = LLAMA_WARMUP_REQUESTS, 4
    gaps, first, _, _ = client_timing(rng, n, conc)
    lat = rng.uniform(2.21, 2.52, n)
    sched = simulate(lat, conc, gaps, first)
    ttft = rng.uniform(0.098, 0.196, n)
    out = OUTPUT_TOKENS - deficits(rng, n, 61)
    return Tier("llamacpp", conc, n, n, float(sched.end.max()), np.ones(n, dtype=bool), out,
                lat, ttft, np.zeros(n), sched.start, {})


def llama_requests(tiers: list[Tier], warmup: Tier,
                   rng: np.random.RandomState) -> list[LlamaRequest]:
    """Every request the server saw, in the order their print_timing blocks were written."""
    reqs: list[LlamaRequest] = []
    for ti, t in [(-1, warmup), *enumerate(tiers)]:
        base = t.extra["elapsed_start"]
        for j in range(t.requests):
            ttft = float(t.ttft[j]) if t.ok[j] else 0.0
            r = LlamaRequest(ti, j, base + float(t.start[j]) + 0.00034, ttft,
                             float(t.latency[j]), int(t.out_tokens[j]), bool(t.ok[j]))
            if r.ok:
                # prompt eval = TTFT minus tokenization, HTTP and streaming (~7.4 ms at C=1)
                r.prompt_eval_us = round((ttft - rng.uniform(0.0068, 0.0080)) * 1e6)
            reqs.append(r)
    reqs.sort(key=lambda r: r.t0 + r.latency)
    return reqs


def llama_segments(pub: Published) -> list[int]:
    f = pub.figures["graph_reuse"]
    counts = [int(pub.reuse[c]["print_timing_lines"]) for c in CONCURRENCY]
    assert f["warmup_print_timing_lines"] + sum(counts) == f["print_timing_lines_total"]
    return [int(f["warmup_print_timing_lines"]), *counts]


def fix_segment_prefill(blocks: list[LlamaRequest], median_ms: float) -> None:
    """Shift a segment's prompt eval times so the median of the printed values is exact."""
    n = len(blocks)
    values = sorted(r.prompt_eval_us for r in blocks)
    centre = (values[n // 2 - 1] + values[n // 2]) / 2 if n % 2 == 0 else values[n // 2]
    shift = round(median_ms * 1000 - centre)
    for r in blocks:
        r.prompt_eval_us += shift
    order = sorted(blocks, key=lambda r: r.prompt_eval_us)
    target = round(median_ms * 1000)
    if n % 2:
        order[n // 2].prompt_eval_us = target
        return
    lo, hi = order[n // 2 - 1], order[n // 2]
    lo.prompt_eval_us = min(target - 2, max(lo.prompt_eval_us, target - 4))
    hi.prompt_eval_us = max(target + 2, min(hi.prompt_eval_us, target + 4))
    if not (order[n // 2 - 2].prompt_eval_us <= lo.prompt_eval_us
            and hi.prompt_eval_us <= order[n // 2 + 1].prompt_eval_us):
        raise ValueError("prompt eval median could not be placed")


def graph_increments(pub: Published, blocks: list[LlamaRequest], segments: list[int],
                     rng: np.random.RandomState) -> None:
    """Cumulative `graphs reused` per block: each segment's published delta spread over its
    blocks in proportion to what their own tier would reuse."""
    per_block = {-1: 41.0, 0: 254.0, 1: 110.0, 2: 41.0, 3: 16.5, 4: 7.3, 5: 0.0, 6: 3.46}
    bounds = np.cumsum([0, *segments])
    deltas = [None] + [int(pub.reuse[c]["graphs_reused_delta"]) for c in CONCURRENCY]
    total = 0
    for s in range(len(segments)):
        seg = blocks[bounds[s]:bounds[s + 1]]
        w = np.array([per_block[r.tier] for r in seg]) * rng.uniform(0.85, 1.15, len(seg))
        if deltas[s] is None:
            inc = np.round(w).astype(int)
        elif deltas[s] == 0 or w.sum() == 0:
            inc = np.zeros(len(seg), dtype=int)
        else:
            exact = w / w.sum() * deltas[s]
            inc = np.floor(exact).astype(int)
            order = np.argsort(-(exact - inc), kind="stable")
            inc[order[: deltas[s] - int(inc.sum())]] += 1
        for r, k in zip(seg, inc, strict=True):
            total += int(k)
            r.graphs = total


def release_time(r: LlamaRequest) -> float:
    """When the server frees the slot (the release line llama_log writes)."""
    if not r.ok:
        return r.t0 + 0.000051 + 0.000251
    return r.t0 + r.latency - 0.0004 + 0.000349


def assign_slots_and_tasks(reqs: list[LlamaRequest], boot_us: int) -> None:
    """LRU slot choice over 64 slots and the server's global task counter (one id per task and
    one per streamed token)."""
    by_start = sorted(reqs, key=lambda r: r.t0)
    last_used = [-1.0] * LLAMA_SLOTS  # release time, -1 = never used
    busy_until = [0.0] * LLAMA_SLOTS
    for r in by_start:
        idle = [s for s in range(LLAMA_SLOTS) if busy_until[s] <= r.t0]
        slot = min(idle, key=lambda s: (last_used[s], s))
        r.slot = slot
        r.t_last_slot = -1 if last_used[slot] < 0 else boot_us + int(last_used[slot] * 1e6)
        busy_until[slot] = last_used[slot] = release_time(r)
    oks = [r for r in by_start if r.ok]
    first = np.array([r.t0 + r.ttft - 0.0006 for r in oks])
    last = np.array([r.t0 + r.latency - 0.0004 for r in oks])
    toks = np.array([r.tokens for r in oks], dtype=float)
    step = (last - first) / (toks - 1)
    for launched, r in enumerate(by_start):
        done = np.where(r.t0 > first, np.minimum(toks, 1 + np.floor((r.t0 - first) / step)), 0)
        r.task = launched + int(done.sum())


def llama_log(pub: Published, tiers: list[Tier], warmup: Tier) -> tuple[str, float]:
    """The whole server log and the elapsed time of its last line."""
    rng = rng_for("llama", "log")
    reqs = llama_requests(tiers, warmup, rng)
    blocks = [r for r in reqs if r.ok]
    segments = llama_segments(pub)
    if len(blocks) != sum(segments):
        raise ValueError(f"{len(blocks)} blocks, published {sum(segments)}")
    bounds = np.cumsum([0, *segments])
    fix_segment_prefill(blocks[bounds[1]:bounds[2]],
                        pub.figures["prefill"]["llamacpp_prompt_eval_median_ms"])
    graph_increments(pub, blocks, segments, rng_for("llama", "graphs"))
    assign_slots_and_tasks(reqs, boot_us=287_103_412_906)

    lines: list[tuple[float, int, str]] = []

    def emit(t: float, text: str, level: str = "I") -> None:
        lines.append((t, len(lines), elapsed_prefix(t, level) + text))

    for t, text, level in llama_startup():
        emit(t, text, level)

    def slot(fn: str, r: LlamaRequest, task: int | None = None) -> str:
        return f"slot {fn:>12.12}: id {r.slot:2d} | task {r.task if task is None else task} | "

    for r in reqs:
        t_launch = r.t0 + 0.000051
        emit(r.t0 + 0.000033, slot("get_availabl", r, -1)
             + f"selected slot by LRU, t_last = {r.t_last_slot}")
        emit(t_launch, slot("launch_slot_", r) + "processing task, is_child = 0")
        if not r.ok:
            emit(t_launch + 0.000212, f"srv    send_error: task id = {r.task}, error: "
                 "Invalid input batch.", "E")
            emit(t_launch + 0.000251, slot("     release", r)
                 + "stop processing: n_tokens = 0, truncated = 0")
            continue
        t_first = r.t0 + r.ttft - 0.0006
        t_last = r.t0 + r.latency - 0.0004
        n = r.tokens
        pe = r.prompt_eval_us / 1000.0
        ev = round((t_last - t_first) * 1e6 + rng.uniform(180, 420)) / 1000.0
        tb = t_last + 0.000118
        emit(tb, slot("print_timing", r)
             + f"prompt eval time = {pe:10.2f} ms / {INPUT_TOKENS:5d} tokens "
             f"({pe / INPUT_TOKENS:8.2f} ms per token, {1e3 / pe * INPUT_TOKENS:8.2f} "
             "tokens per second)")
        emit(tb + 0.000003, slot("print_timing", r)
             + f"       eval time = {ev:10.2f} ms / {n:5d} tokens "
             f"({ev / n:8.2f} ms per token, {1e3 / ev * n:8.2f} tokens per second)")
        emit(tb + 0.000004, slot("print_timing", r)
             + f"      total time = {pe + ev:10.2f} ms / {INPUT_TOKENS + n:5d} tokens")
        emit(tb + 0.000009, slot("print_timing", r) + f"   graphs reused = {r.graphs:10d}")
        emit(tb + 0.000231, slot("     release", r)
             + f"stop processing: n_tokens = {INPUT_TOKENS + n - 1}, truncated = 0")
    lines.sort(key=lambda x: (x[0], x[1]))
    return "\n".join(line for _, _, line in lines) + "\n", lines[-1][0]


def llama_startup() -> list[tuple[float, str, str]]:
    """Start-up lines: build, model buffers, context and KV cache, slots."""
    model_mib = 4.68e9 / 2**20
    kv_mib = LLAMA_CTX * 28 * 2 * 512 * 2 / 2**20  # cells × layers × (K, V) × 512 dims × f16
    ctx_slot = LLAMA_CTX // LLAMA_SLOTS
    return [
        (0.000412, f"build_info: b{LLAMA_BUILD}-{LLAMA_COMMIT}", "I"),
        (0.000431, "system_info: n_threads = 16 (n_threads_batch = 16) / 32 | CUDA : "
         "ARCHS = 890 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | FA_ALL_QUANTS = 1 | "
         "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
         "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | LLAMAFILE = 1 | OPENMP = 1 | "
         "REPACK = 1 | ", "I"),
        (0.056917, "cmn  common_param: common_params_print_info: verbosity = 3 (adjust with "
         "the `-lv N` CLI arg)", "I"),
        (0.057402, "srv  llama_server: -----------------", "W"),
        (0.057404, "srv  llama_server: CORS is set to allow all origins ('*') and no API key "
         "is set", "W"),
        (0.057404, "srv  llama_server: this can be a security risk (cross-origin attacks)", "W"),
        (0.057405, "srv  llama_server: more info: https://github.com/ggml-org/llama.cpp/pull/"
         "25655", "W"),
        (0.057405, "srv  llama_server: -----------------", "W"),
        (0.058611, "srv    load_model: loading model '/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf'",
         "I"),
        (0.312734, "llama_prepare_model_devices: using device CUDA0 (NVIDIA GeForce RTX 4090) "
         "(0000:01:00.0) - 23988 MiB free", "I"),
        (0.388190, "load_tensors: offloading output layer to GPU", "I"),
        (0.388196, "load_tensors: offloading 27 repeating layers to GPU", "I"),
        (0.388198, "load_tensors: offloaded 29/29 layers to GPU", "I"),
        (0.388214, f"load_tensors:        CUDA0 model buffer size = {model_mib:8.2f} MiB", "I"),
        (2.913527, "llama_context: constructing llama_context", "I"),
        (2.913530, f"llama_context: n_seq_max     = {LLAMA_SLOTS}", "I"),
        (2.913531, f"llama_context: n_ctx         = {LLAMA_CTX}", "I"),
        (2.913531, f"llama_context: n_ctx_seq     = {ctx_slot}", "I"),
        (2.913532, "llama_context: n_batch       = 2048", "I"),
        (2.913532, "llama_context: n_ubatch      = 512", "I"),
        (2.913533, "llama_context: causal_attn   = 1", "I"),
        (2.913533, "llama_context: flash_attn    = auto", "I"),
        (2.913534, "llama_context: kv_unified    = false", "I"),
        (2.913534, "llama_context: freq_base     = 1000000.0", "I"),
        (2.913535, "llama_context: freq_scale    = 1", "I"),
        (2.913541, f"llama_context: n_ctx_seq ({ctx_slot}) < n_ctx_train (32768) -- the full "
         "capacity of the model will not be utilized", "W"),
        (2.917730, "llama_context:  CUDA_Host  output buffer size =    37.13 MiB", "I"),
        (3.031145, f"llama_kv_cache:      CUDA0 KV buffer size = {kv_mib:8.2f} MiB", "I"),
        (3.046012, f"llama_kv_cache: size = {kv_mib:7.2f} MiB ({LLAMA_CTX:6d} cells,  28 "
         f"layers, {LLAMA_SLOTS}/{LLAMA_SLOTS} seqs), K (f16): {kv_mib / 2:7.2f} MiB, "
         f"V (f16): {kv_mib / 2:7.2f} MiB", "I"),
        (3.046481, "llama_context: Flash Attention was auto, set to enabled", "I"),
        (3.112904, "common_init_from_params: warming up the model with an empty run - please "
         "wait ... (--no-warmup to disable)", "W"),
        (4.901377, f"srv    load_model: initializing, n_slots = {LLAMA_SLOTS}, n_ctx_slot = "
         f"{ctx_slot}, kv_unified = 'false'", "I"),
        (4.901402, "srv    load_model: prompt cache is disabled - use `--cache-ram N` to "
         "enable it", "W"),
        (4.903982, "srv          init: chat template, thinking = 0", "I"),
        (4.904011, "srv  llama_server: model loaded", "I"),
        (4.904016, "srv  llama_server: listening on http://0.0.0.0:8080", "I"),
    ]


# ------------------------------------------------------------------------------------------
# vLLM server log
# ------------------------------------------------------------------------------------------

API_PID, ENGINE_PID = 31517, 31690


def vlog(moment: dt.datetime, who: str, src: str, msg: str, level: str = "INFO") -> str:
    proc, pid = ("APIServer", API_PID) if who == "api" else ("EngineCore", ENGINE_PID)
    return f"({proc} pid={pid}) {level} {moment:%m-%d %H:%M:%S} [{src}] {msg}"


def vllm_startup(t0: dt.datetime) -> tuple[list[str], dt.datetime]:
    """Start-up lines of `vllm serve` 0.27.1 (V1 engine) and the moment the server is ready."""

    def at(s: float) -> dt.datetime:
        return t0 + dt.timedelta(seconds=s)

    sizes = [512 - 8 * i for i in range(63)] + [8, 4, 2, 1]
    config = (
        f"model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', "
        "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, "
        "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, "
        "load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
        "data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
        "structured_outputs_config=StructuredOutputsConfig(backend='auto', "
        "disable_fallback=False, disable_any_whitespace=False, "
        "disable_additional_properties=False, reasoning_parser=''), "
        "observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, "
        "otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, "
        f"served_model_name={MODEL}, enable_prefix_caching=True, enable_chunked_prefill=True, "
        "pooler_config=None, compilation_config="
        + json.dumps({"level": 3, "mode": 3, "backend": "inductor",
                      "splitting_ops": ["vllm::unified_attention",
                                        "vllm::unified_attention_with_output",
                                        "vllm::mamba_mixer2"],
                      "use_inductor": True, "cudagraph_mode": [2, 1],
                      "cudagraph_capture_sizes": sizes, "max_capture_size": 512},
                     separators=(",", ":"))
    )
    routes = ["/openapi.json, Methods: HEAD, GET", "/docs, Methods: HEAD, GET",
              "/docs/oauth2-redirect, Methods: HEAD, GET", "/redoc, Methods: HEAD, GET",
              "/health, Methods: GET", "/load, Methods: GET", "/ping, Methods: POST",
              "/ping, Methods: GET", "/tokenize, Methods: POST", "/detokenize, Methods: POST",
              "/v1/models, Methods: GET", "/version, Methods: GET",
              "/v1/responses, Methods: POST", "/v1/chat/completions, Methods: POST",
              "/v1/completions, Methods: POST", "/v1/embeddings, Methods: POST",
              "/pooling, Methods: POST", "/classify, Methods: POST", "/score, Methods: POST",
              "/v1/score, Methods: POST", "/rerank, Methods: POST", "/v1/rerank, Methods: POST",
              "/invocations, Methods: POST", "/metrics, Methods: GET"]
    lines = [
        f"INFO {at(3.9):%m-%d %H:%M:%S} [platforms/__init__.py:216] Automatically detected "
        "platform cuda.",
        vlog(at(9.2), "api", "api_server.py:1932", "vLLM API server version 0.27.1"),
        vlog(at(9.2), "api", "utils.py:253", "non-default args: {'model_tag': "
             f"'{MODEL}', 'host': '0.0.0.0', 'model': '{MODEL}', 'dtype': 'bfloat16', "
             "'gpu_memory_utilization': 0.9, 'enable_chunked_prefill': True, "
             "'disable_uvicorn_access_log': True}"),
        vlog(at(15.8), "api", "model.py:611", "Resolved architecture: Qwen2ForCausalLM"),
        vlog(at(15.8), "api", "model.py:1789", "Using max model len 32768"),
        vlog(at(16.1), "api", "scheduler.py:230",
             "Chunked prefill is enabled with max_num_batched_tokens=2048."),
        f"INFO {at(23.6):%m-%d %H:%M:%S} [platforms/__init__.py:216] Automatically detected "
        "platform cuda.",
        vlog(at(26.4), "eng", "core.py:93", "Initializing a V1 LLM engine (v0.27.1) with "
             f"config: {config}"),
        vlog(at(27.2), "eng", "parallel_state.py:1208", "rank 0 in world size 1 is assigned as "
             "DP rank 0, PP rank 0, TP rank 0, EP rank 0"),
        vlog(at(27.5), "eng", "gpu_model_runner.py:3012",
             f"Starting to load model {MODEL}..."),
        vlog(at(28.1), "eng", "cuda.py:366", "Using FLASH_ATTN attention backend out of "
             "potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']"),
        vlog(at(28.4), "eng", "weight_utils.py:449", "Using model weights format "
             "['*.safetensors']"),
        vlog(at(32.6), "eng", "default_loader.py:291", "Loading weights took 4.12 seconds"),
        vlog(at(33.0), "eng", "model_runner.py:295",
             "Model loading took 14.49 GiB and 5.284173 seconds"),
        vlog(at(39.9), "eng", "backends.py:609", "Using cache directory: /root/.cache/vllm/"
             "torch_compile_cache/5c1f9e07d2/rank_0_0/backbone for vLLM's torch.compile"),
        vlog(at(39.9), "eng", "backends.py:623", "Dynamo bytecode transform time: 6.91 s"),
        vlog(at(45.3), "eng", "backends.py:205", "Directly load the compiled graph(s) for "
             "dynamic shape from the cache, took 5.402 s"),
        vlog(at(46.1), "eng", "monitor.py:34", "torch.compile takes 12.31 s in total"),
        vlog(at(47.4), "eng", "gpu_worker.py:298", "Available KV cache memory: 6.41 GiB"),
        vlog(at(47.8), "eng", "kv_cache_utils.py:1087",
             f"GPU KV cache size: {VLLM_KV_TOKENS:,} tokens"),
        vlog(at(47.8), "eng", "kv_cache_utils.py:1092", "Maximum concurrency for 32,768 "
             f"tokens per request: {VLLM_KV_TOKENS / 32768:.2f}x"),
        f"(EngineCore pid={ENGINE_PID}) Capturing CUDA graphs (mixed prefill-decode, "
        "PIECEWISE): 100%|██████████| 67/67 [00:03<00:00, 19.83it/s]",
        f"(EngineCore pid={ENGINE_PID}) Capturing CUDA graphs (decode, FULL): "
        "100%|██████████| 35/35 [00:01<00:00, 24.61it/s]",
        vlog(at(53.1), "eng", "gpu_model_runner.py:3941",
             "Graph capturing finished in 5 secs, took 0.48 GiB"),
        vlog(at(53.3), "eng", "core.py:237", "init engine (profile, create kv cache, warmup "
             "model) took 20.27 seconds"),
        vlog(at(54.6), "api", "loggers.py:147", "Engine 000: vllm cache_config_info with "
             f"initialization after num_gpu_blocks is: {VLLM_KV_TOKENS // VLLM_BLOCK}"),
        vlog(at(54.7), "api", "api_server.py:1680", "Supported tasks: ['generate']"),
        vlog(at(54.9), "api", "model.py:1532", "Default sampling parameters have been "
             "overridden by the model's Hugging Face generation config recommended from the "
             "model creator. If this is not intended, please relaunch vLLM instance with "
             "`--generation-config vllm`.", "WARNING"),
        vlog(at(54.9), "api", "serving_completion.py:79", "Using default completion sampling "
             "params from model: {'repetition_penalty': 1.05, 'temperature': 0.7, 'top_k': 20, "
             "'top_p': 0.8}"),
        vlog(at(55.1), "api", "api_server.py:2007",
             "Starting vLLM API server 0 on http://0.0.0.0:8000"),
        vlog(at(55.1), "api", "launcher.py:37", "Available routes are:"),
        *[vlog(at(55.1), "api", "launcher.py:45", f"Route: {r}") for r in routes],
        f"(APIServer pid={API_PID}) INFO:     Started server process [{API_PID}]",
        f"(APIServer pid={API_PID}) INFO:     Waiting for application startup.",
        f"(APIServer pid={API_PID}) INFO:     Application startup complete.",
    ]
    return lines, at(55.2)


def vllm_warmup(at: dt.datetime, rng: np.random.RandomState) -> Tier:
    """8 warm-up requests at concurrency 8 before the sweep (no bench file)."""
    n = 8
    lat = rng.uniform(4.93, 5.02, n)
    ttft = rng.uniform(0.11, 0.33, n)
    start = np.sort(rng.uniform(0.0003, 0.0011, n))
    t = Tier("vllm", 8, n, n, float((start + lat).max()) + 0.001, np.ones(n, dtype=bool),
             np.full(n, OUTPUT_TOKENS), lat, ttft, np.zeros(n), start,
             {"median": 16.6, "mean": 18.2, "p99": 101.0})
    t.wall_start = at
    return t


def vllm_stats_lines(tiers: list[Tier], ready: dt.datetime) -> list[str]:
    """`Engine 000: Avg prompt throughput ...` every 10 s while requests are in flight, plus one
    idle line after each busy stretch."""
    starts, firsts, ends, toks = [], [], [], []
    for t in tiers:
        base = epoch(t.wall_start)
        for j in np.flatnonzero(t.ok):
            starts.append(base + float(t.start[j]))
            firsts.append(starts[-1] + float(t.ttft[j]))
            ends.append(starts[-1] + float(t.latency[j]))
            toks.append(int(t.out_tokens[j]))
    s, f, e, n = (np.array(x, dtype=float) for x in (starts, firsts, ends, toks))
    step = np.maximum(e - f, 1e-9) / (n - 1)

    def generated(at: float) -> np.ndarray:
        return np.where(at >= f, np.minimum(n, 1 + np.floor((at - f) / step)), 0)

    t_ready = epoch(ready)
    lines = []
    idle_logged = True
    for k in range(1, int((e.max() + 20 - t_ready) / 10) + 1):
        t1 = t_ready + 10 * k
        t0 = t1 - 10
        if not ((s < t1) & (e > t0)).any():
            if idle_logged:
                continue
            idle_logged = True
        else:
            idle_logged = False
        prompt = INPUT_TOKENS * int(((f >= t0) & (f < t1)).sum()) / 10.0
        gen = float((generated(t1) - generated(t0)).sum()) / 10.0
        running = (s <= t1) & (e > t1)
        blocks = np.ceil((INPUT_TOKENS + generated(t1)[running]) / VLLM_BLOCK).sum()
        usage = 100.0 * blocks / (VLLM_KV_TOKENS // VLLM_BLOCK)
        moment = dt.datetime.fromtimestamp(t1, TZ).replace(tzinfo=None)
        lines.append(vlog(moment, "api", "loggers.py:236",
                          f"Engine 000: Avg prompt throughput: {prompt:.1f} tokens/s, Avg "
                          f"generation throughput: {gen:.1f} tokens/s, Running: "
                          f"{int(running.sum())} reqs, Waiting: 0 reqs, GPU KV cache usage: "
                          f"{usage:.1f}%, Prefix cache hit rate: 0.0%"))
    return lines


# ------------------------------------------------------------------------------------------
# vLLM Prometheus scrapes
# ------------------------------------------------------------------------------------------

LAT_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
               120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
                5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
               7.5, 10.0, 20.0, 40.0, 80.0]
TOKEN_BUCKETS = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0,
                 10000.0, 20000.0]
ITER_BUCKETS = [1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0,
                8192.0, 16384.0]
HISTOGRAMS = {
    "request_prompt_tokens": (TOKEN_BUCKETS, "Number of prefill tokens processed."),
    "request_generation_tokens": (TOKEN_BUCKETS, "Number of generation tokens processed."),
    "iteration_tokens_total": (ITER_BUCKETS, "Histogram of number of tokens per engine_step."),
    "time_to_first_token_seconds": (TTFT_BUCKETS, "Histogram of time to first token in "
                                    "seconds."),
    "inter_token_latency_seconds": (ITL_BUCKETS, "Histogram of inter-token latency in seconds."),
    "request_time_per_output_token_seconds": (ITL_BUCKETS, "Histogram of "
                                              "time_per_output_token_seconds per request."),
    "e2e_request_latency_seconds": (LAT_BUCKETS, "Histogram of e2e request latency in seconds."),
    "request_queue_time_seconds": (LAT_BUCKETS, "Histogram of time spent in WAITING phase for "
                                   "request."),
    "request_inference_time_seconds": (LAT_BUCKETS, "Histogram of time spent in RUNNING phase "
                                       "for request."),
    "request_prefill_time_seconds": (LAT_BUCKETS, "Histogram of time spent in PREFILL phase "
                                     "for request."),
    "request_decode_time_seconds": (LAT_BUCKETS, "Histogram of time spent in DECODE phase for "
                                    "request."),
}


def go_float(d: float) -> str:
    """prometheus_client's floatToGoString."""
    if d == math.inf:
        return "+Inf"
    s = repr(float(d))
    dot = s.find(".")
    if d > 0 and dot > 6:
        mantissa = f"{s[0]}.{s[1:dot]}{s[dot + 1:]}".rstrip("0.")
        return f"{mantissa}e+0{dot - 1}"
    return s


class Hist:
    def __init__(self, buckets: Sequence[float]) -> None:
        self.buckets = list(buckets)
        self.counts = [0] * (len(buckets) + 1)
        self.sum = 0.0

    def observe(self, value: float, times: int = 1) -> None:
        i = int(np.searchsorted(np.array(self.buckets), value, side="left"))
        self.counts[i] += times
        self.sum += value * times

    def observe_many(self, values: np.ndarray, total: float | None = None) -> None:
        idx = np.searchsorted(np.array(self.buckets), values, side="left")
        for i, c in zip(*np.unique(idx, return_counts=True), strict=True):
            self.counts[int(i)] += int(c)
        self.sum += float(values.sum()) if total is None else total


class VllmMetrics:
    """Cumulative engine metrics; render() is one /metrics scrape. vLLM serves /metrics through
    prometheus_client's multiprocess collector, which writes no `_created` series and no
    python_/process_ collectors, so neither appears here."""

    def __init__(self, rng: np.random.RandomState) -> None:
        self.rng = rng
        self.counters = dict.fromkeys(("prefix_cache_queries", "prefix_cache_hits",
                                       "num_preemptions", "prompt_tokens", "generation_tokens"),
                                      0.0)
        self.success = {"stop": 0.0, "length": 0.0, "abort": 0.0, "error": 0.0}
        self.h = {k: Hist(b) for k, (b, _) in HISTOGRAMS.items()}

    def serve(self, t: Tier, prefill: np.ndarray, itl_pool: np.ndarray) -> None:
        """Account one tier's requests (the engine's view of the client's timings)."""
        rng = self.rng
        n = t.completed
        ok = t.ok
        lat = t.latency[ok] - rng.uniform(0.0026, 0.0036, n)
        ttft = t.ttft[ok] - rng.uniform(0.0019, 0.0027, n)
        queue = np.clip(ttft - prefill - rng.uniform(0.0076, 0.0088, n), 0.00002, None)
        decode = lat - queue - prefill - rng.uniform(0.0003, 0.0006, n)
        gen = t.out_tokens[ok]
        for name, values in (("e2e_request_latency_seconds", lat),
                             ("time_to_first_token_seconds", ttft),
                             ("request_queue_time_seconds", queue),
                             ("request_prefill_time_seconds", prefill),
                             ("request_decode_time_seconds", decode),
                             ("request_inference_time_seconds", prefill + decode),
                             ("request_time_per_output_token_seconds", decode / (gen - 1))):
            self.h[name].observe_many(values)
        self.h["inter_token_latency_seconds"].observe_many(itl_pool, total=float(decode.sum()))
        self.h["request_prompt_tokens"].observe(float(INPUT_TOKENS), n)
        self.h["request_generation_tokens"].observe_many(gen.astype(float))
        # engine steps: one prefill-carrying step per request, the rest decode batches of ~C
        it = self.h["iteration_tokens_total"]
        prefill_step = INPUT_TOKENS + (t.conc - 1)
        it.observe(float(prefill_step), n)
        decode_tokens = n * (INPUT_TOKENS + OUTPUT_TOKENS - 1) - n * prefill_step
        per_step = max(1, round(t.conc * 0.93))
        steps = max(1, decode_tokens // per_step)
        it.observe(float(per_step), steps)
        it.sum += decode_tokens - per_step * steps
        self.counters["prompt_tokens"] += INPUT_TOKENS * n
        self.counters["generation_tokens"] += float(gen.sum())
        self.counters["prefix_cache_queries"] += INPUT_TOKENS * n
        self.success["length"] += n

    def render(self) -> str:
        labels = f'model_name="{MODEL}",engine="0"'
        out: list[str] = []

        def family(name: str, kind: str, help_: str) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")

        for name, help_ in (("num_requests_running", "Number of requests in model execution "
                             "batches."),
                            ("num_requests_waiting", "Number of requests waiting to be "
                             "processed."),
                            ("kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent "
                             "usage.")):
            family(f"vllm:{name}", "gauge", help_)
            out.append(f"vllm:{name}{{{labels}}} 0.0")
        for name, help_ in (("prefix_cache_queries", "Prefix cache queries, in terms of number "
                             "of queried tokens."),
                            ("prefix_cache_hits", "Prefix cache hits, in terms of number of "
                             "cached tokens."),
                            ("num_preemptions", "Cumulative number of preemption from the "
                             "engine."),
                            ("prompt_tokens", "Number of prefill tokens processed."),
                            ("generation_tokens", "Number of generation tokens processed.")):
            family(f"vllm:{name}_total", "counter", help_)
            out.append(f"vllm:{name}_total{{{labels}}} {go_float(self.counters[name])}")
        family("vllm:request_success_total", "counter", "Count of successfully processed "
               "requests.")
        for reason, value in self.success.items():
            out.append(f'vllm:request_success_total{{{labels},finished_reason="{reason}"}} '
                       f"{go_float(value)}")
        for key, h in self.h.items():
            name = f"vllm:{key}"
            family(name, "histogram", HISTOGRAMS[key][1])
            cum = 0
            for b, c in zip([*h.buckets, math.inf], h.counts, strict=True):
                cum += c
                out.append(f'{name}_bucket{{{labels},le="{go_float(b)}"}} {go_float(float(cum))}')
            out.append(f"{name}_count{{{labels}}} {go_float(float(cum))}")
            out.append(f"{name}_sum{{{labels}}} {go_float(h.sum)}")
        family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
        out.append(
            'vllm:cache_config_info{block_size="16",cache_dtype="auto",calculate_kv_scales='
            '"False",cpu_offload_gb="0",enable_prefix_caching="True",engine="0",'
            'gpu_memory_utilization="0.9",is_attention_free="False",num_cpu_blocks="None",'
            f'num_gpu_blocks="{VLLM_KV_TOKENS // VLLM_BLOCK}",num_gpu_blocks_override="None",'
            'prefix_caching_hash_algo="sha256",sliding_window="None",swap_space="4",'
            'swap_space_bytes="4294967296"} 1.0')
        return "\n".join(out) + "\n"


def prefill_times(t: Tier, rng: np.random.RandomState, c1_mean: float | None) -> np.ndarray:
    """Engine-side prefill (scheduled → first token) per successful request, seconds."""
    n = t.completed
    ttft = t.ttft[t.ok]
    if c1_mean is not None:
        base = ttft - rng.uniform(0.0085, 0.0094, n)
        return base - base.mean() + c1_mean
    step = rng.uniform(0.0915, 0.0985, n) * (1 + 0.012 * math.log2(t.conc))
    return np.minimum(step, np.maximum(ttft - 0.0095, 0.02))


def itl_pool_of(t: Tier, rng: np.random.RandomState) -> np.ndarray:
    """Pooled ITL values (s) behind the inter_token_latency histogram."""
    if t.itl_rows is not None:
        return np.concatenate(t.itl_rows)
    if "itl_pool" in t.extra:
        return t.extra["itl_pool"]
    n = t.completed * (OUTPUT_TOKENS - 1)
    return itl_values(rng, n, *(t.itl[k] / 1000 for k in ("median", "mean", "p99")))


# ------------------------------------------------------------------------------------------
# nvidia-smi: fingerprint table and the 1 Hz CSV
# ------------------------------------------------------------------------------------------


def nvidia_smi(moment: dt.datetime, *, fan: int, temp: int, perf: str, power: int, used: int,
               util: int, pid: int, process: str, process_mib: int) -> str:
    """`nvidia-smi` as driver 580 prints it for one RTX 4090."""

    def row(*cells: str) -> str:
        """One table row: cells padded to the 41/24/22-wide columns nvidia-smi draws."""
        widths = (41, 24, 22)[: len(cells)] if len(cells) > 1 else (89,)
        return "|" + "|".join(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)) + "|"

    rule = "+" + "-" * 89 + "+"
    cols = "+" + "+".join("-" * w for w in (41, 24, 22)) + "+"
    usage = f"{process_mib}MiB"
    if len(process) > 44 - len(usage):  # nvidia-smi keeps the tail of long process names
        process = "..." + process[-(41 - len(usage)):]
    return "\n".join([
        f"{moment:%a %b} {moment.day:>2} {moment:%H:%M:%S %Y}       ",
        rule,
        row(" NVIDIA-SMI 580.159.03             Driver Version: 580.159.03     CUDA Version: "
            "13.0"),
        cols,
        row(" GPU  Name                 Persistence-M", " Bus-Id          Disp.A",
            " Volatile Uncorr. ECC"),
        row(" Fan  Temp   Perf          Pwr:Usage/Cap", "           Memory-Usage",
            " GPU-Util  Compute M."),
        row("", "", "               MIG M."),
        "|" + "+".join("=" * w for w in (41, 24, 22)) + "|",
        row(f"   0  {GPU_NAME}        On", "   00000000:01:00.0 Off", "                  Off"),
        row(f" {fan:>2}%   {temp:>2}C    {perf:<2}{power:>15}W /  450W",
            f"{used:>8}MiB /  {GPU_TOTAL_MIB}MiB", f"{util:>7}%      Default"),
        row("", "", "                  N/A"),
        cols,
        "",
        rule,
        row(" Processes:"),
        row("  GPU   GI   CI              PID   Type   Process name                        GPU "
            "Memory"),
        row("        ID   ID                                                               Usage"),
        "|" + "=" * 89 + "|",
        row(f"    0   N/A  N/A  {pid:>14}      C   {process:<{45 - len(usage)}} {usage}"),
        rule,
    ])


def gpu_csv(tiers: list[Tier], start: dt.datetime, stop: dt.datetime, ready: dt.datetime,
            rng: np.random.RandomState) -> str:
    """1 Hz sampler over the vLLM run: ~1.003 s steps with a ~3.9 s stall every ~32 samples."""
    busy = [(epoch(t.wall_start), epoch(t.wall_end), t.conc) for t in tiers]
    rows = ["timestamp, index, name, utilization.gpu [%], utilization.memory [%], "
            "memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu"]
    t_launch = epoch(VLLM_LAUNCH)
    t_load, t_ready = t_launch + 27.5, epoch(ready) - 2.0
    now = start
    temp = 31.0
    since_stall = int(rng.randint(8, 30))
    while now <= stop:
        ts = epoch(now)
        conc = next((c for a, b, c in busy if a <= ts <= b), 0)
        if ts < t_load - 4:
            used = 1
        elif ts < t_load:
            used = int(rng.randint(420, 560))
        elif ts < t_ready:
            used = int(560 + min(1.0, (ts - t_load) / 6.0) * 14_900
                       + (ts - t_load - 6) / (t_ready - t_load - 6) * 7_150 * (ts > t_load + 6)
                       + rng.randint(0, 60))
        else:
            used = 22618 + int(rng.choice([0, 0, 0, 2, 4, -2]))
        if conc:
            util = int(rng.randint(88, 101) if conc > 1 else rng.randint(91, 100))
            mem_util = int(rng.randint(62, 85) if conc < 16 else rng.randint(48, 71))
            power = rng.uniform(262, 318) + 6 * math.log2(conc)
            target = 61.2 + 1.6 * math.log2(conc)
        elif ts >= t_ready:
            util = int(rng.choice([0, 0, 0, 1]))
            mem_util = 0
            power = rng.uniform(48, 62)
            target = 44.0
        else:
            util = int(rng.choice([0, 3, 12, 27])) if used > 100 else 0
            mem_util = 0 if util == 0 else int(rng.randint(1, 9))
            power = rng.uniform(19, 23) if used < 100 else rng.uniform(58, 96)
            target = 34.0
        temp += (target - temp) * 0.035 + rng.uniform(-0.25, 0.25)
        rows.append(f"{now:%Y/%m/%d %H:%M:%S}.{now.microsecond // 1000:03d}, 0, {GPU_NAME}, "
                    f"{util} %, {mem_util} %, {used} MiB, {GPU_TOTAL_MIB} MiB, {power:.2f} W, "
                    f"{min(71, round(temp))}")
        since_stall += 1
        if since_stall >= 32 + int(rng.randint(0, 2)):
            step = rng.uniform(3.93, 3.98)
            since_stall = 0
        else:
            step = 1.0 + float(rng.choice([0.001, 0.002, 0.002, 0.003, 0.004, 0.005, 0.012]))
        now += dt.timedelta(seconds=step)
    return "\n".join(rows) + "\n"


def fingerprint_keys(engine: str, at: dt.datetime) -> str:
    common = [
        f"captured_at: {at:%Y-%m-%d %H:%M:%S} +08:00 (after the last tier)",
        "gpu: NVIDIA GeForce RTX 4090 (24564 MiB, 1008 GB/s)",
        "driver: 580.159.03",
        "cuda: 13.0",
        f"model: {MODEL}",
    ]
    client = ("vllm bench serve --backend openai --base-url http://127.0.0.1:{port} --model "
              + MODEL + " --dataset-name random --random-input-len 1024 --random-output-len 256 "
              "--ignore-eos --num-prompts <N> --max-concurrency <C> --ready-check-timeout-sec 0 "
              "--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99 "
              "--save-result --result-dir bench")
    if engine == "vllm":
        keys = [
            "engine: vllm",
            "engine_version: 0.27.1",
            "dtype: bfloat16",
            "quantization: none",
            f"launch_args: vllm serve {MODEL} --dtype bfloat16 --gpu-memory-utilization 0.9 "
            "--enable-chunked-prefill --disable-uvicorn-access-log --port 8000",
            "client: " + client.format(port=8000) + " (C=1 also --save-detailed)",
            "client_version: 0.27.1",
            "tiers: 1,2,4,8,16,32,64",
            "num_prompts: 40,60,80,120,200,320,512",
            "warmup: 8 requests at concurrency 8 before C=1",
            "metrics: GET /metrics before and after every tier -> metrics/c<C>-before.prom, "
            "c<C>-after.prom",
            "gpu_sampler: nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,"
            "utilization.memory,memory.used,memory.total,power.draw,temperature.gpu "
            "--format=csv -l 1 -f gpu.csv",
        ]
    else:
        keys = [
            "engine: llama.cpp",
            f"engine_version: b{LLAMA_BUILD}",
            f"engine_commit: {LLAMA_COMMIT}",
            "model_file: Qwen2.5-7B-Instruct-Q4_K_M.gguf",
            "quantization: Q4_K_M",
            "launch_args: llama-server -m /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf -ngl 99 "
            f"-np {LLAMA_SLOTS} -c {LLAMA_CTX} --cache-ram 0 --slot-prompt-similarity 0 "
            "--host 0.0.0.0 --port 8080",
            "prompt_cache: off (--cache-ram 0 --slot-prompt-similarity 0)",
            "client: " + client.format(port=8080),
            "client_version: 0.27.1",
            "tiers: 1,2,4,8,16,32,64",
            "num_prompts: 40,60,80,120,200,320,512",
            f"warmup: {LLAMA_WARMUP_REQUESTS} requests at concurrency 4 before C=1",
            "metrics: none (server started without --metrics)",
            "gpu_sampler: none (no 1 Hz sampler in this round)",
        ]
    return "\n".join(common + keys) + "\n"


# ------------------------------------------------------------------------------------------
# Driver
# ------------------------------------------------------------------------------------------


def llama_output_totals(pub: Published) -> dict[int, int]:
    """Generated tokens per tier: C=1 and C=32 from their published means, the others chosen
    inside their throughput windows so the seven tiers sum to the published total."""
    sc = pub.figures["self_checks"]
    comp = {c: int(pub.tiers[("llamacpp", c)]["completed"]) for c in CONCURRENCY}
    fixed = {1: round(sc["llamacpp_mean_output_tokens_c1"] * comp[1]),
             32: round(sc["llamacpp_mean_output_tokens_c32"] * comp[32])}
    fits: dict[int, list[int]] = {}
    for c in CONCURRENCY:
        row = pub.tiers[("llamacpp", c)]
        fits[c] = []
        for o in range(comp[c] * 250, comp[c] * 256 + 1):
            try:
                duration_window(row, comp[c], o)
                fits[c].append(o)
            except ValueError:
                pass
    for c, v in fixed.items():
        if v not in fits[c]:
            raise ValueError(f"llama.cpp C={c}: {v} tokens do not fit the published throughput")
    free = [c for c in CONCURRENCY if c not in fixed]
    chosen = {c: fits[c][len(fits[c]) // 2] for c in free}
    short = int(sc["llamacpp_output_tokens_total"]) - sum(fixed.values()) - sum(chosen.values())
    for c in free:  # move the remainder into the free tiers without leaving their windows
        room = fits[c][-1] - chosen[c] if short > 0 else fits[c][0] - chosen[c]
        step = min(short, room) if short > 0 else max(short, room)
        chosen[c] += step
        short -= step
    if short:
        raise ValueError("cannot meet the published llama.cpp output total")
    return {**fixed, **chosen}


def llama_c1_windows(pub: Published, vllm_c1: Tier) -> dict[str, tuple[float, float]]:
    """llama.cpp C=1 figures published only through ratios with vLLM C=1: effective bandwidth,
    measured step ratio and its share of the predicted one (ITL p50), client-side TTFT gap."""
    f = pub.figures
    ba, pf = f["byte_accounting"], f["prefill"]
    step = llama_step_bytes(pub)
    predicted = vllm_step_bytes(pub) / step
    vllm_itl = vllm_c1.itl["median"]
    e_lo, e_hi = window(str(ba["llamacpp_effective_gb_s"]))
    r_lo, r_hi = window(f"{ba['measured_step_ratio']:.2f}")
    a_lo, a_hi = window(str(ba["prediction_attained_pct"]))
    itl = intersect((step / e_hi / 1e6, step / e_lo / 1e6),
                    (vllm_itl / r_hi, vllm_itl / r_lo),
                    (vllm_itl / (predicted * a_hi / 100), vllm_itl / (predicted * a_lo / 100)))
    vllm_ttft = stat_block(vllm_c1.ttft)["median"]
    g_lo, g_hi = window(str(pf["client_side_gap_pct"]))
    ttft = (vllm_ttft * (1 - g_hi / 100), vllm_ttft * (1 - g_lo / 100))
    # keep clear of the edges: these windows are only hundredths of a millisecond wide
    return {"itl_median": shrink(itl), "ttft_median": shrink(ttft)}


def shrink(win: tuple[float, float], keep: float = 0.8) -> tuple[float, float]:
    pad = (win[1] - win[0]) * (1 - keep) / 2
    return win[0] + pad, win[1] - pad


def verify_derived(pub: Published, vllm: list[Tier], llama: list[Tier]) -> None:
    """Recompute the published figures that combine several tiers or both engines from the
    generated tiers; stop if any would print differently."""
    f = pub.figures
    ba, bt, cr, pf = f["byte_accounting"], f["batching"], f["crossover"], f["prefill"]
    v = {t.conc: t for t in vllm}
    ll = {t.conc: t for t in llama}

    def tput(t: Tier) -> float:
        return float(t.out_tokens.sum()) / t.duration

    kv_slot = ba["kv_tokens_per_slot"] * ba["kv_bytes_per_token"]
    bw = f["setup"]["bus_bandwidth_gb_s"] * 1e9
    checks: dict[str, tuple[float, object]] = {
        "vllm_effective_gb_s": (vllm_step_bytes(pub) / v[1].itl["median"] / 1e6,
                                ba["vllm_effective_gb_s"]),
        "llamacpp_effective_gb_s": (llama_step_bytes(pub) / ll[1].itl["median"] / 1e6,
                                    ba["llamacpp_effective_gb_s"]),
        "vllm_mbu_pct": (vllm_step_bytes(pub) / v[1].itl["median"] * 1e3 / bw * 100,
                         ba["vllm_mbu_pct"]),
        "llamacpp_mbu_pct": (llama_step_bytes(pub) / ll[1].itl["median"] * 1e3 / bw * 100,
                             ba["llamacpp_mbu_pct"]),
        "measured_step_ratio": (v[1].itl["median"] / ll[1].itl["median"],
                                f"{ba['measured_step_ratio']:.2f}"),
        "prediction_attained_pct": (v[1].itl["median"] / ll[1].itl["median"]
                                    / (vllm_step_bytes(pub) / llama_step_bytes(pub)) * 100,
                                    ba["prediction_attained_pct"]),
        "ratio_at_c8": (tput(ll[8]) / tput(v[8]), f"{cr['ratio_at_c8']:.3f}"),
        "ratio_at_c16": (tput(ll[16]) / tput(v[16]), f"{cr['ratio_at_c16']:.3f}"),
        "vllm_efficiency_c64_pct": ((ba["vllm_matmul_params"] * ba["vllm_bytes_per_param"]
                                     + 64 * kv_slot) / bw * 1e3 / v[64].itl["median"] * 100,
                                    bt["vllm_efficiency_c64_pct"]),
        "llamacpp_efficiency_c64_pct": ((round(ba["llamacpp_gguf_gb"] * 1e9) + 64 * kv_slot)
                                        / bw * 1e3 / ll[64].itl["median"] * 100,
                                        bt["llamacpp_efficiency_c64_pct"]),
        "vllm_ms_per_slot": ((v[64].itl["median"] - v[1].itl["median"]) / 63,
                             f"{bt['vllm_ms_per_slot']:.3f}"),
        "llamacpp_ms_per_slot": ((ll[64].itl["median"] - ll[1].itl["median"]) / 63,
                                 f"{bt['llamacpp_ms_per_slot']:.3f}"),
        "client_side_gap_pct": ((1 - stat_block(ll[1].ttft[ll[1].ok])["median"]
                                 / stat_block(v[1].ttft)["median"]) * 100,
                                pf["client_side_gap_pct"]),
    }
    r8, r16 = checks["ratio_at_c8"][0], checks["ratio_at_c16"][0]
    x = math.log(r8) / (math.log(r8) - math.log(r16))
    checks["crossover_concurrency"] = (math.exp(math.log(8) + x * math.log(2)),
                                       cr["crossover_concurrency"])
    for name, (value, text) in checks.items():
        if not shows(float(value), str(text)):
            raise ValueError(f"{name} = {value} would not print as {text}")


def build(reference: Path, out: Path) -> list[Path]:
    """Write every file; returns the paths written."""
    pub = load_reference(reference)
    written: list[Path] = []

    def write(rel: str, text: str) -> None:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    # ---- bench tiers and their wall-clock placement
    vllm_c1 = make_detailed_vllm_c1(pub)
    fracs = {8: (0.8, 0.95), 16: (0.8, 0.95)}  # low vLLM and high llama.cpp throughput at
    vllm = [vllm_c1] + [                         # C=8/16 put the crossover at 8.3, not 8.2
        make_tier(pub, "vllm", c, int(pub.tiers[("vllm", c)]["completed"]) * OUTPUT_TOKENS,
                  duration_frac=fracs.get(c, (0.72, 0.9)))
        for c in CONCURRENCY[1:]]
    totals = llama_output_totals(pub)
    fracs = {8: (0.05, 0.2), 16: (0.05, 0.2)}
    llama = [make_tier(pub, "llamacpp", c, totals[c],
                       extra=llama_c1_windows(pub, vllm_c1) if c == 1 else None,
                       duration_frac=fracs.get(c, (0.72, 0.9)))
             for c in CONCURRENCY]
    verify_derived(pub, vllm, llama)
    schedule_tiers(vllm, VLLM_FIRST_TIER)
    llama_warm = llama_warmup(rng_for("llama", "warmup"))
    llama_warm.wall_start = LLAMA_LAUNCH + dt.timedelta(seconds=LLAMA_WARMUP_AT)
    schedule_tiers(llama, llama_warm.wall_end + dt.timedelta(seconds=LLAMA_FIRST_TIER_GAP))
    for t in [llama_warm, *llama]:
        t.extra["elapsed_start"] = (t.wall_start - LLAMA_LAUNCH).total_seconds()

    perf_origin = 264_817.4431  # the client's perf_counter() at the C=1 benchmark start
    for t in vllm:
        date = stamp(t)
        rec = bench_record(t, date, perf_origin if t.itl_rows is not None else None)
        write(f"vllm/bench/{result_name(t, date)}", json.dumps(rec))
    for t in llama:
        date = stamp(t)
        write(f"llamacpp/bench/{result_name(t, date)}", json.dumps(bench_record(t, date)))

    # ---- llama-server log and fingerprint (taken right after the last tier)
    log_text, end_elapsed = llama_log(pub, llama, llama_warm)
    write("llamacpp/server.log", log_text)
    smi_at = LLAMA_LAUNCH + dt.timedelta(seconds=end_elapsed + 3.71)
    used = int(pub.figures["memory"]["llamacpp_nvidia_smi_mib"])
    temp = int(pub.figures["self_checks"]["max_gpu_temperature_c"])
    llama_fp = nvidia_smi(smi_at, fan=41, temp=temp, perf="P2", power=118, used=used, util=0,
                          pid=48213, process="/usr/local/bin/llama-server",
                          process_mib=used - 10)
    write("llamacpp/fingerprint.txt", llama_fp + "\n\n" + fingerprint_keys("llamacpp", smi_at))

    # ---- vLLM server log, scrapes, sampler, fingerprint
    rng = rng_for("vllm", "server")
    start_lines, ready = vllm_startup(VLLM_LAUNCH)
    warm = vllm_warmup(ready + dt.timedelta(seconds=13.4), rng)
    write("vllm/server.log", "\n".join(start_lines + vllm_stats_lines([warm, *vllm], ready))
          + "\n")
    metrics = VllmMetrics(rng_for("vllm", "metrics"))
    metrics.serve(warm, prefill_times(warm, rng, None), itl_pool_of(warm, rng))
    c1_prefill = pub.figures["prefill"]["vllm_request_prefill_time_ms"] / 1000 + 2.7e-6
    for t in vllm:
        write(f"vllm/metrics/c{t.conc}-before.prom", metrics.render())
        pf = prefill_times(t, rng, c1_prefill if t.conc == 1 else None)
        metrics.serve(t, pf, itl_pool_of(t, rng))
        write(f"vllm/metrics/c{t.conc}-after.prom", metrics.render())
    stop = vllm[-1].wall_end + dt.timedelta(seconds=14.2)
    write("vllm/gpu.csv", gpu_csv([warm, *vllm], VLLM_LAUNCH - dt.timedelta(seconds=6.111),
                                  stop, ready, rng_for("vllm", "gpu")))
    vllm_at = vllm[-1].wall_end + dt.timedelta(seconds=9.37)
    vllm_fp = nvidia_smi(vllm_at, fan=30, temp=58, perf="P2", power=87, used=22618, util=0,
                         pid=ENGINE_PID, process="VLLM::EngineCore", process_mib=22608)
    write("vllm/fingerprint.txt", vllm_fp + "\n\n" + fingerprint_keys("vllm", vllm_at))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Rebuild the Round 2 raw files from the "
                                     "published Round 2 summary tables.")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    for path in build(args.reference, args.out):
        print(path.relative_to(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
