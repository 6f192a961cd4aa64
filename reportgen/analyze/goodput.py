"""Goodput at the reader's SLO, and the capacity of each configuration at that SLO.

Rules (vLLM's `--goodput`, DistServe's definition): a request is good when it succeeded and
each threshold the objective names holds inclusively (value ≤ threshold, compared in seconds
as vLLM does); a failed request is never good; a value that is unknown never meets a
threshold. A tier pools all its repeats: attainment = good ÷ sent, goodput = good ÷ the
summed duration of its runs.

Capacity at SLO: the highest load (the sweep axis) at which at least ``target`` of the
requests are good. With attainment a_i at tier x_i (usable tiers, ascending), take the last
tier i with a_i ≥ target; when a next tier exists, interpolate linearly in load to where the
line from (x_i, a_i) to (x_{i+1}, a_{i+1}) crosses the target (status ``interpolated``); when
none does (or the next is an unbounded rate), the capacity is at least x_i (``at_least``);
when no tier meets the target, there is none (``none``, NaN).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import cast

import numpy as np
import pandas as pd

from reportgen.analyze.values import Value, flatten_rows
from reportgen.slo import METRICS, Slo

GOODPUT_COLUMNS = ("engine", "concurrency", "requests_sent", "requests_good", "attainment",
                   "duration_s", "goodput_rps")
CAPACITY_COLUMNS = ("engine", "capacity", "status", "lower_tier", "upper_tier",
                    "attainment_lower", "attainment_upper", "target")
TIER_KEYS = ["engine", "concurrency"]


def good_requests(per_request: pd.DataFrame, slo: Slo) -> np.ndarray:
    """Boolean per row of ``per_request`` (distributions.tier_requests): meets every
    threshold of ``slo`` and succeeded."""
    good = per_request["success"].to_numpy(bool).copy()
    for metric in METRICS:
        limit = slo.threshold(metric)
        if math.isfinite(limit):
            values = per_request[f"{metric}_s"].to_numpy(float)
            with np.errstate(invalid="ignore"):
                good &= values <= limit / 1000.0   # NaN compares False: never good
    return good


def tier_durations(per_request: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """engine, concurrency, duration_s: the summed duration of each tier's runs that carry
    per-request rows."""
    if per_request.empty:
        return pd.DataFrame(columns=[*TIER_KEYS, "duration_s"])
    runs = per_request[["source", "record"]].drop_duplicates()
    rows = summary[["source", "record", *TIER_KEYS, "duration_s"]].drop_duplicates(
        ["source", "record"]).merge(runs, on=["source", "record"], how="inner")
    return cast(pd.DataFrame,
                rows.groupby(TIER_KEYS, sort=False, as_index=False)["duration_s"].sum())


def goodput_table(per_request: pd.DataFrame, durations: pd.DataFrame,
                  slo: Slo) -> pd.DataFrame:
    """GOODPUT_COLUMNS, one row per tier of ``per_request`` in its order."""
    if per_request.empty:
        return pd.DataFrame(columns=list(GOODPUT_COLUMNS))
    frame = per_request[TIER_KEYS].assign(good=good_requests(per_request, slo))
    counts = frame.groupby(TIER_KEYS, sort=False).agg(
        requests_sent=("good", "size"), requests_good=("good", "sum")).reset_index()
    out = counts.merge(durations, on=TIER_KEYS, how="left")
    sent = out["requests_sent"].to_numpy(float)
    good = out["requests_good"].to_numpy(float)
    duration = out["duration_s"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["attainment"] = np.where(sent > 0, good / sent, np.nan)
        out["goodput_rps"] = np.where(duration > 0, good / duration, np.nan)
    out["requests_sent"] = out["requests_sent"].astype(int)
    out["requests_good"] = out["requests_good"].astype(int)
    return out[list(GOODPUT_COLUMNS)]


def capacity(loads: np.ndarray, attainment: np.ndarray, target: float
             ) -> tuple[float, str, float, float, float, float]:
    """(capacity, status, lower tier, upper tier, attainment there) for one configuration's
    usable tiers, ascending (see the module docstring)."""
    ok = np.isfinite(attainment)
    loads, attainment = loads[ok], attainment[ok]
    meets = np.flatnonzero(attainment >= target)
    if meets.size == 0:
        return math.nan, "none", math.nan, math.nan, math.nan, math.nan
    i = int(meets[-1])
    lo, a_lo = float(loads[i]), float(attainment[i])
    if i + 1 >= loads.size or not math.isfinite(float(loads[i + 1])):
        return lo, "at_least", lo, math.nan, a_lo, math.nan
    hi, a_hi = float(loads[i + 1]), float(attainment[i + 1])
    x = lo + (a_lo - target) / (a_lo - a_hi) * (hi - lo)
    return x, "interpolated", lo, hi, a_lo, a_hi


def capacity_table(goodput: pd.DataFrame, target: float, order: list[str],
                   excluded: Collection[tuple[str, float]] = ()) -> pd.DataFrame:
    """CAPACITY_COLUMNS: one row per configuration of ``order`` that has a goodput row;
    tiers in ``excluded`` ((engine, tier) pairs) never feed it."""
    rows = []
    skip = {(str(e), float(c)) for e, c in excluded}
    for engine in order:
        mine = goodput[goodput["engine"] == engine].sort_values("concurrency")
        mine = mine[[(engine, float(c)) not in skip for c in mine["concurrency"]]]
        if mine.empty:
            continue
        cap, status, lo, hi, a_lo, a_hi = capacity(
            mine["concurrency"].to_numpy(float), mine["attainment"].to_numpy(float), target)
        rows.append({"engine": engine, "capacity": cap, "status": status, "lower_tier": lo,
                     "upper_tier": hi, "attainment_lower": a_lo, "attainment_upper": a_hi,
                     "target": target})
    return pd.DataFrame(rows, columns=list(CAPACITY_COLUMNS))


def most_capacity(capacity_frame: pd.DataFrame) -> str | None:
    """The configuration that carries the most load within the SLO (first in order on a tie;
    None when no configuration meets it at any tier)."""
    found = capacity_frame[np.isfinite(capacity_frame["capacity"].to_numpy(float))]
    if found.empty:
        return None
    best = found["capacity"].to_numpy(float)
    return str(found["engine"].iloc[int(np.argmax(best))])


def slo_values(slo: Slo | None, goodput: pd.DataFrame, capacity_frame: pd.DataFrame,
               labels: dict[str, str]) -> dict[str, Value]:
    """The ``slo.*`` and ``capacity.*`` narrative names (ARCHITECTURE.md, values table)."""
    if slo is None:
        return {}
    v: dict[str, Value] = {f"slo.{m}_ms": slo.threshold(m) for m in METRICS}
    v["slo.target"] = slo.target
    v["slo.source"] = slo.source
    v |= flatten_rows(goodput, "slo", "engine",
                      ("requests_sent", "requests_good", "attainment", "goodput_rps"))
    for row in capacity_frame.itertuples(index=False):
        v[f"capacity.{row.engine}.load"] = float(cast(float, row.capacity))
        v[f"capacity.{row.engine}.status"] = str(row.status)
    best = most_capacity(capacity_frame)
    v["capacity.best"] = best
    v["capacity.best_label"] = labels.get(best) if best is not None else None
    v["capacity.best_load"] = (float(capacity_frame.loc[capacity_frame["engine"] == best,
                                                        "capacity"].iloc[0])
                               if best is not None else math.nan)
    return v
