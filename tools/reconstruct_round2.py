#!/usr/bin/env python3
"""Rebuild the Round 2 raw files from the published Round 2 summary tables.

The real Round 2 raw files were not kept; only the published figures survive
(../shared/round2-reference: tiers.csv, graph_reuse.csv, published_figures.toml). This script
writes, under sample_runs/round2-rtx4090/, the files those figures would have been computed
from, each in its engine's native format:

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
DEFAULT_REFERENCE = REPO.parent / "shared" / "round2-reference"
DEFAULT_OUT = REPO / "sample_runs" / "round2-rtx4090"

SEED = 20261118
MODEL = "Qwen/Qwen2.5-7B-Instruct"
INPUT_TOKENS = 1024
OUTPUT_TOKENS = 256
TZ = dt.timezone(dt.timedelta(hours=8))  # the lab clock; only used for epoch-valued fields
LLAMA_BUILD = 9741
LLAMA_COMMIT = "eab8ee41f"
LLAMA_SLOTS = 64
LLAMA_CTX = 262_144
LLAMA_FAILED_INDEX = 143  # the one failed request of llama.cpp C=32 (0-based request index)
LLAMA_WARMUP_REQUESTS = 28  # real warm-up; the published segmentation assumed 31 (see README)
VLLM_KV_TOKENS = 120_064
VLLM_BLOCK = 16
GPU_NAME = "NVIDIA GeForce RTX 4090"
GPU_TOTAL_MIB = 24564


def rng_for(*key: object) -> np.random.RandomState:
    """An independent, frozen-stream generator per purpose, so editing one part of the
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
    """np.percentile(x, 99) − median, in units of the upper-half shape, for the layout below."""
    k = len(hi)
    pos = 0.99 * (n - 1)
    first_hi = n - k
    i = int(math.floor(pos))
    frac = pos - i
    a = hi[i - first_hi]
    b = hi[min(i + 1 - first_hi, k - 1)]
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


def rank_assign(values: np.ndarray, keys: np.ndarray, rng: np.random.RandomState,
                noise: float) -> np.ndarray:
    """Give the sorted `values` to requests by the rank of their (noisy) keys, so large TTFTs
    go with long requests as they do in a real run."""
    scale = float(np.std(keys)) or 1.0
    order = np.argsort(keys + noise * scale * rng.standard_normal(len(keys)), kind="stable")
    out = np.empty(len(values))
    out[order] = np.sort(values)
    return out


# ------------------------------------------------------------------------------------------
# Client simulation (vllm bench serve: one asyncio semaphore of size C, FIFO)
# ------------------------------------------------------------------------------------------


@dataclass
class Schedule:
    start: np.ndarray  # s after benchmark start
    end: np.ndarray
    worker: np.ndarray


def simulate(latency: np.ndarray, conc: int, gaps: np.ndarray, first: np.ndarray) -> Schedule:
    n = len(latency)
    start = np.zeros(n)
    worker = np.zeros(n, dtype=int)
    heap = [(float(first[w]), w) for w in range(conc)]
    heapq.heapify(heap)
    for j in range(n):
        free, w = heapq.heappop(heap)
        start[j] = free + (gaps[j] if j >= conc else 0.0)
        worker[j] = w
        heapq.heappush(heap, (start[j] + latency[j], w))
    return Schedule(start, start + latency, worker)


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
    ttft: np.ndarray  # s
    tpot: np.ndarray  # s, per successful request (summary source)
    start: np.ndarray  # s after benchmark start
    itl: dict[str, float]  # ms: median, mean, std, p50, p99 (pooled)
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
    d = np.zeros(n, dtype=int)
    left = total_short
    if left > n * cap:
        raise ValueError("shortfall too large")
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


# Per-tier shape of the client E2EL distribution: (lower power, upper power, lower spread ratio,
# upper spread ratio, upper tail stretch, partial-wave factor). The spread itself is solved so
# the simulated run ends exactly at the published duration.
LATENCY_SHAPE = {
    ("vllm", 2): (0.8, 1.6, 1.0, 1.6, 0.5, None),
    ("vllm", 4): (0.6, 1.6, 1.0, 1.6, 0.3, None),
    ("vllm", 8): (0.6, 1.5, 1.0, 1.6, 0.3, None),
    ("vllm", 16): (0.8, 1.4, 1.0, 1.2, 0.3, "solve"),
    ("vllm", 32): (0.9, 1.4, 0.8, 1.6, 0.6, None),
    ("vllm", 64): (0.9, 1.3, 0.8, 1.6, 0.6, None),
    ("llamacpp", 1): (0.9, 1.4, 1.0, 1.5, 0.5, None),
    ("llamacpp", 2): (0.9, 2.2, 0.25, 3.0, 0.8, None),
    ("llamacpp", 4): (0.9, 2.0, 0.25, 3.0, 0.8, None),
    ("llamacpp", 8): (0.9, 1.8, 0.25, 3.0, 0.8, None),
    ("llamacpp", 16): (0.9, 1.5, 0.5, 2.0, 0.5, 0.55),
    ("llamacpp", 32): (0.9, 1.4, 0.6, 1.5, 0.4, None),
    ("llamacpp", 64): (0.9, 1.4, 0.8, 1.2, 0.3, None),
}


def client_timing(rng: np.random.RandomState, n: int, conc: int) -> tuple[np.ndarray, np.ndarray,
                                                                              float, float]:
    """Per-request dispatch gaps (semaphore hand-over), first-wave start offsets and the tail
    between the last response and the duration stamp."""
    gaps = rng.uniform(0.00022, 0.00058, n)
    first = np.sort(rng.uniform(0.00030, 0.00030 + 0.00011 * conc, conc))
    tail = float(rng.uniform(0.0009, 0.0016))
    return gaps, first, tail, float(first[0])


