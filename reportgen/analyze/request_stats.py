"""Recompute the client's summary statistics from `--save-detailed` per-request arrays.

Mirrors vLLM's calculate_metrics: only successful requests count; TPOT per request is
(latency − ttft) / (output_tokens − 1) for output_tokens > 1; ITL is pooled over all requests'
gaps; percentiles use numpy's linear interpolation. Arrays are seconds, results ms.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from reportgen.load.gaps import Gaps, Key

STATS = ("mean", "median", "p99")
KEYS = ["source", "record"]


def _stats(values: np.ndarray, metric: str) -> dict[str, float]:
    finite = np.isfinite(values)
    if not finite.all():   # a record's gaps: 50,000 values, copied only when one is not finite
        values = values[finite]
    if values.size == 0:
        return {f"{metric}_{s}_ms": np.nan for s in STATS}
    ms = values * 1000.0
    mean = float(ms.mean())   # before ``ms`` is reordered below
    # ``ms`` is this call's own copy: the median and the percentile partition it in place
    # (neither depends on the order) instead of each copying it
    return {f"{metric}_mean_ms": mean,
            f"{metric}_median_ms": float(np.median(ms, overwrite_input=True)),
            f"{metric}_p99_ms": float(np.percentile(ms, 99, overwrite_input=True))}



def recompute_stats(requests: pd.DataFrame, itls: Gaps) -> pd.DataFrame:
    """One row per (source, record) that has per-request rows, with `{metric}_{stat}_ms` columns
    named like the bench summary (ttft, tpot, itl, e2el × mean, median, p99)."""
    columns = [*KEYS, *(f"{m}_{s}_ms" for m in ("ttft", "tpot", "itl", "e2el") for s in STATS)]
    if requests.empty:
        return pd.DataFrame(columns=columns)
    ok = requests[requests["success"].astype(bool)]
    # pooled ITL gaps of successful requests only, per (source, record)
    gaps_by_key = pooled_gaps(ok, itls)
    rows = []
    # each record's rows as positions into whole columns (a frame a record cost more than
    # its statistics), in the order grouping with sort=True gives
    success = requests["success"].astype(bool).to_numpy()
    ttft_all, latency_all, n_all = (requests[c].to_numpy(float)
                                    for c in ("ttft_s", "latency_s", "output_tokens"))
    groups = cast("dict[tuple[str, int], np.ndarray]", requests.groupby(KEYS, sort=True).indices)
    for key in sorted(groups):
        at = groups[key][success[groups[key]]]
        ttft, latency, n = ttft_all[at], latency_all[at], n_all[at]
        multi = n > 1
        tpot = (latency[multi] - ttft[multi]) / (n[multi] - 1)
        row = {"source": key[0], "record": key[1]}
        row |= _stats(ttft, "ttft") | _stats(tpot, "tpot")
        row |= _stats(gaps_by_key.get(key, np.array([], dtype=float)), "itl")
        row |= _stats(latency, "e2el")
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def pooled_gaps(ok: pd.DataFrame, itls: Gaps) -> dict[Key, np.ndarray]:
    """The ITL gaps of the successful requests ``ok``, pooled per (source, record) in request
    order (``Gaps.pooled``: per record, a mask over its gaps, no per-gap key)."""
    return itls.pooled(ok)


def fill_missing_stats(summary: pd.DataFrame, recomputed: pd.DataFrame) -> pd.DataFrame:
    """Fill summary stats the file did not carry (e.g. no e2el keys without
    --percentile-metrics e2el) from the recomputed ones; present keys are never overwritten."""
    if recomputed.empty or summary.empty:
        return summary
    out = summary.copy()
    merged = out[KEYS].merge(recomputed, on=KEYS, how="left")
    for column in recomputed.columns:
        if column in KEYS:
            continue
        filler = merged[column].to_numpy(float)
        if column in out.columns:
            current = pd.to_numeric(out[column], errors="coerce").to_numpy(float)
            out[column] = np.where(np.isnan(current), filler, current)
        else:
            out[column] = filler
    return out
