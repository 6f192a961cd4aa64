"""Self-checks: rows of (id, status, engine, concurrency, value, message zh/en).

Status rules (documented in docs/ARCHITECTURE.md):
- fail: a figure the report shows would be wrong or meaningless (no completed request in a tier,
  summary keys contradicting the per-request arrays, an identity off by more than 25 %, which
  means mixed units or a corrupt file). `reportgen check` exits 1 on any fail.
- warn: the data is shown honestly but a reader must know (failed requests — they are counted
  and throughput only uses completed tokens —, throughput dropping as concurrency rises,
  output-token parity broken, excluded tiers, log segments not matching the requests, hot GPU).
- pass: the check ran and found nothing; one row per engine rather than one per tier.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from contextvars import ContextVar

import numpy as np
import pandas as pd

# the axis the round sweeps, so messages name a tier as the page does (set by analyze)
TIER_AXIS: ContextVar[str] = ContextVar("TIER_AXIS", default="concurrency")
CHECK_COLUMNS = ("id", "status", "engine", "concurrency", "value", "message_zh", "message_en")

# E2EL = TTFT + (n − 1)·TPOT holds exactly per request (TPOT's definition). On medians it is
# approximate (the median of a sum is not the sum of medians) but robust: a synchronized
# fixed-length load keeps the three distributions tight, so 5 % separates "approximate" from
# "inconsistent". On means it is exact only when every request produced the same n — a few
# early-stopped requests with a huge per-request TPOT inflate mean TPOT without moving E2EL —
# so means are used (1 %) only when medians are missing and n is provably constant.
IDENTITY_TOL_MEDIAN = 0.05
IDENTITY_TOL_MEAN = 0.01
IDENTITY_FAIL = 0.25
# vLLM writes the summary from the same arrays at full float precision; anything beyond
# rounding noise is a real disagreement.
ARRAYS_REL_TOL = 1e-3
ARRAYS_ABS_TOL_MS = 1e-3
# A saturated server's plateau wobbles by a fraction of a percent from tier to tier; only a
# fall beyond run-to-run noise is a drop worth a warning.
DROP_TOLERANCE = 0.01
# NVIDIA consumer and datacenter parts start slowing their clocks in the mid-80s °C.
TEMPERATURE_WARN_C = 85.0


def check(id: str, status: str, zh: str, en: str, engine: str | None = None,
          concurrency: float = np.nan, value: float = np.nan) -> dict[str, object]:
    assert status in ("pass", "warn", "fail"), status
    return {"id": id, "status": status, "engine": engine, "concurrency": float(concurrency),
            "value": float(value), "message_zh": zh, "message_en": en}


def checks_frame(rows: Sequence[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=list(CHECK_COLUMNS))
    frame["engine"] = frame["engine"].astype(object)
    return frame


def _c(value: float) -> str:
    """A tier as the round's axis names it: `C=8`, or `4 req/s` / `∞ req/s` on a rate sweep."""
    x = float(value)
    text = "∞" if np.isinf(x) else f"{int(x)}" if x.is_integer() else f"{x:g}"
    return f"{text} req/s" if TIER_AXIS.get() == "request_rate" else f"C={text}"


def _n(value: float) -> str:
    return f"{int(value)}" if np.isfinite(value) else "?"


def throughput_drops(tiers: pd.DataFrame, engine: str) -> tuple[list[tuple[dict, dict]], int]:
    """(previous tier, tier) pairs where output throughput falls as concurrency rises, and how
    many tiers with a throughput there are."""
    own = tiers[tiers["engine"] == engine].sort_values("concurrency")
    own = own[np.isfinite(own["output_tok_s"])].to_dict("records")
    drops = [(prev, cur) for prev, cur in itertools.pairwise(own)
             if cur["output_tok_s"] < prev["output_tok_s"] * (1.0 - DROP_TOLERANCE)]
    return drops, len(own)


