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

from reportgen.analyze.claims import compare, noise, spread
from reportgen.analyze.tiers import usable
from reportgen.analyze.values import Value
from reportgen.files.resources import templates_dir
from reportgen.text.bilingual import Bi, load_strings

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


# latency compared on an open-loop rate the configurations all sustain (first one both have)
LATENCY_METRICS = ("e2el_p50_ms", "ttft_p50_ms")


def _tok_noise(row: pd.Series) -> float:
    return spread(float(row["output_tok_s"]), float(row.get("output_tok_s_min", math.nan)),
                  float(row.get("output_tok_s_max", math.nan)),
                  float(row.get("repeats", math.nan)))


def _leader(tiers: pd.DataFrame, tier: float, prefix: str,
            labels: Mapping[str, Bi], axis: str = "concurrency") -> dict[str, Value]:
    """Who leads at ``tier`` and whether the lead carries a claim (``claims.compare``):
    ``<prefix>.claim`` is ``lead`` or ``par`` on throughput, or on an open-loop rate whose
    output both configurations deliver alike (it is the offered load, not a result)
    ``latency_lead`` / ``latency_par`` on the first latency median both have."""
    at = tiers[tiers["concurrency"] == tier].sort_values("output_tok_s", ascending=False,
                                                         kind="stable")
    at = at[np.isfinite(at["output_tok_s"].astype(float))]
    if len(at) < 2:
        return {}
    first, second = at.iloc[0], at.iloc[1]
    tok = compare(float(first["output_tok_s"]), float(second["output_tok_s"]),
                  noise_frac=noise(_tok_noise(first), _tok_noise(second)))
    out: dict[str, Value] = {
        f"{prefix}.tier": _tier(float(tier)),
        f"{prefix}.leader": labels[str(first["engine"])],
        f"{prefix}.leader_tok_s": float(first["output_tok_s"]),
        f"{prefix}.second": labels[str(second["engine"])],
        f"{prefix}.second_tok_s": float(second["output_tok_s"]),
        f"{prefix}.lead": float(first["output_tok_s"] / second["output_tok_s"])
        if second["output_tok_s"] > 0 else math.nan,
        f"{prefix}.noise": tok.noise,
        f"{prefix}.claim": "lead" if tok.leads else "par"}
    open_loop = axis == "request_rate" and math.isfinite(float(tier))
    if not open_loop or tok.leads:
        return out
    for metric in LATENCY_METRICS:
        a, b = float(first.get(metric, math.nan)), float(second.get(metric, math.nan))
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        lat = compare(a, b, higher_better=False)
        fast, slow = (first, second) if lat.first == 0 else (second, first)
        return out | {
            f"{prefix}.claim": "latency_lead" if lat.leads else "latency_par",
            f"{prefix}.metric": load_strings(templates_dir() / "i18n" / "analysis.toml").bi(
                f"findings.metric.{metric}"),
            f"{prefix}.faster": labels[str(fast["engine"])],
            f"{prefix}.faster_ms": float(fast[metric]),
            f"{prefix}.slower": labels[str(slow["engine"])],
            f"{prefix}.slower_ms": float(slow[metric]),
            f"{prefix}.latency_margin": lat.margin,
            f"{prefix}.latency_noise": lat.noise}
    return out


def _crossing_claim(rows: pd.DataFrame, crossing: Mapping[str, Value]) -> dict[str, Value]:
    """Whether the primary pair's crossing is a ranking change under ``analyze.claims``: a
    tier below it where the first leads beyond the noise and one above it where the second
    does (``findings.crossover_claim`` = ``change``), else ``par`` (the curves meet within the
    noise). The noise: the largest repeats' spread of output among the tiers, else 2 %."""
    x = crossing.get("crossover.concurrency")
    if not isinstance(x, int | float) or not math.isfinite(float(x)):
        return {}
    ratios: list[tuple[float, float]] = []
    for name, value in crossing.items():
        key = name.removeprefix("crossover.ratio.c")
        if key == name or not isinstance(value, int | float):
            continue
        tier = math.inf if key == "inf" else float(key.replace("_", "."))
        ratios.append((tier, float(value)))
    frac = noise(*(_tok_noise(r) for _, r in rows.iterrows()))
    below = any(t < x and compare(r, 1.0, noise_frac=frac).leads for t, r in ratios)
    above = any(t > x and compare(1.0, r, noise_frac=frac).leads for t, r in ratios)
    return {"findings.crossover_claim": "change" if below and above else "par",
            "findings.crossover_noise": frac}


def findings_values(tiers: pd.DataFrame, order: Sequence[str],
                    labels: Mapping[str, Bi], checks: pd.DataFrame,
                    crossing: Mapping[str, Value] | None = None,
                    axis: str = "concurrency",
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
    out |= _crossing_claim(rows, crossing or {})
    common = None
    for e in order:
        own = set(rows.loc[rows["engine"] == e, "concurrency"].astype(float))
        if own:
            common = own if common is None else common & own
    if common and len(order) >= 2:
        out |= _leader(rows, min(common), "findings.low", labels, axis)
        if max(common) != min(common):
            out |= _leader(rows, max(common), "findings.high", labels, axis)
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
