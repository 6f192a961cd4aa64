"""Per-request latencies of each tier, and their percentiles (the `distributions` table).

The rules are vLLM's (`calculate_metrics` in vllm/benchmarks/serve.py): a request's TPOT is
(E2E − TTFT) ÷ (output tokens − 1), 0 for one token (that 0 counts for goodput, but the TPOT
distribution, like vLLM's summary, holds only requests of more than one token); failed
requests are in no distribution; ITL is pooled over every gap of every successful request
(one gap per streamed chunk, which may carry several tokens); percentiles use numpy's linear
interpolation. A tier pools all of its repeats. Values are seconds in, milliseconds out.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pandas as pd

from reportgen.analyze.request_stats import pooled_gaps
from reportgen.load.gaps import Gaps

PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)
METRICS = ("ttft", "tpot", "e2el", "itl")
PERCENTILE_COLUMNS = tuple(f"p{p:g}_ms".replace(".", "_") for p in PERCENTILES)
DIST_COLUMNS = ("engine", "concurrency", "metric", "count", "mean_ms", *PERCENTILE_COLUMNS,
                "few_samples")
REQUEST_COLUMNS = ("engine", "concurrency", "source", "record", "request", "success",
                   "input_tokens", "output_tokens", "ttft_s", "tpot_s", "e2el_s")
TIER_KEYS = ["engine", "concurrency"]


def tpot_of(ttft_s: np.ndarray, e2el_s: np.ndarray, output_tokens: np.ndarray) -> np.ndarray:
    """A request's TPOT: (E2E − TTFT) ÷ (output tokens − 1); 0 for one token, NaN unknown
    (the SLO panel derives it in the page the same way: page/slo_payload.derived_tpot)."""
    n = np.asarray(output_tokens, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 1, (e2el_s - ttft_s) / (n - 1), np.where(n == 1, 0.0, np.nan))


def tier_requests(requests: pd.DataFrame, summary: pd.DataFrame,
                  order: list[str]) -> pd.DataFrame:
    """One row per request of every result record the summary keeps (so a duplicate record
    the loader dropped, or another workload's, is left out), tagged with its tier:
    REQUEST_COLUMNS. ``success``: no error (a record without an ``errors`` array counts a
    request with a positive latency as successful). E2E is the client's ``latency``, else
    TTFT + the sum of the ITL gaps (SGLang stores no latency). Rows in ``order`` of
    configurations, then ascending tier."""
    if requests.empty or summary.empty:
        return pd.DataFrame(columns=list(REQUEST_COLUMNS))
    tiers = summary[["source", "record", *TIER_KEYS]].drop_duplicates(["source", "record"])
    req = requests.drop(columns=[c for c in TIER_KEYS if c in requests.columns])
    req = req.merge(tiers, on=["source", "record"], how="inner", sort=False)
    ttft = req["ttft_s"].to_numpy(float)
    latency = req["latency_s"].to_numpy(float)
    e2e = np.where(np.isfinite(latency), latency, ttft + req["itl_sum_s"].to_numpy(float))
    n = req["output_tokens"].to_numpy(float)
    tpot = tpot_of(ttft, e2e, n)
    flag = req["success"]
    success = np.where(flag.isna().to_numpy(), np.isfinite(e2e) & (e2e > 0),
                       flag.fillna(False).to_numpy(bool))
    out = pd.DataFrame({
        "engine": req["engine"].to_numpy(), "concurrency": req["concurrency"].to_numpy(float),
        "source": req["source"].to_numpy(), "record": req["record"].to_numpy(),
        "request": req["request"].to_numpy(), "success": success.astype(bool),
        "input_tokens": req["input_tokens"].to_numpy(float), "output_tokens": n,
        "ttft_s": ttft, "tpot_s": tpot, "e2el_s": e2e})
    rank = {e: i for i, e in enumerate(order)}
    out.insert(0, "_rank", out["engine"].map(rank).fillna(len(rank)))  # hashed, not a call a row
    out = out.sort_values(["_rank", "concurrency", "source", "record", "request"],
                          kind="stable")
    return out.drop(columns="_rank").reset_index(drop=True)


def tier_gaps(per_request: pd.DataFrame, itls: Gaps) -> dict[tuple[str, float],
                                                                       np.ndarray]:
    """The ITL gaps (s) of each tier's successful requests, pooled over its repeats."""
    if per_request.empty or itls.empty:
        return {}
    ok = per_request[per_request["success"]]
    by_record = pooled_gaps(ok, itls)
    keys = ok.drop_duplicates(["source", "record"])
    out: dict[tuple[str, float], list[np.ndarray]] = {}
    for eng, c, src, rec in keys[[*TIER_KEYS, "source", "record"]].itertuples(
            index=False, name=None):
        gaps = by_record.get((src, rec))
        if gaps is not None and gaps.size:
            out.setdefault((str(eng), float(c)), []).append(gaps)
    return {k: v[0] if len(v) == 1 else np.concatenate(v) for k, v in out.items()}


def metric_values(per_request: pd.DataFrame, metric: str) -> np.ndarray:
    """The values (s) that make up one metric's distribution in the given rows: successful
    requests only; TPOT of requests of more than one token only (as vLLM's summary)."""
    keep = per_request["success"].to_numpy(bool)
    if metric == "tpot":
        keep = keep & (per_request["output_tokens"].to_numpy(float) > 1)
    values = per_request[f"{metric}_s"].to_numpy(float)[keep]
    return cast(np.ndarray, values[np.isfinite(values)])


def needed(p: float) -> int:
    """The values a percentile p needs to rest on more than its sample's extreme: 1 / (1 − p),
    so p99 needs 100 and p99.9 1,000 (p50 2, p90 10, p95 20)."""
    return math.ceil(round(100.0 / (100.0 - p), 9))


def few_samples(count: int) -> str:
    """The percentiles that rest on fewer values than they need (``needed``), as the page
    names them ("p99, p99.9"); "" when none does (or there is no value at all)."""
    return ", ".join(f"p{p:g}" for p in PERCENTILES if 0 < count < needed(p))


def _row(engine: str, c: float, metric: str, values_s: np.ndarray) -> dict[str, object]:
    row: dict[str, object] = {"engine": engine, "concurrency": c, "metric": metric,
                              "count": int(values_s.size),
                              "few_samples": few_samples(int(values_s.size))}
    if values_s.size == 0:
        return row | {"mean_ms": np.nan} | dict.fromkeys(PERCENTILE_COLUMNS, np.nan)
    ms = values_s * 1000.0
    row["mean_ms"] = float(ms.mean())   # before ``ms``, this call's own copy, is partitioned
    for column, value in zip(PERCENTILE_COLUMNS,
                             np.percentile(ms, PERCENTILES, overwrite_input=True), strict=True):
        row[column] = float(value)
    return row


def distribution_table(per_request: pd.DataFrame,
                       gaps: dict[tuple[str, float], np.ndarray]) -> pd.DataFrame:
    """DIST_COLUMNS: one row per tier and metric (ttft, tpot, e2el, itl), in the order of
    ``per_request`` (engine order as given, ascending tier); a metric without values has
    count 0 and NaN percentiles."""
    rows = []
    if per_request.empty:
        return pd.DataFrame(columns=list(DIST_COLUMNS))
    ok = per_request["success"].to_numpy(bool)
    multi = per_request["output_tokens"].to_numpy(float) > 1
    columns = {m: per_request[f"{m}_s"].to_numpy(float) for m in METRICS if m != "itl"}
    groups = cast("dict[tuple[Any, Any], np.ndarray]",
                  per_request.groupby(TIER_KEYS, sort=False).indices)
    for (engine, c), index in groups.items():
        for metric in METRICS:
            if metric == "itl":
                values = gaps.get((str(engine), float(c)), np.array([], dtype=float))
            else:
                keep = index[ok[index] & (multi[index] if metric == "tpot" else True)]
                values = columns[metric][keep]
                values = values[np.isfinite(values)]
            rows.append(_row(str(engine), float(c), metric, values))
    return pd.DataFrame(rows, columns=list(DIST_COLUMNS))