def monotonic_throughput(tiers: pd.DataFrame, engine_order: Sequence[str]) -> list[dict]:
    """Output throughput should not fall when concurrency rises (excluded tiers included: the
    drop is usually why a tier was excluded)."""
    rows = []
    for engine in engine_order:
        drops, measured = throughput_drops(tiers, engine)
        for prev, cur in drops:
            ratio = cur["output_tok_s"] / prev["output_tok_s"]
            rows.append(check(
                "throughput.monotonic", "warn",
                f"{_c(cur['concurrency'])} 输出吞吐 {cur['output_tok_s']:.1f} tok/s，低于 "
                f"{_c(prev['concurrency'])} 的 {prev['output_tok_s']:.1f}：加并发反而变慢。",
                f"{_c(cur['concurrency'])} output throughput {cur['output_tok_s']:.1f} tok/s is "
                f"below {_c(prev['concurrency'])} ({prev['output_tok_s']:.1f}): more concurrency, "
                "less output.",
                engine, cur["concurrency"], ratio))
        if not drops and measured > 1:
            rows.append(check("throughput.monotonic", "pass", "输出吞吐随并发单调上升。",
                              "Output throughput rises with every concurrency step.", engine))
    return rows


def failed_requests(tiers: pd.DataFrame, engine_order: Sequence[str]) -> list[dict]:
    """Failed requests are a warning: the report counts them and throughput only uses completed
    tokens, so nothing shown is overstated. A tier with nothing completed is a failure."""
    rows = []
    for engine in engine_order:
        own = tiers[tiers["engine"] == engine]
        bad = own[own["failed"] > 0]
        for _, t in own[own["completed"] <= 0].iterrows():
            rows.append(check(
                "requests.completed", "fail",
                f"{_c(t['concurrency'])} 没有任何请求完成，这一档的统计量无意义。",
                f"{_c(t['concurrency'])}: no request completed; its statistics are meaningless.",
                engine, t["concurrency"], t["completed"]))
        for _, t in bad.iterrows():
            rows.append(check(
                "requests.failed", "warn",
                f"{_c(t['concurrency'])} 失败 {_n(t['failed'])} / {_n(t['requests'])} 条请求；"
                "吞吐只计入完成的请求。",
                f"{_c(t['concurrency'])}: {_n(t['failed'])} of {_n(t['requests'])} requests "
                "failed; throughput counts completed requests only.",
                engine, t["concurrency"], t["failed"]))
        # a client that does not count failures (SGLang) proves nothing either way
        if bad.empty and len(own) and own["failed"].notna().all():
            rows.append(check("requests.failed", "pass", "所有请求都完成了。",
                              "Every request completed.", engine))
    return rows


def output_token_parity(tiers: pd.DataFrame, engine_order: Sequence[str],
                        output_tokens: float) -> pd.DataFrame:
    """Generated vs requested output tokens per engine (requested = completed × output_tokens).

    Throughput is tokens / wall time, so an engine that stops early is under-counted by
    shortfall_frac relative to one that honours ignore-eos."""
    rows = []
    for engine in engine_order:
        own = tiers[tiers["engine"] == engine]
        completed = own["completed"].sum(min_count=1)
        total = own["total_output_tokens"].sum(min_count=1)
        requested = completed * output_tokens
        shortfall = requested - total
        rows.append({"engine": engine, "completed": completed, "total": total,
                     "requested": requested, "shortfall": shortfall,
                     "shortfall_frac": shortfall / requested if requested > 0 else np.nan,
                     "per_request": total / completed if completed > 0 else np.nan})
    return pd.DataFrame(rows, columns=["engine", "completed", "total", "requested", "shortfall",
                                       "shortfall_frac", "per_request"])


