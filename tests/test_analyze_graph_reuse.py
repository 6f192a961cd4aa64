"""Log segments and CUDA-graph reuse deltas on a seven-block hand-made log."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.analyze.graph_reuse import graph_reuse_table, theoretical_max_reuse
from reportgen.analyze.segments import UNASSIGNED, WARMUP, assign_segments, segment_concurrency


def _timings(counter: list[float], runs: list[int] | None = None) -> pd.DataFrame:
    n = len(counter)
    return pd.DataFrame({
        "block": range(n), "run": runs or [0] * n, "prompt_eval_ms": np.arange(n, dtype=float),
        "eval_tokens": [4.0] * n, "graphs_reused": counter,
    })


# warm-up 2 blocks (1, 2), C=1: 3 blocks ending at 11, C=2: 2 blocks ending at 14
COUNTER = [1.0, 2.0, 5.0, 8.0, 11.0, 12.0, 14.0]


def test_assign_segments() -> None:
    seg = assign_segments(_timings([*COUNTER, 15.0]), 2, [3, 2])["segment"].tolist()
    assert seg == [WARMUP, WARMUP, 0, 0, 0, 1, 1, UNASSIGNED]
    assert assign_segments(_timings([1.0, 2.0]), 0, [1, 1])["segment"].tolist() == [0, 1]
    assert segment_concurrency([3, 2], [4, 1, 2]) == {0: 1, 1: 2}


def test_published_and_batched_reuse() -> None:
    out = graph_reuse_table(_timings(COUNTER), 2, [3, 2], [1, 2], output_tokens=4)
    c1, c2 = out.to_dict("records")
    assert (c1["print_timing_lines"], c1["decode_steps"], c1["graphs_reused_delta"]) == (3, 12, 9.0)
    assert c1["reuse"] == 0.75
    assert c1["reuse_batched"] == 0.75  # C=1: one step per token either way
    assert (c2["graphs_reused_delta"], c2["decode_steps"]) == (3.0, 8)  # 14 − 11
    assert c2["reuse"] == 0.375
    assert c2["decode_steps_batched"] == 4.0  # 8 generated tokens / C=2
    assert c2["decode_steps_batched_source"] == "log"
    assert c2["reuse_batched"] == 0.75
    assert c2["theoretical_max_reuse"] == 0.75 == theoretical_max_reuse(4)


def test_exact_decode_count_from_metrics_wins() -> None:
    out = graph_reuse_table(_timings(COUNTER), 2, [3, 2], [1, 2], 4, n_decode_delta={2: 6.0})
    c2 = out.iloc[1]
    assert (c2["decode_steps_batched"], c2["decode_steps_batched_source"]) == (6.0, "metrics")
    assert c2["reuse_batched"] == pytest.approx(0.5)


def test_no_warmup_counts_from_zero() -> None:
    out = graph_reuse_table(_timings([3.0, 7.0]), 0, [1, 1], [1, 2], 4)
    assert list(out["graphs_reused_delta"]) == [3.0, 4.0]


def test_restart_or_missing_counter_gives_nan() -> None:
    restarted = _timings(COUNTER, runs=[0, 0, 0, 0, 0, 1, 1])
    out = graph_reuse_table(restarted, 2, [3, 2], [1, 2], 4)
    assert out["graphs_reused_delta"].iloc[0] == 9.0
    assert np.isnan(out["graphs_reused_delta"].iloc[1]) and np.isnan(out["reuse"].iloc[1])
    old_era = _timings([np.nan] * 7)
    out = graph_reuse_table(old_era, 2, [3, 2], [1, 2], 4)
    assert out["reuse"].isna().all() and list(out["decode_steps"]) == [12, 8]


def test_truncated_log_counts_what_exists() -> None:
    out = graph_reuse_table(_timings(COUNTER[:6]), 2, [3, 2], [1, 2], 4)
    assert list(out["print_timing_lines"]) == [3, 1]
    assert list(out["expected_lines"]) == [3, 2]
    assert out["graphs_reused_delta"].iloc[1] == 1.0
