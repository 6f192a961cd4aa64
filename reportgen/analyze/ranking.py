"""Rounds that compare configurations at one tier (a fixed-rate comparison): lines over a
single x value say nothing, a ranking per metric does. Pure functions on the tiers frame."""

from __future__ import annotations

import math

import pandas as pd

# metric column → True when higher is better; the order the page shows them in
RANKED: dict[str, bool] = {"output_tok_s": True, "ttft_p50_ms": False, "itl_p50_ms": False,
                           "e2el_p50_ms": False, "failed": False}


def is_single_point(tiers: pd.DataFrame) -> bool:
    """Every configuration ran exactly one tier, and there are at least two configurations."""
    if tiers.empty or "engine" not in tiers.columns:
        return False
    per_engine = tiers.groupby("engine", sort=False)["concurrency"].nunique()
    return len(per_engine) >= 2 and bool((per_engine == 1).all())


def ranking(tiers: pd.DataFrame) -> pd.DataFrame:
    """One row per (metric, configuration) with a value: ``rank`` (1 = best), ``vs_best`` (the
    value ÷ the best value of that metric) and ``best``. A metric no configuration has, or one
    where every value is the same zero (no failures anywhere), is left out."""
    rows = []
    for metric, higher in RANKED.items():
        if metric not in tiers.columns:
            continue
        values = pd.to_numeric(tiers[metric], errors="coerce").astype(float)
        known = tiers.assign(_v=values)[values.notna() & values.map(math.isfinite)]
        if known.empty or (metric == "failed" and (known["_v"] == 0).all()):
            continue
        known = known.sort_values("_v", ascending=not higher, kind="stable")
        best = float(known["_v"].iloc[0])
        for rank, (engine, value) in enumerate(zip(known["engine"], known["_v"],
                                                   strict=True), start=1):
            rows.append({"metric": metric, "engine": str(engine), "value": float(value),
                         "rank": rank, "best": best,
                         "vs_best": float(value) / best if best else math.nan})
    return pd.DataFrame(rows, columns=["metric", "engine", "value", "rank", "best", "vs_best"])