def output_token_checks(parity: pd.DataFrame) -> list[dict]:
    rows = []
    for _, p in parity.iterrows():
        if not np.isfinite(p["shortfall"]):
            continue
        if p["shortfall"] == 0:
            rows.append(check(
                "output_tokens.parity", "pass",
                f"每条完成的请求都正好生成了请求的输出长度（合计 {int(p['total']):,} token）。",
                f"Every completed request generated exactly the requested output length "
                f"({int(p['total']):,} tokens in total).", p["engine"], value=0.0))
            continue
        word_zh, word_en = ("少", "short of") if p["shortfall"] > 0 else ("多", "over")
        rows.append(check(
            "output_tokens.parity", "warn",
            f"合计生成 {int(p['total']):,} token，比请求的 {int(p['requested']):,} {word_zh} "
            f"{abs(int(p['shortfall'])):,} 个（{abs(p['shortfall_frac']):.2%}）；"
            "吞吐按实际 token 计，跨引擎比较时要考虑这一差额。",
            f"Generated {int(p['total']):,} tokens, {abs(int(p['shortfall'])):,} "
            f"({abs(p['shortfall_frac']):.2%}) {word_en} the {int(p['requested']):,} requested; "
            "throughput counts real tokens, so cross-engine ratios carry this difference.",
            p["engine"], value=p["shortfall_frac"]))
    return rows


def identity_checks(tiers: pd.DataFrame, engine_order: Sequence[str],
                    output_tokens: float) -> list[dict]:
    """E2EL ≈ TTFT + (n − 1)·TPOT on medians; on means when medians are missing and every
    request produced exactly `output_tokens` (outputs never exceed the request's max_tokens, so
    a mean equal to it means all are equal)."""
    rows = []
    for engine in engine_order:
        own = tiers[tiers["engine"] == engine]
        flagged, tested = 0, 0
        for _, t in own.iterrows():
            n = t["mean_output_tokens"]
            basis, tol = "p50", IDENTITY_TOL_MEDIAN
            ttft, tpot, e2el = t["ttft_p50_ms"], t["tpot_p50_ms"], t["e2el_p50_ms"]
            if not np.isfinite([ttft, tpot, e2el]).all() and n == output_tokens:
                basis, tol = "mean", IDENTITY_TOL_MEAN
                ttft, tpot, e2el = t["ttft_mean_ms"], t["tpot_mean_ms"], t["e2el_mean_ms"]
            if not (np.isfinite([ttft, tpot, e2el, n]).all() and e2el > 0):
                continue
            tested += 1
            predicted = ttft + (n - 1) * tpot
            error = predicted / e2el - 1.0
            if abs(error) <= tol:
                continue
            flagged += 1
            status = "fail" if abs(error) > IDENTITY_FAIL else "warn"
            rows.append(check(
                "identity.e2el", status,
                f"{_c(t['concurrency'])} TTFT + (n−1)·TPOT = {predicted:,.0f} ms，与 E2EL "
                f"{e2el:,.0f} ms 相差 {error:+.1%}（按 {basis}，容差 {tol:.0%}）。",
                f"{_c(t['concurrency'])}: TTFT + (n−1)·TPOT = {predicted:,.0f} ms vs E2EL "
                f"{e2el:,.0f} ms, off by {error:+.1%} (on {basis}s, tolerance {tol:.0%}).",
                engine, t["concurrency"], error))
        if tested and not flagged:
            rows.append(check(
                "identity.e2el", "pass",
                f"{tested} 个并发档都满足 E2EL ≈ TTFT + (n−1)·TPOT。",
                f"E2EL ≈ TTFT + (n−1)·TPOT holds at all {tested} tiers.", engine))
    return rows


# Mean TPOT against tpot_implied_ms, the mean TPOT that mean E2EL and TTFT imply (tiers.py).
# The two agree when every request produced the same n; a few requests stopped early carry a
# huge per-request TPOT and lift the mean without moving E2EL. Beyond 5 % the wait ratio, which
# uses mean TPOT, measures that skew as much as stalls.
TPOT_SKEW_TOL = 0.05