def solve_latencies(
    engine: str, conc: int, n: int, ok: np.ndarray, med: float, t_end: float,
    gaps: np.ndarray, first: np.ndarray, rng: np.random.RandomState,
) -> tuple[np.ndarray, Schedule]:
    """E2EL per request with the given median whose simulated run ends at t_end."""
    lo_g, hi_g, ra, rb, tail, partial = LATENCY_SHAPE[(engine, conc)]
    n_ok = int(ok.sum())
    perm = rng.permutation(n_ok)
    base_rng_state = rng.get_state()
    n_partial = n % conc
    fail_latency = 0.0021

    def build(scale: float, factor: float) -> np.ndarray:
        rng.set_state(base_rng_state)
        vals = shaped(rng, n_ok, med, lo_gamma=lo_g, hi_gamma=hi_g, a=scale * ra, b=scale * rb,
                      tail=tail)[perm]
        lat = np.full(n, fail_latency)
        lat[ok] = vals
        if n_partial:
            # the last partial wave runs with fewer requests in flight, so it is faster
            idx = np.arange(n - n_partial, n)
            lat[idx] = lat[idx] * factor
            lat[ok] += med - float(np.median(lat[ok]))
        return lat

    def end_at(scale: float, factor: float) -> float:
        return float(simulate(build(scale, factor), conc, gaps, first).end.max())

    factor = 1.0 if partial in (None, "solve") else float(partial)
    scale_hi = med * 3.0
    if partial == "solve":
        # fixed small spread, solve the partial-wave speed-up
        scale = med * 0.004
        lo_f, hi_f = 0.3, 1.0
        if end_at(scale, lo_f) > t_end or end_at(scale, hi_f) < t_end:
            raise ValueError(f"{engine} C={conc}: partial-wave factor cannot reach {t_end}")
        for _ in range(70):
            mid = 0.5 * (lo_f + hi_f)
            if end_at(scale, mid) < t_end:
                lo_f = mid
            else:
                hi_f = mid
        factor = lo_f
        lat = build(scale, factor)
    else:
        if end_at(0.0, factor) > t_end:
            raise ValueError(f"{engine} C={conc}: median {med} too large for end {t_end}")
        lo_s, hi_s = 0.0, scale_hi
        if end_at(hi_s, factor) < t_end:
            raise ValueError(f"{engine} C={conc}: spread cannot reach end {t_end}")
        for _ in range(70):
            mid = 0.5 * (lo_s + hi_s)
            if end_at(mid, factor) < t_end:
                lo_s = mid
            else:
                hi_s = mid
        lat = build(lo_s, factor)
    sched = simulate(lat, conc, gaps, first)
    # land the last response exactly on t_end (sub-millisecond nudge of one request)
    last = int(np.argmax(sched.end))
    lat[last] += t_end - sched.end[last]
    sched = simulate(lat, conc, gaps, first)
    return lat, sched


def tier_targets(pub: Published, engine: str, conc: int) -> dict[str, tuple[float, float]]:
    """Value windows (ms) for every summary statistic the reference pins."""
    row = pub.tiers[(engine, conc)]
    f = pub.figures
    t: dict[str, tuple[float, float]] = {
        "ttft_median": window(row["ttft_p50_ms"]),
        "ttft_p99": window(row["ttft_p99_ms"]),
        "itl_median": window(row["itl_p50_ms"]),
        "itl_mean": window(row["itl_mean_ms"]),
        "itl_p99": window(row["itl_p99_ms"]),
        "e2el_median": window(row["e2el_p50_ms"]),
    }
    if conc == 1:
        key = "vllm_ttft_p50_ms" if engine == "vllm" else "llamacpp_ttft_p50_ms"
        t["ttft_median"] = window(str(f["prefill"][key]))
    tr = f["tpot_range"]
    if conc in (1, 64):
        key = f"{'vllm' if engine == 'vllm' else 'llamacpp'}_c{conc}_ms"
        t["tpot_median"] = window(f"{tr[key]:.2f}")
    # waves: E2EL p50 in seconds at 2 decimals
    waves = f["waves"]
    name = f"{'vllm' if engine == 'vllm' else 'llamacpp'}_c{conc}_e2el_p50_s"
    if name in waves:
        lo, hi = window(f"{waves[name]:.2f}")
        e_lo, e_hi = t["e2el_median"]
        t["e2el_median"] = (max(e_lo, lo * 1000), min(e_hi, hi * 1000))
    return t


def wait_window(pub: Published, engine: str, conc: int, itl_median: float) -> tuple[float, float]:
    """mean TPOT values that give the published wait ratio with this ITL median."""
    lo, hi = window(pub.tiers[(engine, conc)]["wait_ratio_pct"])
    return itl_median * (1 + lo / 100), itl_median * (1 + hi / 100)


def intersect(*wins: tuple[float, float]) -> tuple[float, float]:
    lo = max(w[0] for w in wins)
    hi = min(w[1] for w in wins)
    if not lo < hi:
        raise ValueError(f"empty intersection {wins}")
    return lo, hi


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


