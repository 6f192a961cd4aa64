"""Prefill time measured by each server, next to the client's TTFT.

- llama.cpp: median `prompt eval time` of the tier's print_timing blocks (log segments).
- vLLM: mean of the `vllm:request_prefill_time_seconds` histogram over the tier, i.e.
  Δsum / Δcount between the c<C>-before and c<C>-after scrapes.
TTFT p50 − server prefill is what the client adds (queueing, tokenization, HTTP).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from reportgen.analyze.segments import assign_segments, segment_concurrency
from reportgen.frames import ByEngine
from reportgen.load.prometheus import counter_delta, histogram_mean_delta

PREFILL_COLUMNS = ("engine", "concurrency", "server_prefill_ms", "server_samples", "source",
                   "ttft_p50_ms", "client_overhead_ms", "excluded")
VLLM_PREFILL = "vllm:request_prefill_time_seconds"


def llama_prefill(timings: pd.DataFrame, warmup: int, counts: Sequence[int],
                  concurrency: Sequence[int]) -> pd.DataFrame:
    """Median prompt eval per tier segment: concurrency, server_prefill_ms, server_samples."""
    frame = assign_segments(timings, warmup, counts)
    rows = []
    for segment, conc in segment_concurrency(counts, concurrency).items():
        values = frame.loc[frame["segment"] == segment, "prompt_eval_ms"].dropna()
        rows.append({"concurrency": conc,
                     "server_prefill_ms": float(values.median()) if len(values) else np.nan,
                     "server_samples": float(len(values))})
    return pd.DataFrame(rows, columns=["concurrency", "server_prefill_ms", "server_samples"])


def vllm_prefill(metrics: Mapping[int, tuple[pd.DataFrame, pd.DataFrame]],
                 base: str = VLLM_PREFILL) -> pd.DataFrame:
    """Histogram mean per tier from before/after scrapes: Δ_sum / Δ_count, in ms."""
    rows = []
    for conc in sorted(metrics):
        before, after = metrics[conc]
        count = counter_delta(before, after, f"{base}_count")
        mean_s = histogram_mean_delta(before, after, base)
        rows.append({"concurrency": int(conc), "server_prefill_ms": mean_s * 1000.0,
                     "server_samples": count if count > 0 else np.nan})
    return pd.DataFrame(rows, columns=["concurrency", "server_prefill_ms", "server_samples"])


def prefill_table(server: Mapping[str, tuple[pd.DataFrame, str]], tiers: pd.DataFrame,
                  engine_order: Sequence[str]) -> pd.DataFrame:
    """Join each engine's server-side prefill (frame, source description) with client TTFT p50.

    Every tier of every engine gets a row; server columns are NaN where no server figure exists.
    """
    rows = []
    by_engine = ByEngine(tiers)
    for engine in engine_order:
        own = by_engine[engine]
        frame, source = server.get(engine, (None, ""))
        by_c = {} if frame is None else frame.set_index("concurrency").to_dict("index")
        for _, tier in own.iterrows():
            c = float(tier["concurrency"])
            conc = int(c) if c.is_integer() else c  # a rate sweep may end at inf
            hit = by_c.get(conc, {})
            ms = float(hit.get("server_prefill_ms", np.nan))
            rows.append({
                "engine": engine,
                "concurrency": conc,
                "server_prefill_ms": ms,
                "server_samples": float(hit.get("server_samples", np.nan)),
                "source": source if np.isfinite(ms) else "",
                "ttft_p50_ms": float(tier["ttft_p50_ms"]),
                "client_overhead_ms": float(tier["ttft_p50_ms"]) - ms,
                "excluded": bool(tier.get("excluded", False)),
            })
    return pd.DataFrame(rows, columns=list(PREFILL_COLUMNS))


def relative_gap(a: float, b: float) -> float:
    """1 − a / b: how much less time a takes than b, as a fraction of b (0.088 = 8.8 % faster)."""
    return 1.0 - a / b if np.isfinite(b) and b > 0 else np.nan