def tpot_skew_checks(tiers: pd.DataFrame, engine_order: Sequence[str]) -> list[dict]:
    rows = []
    for engine in engine_order:
        own = tiers[tiers["engine"] == engine]
        flagged, tested = 0, 0
        for _, t in own.iterrows():
            tpot, implied = t["tpot_mean_ms"], t["tpot_implied_ms"]
            if not (np.isfinite([tpot, implied]).all() and implied > 0):
                continue
            tested += 1
            skew = tpot / implied - 1.0
            if abs(skew) <= TPOT_SKEW_TOL:
                continue
            flagged += 1
            c = _c(t["concurrency"])
            rows.append(check(
                "tpot.mean_skew", "warn",
                f"{c} TPOT 均值 {tpot:.2f} ms，而 E2EL 与 TTFT 均值推出的是 {implied:.2f} ms"
                f"（相差 {skew:+.1%}）：少数提前结束的请求拉高了 TPOT 均值，或某个统计量有误；"
                "这一档的等待占比用的是 TPOT 均值，应视为上限。",
                f"{c}: mean TPOT {tpot:.2f} ms, but mean E2EL and TTFT imply {implied:.2f} ms "
                f"({skew:+.1%}): a few requests that stopped early lift the mean, or a statistic "
                "is off; this tier's wait ratio uses mean TPOT, so read it as an upper bound.",
                engine, t["concurrency"], skew))
        if tested and not flagged:
            rows.append(check(
                "tpot.mean_skew", "pass",
                f"{tested} 个并发档的 TPOT 均值都与 E2EL、TTFT 均值一致。",
                f"Mean TPOT agrees with mean E2EL and TTFT at all {tested} tiers.", engine))
    return rows


def arrays_vs_summary(summary: pd.DataFrame, recomputed: pd.DataFrame) -> list[dict]:
    """Summary keys must agree with statistics recomputed from the per-request arrays."""
    rows = []
    if recomputed.empty:
        return rows
    merged = summary.merge(recomputed, on=["source", "record"], suffixes=("", "__arrays"))
    for _, r in merged.iterrows():
        worst, worst_col = 0.0, ""
        compared = 0
        for column in recomputed.columns:
            if column in ("source", "record") or column not in summary.columns:
                continue
            file_value, array_value = r[column], r[f"{column}__arrays"]
            if not (np.isfinite(file_value) and np.isfinite(array_value)):
                continue
            compared += 1
            diff = abs(file_value - array_value)
            if diff > ARRAYS_ABS_TOL_MS + ARRAYS_REL_TOL * abs(array_value):
                rel = diff / abs(array_value) if array_value else np.inf
                if rel >= worst:
                    worst, worst_col = rel, column
        if not compared:
            continue
        where = f"{r['source']}#{int(r['record'])}"
        engine, conc = r.get("engine"), r.get("concurrency", np.nan)
        if worst_col:
            rows.append(check(
                "summary.arrays", "fail",
                f"{where}: 汇总字段 {worst_col} 与逐请求数组重算的值相差 {worst:.2%}。",
                f"{where}: summary key {worst_col} differs by {worst:.2%} from the value "
                "recomputed from the per-request arrays.", engine, conc, worst))
        else:
            rows.append(check(
                "summary.arrays", "pass",
                f"{where}: {compared} 个汇总统计量与逐请求数组一致。",
                f"{where}: {compared} summary statistics match the per-request arrays.",
                engine, conc))
    return rows


def excluded_tiers(tiers: pd.DataFrame, reason_zh: str, reason_en: str) -> list[dict]:
    rows = []
    for _, t in tiers[tiers["excluded"].astype(bool)].iterrows():
        rows.append(check(
            "tiers.excluded", "warn",
            f"{_c(t['concurrency'])} 按 round.toml 排除在结论之外（仍列在表中）。"
            f"{reason_zh}".strip(),
            f"{_c(t['concurrency'])} is excluded from conclusions by round.toml (still listed "
            f"in tables). {reason_en}".strip(),
            t["engine"], t["concurrency"]))
    return rows


