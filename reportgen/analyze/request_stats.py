"""Recompute the client's summary statistics from `--save-detailed` per-request arrays.

Mirrors vLLM's calculate_metrics: only successful requests count; TPOT per request is
(latency − ttft) / (output_tokens − 1) for output_tokens > 1; ITL is pooled over all requests'
gaps; percentiles use numpy's linear interpolation. Arrays are seconds, results ms.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import cast

import numpy as np
import pandas as pd

STATS = ("mean", "median", "p99")
KEYS = ["source", "record"]
Key = tuple[Hashable, ...]  # (source, record): a groupby key over KEYS


def _stats(values: np.ndarray, metric: str) -> dict[str, float]:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return {f"{metric}_{s}_ms": np.nan for s in STATS}
    ms = values * 1000.0
    return {f"{metric}_mean_ms": float(ms.mean()), f"{metric}_median_ms": float(np.median(ms)),
            f"{metric}_p99_ms": float(np.percentile(ms, 99))}


def recompute_stats(requests: pd.DataFrame, itls: pd.DataFrame) -> pd.DataFrame:
    """One row per (source, record) that has per-request rows, with `{metric}_{stat}_ms` columns
    named like the bench summary (ttft, tpot, itl, e2el × mean, median, p99)."""
    columns = [*KEYS, *(f"{m}_{s}_ms" for m in ("ttft", "tpot", "itl", "e2el") for s in STATS)]
    if requests.empty:
        return pd.DataFrame(columns=columns)
    ok = requests[requests["success"].astype(bool)]
    # pooled ITL gaps of successful requests only, per (source, record)
    gaps_by_key = pooled_gaps(ok, itls) if len(itls) else {}
    # whole columns read once; each run is a slice of them (a frame per run was the cost)
    success = requests["success"].astype(bool).to_numpy()
    ttft_all = requests["ttft_s"].to_numpy(float)
    latency_all = requests["latency_s"].to_numpy(float)
    n_all = requests["output_tokens"].to_numpy(float)
    rows = []
    groups = cast(dict[Key, np.ndarray], requests.groupby(KEYS, sort=True).indices)
    for key, index in groups.items():
        good = index[success[index]]
        ttft, latency, n = ttft_all[good], latency_all[good], n_all[good]
        multi = n > 1
        tpot = (latency[multi] - ttft[multi]) / (n[multi] - 1)
        row = {"source": key[0], "record": key[1]}
        row |= _stats(ttft, "ttft") | _stats(tpot, "tpot")
        row |= _stats(gaps_by_key.get(key, np.array([], dtype=float)), "itl")
        row |= _stats(latency, "e2el")
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def pooled_gaps(ok: pd.DataFrame, itls: pd.DataFrame) -> dict[Key, np.ndarray]:
    """The ITL gaps of the successful requests ``ok``, pooled per (source, record) in the row
    order of ``itls`` — what merging ``itls`` with ``ok`` on (source, record, request) and
    grouping gives, without a merge over millions of rows. ``itls`` comes in runs of one
    (source, record) (each is one record of one file), and within a run a per-record table of
    successful request indexes picks the rows. Request indexes are unique within a record (the
    loader numbers them)."""
    tables: dict[Key, np.ndarray] = {}
    requests = ok["request"].to_numpy(np.int64)   # read once; each run is a slice of it
    runs = cast(dict[Key, np.ndarray], ok.groupby(KEYS, sort=False).indices)
    for key, rows in runs.items():
        index = requests[rows]
        index = index[index >= 0]
        table = np.zeros(int(index.max()) + 1 if index.size else 0, dtype=bool)
        table[index] = True
        tables[key] = table
    source = itls["source"]
    labels: list[Hashable] | pd.Index
    if isinstance(source.dtype, pd.CategoricalDtype):
        codes, labels = source.cat.codes.to_numpy(), list(source.cat.categories)
    else:
        codes, labels = pd.factorize(source)
    record = itls["record"].to_numpy()
    request = itls["request"].to_numpy()
    gaps = itls["itl_s"].to_numpy(float)
    starts = np.flatnonzero(np.r_[True, (codes[1:] != codes[:-1]) | (record[1:] != record[:-1])])
    pooled: dict[Key, list[np.ndarray]] = {}
    for a, b in zip(starts.tolist(), [*starts[1:].tolist(), len(itls)], strict=True):
        wanted = tables.get((labels[codes[a]], record[a])) if codes[a] >= 0 else None
        if wanted is None:
            continue
        req = request[a:b]
        inside = (req >= 0) & (req < wanted.size)
        keep = np.zeros(b - a, dtype=bool)
        keep[inside] = wanted[req[inside]]
        pooled.setdefault((labels[codes[a]], record[a]), []).append(gaps[a:b][keep])
    return {key: parts[0] if len(parts) == 1 else np.concatenate(parts)
            for key, parts in pooled.items()}


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