def make_tier(pub: Published, engine: str, conc: int, out_total: int) -> Tier:
    """A non-detailed tier: summary statistics from internal per-request arrays."""
    row = pub.tiers[(engine, conc)]
    n = int(row["requests"])
    completed = int(row["completed"])
    rng = rng_for("tier", engine, conc)
    targets = tier_targets(pub, engine, conc)

    ok = np.ones(n, dtype=bool)
    if completed < n:
        ok[LLAMA_FAILED_INDEX] = False
    out = np.zeros(n, dtype=int)
    out[ok] = OUTPUT_TOKENS - deficits(rng, completed, OUTPUT_TOKENS * completed - out_total)
    assert out.sum() == out_total

    d_lo, d_hi = duration_window(row, completed, out_total)
    duration = pick(d_lo, d_hi, 0.8)
    gaps, first, tail, first_offset = client_timing(rng, n, conc)
    e_lo, e_hi = targets["e2el_median"]
    state = rng.get_state()
    for frac in (0.3, 0.12, 0.04):
        # when D / waves sits right on the E2EL median, the median must sit low in its window
        med_l = pick(e_lo, e_hi, frac) / 1000
        rng.set_state(state)
        try:
            latency, sched = solve_latencies(engine, conc, n, ok, med_l, duration - tail, gaps,
                                             first, rng)
            break
        except ValueError:
            if frac == 0.04:
                raise

    # ITL (pooled, ms): median and p99 from the tables; the mean is the table's for llama.cpp
    # and equals mean TPOT for vLLM (one chunk per token, 255 gaps per request)
    itl_med = pick(*targets["itl_median"], 0.5)
    tpot_mean_win = wait_window(pub, engine, conc, itl_med)
    if engine == "vllm":
        tpot_mean = pick(*intersect(tpot_mean_win, targets["itl_mean"]), 0.5)
        itl_mean = tpot_mean
    else:
        tpot_mean = pick(*tpot_mean_win, 0.5)
        itl_mean = pick(*targets["itl_mean"], 0.5)
    itl_p99 = pick(*targets["itl_p99"], 0.5)
    chunks = int(out_total) if engine == "llamacpp" else completed * (OUTPUT_TOKENS - 1)
    itl_pool = itl_values(rng, chunks, itl_med / 1000, itl_mean / 1000, itl_p99 / 1000)
    itl_mean = float(np.mean(itl_pool)) * 1000

    n_bar = out_total / completed
    lat_ok = latency[ok]
    # TPOT per request: median from the tables where published, else what the medians imply
    ttft_med = pick(*targets["ttft_median"], 0.5)
    if "tpot_median" in targets:
        tpot_med = pick(*targets["tpot_median"], 0.5)
    else:
        guess = (med_l * 1000 - ttft_med) / (n_bar - 1)
        tpot_med = min(max(guess, itl_med * 0.98), tpot_mean * 1.25)
    tpot = shaped(rng, completed, tpot_med / 1000, lo_gamma=0.8, hi_gamma=1.4,
                  a=tpot_med / 1000 * 0.04, b=tpot_med / 1000 * 0.08,
                  mean=tpot_mean / 1000, a_max=tpot_med / 1000 * 0.5)[rng.permutation(completed)]

    # TTFT: median and p99 from the tables; the mean closes E2EL = TTFT + (n−1)·TPOT on means
    # wherever the published mean TPOT allows it (see README for the tiers where it cannot)
    ttft_p99 = pick(*targets["ttft_p99"], 0.5)
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
                sched.start, stat_block(itl_pool), first_offset=first_offset)
    tier.extra["itl_pool"] = itl_pool
    tier.extra["closing_mean"] = closed
    return tier


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
    for m in range(n - int(math.floor(pos)) + 1, n // 4):
        body = med + 0.012 * med * z[: n - m] * (1 + 0.1 * rng.rand())
        body.sort()
        body += med - (0.5 * (body[n // 2 - 1] + body[n // 2]) if n % 2 == 0 else body[n // 2])
        w = np.sort(((np.arange(m) + 0.5) / m) ** 1.3 * (1 + 0.08 * rng.standard_normal(m)))
        w = (w - w[0]) / (w[-1] - w[0])
        i = int(math.floor(pos)) - (n - m)
        omega = w[i] + (pos - math.floor(pos)) * (w[min(i + 1, m - 1)] - w[i])
        total = n * mean - body.sum()
        denom = w.sum() - m * omega
        if denom <= 0:
            continue
        r = (total - m * p99) / denom
        low = p99 - r * omega
        if r > 0 and low > body[-1] * 1.02:
            return np.concatenate([body, low + r * w])
    raise ValueError(f"cannot shape ITL n={n} med={med} mean={mean} p99={p99}")


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
    duration_target = pick(d_lo, d_hi, 0.5)
    gaps, first, tail, first_offset = client_timing(rng, n, 1)

    # everything between the first start and the duration stamp is latency + hand-over gaps
    latency_sum = duration_target - tail - first_offset - float(gaps[1:].sum())
    # ITL mean = TPOT mean (one chunk per token); a hair under the median gives "-0.0 %"
    itl_mean_target = pick(*intersect(targets["itl_mean"], targets["itl_median"]), 0.36) / 1000
    ttft_mean = (latency_sum - n * gaps_per * itl_mean_target) / n
    ttft = shaped(rng, n, pick(*targets["ttft_median"], 0.5) / 1000, lo_gamma=0.7,
                  hi_gamma=1.3, a=0.0021, p99=pick(*targets["ttft_p99"], 0.45) / 1000,
                  mean=ttft_mean, a_max=0.012, tail=0.2)[rng.permutation(n)]
    itl_mean = (latency_sum - float(ttft.sum())) / (n * gaps_per)
    itl_median = itl_mean * 1.00016
    if not (shows(itl_mean * 1000, row["itl_mean_ms"])
            and shows(itl_median * 1000, row["itl_p50_ms"])):
        raise ValueError(f"vLLM C=1: ITL mean {itl_mean} does not fit the tables")

    # raw per-step noise: steady steps, a few faster ones, rare scheduler hiccups (size λ)
    body = 0.000045 * rng.standard_normal((n, gaps_per))
    fast = (rng.rand(n, gaps_per) < 0.10) * rng.uniform(0.00008, 0.00022, (n, gaps_per))
    slow = (rng.rand(n, gaps_per) < 0.018) * rng.uniform(0.6, 1.2, (n, gaps_per))
    p99_target = pick(*targets["itl_p99"], 0.5) / 1000
    lat_lo, lat_hi = (x / 1000 for x in targets["e2el_median"])

    def fit(lam: float) -> np.ndarray:
        """Affine map of the pooled raw noise onto the exact ITL median and mean."""
        raw = body - fast + lam * slow
        pooled = raw.ravel()
        m0, mu0 = float(np.median(pooled)), float(np.mean(pooled))
        if m0 - mu0 <= 0:
            return np.full_like(raw, np.inf)
        scale = (itl_median - itl_mean) / (m0 - mu0)
        return scale * (raw - mu0) + itl_mean

    lam_lo, lam_hi = 0.0, 0.001
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
    # squeeze per-request sums toward their mean (keeps the pooled mean) until the E2EL median
    # sits well inside its window
    lat = ttft + itls.sum(axis=1)
    kappa = 1.0
    while not (lat_lo + 0.0001 <= np.median(ttft + itls.sum(axis=1)) <= lat_hi - 0.0001):
        kappa *= 0.8
        if kappa < 1e-4:
            raise ValueError("vLLM C=1: cannot place the E2EL median")
        squeezed = lat.mean() + kappa * (lat - lat.mean())
        itls = fit(lam_lo) + ((squeezed - lat) / gaps_per)[:, None]
    rows = [itls[i].copy() for i in range(n)]
    latency = np.array([float(ttft[i] + sum(rows[i])) for i in range(n)])
    sched = simulate(latency, 1, gaps, first)
    duration = float(sched.end.max()) + tail
    tpot = (latency - ttft) / gaps_per
    pooled = np.concatenate(rows)
    tier = Tier("vllm", 1, n, n, duration, np.ones(n, dtype=bool),
                np.full(n, OUTPUT_TOKENS), latency, ttft, tpot, sched.start,
                stat_block(pooled), itl_rows=rows, first_offset=first_offset)
    tier.extra["gaps"] = gaps
    return tier


# ------------------------------------------------------------------------------------------
# Bench JSON (vllm bench serve --save-result, one single-line object per tier)
# ------------------------------------------------------------------------------------------


def peak_tokens_and_concurrency(t: Tier, base: float) -> tuple[float, int]:
    """max_output_tokens_per_s and max_concurrent_requests exactly as calculate_metrics does,
    with tokens spread evenly between first token and last token where no ITLs exist."""
    idx = np.flatnonzero(t.ok)
    starts = base + t.start[idx]
    lats = t.latency[idx]
    min_start = float(starts.min())
    max_end = float((starts + lats).max())
    buckets = int(np.ceil(max_end - min_start)) + 1
    per_second = np.zeros(buckets)
    for k, i in enumerate(idx):
        first_tok = starts[k] + t.ttft[i]
        if t.itl_rows is not None:
            times = first_tok + np.concatenate([[0.0], np.cumsum(t.itl_rows[i])])
        else:
            times = np.linspace(first_tok, starts[k] + lats[k], int(t.out_tokens[i]))
        b = (times - min_start).astype(int)
        b = b[(b >= 0) & (b < buckets)]
        np.add.at(per_second, b, 1)
    events = sorted([(float(s), 1) for s in starts] + [(float(s + x), -1)
                                                       for s, x in zip(starts, lats, strict=True)],
                    key=lambda e: (e[0], e[1]))
    cur = peak = 0
    for _, delta in events:
        cur += delta
        peak = max(peak, cur)
    return float(per_second.max()), peak


def bench_record(t: Tier, date: str, detailed_base: float | None = None) -> dict:
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
    peak_tok, peak_conc = peak_tokens_and_concurrency(t, base)
    rec["max_output_tokens_per_s"] = peak_tok
    rec["max_concurrent_requests"] = peak_conc
    lat_ok = t.latency[ok]
    ttft_ok = t.ttft[ok]
    blocks = {
        "ttft": stat_block(ttft_ok),
        "tpot": stat_block(t.tpot),
        "itl": t.itl,
        "e2el": stat_block(lat_ok),
    }
    if t.itl_rows is not None:
        gaps_per = t.out_tokens - 1
        blocks["tpot"] = stat_block((lat_ok - ttft_ok) / gaps_per[ok])
        blocks["itl"] = stat_block(np.concatenate(t.itl_rows))
    for metric in ("ttft", "tpot", "itl", "e2el"):
        for stat in ("mean", "median", "std", "p50", "p99"):
            rec[f"{stat}_{metric}_ms"] = blocks[metric][stat]
    return rec


def result_name(t: Tier, date: str) -> str:
    return f"openai-infqps-concurrency{t.conc}-{MODEL.split('/')[-1]}-{date}.json"


# ------------------------------------------------------------------------------------------
# Timeline
# ------------------------------------------------------------------------------------------

VLLM_LAUNCH = dt.datetime(2026, 11, 18, 13, 50, 4, 318000)
VLLM_FIRST_TIER = dt.datetime(2026, 11, 18, 13, 52, 6, 912000)
LLAMA_LAUNCH = dt.datetime(2026, 11, 18, 15, 7, 12, 640000)
LLAMA_WARMUP_AT = 41.27  # s after llama-server start
TIER_GAPS = (24.62, 23.91, 25.34, 24.07, 26.18, 24.83)  # client restart between tiers, s
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64)


def schedule_tiers(tiers: list[Tier], first: dt.datetime) -> None:
    at = first
    for k, t in enumerate(tiers):
        t.wall_start = at
        if k < len(TIER_GAPS):
            at = t.wall_end + dt.timedelta(seconds=TIER_GAPS[k])


def stamp(t: Tier) -> str:
    return (t.wall_end + dt.timedelta(seconds=0.061)).strftime("%Y%m%d-%H%M%S")


def epoch(moment: dt.datetime) -> float:
    return moment.replace(tzinfo=TZ).timestamp()


# ------------------------------------------------------------------------------------------
# llama-server log (mid-2026: `M.SS.mmm.uuu L ` prefix, one SLT_INF per timing line)
# ------------------------------------------------------------------------------------------


def elapsed_prefix(seconds: float, level: str = "I") -> str:
    us = int(round(seconds * 1e6))
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
    """The harness warm-up before the sweep: 28 requests at concurrency 4 (not a bench file)."""
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
    reqs: list[LlamaRequest] = []
    for ti, t in [(-1, warmup), *enumerate(tiers)]:
        base = t.extra["elapsed_start"]
        for j in range(t.requests):
            ttft = float(t.ttft[j]) if t.ok[j] else 0.0
            r = LlamaRequest(ti, j, base + float(t.start[j]) + 0.00034, ttft,
                             float(t.latency[j]), int(t.out_tokens[j]), bool(t.ok[j]))
            if r.ok:
                # prompt eval = TTFT minus tokenization, HTTP and streaming (~7.4 ms at C=1)
                r.prompt_eval_us = int(round((ttft - rng.uniform(0.0068, 0.0080)) * 1e6))
            reqs.append(r)
    reqs.sort(key=lambda r: r.t0 + r.latency)
    return reqs


def llama_segments(pub: Published) -> list[int]:
    f = pub.figures["graph_reuse"]
    counts = [int(pub.reuse[c]["print_timing_lines"]) for c in CONCURRENCY]
    assert f["warmup_print_timing_lines"] + sum(counts) == f["print_timing_lines_total"]
    return [int(f["warmup_print_timing_lines"]), *counts]


def fix_segment_prefill(blocks: list[LlamaRequest], seg: slice, median_ms: float) -> None:
    """Shift one segment's prompt eval times so the printed (2-decimal) median is exact."""
    chosen = blocks[seg]
    values = sorted(r.prompt_eval_us for r in chosen)
    n = len(values)
    centre = (values[n // 2 - 1] + values[n // 2]) / 2 if n % 2 == 0 else values[n // 2]
    shift = int(round(median_ms * 1000 - centre))
    for r in chosen:
        r.prompt_eval_us += shift
    order = sorted(chosen, key=lambda r: r.prompt_eval_us)
    target = int(round(median_ms * 1000))
    if n % 2 == 0:
        lo, hi = order[n // 2 - 1], order[n // 2]
        lo.prompt_eval_us = min(target - 2, max(lo.prompt_eval_us, target - 4))
        hi.prompt_eval_us = max(target + 2, min(hi.prompt_eval_us, target + 4))
        below = order[n // 2 - 2].prompt_eval_us if n >= 4 else lo.prompt_eval_us
        above = order[n // 2 + 1].prompt_eval_us if n >= 4 else hi.prompt_eval_us
        assert below <= lo.prompt_eval_us and hi.prompt_eval_us <= above
    else:
        order[n // 2].prompt_eval_us = target


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
            short = deltas[s] - int(inc.sum())
            order = np.argsort(-(exact - inc), kind="stable")
            inc[order[:short]] += 1
        for r, k in zip(seg, inc, strict=True):
            total += int(k)
            r.graphs = total


def release_time(r: LlamaRequest) -> float:
    """When the server frees the slot (matches the release line written by llama_log)."""
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
    # task id = tasks launched before + tokens streamed before (tokens evenly spread between a
    # request's first and last token)
    oks = [r for r in by_start if r.ok]
    first = np.array([r.t0 + r.ttft - 0.0006 for r in oks])
    last = np.array([r.t0 + r.latency - 0.0004 for r in oks])
    toks = np.array([r.tokens for r in oks], dtype=float)
    step = (last - first) / (toks - 1)
    for launched, r in enumerate(by_start):
        done = np.where(r.t0 > first, np.minimum(toks, 1 + np.floor((r.t0 - first) / step)), 0)
        r.task = launched + int(done.sum())


def llama_log(pub: Published, tiers: list[Tier], warmup: Tier, out_path: Path) -> dict:
    rng = rng_for("llama", "log")
    f = pub.figures
    reqs = llama_requests(tiers, warmup, rng)
    blocks = [r for r in reqs if r.ok]
    segments = llama_segments(pub)
    if len(blocks) != sum(segments):
        raise ValueError(f"{len(blocks)} blocks, published {sum(segments)}")
    bounds = np.cumsum([0, *segments])
    fix_segment_prefill(blocks, slice(bounds[1], bounds[2]),
                        f["prefill"]["llamacpp_prompt_eval_median_ms"])
    graph_increments(pub, blocks, segments, rng_for("llama", "graphs"))
    boot_us = 287_103_412_906
    assign_slots_and_tasks(reqs, boot_us)

    lines: list[tuple[float, int, str]] = []
    seq = 0

    def emit(t: float, text: str, level: str = "I") -> None:
        nonlocal seq
        lines.append((t, seq, elapsed_prefix(t, level) + text))
        seq += 1

    for t, text, level in llama_startup():
        emit(t, text, level)

    def slot(fn: str, r: LlamaRequest, task: int | None = None) -> str:
        return f"slot {fn:>12.12}: id {r.slot:2d} | task {r.task if task is None else task} | "

    for r in reqs:
        t_launch = r.t0 + 0.000051
        emit(r.t0 + 0.000033, slot("get_availabl", r, -1) + "selected slot by LRU, t_last = "
             f"{r.t_last_slot}")
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
        step = (t_last - t_first) / (n - 1)
        # periodic generation progress: after 100 tokens, at most every 3 s
        t_print, n_print = t_first, 0
        for k in range(100, n + 1):
            tk = t_first + (k - 1) * step
            if tk - t_print >= 3.0:
                tg = k / (tk - t_first)
                tg3 = (k - n_print) / (tk - t_print)
                emit(tk + 0.000029, slot("print_timing", r)
                     + f"n_decoded = {k:6d}, tg = {tg:6.2f} t/s, tg_3s = {tg3:6.2f} t/s")
                t_print, n_print = tk, k
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
    text = "\n".join(line for _, _, line in lines) + "\n"
    out_path.write_text(text, encoding="utf-8")
    return {"blocks": blocks, "segments": segments, "end_elapsed": lines[-1][0]}


def llama_startup() -> list[tuple[float, str, str]]:
    mib_model = 4.68e9 / 2**20
    kv_mib = LLAMA_CTX * 28 * 2 * 512 * 2 / 2**20
    out = [
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
        (0.388214, f"load_tensors:        CUDA0 model buffer size = {mib_model:8.2f} MiB", "I"),
        (2.913527, "llama_context: constructing llama_context", "I"),
        (2.913530, f"llama_context: n_seq_max     = {LLAMA_SLOTS}", "I"),
        (2.913531, f"llama_context: n_ctx         = {LLAMA_CTX}", "I"),
        (2.913531, f"llama_context: n_ctx_seq     = {LLAMA_CTX // LLAMA_SLOTS}", "I"),
        (2.913532, "llama_context: n_batch       = 2048", "I"),
        (2.913532, "llama_context: n_ubatch      = 512", "I"),
        (2.913533, "llama_context: causal_attn   = 1", "I"),
        (2.913533, "llama_context: flash_attn    = auto", "I"),
        (2.913534, "llama_context: kv_unified    = false", "I"),
        (2.913534, "llama_context: freq_base     = 1000000.0", "I"),
        (2.913535, "llama_context: freq_scale    = 1", "I"),
        (2.913541, f"llama_context: n_ctx_seq ({LLAMA_CTX // LLAMA_SLOTS}) < n_ctx_train "
         "(32768) -- the full capacity of the model will not be utilized", "W"),
        (2.917730, "llama_context:  CUDA_Host  output buffer size =    37.13 MiB", "I"),
        (3.031145, f"llama_kv_cache:      CUDA0 KV buffer size = {kv_mib:8.2f} MiB", "I"),
        (3.046012, f"llama_kv_cache: size = {kv_mib:7.2f} MiB ({LLAMA_CTX:6d} cells,  28 "
         f"layers, {LLAMA_SLOTS}/{LLAMA_SLOTS} seqs), K (f16): {kv_mib / 2:7.2f} MiB, "
         f"V (f16): {kv_mib / 2:7.2f} MiB", "I"),
        (3.046481, "llama_context: Flash Attention was auto, set to enabled", "I"),
        (3.112904, "common_init_from_params: warming up the model with an empty run - please "
         "wait ... (--no-warmup to disable)", "W"),
        (4.901377, f"srv    load_model: initializing, n_slots = {LLAMA_SLOTS}, n_ctx_slot = "
         f"{LLAMA_CTX // LLAMA_SLOTS}, kv_unified = 'false'", "I"),
        (4.903982, "srv          init: chat template, thinking = 0", "I"),
        (4.904011, "srv  llama_server: model loaded", "I"),
        (4.904016, "srv  llama_server: listening on http://0.0.0.0:8080", "I"),
    ]
    return out


# ------------------------------------------------------------------------------------------
# vLLM server log
# ------------------------------------------------------------------------------------------

API_PID, ENGINE_PID = 31517, 31690


def vlog(moment: dt.datetime, who: str, src: str, msg: str, level: str = "INFO") -> str:
    pid = API_PID if who == "api" else ENGINE_PID
    proc = "APIServer" if who == "api" else "EngineCore"
    return f"({proc} pid={pid}) {level} {moment:%m-%d %H:%M:%S} [{src}] {msg}"


def vllm_startup(t0: dt.datetime) -> tuple[list[str], dt.datetime]:
    def at(s: float) -> dt.datetime:
        return t0 + dt.timedelta(seconds=s)

    capture = ("[512, 504, 496, 488, 480, 472, 464, 456, 448, 440, 432, 424, 416, 408, 400, "
               "392, 384, 376, 368, 360, 352, 344, 336, 328, 320, 312, 304, 296, 288, 280, 272, "
               "264, 256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, "
               "136, 128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1]")
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
        "pooler_config=None, compilation_config={\"level\":3,\"mode\":3,\"backend\":\"inductor\","
        "\"splitting_ops\":[\"vllm::unified_attention\",\"vllm::unified_attention_with_output\","
        "\"vllm::mamba_mixer2\"],\"use_inductor\":true,\"cudagraph_mode\":[2,1],"
        f"\"cudagraph_capture_sizes\":{capture.replace(' ', '')},\"max_capture_size\":512}}"
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


@dataclass
class Served:
    """One request as the vLLM engine saw it (absolute wall-clock seconds)."""

    start: float
    ttft: float
    latency: float
    tokens: int


def served_requests(tiers: list[Tier], warm: Tier) -> list[Served]:
    out = []
    for t in [warm, *tiers]:
        base = epoch(t.wall_start)
        for j in np.flatnonzero(t.ok):
            out.append(Served(base + float(t.start[j]), float(t.ttft[j]), float(t.latency[j]),
                              int(t.out_tokens[j])))
    return out


def vllm_stats_lines(served: list[Served], ready: dt.datetime) -> list[str]:
    """`Engine 000: Avg prompt throughput ...` every 10 s while requests are in flight, and one
    idle line after each busy stretch."""
    starts = np.array([s.start for s in served])
    firsts = starts + np.array([s.ttft for s in served])
    ends = starts + np.array([s.latency for s in served])
    toks = np.array([s.tokens for s in served])
    t_ready = epoch(ready)
    lines = []
    k = 1
    idle_logged = True
    last = float(ends.max()) + 20
    while t_ready + 10 * k <= last:
        t1 = t_ready + 10 * k
        t0 = t1 - 10
        k += 1
        active = (starts < t1) & (ends > t0)
        if not active.any():
            if idle_logged:
                continue
            idle_logged = True
        else:
            idle_logged = False

        def generated(at: float) -> np.ndarray:
            span = np.maximum(ends - firsts, 1e-9)
            frac = np.clip((at - firsts) / span, 0.0, 1.0)
            g = np.where(at >= firsts, 1 + np.floor(frac * (toks - 1)), 0)
            return g

        prompt = INPUT_TOKENS * int(((firsts >= t0) & (firsts < t1)).sum()) / 10.0
        gen = float((generated(t1) - generated(t0)).sum()) / 10.0
        running = (starts <= t1) & (ends > t1)
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
N_BUCKETS = [1.0, 2.0, 5.0, 10.0, 20.0]


def go_float(d: float) -> str:
    """prometheus_client's floatToGoString."""
    if d == math.inf:
        return "+Inf"
    if d == -math.inf:
        return "-Inf"
    if math.isnan(d):
        return "NaN"
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
        i = next((k for k, b in enumerate(self.buckets) if value <= b), len(self.buckets))
        self.counts[i] += times
        self.sum += value * times

    def observe_many(self, values: np.ndarray, total: float | None = None) -> None:
        idx = np.searchsorted(np.array(self.buckets), values, side="left")
        for i, c in zip(*np.unique(idx, return_counts=True), strict=True):
            self.counts[int(i)] += int(c)
        self.sum += float(values.sum()) if total is None else total


class VllmMetrics:
    """Cumulative engine metrics; render() is one /metrics scrape."""

    def __init__(self, created: float, rng: np.random.RandomState) -> None:
        self.created = created
        self.rng = rng
        self.counters = {k: 0.0 for k in (
            "prefix_cache_queries", "prefix_cache_hits", "num_preemptions", "prompt_tokens",
            "generation_tokens")}
        self.success = {"stop": 0.0, "length": 0.0, "abort": 0.0, "error": 0.0}
        self.h = {
            "request_prompt_tokens": Hist(TOKEN_BUCKETS),
            "request_generation_tokens": Hist(TOKEN_BUCKETS),
            "iteration_tokens_total": Hist(ITER_BUCKETS),
            "request_max_num_generation_tokens": Hist(TOKEN_BUCKETS),
            "request_params_n": Hist(N_BUCKETS),
            "request_params_max_tokens": Hist(TOKEN_BUCKETS),
            "time_to_first_token_seconds": Hist(TTFT_BUCKETS),
            "inter_token_latency_seconds": Hist(ITL_BUCKETS),
            "request_time_per_output_token_seconds": Hist(ITL_BUCKETS),
            "e2e_request_latency_seconds": Hist(LAT_BUCKETS),
            "request_queue_time_seconds": Hist(LAT_BUCKETS),
            "request_inference_time_seconds": Hist(LAT_BUCKETS),
            "request_prefill_time_seconds": Hist(LAT_BUCKETS),
            "request_decode_time_seconds": Hist(LAT_BUCKETS),
        }
        self.cpu = 61.7
        self.gc = [1843.0, 2170.0, 96.0]

    def serve(self, t: Tier, prefill: np.ndarray, itl_sample: np.ndarray) -> None:
        """Account one tier's requests (server-side view of the client's timings)."""
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
        self.h["inter_token_latency_seconds"].observe_many(itl_sample, total=float(decode.sum()))
        for name, value in (("request_prompt_tokens", INPUT_TOKENS),
                            ("request_generation_tokens", OUTPUT_TOKENS),
                            ("request_max_num_generation_tokens", OUTPUT_TOKENS),
                            ("request_params_max_tokens", OUTPUT_TOKENS),
                            ("request_params_n", 1)):
            self.h[name].observe(float(value), n)
        # engine steps: one prefill-carrying step per request, the rest decode batches of ~C
        it = self.h["iteration_tokens_total"]
        prefill_step = INPUT_TOKENS + (t.conc - 1)
        it.observe(float(prefill_step), n)
        decode_tokens = n * (INPUT_TOKENS + OUTPUT_TOKENS - 1) - n * prefill_step
        per_step = max(1, round(t.conc * 0.93)) if t.conc > 1 else 1
        steps = max(1, decode_tokens // per_step)
        it.observe(float(per_step), steps)
        it.sum += decode_tokens - per_step * steps
        self.counters["prompt_tokens"] += INPUT_TOKENS * n
        self.counters["generation_tokens"] += float(gen.sum())
        self.counters["prefix_cache_queries"] += INPUT_TOKENS * n
        self.success["length"] += n
        self.cpu += t.duration * rng.uniform(0.62, 0.71)
        self.gc = [g + n * rng.uniform(1.8, 2.4) * w for g, w in zip(self.gc, (31, 3, 0.2),
                                                                     strict=True)]

    def render(self, now: float) -> str:
        labels = f'model_name="{MODEL}",engine="0"'
        out: list[str] = []

        def family(name: str, kind: str, help_: str) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")

        self.cpu += self.rng.uniform(0.08, 0.2)
        family("python_gc_objects_collected_total", "counter",
               "Objects collected during gc")
        for g, v in enumerate(self.gc):
            out.append(f'python_gc_objects_collected_total{{generation="{g}"}} '
                       f"{go_float(float(round(v)))}")
        family("python_gc_objects_uncollectable_total", "counter",
               "Uncollectable objects found during GC")
        out += [f'python_gc_objects_uncollectable_total{{generation="{g}"}} 0.0' for g in range(3)]
        family("python_gc_collections_total", "counter",
               "Number of times this generation was collected")
        for g, v in enumerate(self.gc):
            out.append(f'python_gc_collections_total{{generation="{g}"}} '
                       f"{go_float(float(round(v / (700, 25, 8)[g])))}")
        family("python_info", "gauge", "Python platform information")
        out.append('python_info{implementation="CPython",major="3",minor="12",'
                   'patchlevel="11",version="3.12.11"} 1.0')
        family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.")
        out.append("process_virtual_memory_bytes 1.0437197824e+010")
        family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
        out.append("process_resident_memory_bytes 2.182402048e+09")
        family("process_start_time_seconds", "gauge",
               "Start time of the process since unix epoch in seconds.")
        out.append(f"process_start_time_seconds {go_float(round(self.created - 46.21, 2))}")
        family("process_cpu_seconds_total", "counter",
               "Total user and system CPU time spent in seconds.")
        out.append(f"process_cpu_seconds_total {go_float(round(self.cpu, 2))}")
        family("process_open_fds", "gauge", "Number of open file descriptors.")
        out.append("process_open_fds 71.0")
        family("process_max_fds", "gauge", "Maximum number of open file descriptors.")
        out.append("process_max_fds 1.048576e+06")

        def gauge(name: str, help_: str, value: float) -> None:
            family(name, "gauge", help_)
            out.append(f"{name}{{{labels}}} {go_float(value)}")

        gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
              0.0)
        gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", 0.0)
        gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", 0.0)

        def counter(name: str, help_: str, value: float) -> None:
            family(f"{name}_total", "counter", help_)
            out.append(f"{name}_total{{{labels}}} {go_float(value)}")
            out.append(f"{name}_created{{{labels}}} {go_float(self.created)}")

        counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of "
                "queried tokens.", self.counters["prefix_cache_queries"])
        counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached "
                "tokens.", self.counters["prefix_cache_hits"])
        counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.",
                self.counters["num_preemptions"])
        counter("vllm:prompt_tokens", "Number of prefill tokens processed.",
                self.counters["prompt_tokens"])
        counter("vllm:generation_tokens", "Number of generation tokens processed.",
                self.counters["generation_tokens"])
        family("vllm:request_success_total", "counter", "Count of successfully processed "
               "requests.")
        for reason, value in self.success.items():
            out.append(f'vllm:request_success_total{{{labels},finished_reason="{reason}"}} '
                       f"{go_float(value)}")
        for reason in self.success:
            out.append(f'vllm:request_success_created{{{labels},finished_reason="{reason}"}} '
                       f"{go_float(self.created)}")
        helps = {
            "request_prompt_tokens": "Number of prefill tokens processed.",
            "request_generation_tokens": "Number of generation tokens processed.",
            "iteration_tokens_total": "Histogram of number of tokens per engine_step.",
            "request_max_num_generation_tokens": "Histogram of maximum number of requested "
                                                 "generation tokens.",
            "request_params_n": "Histogram of the n request parameter.",
            "request_params_max_tokens": "Histogram of the max_tokens request parameter.",
            "time_to_first_token_seconds": "Histogram of time to first token in seconds.",
            "inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
            "request_time_per_output_token_seconds": "Histogram of time_per_output_token_seconds "
                                                     "per request.",
            "e2e_request_latency_seconds": "Histogram of e2e request latency in seconds.",
            "request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
            "request_inference_time_seconds": "Histogram of time spent in RUNNING phase for "
                                              "request.",
            "request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for "
                                            "request.",
            "request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
        }
        for key, h in self.h.items():
            name = f"vllm:{key}"
            family(name, "histogram", helps[key])
            cum = 0
            for b, c in zip([*h.buckets, math.inf], h.counts, strict=True):
                cum += c
                out.append(f'{name}_bucket{{{labels},le="{go_float(b)}"}} {go_float(float(cum))}')
            out.append(f"{name}_count{{{labels}}} {go_float(float(cum))}")
            out.append(f"{name}_sum{{{labels}}} {go_float(h.sum)}")
            out.append(f"{name}_created{{{labels}}} {go_float(self.created)}")
        family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
        out.append(
            'vllm:cache_config_info{block_size="16",cache_dtype="auto",calculate_kv_scales='
            f'"False",cpu_offload_gb="0",enable_prefix_caching="True",engine="0",'
            'gpu_memory_utilization="0.9",is_attention_free="False",kv_sharing_fast_prefill='
            f'"False",num_cpu_blocks="None",num_gpu_blocks="{VLLM_KV_TOKENS // VLLM_BLOCK}",'
            'num_gpu_blocks_override="None",prefix_caching_hash_algo="sha256",'
            'sliding_window="None",swap_space="4",swap_space_bytes="4294967296"} 1.0')
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


def itl_sample(t: Tier, rng: np.random.RandomState) -> np.ndarray:
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
    head = f"{moment:%a %b} {moment.day:>2} {moment:%H:%M:%S %Y}       "
    rule = "+" + "-" * 89 + "+"
    cols = "+-----------------------------------------+------------------------+" \
           "----------------------+"
    proc_name = process if len(process) <= 36 else "..." + process[-33:]
    return "\n".join([
        head, rule,
        "| NVIDIA-SMI 580.159.03             Driver Version: 580.159.03     CUDA Version: 13.0"
        "     |",
        cols,
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
        f"|   0  {GPU_NAME}        On  |   00000000:01:00.0 Off |                  Off |",
        f"| {fan:>2}%   {temp:>2}C    {perf:<2}{power:>15}W /  450W |"
        f"{used:>8}MiB /  {GPU_TOTAL_MIB}MiB |{util:>7}%      Default |",
        "|                                         |                        |                  N/A |",
        cols,
        "",
        rule,
        "| Processes:                                                                              |",
        "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |",
        "|        ID   ID                                                               Usage      |",
        "|=========================================================================================|",
        f"|    0   N/A  N/A  {pid:>14}      C   {proc_name:<36}{process_mib:>8}MiB |",
        rule,
    ])


def gpu_csv(tiers: list[Tier], warm: Tier, start: dt.datetime, stop: dt.datetime,
            loaded_at: dt.datetime, rng: np.random.RandomState) -> str:
    """1 Hz sampler over the vLLM run: ~1.003 s steps with a ~3.9 s stall every ~32 samples."""
    busy = [(epoch(t.wall_start), epoch(t.wall_end), t.conc) for t in [warm, *tiers]]
    header = ("timestamp, index, name, utilization.gpu [%], utilization.memory [%], "
              "memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu")
    rows = [header]
    now = start
    temp = 31.0
    since_stall = int(rng.randint(8, 30))
    t_loaded = epoch(loaded_at)
    while now <= stop:
        ts = epoch(now)
        conc = next((c for a, b, c in busy if a <= ts <= b), 0)
        if ts < t_loaded - 40:
            used = 1 if ts < t_loaded - 52 else int(rng.randint(380, 2400))
        elif ts < t_loaded:
            used = int(15430 + (ts - (t_loaded - 40)) / 40 * 6900 + rng.randint(0, 90))
        else:
            used = 22618 + int(rng.choice([0, 0, 0, 2, 4, -2]))
        if conc:
            util = int(min(100, rng.randint(88, 100) if conc > 1 else rng.randint(91, 99)))
            mem_util = int(rng.randint(62, 84) if conc < 16 else rng.randint(48, 70))
            power = rng.uniform(262, 318) + 6 * math.log2(conc)
            target = 60.0 + 1.6 * math.log2(conc) + 1.2
        elif ts >= t_loaded:
            util = int(rng.choice([0, 0, 0, 1]))
            mem_util = 0
            power = rng.uniform(48, 62) if used > 20000 else rng.uniform(20, 24)
            target = 44.0
        else:
            util = int(rng.choice([0, 0, 3, 12]) if used > 100 else 0)
            mem_util = 0 if util == 0 else 1
            power = rng.uniform(19, 23) if used < 100 else rng.uniform(58, 96)
            target = 32.0
        temp += (target - temp) * 0.035 + rng.uniform(-0.25, 0.25)
        temp_c = min(71, int(round(temp)))
        rows.append(f"{now:%Y/%m/%d %H:%M:%S}.{now.microsecond // 1000:03d}, 0, {GPU_NAME}, "
                    f"{util} %, {mem_util} %, {used} MiB, {GPU_TOTAL_MIB} MiB, {power:.2f} W, "
                    f"{temp_c}")
        since_stall += 1
        if since_stall >= 32 + int(rng.randint(0, 2)):
            step = rng.uniform(3.93, 3.98)
            since_stall = 0
        else:
            step = 1.0 + float(rng.choice([0.001, 0.002, 0.002, 0.003, 0.004, 0.005, 0.012]))
        now += dt.timedelta(seconds=step)
    return "\n".join(rows) + "\n"


# ------------------------------------------------------------------------------------------
# Driver
# ------------------------------------------------------------------------------------------


def llama_output_totals(pub: Published) -> dict[int, int]:
    """Per-tier generated tokens: C=1 and C=32 from their published means, the rest chosen
    inside their throughput windows so the seven tiers sum to the published total."""
    sc = pub.figures["self_checks"]
    total = int(sc["llamacpp_output_tokens_total"])
    comp = {c: int(pub.tiers[("llamacpp", c)]["completed"]) for c in CONCURRENCY}
    fixed = {1: round(sc["llamacpp_mean_output_tokens_c1"] * comp[1]),
             32: round(sc["llamacpp_mean_output_tokens_c32"] * comp[32])}
    wins = {}
    for c in CONCURRENCY:
        row = pub.tiers[("llamacpp", c)]
        d_lo, d_hi = window(row["duration_s"])
        fits = [o for o in range(comp[c] * 250, comp[c] * 256 + 1)
                if any(shows(o / d, row["output_tok_s"])
                       and shows((INPUT_TOKENS * comp[c] + o) / d, row["total_tok_s"])
                       for d in np.linspace(d_lo + 1e-6, d_hi - 1e-6, 41))]
        wins[c] = fits
    for c, v in fixed.items():
        if v not in wins[c]:
            raise ValueError(f"llama.cpp C={c}: {v} tokens do not fit the published throughput")
    free = [c for c in CONCURRENCY if c not in fixed]
    chosen = {c: wins[c][len(wins[c]) // 2] for c in free}
    short = total - sum(fixed.values()) - sum(chosen.values())
    for c in free:  # move the remainder into the free tiers without leaving their windows
        room = (wins[c][-1] - chosen[c]) if short > 0 else (wins[c][0] - chosen[c])
        step = max(min(short, room), short) if short < 0 else min(short, room)
        chosen[c] += step
        short -= step
    if short:
        raise ValueError("cannot meet the published llama.cpp output total")
    return {**fixed, **chosen}


def build(reference: Path, out: Path) -> list[Path]:
    pub = load_reference(reference)
    written: list[Path] = []

    def write(rel: str, text: str) -> None:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    # ---- bench tiers
    vllm = [make_detailed_vllm_c1(pub)] + [
        make_tier(pub, "vllm", c, int(pub.tiers[("vllm", c)]["completed"]) * OUTPUT_TOKENS)
        for c in CONCURRENCY[1:]]
    totals = llama_output_totals(pub)
    llama = [make_tier(pub, "llamacpp", c, totals[c]) for c in CONCURRENCY]
    schedule_tiers(vllm, VLLM_FIRST_TIER)
    warm_rng = rng_for("llama", "warmup")
    llama_warm = llama_warmup(warm_rng)
    llama_warm.wall_start = LLAMA_LAUNCH + dt.timedelta(seconds=LLAMA_WARMUP_AT)
    schedule_tiers(llama, llama_warm.wall_end + dt.timedelta(seconds=27.46))
    for t in [llama_warm, *llama]:
        t.extra["elapsed_start"] = (t.wall_start - LLAMA_LAUNCH).total_seconds()

    perf_origin = 264_817.4431  # client perf_counter() at the C=1 benchmark start
    for t in vllm:
        date = stamp(t)
        base = perf_origin if t.itl_rows is not None else None
        rec = bench_record(t, date, base)
        write(f"vllm/bench/{result_name(t, date)}", json.dumps(rec))
    for t in llama:
        date = stamp(t)
        write(f"llamacpp/bench/{result_name(t, date)}", json.dumps(bench_record(t, date)))

    # ---- llama-server log and fingerprint
    (out / "llamacpp").mkdir(parents=True, exist_ok=True)
    info = llama_log(pub, llama, llama_warm, out / "llamacpp" / "server.log")
    written.append(out / "llamacpp" / "server.log")
    smi_at = LLAMA_LAUNCH + dt.timedelta(seconds=info["end_elapsed"] + 3.71)
    mem = pub.figures["memory"]
    llama_fp = nvidia_smi(smi_at, fan=41, temp=int(pub.figures["self_checks"][
        "max_gpu_temperature_c"]), perf="P2", power=118, used=int(mem["llamacpp_nvidia_smi_mib"]),
        util=0, pid=48213, process="/opt/llama.cpp/build/bin/llama-server",
        process_mib=int(mem["llamacpp_nvidia_smi_mib"]) - 10)
    write("llamacpp/fingerprint.txt", llama_fp + "\n\n" + fingerprint_keys("llamacpp", smi_at))

    # ---- vLLM server log, scrapes, sampler, fingerprint
    rng = rng_for("vllm", "server")
    start_lines, ready = vllm_startup(VLLM_LAUNCH)
    warm = vllm_warmup(ready + dt.timedelta(seconds=13.4), rng)
    served = served_requests(vllm, warm)
    log_lines = start_lines + vllm_stats_lines(served, ready)
    write("vllm/server.log", "\n".join(log_lines) + "\n")

    metrics = VllmMetrics(epoch(ready) - 0.83, rng_for("vllm", "metrics"))
    metrics.serve(warm, prefill_times(warm, rng, None), itl_sample(warm, rng))
    c1_prefill = pub.figures["prefill"]["vllm_request_prefill_time_ms"] / 1000 + 2.7e-6
    for t in vllm:
        before = epoch(t.wall_start) - 2.63
        write(f"vllm/metrics/c{t.conc}-before.prom", metrics.render(before))
        pf = prefill_times(t, rng, c1_prefill if t.conc == 1 else None)
        metrics.serve(t, pf, itl_sample(t, rng))
        write(f"vllm/metrics/c{t.conc}-after.prom", metrics.render(epoch(t.wall_end) + 1.82))

    stop = vllm[-1].wall_end + dt.timedelta(seconds=14.2)
    write("vllm/gpu.csv", gpu_csv(vllm, warm, VLLM_LAUNCH - dt.timedelta(seconds=6.111), stop,
                                  ready - dt.timedelta(seconds=18), rng_for("vllm", "gpu")))
    vllm_at = vllm[-1].wall_end + dt.timedelta(seconds=9.37)
    vllm_fp = nvidia_smi(vllm_at, fan=30, temp=58, perf="P2", power=87, used=22618, util=0,
                         pid=ENGINE_PID, process="VLLM::EngineCore", process_mib=22608)
    write("vllm/fingerprint.txt", vllm_fp + "\n\n" + fingerprint_keys("vllm", vllm_at))
    return written


def vllm_warmup(at: dt.datetime, rng: np.random.RandomState) -> Tier:
    """8 warm-up requests at concurrency 8 before the sweep (not saved as a bench file)."""
    n = 8
    lat = rng.uniform(4.93, 5.02, n)
    ttft = rng.uniform(0.11, 0.33, n)
    start = np.sort(rng.uniform(0.0003, 0.0011, n))
    t = Tier("vllm", 8, n, n, float((start + lat).max()) + 0.001, np.ones(n, dtype=bool),
             np.full(n, OUTPUT_TOKENS), lat, ttft, np.zeros(n), start,
             {"median": 16.6, "mean": 18.2, "p99": 101.0})
    t.wall_start = at
    return t


def fingerprint_keys(engine: str, at: dt.datetime) -> str:
    common = [
        f"captured_at: {at:%Y-%m-%d %H:%M:%S} +08:00 (after the last tier)",
        "gpu: NVIDIA GeForce RTX 4090 (24564 MiB, 1008 GB/s)",
        "driver: 580.159.03",
        "cuda: 13.0",
        f"model: {MODEL}",
    ]
    client = ("vllm bench serve --backend openai --base-url http://127.0.0.1:{port} --model "
              f"{MODEL} --dataset-name random --random-input-len 1024 --random-output-len 256 "
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    written = build(args.reference, args.out)
    for path in written:
        print(path.relative_to(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
