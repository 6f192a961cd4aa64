"""CUDA-graph reuse per tier from llama-server's cumulative `graphs reused` counter.

The counter is cumulative for the whole server context, so a tier's reuse count is the last
reading of its segment minus the last reading of the segment before it (the warm-up precedes the
first tier; with no block before, the counter's start value 0 is the baseline). A server restart
resets the counter, so a delta spanning two runs is NaN.

Two denominators are shown:
- published: decode_steps = blocks × output_tokens — one step per generated token, as if every
  request decoded alone;
- batch-aware: one batched llama_decode call advances up to C sequences, so steps ≈ generated
  tokens / C (a lower bound on steps; exact when Δ`llamacpp:n_decode_total` scrapes exist, which
  also count the prompt batches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from reportgen.analyze.segments import assign_segments, segment_concurrency

GRAPH_REUSE_COLUMNS = (
    "concurrency", "print_timing_lines", "expected_lines", "decode_steps", "graphs_reused_delta",
    "reuse", "generated_tokens", "decode_steps_batched", "decode_steps_batched_source",
    "reuse_batched", "theoretical_max_reuse",
)


def theoretical_max_reuse(output_tokens: float) -> float:
    """Each request's first step is its prompt batch, which cannot reuse a decode graph."""
    return (output_tokens - 1.0) / output_tokens if output_tokens > 0 else np.nan


def _counter_delta(frame: pd.DataFrame, rows: pd.DataFrame) -> float:
    """Last reading of `rows` minus the reading just before them (0 at the start of the log)."""
    if rows.empty or "graphs_reused" not in frame.columns:
        return np.nan
    first = int(rows.index[0])
    last_value = float(rows["graphs_reused"].iloc[-1])
    runs = set(rows["run"]) if "run" in rows.columns else set()
    if first == 0:
        prev_value = 0.0
    else:
        prev = frame.iloc[first - 1]
        prev_value = float(prev["graphs_reused"])
        if "run" in frame.columns:
            runs.add(prev["run"])
    if len(runs) > 1:
        return np.nan  # a restart reset the counter inside this window
    return last_value - prev_value


def graph_reuse_table(
    timings: pd.DataFrame,
    warmup: int,
    counts: Sequence[int],
    concurrency: Sequence[int],
    output_tokens: float,
    n_decode_delta: Mapping[int, float] | None = None,
) -> pd.DataFrame:
    """One row per tier the log segments cover (see module doc for both denominators)."""
    frame = assign_segments(timings, warmup, counts)
    mapping = segment_concurrency(counts, concurrency)
    n_decode_delta = n_decode_delta or {}
    rows = []
    for segment, conc in mapping.items():
        seg = frame[frame["segment"] == segment]
        lines = len(seg)
        delta = _counter_delta(frame, seg)
        steps = lines * output_tokens if lines else np.nan
        generated = seg["eval_tokens"].sum(min_count=1) if lines else np.nan
        exact = n_decode_delta.get(conc, np.nan)
        if np.isfinite(exact) and exact > 0:
            batched, source = float(exact), "metrics"
        else:
            batched, source = float(generated) / conc, "log"
        rows.append({
            "concurrency": conc,
            "print_timing_lines": lines,
            "expected_lines": int(counts[segment]),
            "decode_steps": steps,
            "graphs_reused_delta": delta,
            "reuse": delta / steps if steps else np.nan,
            "generated_tokens": float(generated),
            "decode_steps_batched": batched,
            "decode_steps_batched_source": source if np.isfinite(batched) else "",
            "reuse_batched": delta / batched if batched else np.nan,
            "theoretical_max_reuse": theoretical_max_reuse(output_tokens),
        })
    return pd.DataFrame(rows, columns=list(GRAPH_REUSE_COLUMNS))
