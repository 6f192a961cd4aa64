"""The numbers behind the generated "Findings" (issue 19, item 6), as named values
(``findings.*``): who leads at the lowest and the highest common tier and by how much, where
each configuration's throughput saturates and its latency there, failures, the self-checks.
The page writes its sentences from these names only, so corrected data rewrites them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from reportgen.analyze.tiers import usable
from reportgen.analyze.values import Value
from reportgen.text import Bi

SATURATION_GROWTH = 0.05   # saturated: the next tier adds less than 5 % output
# how a sentence names a decode step of each basis (metric names read the same in zh and en)
STEP_NAMES = {"itl": "ITL p50", "tpot": "TPOT p50"}


def saturation(rows: pd.DataFrame) -> Mapping[str, Any] | None:
    """One configuration's first tier after which output tok/s grows by less than
    ``SATURATION_GROWTH`` (its row), None when it keeps growing or has < 2 tiers."""
    own = rows[np.isfinite(rows["output_tok_s"].astype(float))].sort_values(
        "concurrency", kind="stable").to_dict("records")
    for here, after in itertools.pairwise(own):
        if here["output_tok_s"] > 0 and after["output_tok_s"] / here["output_tok_s"] - 1.0 \
                < SATURATION_GROWTH:
            return cast(Mapping[str, Any], here)
    return None


def _tier(x: float) -> float | int:
    """A tier as a placeholder shows it: 4, not 4.00 (∞ stays a float)."""
    return int(x) if math.isfinite(x) and float(x).is_integer() else float(x)


def _leader(tiers: pd.DataFrame, tier: float, prefix: str,
            labels: Mapping[str, Bi]) -> dict[str, Value]:
    at = tiers[tiers["concurrency"] == tier].sort_values("output_tok_s", ascending=False,
                                                         kind="stable")
    at = at[np.isfinite(at["output_tok_s"].astype(float))]
    if len(at) < 2:
        return {}
    first, second = at.iloc[0], at.iloc[1]
    return {f"{prefix}.tier": _tier(float(tier)),
            f"{prefix}.leader": labels[str(first["engine"])],
            f"{prefix}.leader_tok_s": float(first["output_tok_s"]),
            f"{prefix}.second": labels[str(second["engine"])],
            f"{prefix}.second_tok_s": float(second["output_tok_s"]),
            f"{prefix}.lead": float(first["output_tok_s"] / second["output_tok_s"])
            if second["output_tok_s"] > 0 else math.nan}


def findings_values(tiers: pd.DataFrame, order: Sequence[str],
                    labels: Mapping[str, Bi], checks: pd.DataFrame,
                    crossing: Mapping[str, Value] | None = None,
                    step_basis: Mapping[str, str] | None = None) -> dict[str, Value]:
    """``findings.*`` values (see the module docstring); absent what the data cannot say.
    ``crossing``: the round's ``crossover.*`` values (its bracketing tiers are shown as
    tiers: 8, not 8.00); ``step_basis``: configuration → what its decode step is."""
    out: dict[str, Value] = {"findings.saturation_growth": SATURATION_GROWTH}
    for name, key in (("lower_tier", "findings.crossover_lower"),
                      ("upper_tier", "findings.crossover_upper")):
        value = (crossing or {}).get(f"crossover.{name}")
        if isinstance(value, int | float) and math.isfinite(float(value)):
            out[key] = _tier(float(value))
    rows = usable(tiers) if len(tiers) else tiers
    if not len(rows):
        return out
    common = None
    for e in order:
        own = set(rows.loc[rows["engine"] == e, "concurrency"].astype(float))
        if own:
            common = own if common is None else common & own
    if common and len(order) >= 2:
        out |= _leader(rows, min(common), "findings.low", labels)
        if max(common) != min(common):
            out |= _leader(rows, max(common), "findings.high", labels)
    for e in order:
        sat = saturation(rows[rows["engine"] == e])
        if sat is None:
            continue
        base = f"findings.{e}"
        out |= {f"{base}.label": labels[e],
                f"{base}.saturation_tier": _tier(float(sat["concurrency"])),
                f"{base}.saturation_tok_s": float(sat["output_tok_s"])}
        # the decode step (tiers.decode_step), named by its basis: never a pooled ITL whose
        # median counts the zero gaps inside chunks
        for column in ("ttft_p50_ms", "step_p50_ms"):
            value = float(sat.get(column, math.nan))
            if math.isfinite(value):
                out[f"{base}.saturation_{column}"] = value
        basis = (step_basis or {}).get(e)
        if basis:
            out[f"{base}.step_basis"] = STEP_NAMES[basis]
    requests = float(pd.to_numeric(cast(pd.Series, tiers.get("requests")), errors="coerce").sum())
    failed = float(pd.to_numeric(cast(pd.Series, tiers.get("failed")), errors="coerce").sum())
    if requests > 0:
        out |= {"findings.requests": int(requests), "findings.failed": int(failed)}
    if checks is not None and len(checks):
        status = checks["status"].astype(str)
        out |= {"findings.checks_fail": int((status == "fail").sum()),
                "findings.checks_warn": int((status == "warn").sum())}
        worst = checks[status == "fail"] if (status == "fail").any() else checks[status == "warn"]
        if len(worst):
            out["findings.top_check"] = cast(Bi, worst["message"].iloc[0])
    return out
