"""Engine ``/metrics`` series (``load/series.py``) → one row per scrape instant:
``time_s`` (epoch, UTC), ``running``, ``waiting`` (requests), ``kv_usage`` (fraction 0–1),
``preemptions_total`` (a counter), ``engine_kind``.

Names as each engine exports them (see docs/telemetry.md for the sources):

- vLLM V1: ``vllm:num_requests_running``, ``vllm:num_requests_waiting``,
  ``vllm:kv_cache_usage_perc`` (a fraction despite "perc"; before 0.9.2 and hidden from 0.11:
  ``vllm:gpu_cache_usage_perc``), ``vllm:num_preemptions_total``;
- SGLang: ``sglang:num_running_reqs``, ``sglang:num_queue_reqs``, ``sglang:token_usage`` (KV
  pool fraction), ``sglang:num_retracted_requests_total`` (SGLang's preemption: a running
  request retracted to the queue);
- llama-server: ``llamacpp:requests_processing``, ``llamacpp:requests_deferred``,
  ``llamacpp:kv_cache_usage_ratio`` (removed from current builds: NaN there).

Several series of one metric at an instant (data-parallel engines, several models) are summed
for the request counts and the counter, and their maximum is the KV usage (the fullest pool).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# metric → (column, engine kind); KV names listed newest first: the first found wins
METRICS = {
    "vllm:num_requests_running": ("running", "vllm"),
    "vllm:num_requests_waiting": ("waiting", "vllm"),
    "vllm:kv_cache_usage_perc": ("kv_usage", "vllm"),
    "vllm:gpu_cache_usage_perc": ("kv_usage_old", "vllm"),
    "vllm:num_preemptions_total": ("preemptions_total", "vllm"),
    "sglang:num_running_reqs": ("running", "sglang"),
    "sglang:num_queue_reqs": ("waiting", "sglang"),
    "sglang:token_usage": ("kv_usage", "sglang"),
    "sglang:num_retracted_requests_total": ("preemptions_total", "sglang"),
    "llamacpp:requests_processing": ("running", "llamacpp"),
    "llamacpp:requests_deferred": ("waiting", "llamacpp"),
    "llamacpp:kv_cache_usage_ratio": ("kv_usage", "llamacpp"),
}
SERIES_COLUMNS = ("time_s", "running", "waiting", "kv_usage", "preemptions_total",
                  "engine_kind")
PEAK = ("kv_usage", "kv_usage_old")


def engine_series(series: pd.DataFrame) -> pd.DataFrame:
    """SERIES_COLUMNS, sorted by time; empty when the series hold no engine gauge. One engine
    per file: a file mixing engines keeps the one with most samples."""
    rows = series[series["name"].isin(METRICS.keys()) & series["time_s"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=list(SERIES_COLUMNS))
    kinds = rows["name"].map(lambda n: METRICS[n][1])
    kind = str(kinds.value_counts().index[0])
    rows = rows[kinds == kind]
    tidy = pd.DataFrame({"time_s": rows["time_s"], "column": rows["name"].map(
        lambda n: METRICS[n][0]), "value": rows["value"]})
    summed = tidy[~tidy["column"].isin(PEAK)].pivot_table(
        index="time_s", columns="column", values="value", aggfunc="sum")
    peak = tidy[tidy["column"].isin(PEAK)].pivot_table(
        index="time_s", columns="column", values="value", aggfunc="max")
    wide = summed.join(peak, how="outer") if len(peak) and len(summed) else (
        peak if len(peak) else summed)
    wide = wide.reset_index()
    for column in (*SERIES_COLUMNS[1:5], "kv_usage_old"):
        if column not in wide.columns:
            wide[column] = np.nan
    # the renamed KV gauge: the new name where a scrape has it, else the old one
    wide["kv_usage"] = wide["kv_usage"].fillna(wide["kv_usage_old"])
    wide["engine_kind"] = kind
    wide = wide[list(SERIES_COLUMNS)].sort_values("time_s", kind="stable")
    wide.columns.name = None
    return wide.reset_index(drop=True)
