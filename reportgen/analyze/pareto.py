"""The throughput–interactivity trade-off of many configurations: output tok/s per user
against output tok/s per GPU, and the Pareto frontier of the two.

Definitions follow ``vllm bench sweep plot_pareto`` (vllm/benchmarks/sweep/plot_pareto.py):
tokens per user = output throughput ÷ the user count (the run's ``max_concurrency``, i.e. the
tier); tokens per GPU = output throughput ÷ the GPU count (tensor × pipeline × data parallel
sizes, 1 when none is known); a point is on the frontier when no point at a higher or equal
per-user rate has a higher per-GPU rate (scan by per-user rate, then per-GPU rate, descending,
keeping each point whose per-GPU rate reaches the best so far less 1e-9).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

PARETO_COLUMNS = ("engine", "concurrency", "output_tok_s", "gpus", "tok_s_per_user",
                  "tok_s_per_gpu", "excluded", "frontier")
EPSILON = 1e-9  # plot_pareto's tolerance


def pareto_points(tiers: pd.DataFrame, gpus: Mapping[str, int]) -> pd.DataFrame:
    """One row per tier with a finite, positive output throughput and a finite concurrency,
    in tiers order. ``frontier`` marks the Pareto-optimal tiers among those not excluded from
    conclusions (an excluded tier is drawn, never a headline)."""
    conc = tiers["concurrency"].to_numpy(dtype=float)
    out_tok = tiers["output_tok_s"].to_numpy(dtype=float)
    keep = np.isfinite(conc) & (conc > 0) & np.isfinite(out_tok) & (out_tok > 0)
    rows = tiers.loc[keep, ["engine", "concurrency", "output_tok_s", "excluded"]]
    count = rows["engine"].map(lambda e: int(gpus.get(e, 1) or 1)).astype(int)
    frame = pd.DataFrame({
        "engine": rows["engine"].astype(str).to_numpy(),
        "concurrency": rows["concurrency"].to_numpy(dtype=float),
        "output_tok_s": rows["output_tok_s"].to_numpy(dtype=float),
        "gpus": count.to_numpy(),
        "tok_s_per_user": (rows["output_tok_s"] / rows["concurrency"]).to_numpy(dtype=float),
        "tok_s_per_gpu": (rows["output_tok_s"] / count).to_numpy(dtype=float),
        "excluded": rows["excluded"].fillna(False).astype(bool).to_numpy(),
    })
    frame["frontier"] = frontier_mask(frame["tok_s_per_user"].to_numpy(),
                                      frame["tok_s_per_gpu"].to_numpy(),
                                      ~frame["excluded"].to_numpy())
    return frame[list(PARETO_COLUMNS)]


def frontier_mask(x: np.ndarray, y: np.ndarray, eligible: np.ndarray | None = None
                  ) -> np.ndarray:
    """plot_pareto's ``_pareto_frontier``: True where a point is on the frontier of maximising
    both x and y. One sort and one pass: O(n log n)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    if eligible is not None:
        ok &= np.asarray(eligible, dtype=bool)
    mask = np.zeros(len(x), dtype=bool)
    idx = np.flatnonzero(ok)
    # x descending, then y descending; a stable sort keeps ties in input order
    order = idx[np.lexsort((-y[idx], -x[idx]))]
    best = -np.inf
    for i in order:
        if y[i] >= best - EPSILON:
            mask[i] = True
            best = max(best, y[i])
    return mask