def segment_checks(engine: str, blocks_in_log: int, warmup: int, counts: Sequence[int],
                   graph_reuse: pd.DataFrame, tiers: pd.DataFrame) -> list[dict]:
    """log_segments must account for the log's print_timing blocks and roughly match each tier's
    completed requests (a block is printed per finished request). A different number of
    segments than tiers is already a loader finding, so it is not repeated here."""
    rows = []
    expected = warmup + sum(counts)
    own = tiers[tiers["engine"] == engine]
    if blocks_in_log != expected:
        rows.append(check(
            "log_segments.total", "warn",
            f"日志有 {blocks_in_log} 个 print_timing 块，log_segments 合计 {expected} 个"
            "（warm-up + 各档）；分段可能错位。",
            f"The log has {blocks_in_log} print_timing blocks but log_segments add up to "
            f"{expected} (warm-up + tiers); segments may be misaligned.",
            engine, value=blocks_in_log - expected))
    else:
        rows.append(check(
            "log_segments.total", "pass",
            f"log_segments 与日志中的 {blocks_in_log} 个 print_timing 块对齐。",
            f"log_segments account for all {blocks_in_log} print_timing blocks in the log.",
            engine, value=0.0))
    completed = own.set_index("concurrency")["completed"]
    mismatched = 0
    for _, g in graph_reuse.iterrows():
        done = completed.get(g["concurrency"], np.nan)
        if np.isfinite(done) and g["print_timing_lines"] != done:
            mismatched += 1
            rows.append(check(
                "log_segments.requests", "warn",
                f"{_c(g['concurrency'])} 分段有 {int(g['print_timing_lines'])} 个 print_timing "
                f"块，对应 {int(done)} 条完成的请求。",
                f"{_c(g['concurrency'])}: {int(g['print_timing_lines'])} print_timing blocks for "
                f"{int(done)} completed requests.",
                engine, g["concurrency"], g["print_timing_lines"] - done))
    if len(graph_reuse) and not mismatched:
        rows.append(check(
            "log_segments.requests", "pass", "每档的 print_timing 块数等于完成的请求数。",
            "Every tier has one print_timing block per completed request.", engine))
    return rows


def temperature_check(max_by_engine: Mapping[str, float]) -> list[dict]:
    finite = {e: t for e, t in max_by_engine.items() if np.isfinite(t)}
    if not finite:
        return []
    engine = max(finite, key=lambda e: finite[e])
    peak = finite[engine]
    status = "warn" if peak >= TEMPERATURE_WARN_C else "pass"
    return [check(
        "gpu.temperature", status,
        f"记录到的最高 GPU 温度 {peak:.0f} °C（≥ {TEMPERATURE_WARN_C:.0f} °C 时会降频）。",
        f"Highest GPU temperature recorded: {peak:.0f} °C (clocks throttle from "
        f"{TEMPERATURE_WARN_C:.0f} °C).", engine, value=peak)]


def counter_increase_check(engine: str, id: str, deltas: Mapping[int, float],
                           what_zh: str, what_en: str) -> list[dict]:
    """Warn for each tier where a counter that should stay at zero (e.g. preemptions) rose."""
    rows = []
    for conc, delta in sorted(deltas.items()):
        if np.isfinite(delta) and delta > 0:
            rows.append(check(id, "warn", f"{_c(conc)} {what_zh}增加了 {delta:,.0f}。",
                              f"{_c(conc)}: {what_en} rose by {delta:,.0f}.", engine, conc, delta))
    if deltas and not rows:
        rows.append(check(id, "pass", f"各档的{what_zh}都没有增加。",
                          f"{what_en} did not rise in any tier.", engine, value=0.0))
    return rows


def finding_checks(findings: Sequence[object]) -> list[dict]:
    """Problems the loaders tolerated (reportgen.errors.Finding) become warnings."""
    return [check("load.finding", "warn", str(f), str(f), getattr(f, "engine", None))
            for f in findings]


# ----------------------------------------------------------------------------- plausibility
# Figures that cannot be true of a real run point at a wrong input rather than at the engine.

ABOVE_ONE = 1.0 + 1e-6
TPOT_BELOW_ITL = -0.05      # mean TPOT this far below ITL p50: ITL counts chunks, not tokens
SUPERLINEAR = 1.05          # throughput may not grow faster than the concurrency (5 % noise)


