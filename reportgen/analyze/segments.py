"""Cut a llama-server log's print_timing blocks into benchmark tiers.

The server log does not say which benchmark tier a request belonged to, so the manifest gives
the block count of the warm-up and of each tier, in log order (`log_segments`). The i-th count
belongs to the engine's i-th tier in ascending concurrency (the order the sweep ran).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

WARMUP = -1
UNASSIGNED = -2


def assign_segments(timings: pd.DataFrame, warmup: int, counts: Sequence[int]) -> pd.DataFrame:
    """Add `segment`: WARMUP for the first `warmup` blocks, then 0, 1, … per tier count, and
    UNASSIGNED for blocks beyond the manifest's total. Rows keep log order."""
    out = timings.reset_index(drop=True).copy()
    bounds = np.cumsum([warmup, *counts])
    position = np.arange(len(out))
    # searchsorted(side="right") maps position < warmup to 0, the first tier to 1, …, so
    # index − 1 is WARMUP (−1) for the warm-up and the tier number after it
    segment = np.searchsorted(bounds, position, side="right") - 1
    segment[position >= bounds[-1]] = UNASSIGNED
    out["segment"] = segment.astype("int64")
    return out


def segment_concurrency(counts: Sequence[int], concurrency: Sequence[int]) -> dict[int, int]:
    """segment index -> tier concurrency (ascending); extra counts or tiers stay unmapped."""
    tiers = sorted(int(c) for c in concurrency)
    return {i: c for i, c in enumerate(tiers[: len(counts)])}