def plausibility_checks(tiers: pd.DataFrame, engines: pd.DataFrame,
                        engine_order: Sequence[str], axis: str = "concurrency") -> list[dict]:
    """Warnings for figures a real run cannot produce, each with its likely cause."""
    rows: list[dict] = []
    for engine in engine_order:
        own = tiers[tiers["engine"] == engine].sort_values("concurrency")
        worst = own["roofline_attainment"].max() if "roofline_attainment" in own else np.nan
        eng = engines[engines["id"] == engine]
        mbu = float(eng["mbu_c1"].iloc[0]) if len(eng) and "mbu_c1" in eng else np.nan
        if (np.isfinite(worst) and worst > ABOVE_ONE) or (np.isfinite(mbu) and mbu > ABOVE_ONE):
            value = max(v for v in (worst, mbu) if np.isfinite(v))
            rows.append(check(
                "plausibility.roofline", "warn",
                f"屋顶线达成率或 MBU 达到 {value:.0%}，超过 100%：物理上不可能。多半是 GPU 数"
                "（tensor_parallel / hardware.gpu_count）没算进带宽，或权重/KV 字节数写错了。",
                f"Roofline attainment or MBU reaches {value:.0%}, above 100%, which no run can "
                "do. Most likely the GPU count (tensor_parallel / hardware.gpu_count) is missing "
                "from the bandwidth, or the weight or KV bytes are wrong.", engine, value=value))
        wait = own["wait_ratio"] if "wait_ratio" in own else pd.Series(dtype=float)
        low = own[wait < TPOT_BELOW_ITL]
        if len(low):
            r = low.iloc[0]
            rows.append(check(
                "plausibility.tpot_below_itl", "warn",
                f"{_c(r['concurrency'])} 平均 TPOT 比 ITL p50 低 {-r['wait_ratio']:.0%}:"
                "一个请求的平均间隔不可能小于典型间隔。这一代客户端按流式数据块（一块可含多个 "
                "token）计 ITL，等待占比在此无意义。",
                f"At {_c(r['concurrency'])} mean TPOT is {-r['wait_ratio']:.0%} below ITL p50, "
                "which cannot happen per token: this client era counts ITL per streamed chunk "
                "(a chunk can carry several tokens), so the wait ratio means nothing here.",
                engine, r["concurrency"], r["wait_ratio"]))
        if axis == "concurrency" and "requests" in own:
            over = own[own["requests"] < own["concurrency"]]
            if len(over):
                r = over.iloc[0]
                rows.append(check(
                    "plausibility.concurrency_above_prompts", "warn",
                    f"{_c(r['concurrency'])} 只发了 {r['requests']:.0f} 个请求：并发上限从未达到，"
                    "实际并发最多等于请求数，这一档不能按 C 解读。",
                    f"{_c(r['concurrency'])} sent only {r['requests']:.0f} requests: the cap "
                    "was never reached, so at most that many were in flight; this tier cannot be "
                    "read as C.", engine, r["concurrency"], r["requests"]))
        if axis == "concurrency":
            pts = own[np.isfinite(own["output_tok_s"]) & (own["concurrency"] > 0)]
            for prev, cur in itertools.pairwise(pts.to_dict("records")):
                grow = cur["output_tok_s"] / prev["output_tok_s"] if prev["output_tok_s"] else 0
                limit = cur["concurrency"] / prev["concurrency"]
                if grow > limit * SUPERLINEAR:
                    rows.append(check(
                        "plausibility.superlinear", "warn",
                        f"{_c(prev['concurrency'])}→{_c(cur['concurrency'])} 输出吞吐涨了 "
                        f"{grow:.2f} 倍，超过并发之比 {limit:.2f}：同一服务器不可能这样。多半是两档"
                        "的设置不同（长度、预热、前缀缓存）或文件放错了配置。",
                        f"From {_c(prev['concurrency'])} to {_c(cur['concurrency'])} output "
                        f"throughput grows {grow:.2f}×, more than the concurrency ratio "
                        f"{limit:.2f}×, which one server cannot do: the tiers probably differ in "
                        "settings (lengths, warm-up, prefix cache) or a file sits in the wrong "
                        "configuration.", engine, cur["concurrency"], grow))
                    break
    return rows
