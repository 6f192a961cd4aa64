"""Where two engines' output-throughput curves cross.

Throughput grows roughly as a power of concurrency, so curves are compared in log–log space:
between adjacent common tiers where log(thr_a / thr_b) changes sign, the crossing is found by
linear interpolation in (log C, log ratio).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import cast

import numpy as np
import pandas as pd

from reportgen.analyze.tiers import usable

CROSSOVER_COLUMNS = ("engine_a", "engine_b", "concurrency", "lower_tier", "upper_tier",
                     "ratio_lower", "ratio_upper")


def pair_ratios(tiers: pd.DataFrame, a: str, b: str, column: str = "output_tok_s") -> pd.DataFrame:
    """Common usable tiers of a and b, sorted by concurrency, with ratio = a / b.

    A tier is common when both engines ran it, neither excludes it, and both throughputs are
    finite and > 0 (a NaN tier is dropped, so the curve is interpolated across it).
    """
    rows = usable(tiers)
    left = rows[rows["engine"] == a].set_index("concurrency")[column]
    right = rows[rows["engine"] == b].set_index("concurrency")[column]
    both = pd.concat({"a": left, "b": right}, axis=1, join="inner").astype(float)
    both = both[np.isfinite(both["a"]) & np.isfinite(both["b"]) & (both["a"] > 0) & (both["b"] > 0)
                # an inf request rate has no place on a log axis to interpolate along
                & np.isfinite(both.index.to_numpy(dtype=float))]
    both = both.sort_index()
    return pd.DataFrame({"concurrency": both.index.to_numpy(dtype=float),
                         "ratio": (both["a"] / both["b"]).to_numpy()})


def crossings(concurrency: Iterable[float], ratio: Iterable[float]) -> list[dict[str, float]]:
    """Sign changes of log(ratio) along ascending concurrency.

    Between two tiers with opposite signs the crossing is interpolated in log–log space. A tier
    at exact parity (ratio == 1) is itself the crossing when the nearest tiers on either side lie
    on opposite sides of 1; parity that is only touched (same side before and after, or at an end
    of the range) is not a crossing.
    """
    points = [(float(c), float(r)) for c, r in zip(concurrency, ratio, strict=True)
              if c > 0 and r > 0 and math.isfinite(c) and math.isfinite(r)]
    points.sort()
    out: list[dict[str, float]] = []
    prev: tuple[float, float] | None = None  # last tier with ratio != 1
    parity: tuple[float, float] | None = None  # first parity tier since prev
    for c, r in points:
        y = math.log(r)
        if y == 0.0:
            if parity is None:
                parity = (c, r)
            continue
        if prev is not None and (math.log(prev[1]) > 0) != (y > 0):
            if parity is not None:
                pc = parity[0]
                out.append({"concurrency": pc, "lower_tier": pc, "upper_tier": pc,
                            "ratio_lower": 1.0, "ratio_upper": 1.0})
            else:
                x0, y0 = math.log(prev[0]), math.log(prev[1])
                x1 = math.log(c)
                x = x0 + (0.0 - y0) * (x1 - x0) / (y - y0)
                out.append({"concurrency": math.exp(x), "lower_tier": prev[0], "upper_tier": c,
                            "ratio_lower": prev[1], "ratio_upper": r})
        prev, parity = (c, r), None
    return out


def comparison_pairs(engine_order: Sequence[str], reference: str | None = None,
                     compare: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The pairs whose curves are compared: the reference (default the first configuration)
    against every other configuration in order, then each requested pair that is not already
    one of them (either way round). Linear in the configuration count, where every pair would
    be quadratic. Pairs naming a configuration this analysis lacks are left out."""
    present = list(engine_order)
    if not present:
        return []
    ref = reference if reference in present else present[0]
    pairs = [(ref, other) for other in present if other != ref]
    seen = {frozenset(p) for p in pairs}
    for a, b in compare:
        if a in present and b in present and a != b and frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            pairs.append((a, b))
    return pairs


def crossover_table(tiers: pd.DataFrame, pairs: Sequence[tuple[str, str]],
                    column: str = "output_tok_s") -> pd.DataFrame:
    """Every crossing of every pair (a, b) given, ratio = a / b. The usable throughputs are
    laid out once as a concurrency × engine grid, so each pair costs one column division."""
    rows = []
    if pairs:
        grid = _usable_grid(tiers, column)
        for a, b in pairs:
            if a not in grid.columns or b not in grid.columns:
                continue
            ratios = _grid_ratios(grid, a, b)
            for hit in crossings(ratios["concurrency"], ratios["ratio"]):
                rows.append({"engine_a": a, "engine_b": b, **hit})
    if not rows:
        return pd.DataFrame({name: pd.Series(dtype=str if name.startswith("engine") else float)
                             for name in CROSSOVER_COLUMNS})
    return pd.DataFrame(rows, columns=list(CROSSOVER_COLUMNS))


def _usable_grid(tiers: pd.DataFrame, column: str) -> pd.DataFrame:
    """Usable tiers' ``column`` as a concurrency (ascending) × engine grid; NaN where an engine
    did not run a tier or its value is not a finite positive number."""
    rows = usable(tiers)
    grid = rows.pivot_table(index="concurrency", columns="engine", values=column,
                            aggfunc="first", dropna=False, sort=True)
    grid = grid.astype(float)
    grid = grid[np.isfinite(grid.index.to_numpy(dtype=float))]
    return cast(pd.DataFrame, grid.where(np.isfinite(grid) & (grid > 0)))


def _grid_ratios(grid: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """``pair_ratios`` read from the grid: the tiers both have, a / b."""
    both = grid[[a, b]].dropna()
    return pd.DataFrame({"concurrency": both.index.to_numpy(dtype=float),
                         "ratio": (both[a] / both[b]).to_numpy()})


def primary_pair(tiers: pd.DataFrame, engine_order: Sequence[str],
                 column: str = "output_tok_s", reference: str | None = None
                 ) -> tuple[str, str] | None:
    """The headline pair: the reference configuration (default the first) and the first other
    one, oriented so that ``a`` is the engine ahead at their lowest common usable tier (ties
    keep that order). Then every headline ratio a/b starts above 1 and the crossover reads "a
    leads below C*, b above"."""
    pairs = comparison_pairs(engine_order, reference)
    if not pairs:
        return None
    a, b = pairs[0]
    ratios = pair_ratios(tiers, a, b, column)
    if not ratios.empty and ratios["ratio"].iloc[0] < 1.0:
        a, b = b, a
    return a, b


def crossover_range(tiers: pd.DataFrame, a: str, b: str) -> tuple[float, float]:
    """Where the crossover may lie given the spread of repeated runs: the crossings of the
    pessimistic ratio (slowest run of a ÷ fastest of b) and the optimistic one (fastest of a ÷
    slowest of b), lowest first. NaN without repeats, or when a bound curve never crosses."""
    if "output_tok_s_min" not in tiers.columns:
        return math.nan, math.nan
    lo = _band_ratio(tiers, a, b, "output_tok_s_min", "output_tok_s_max")
    hi = _band_ratio(tiers, a, b, "output_tok_s_max", "output_tok_s_min")
    found = []
    for frame in (lo, hi):
        hits = crossings(frame["concurrency"], frame["ratio"])
        found.append(hits[0]["concurrency"] if hits else math.nan)
    if not all(math.isfinite(x) for x in found):
        return math.nan, math.nan
    return min(found), max(found)


def _band_ratio(tiers: pd.DataFrame, a: str, b: str, col_a: str, col_b: str) -> pd.DataFrame:
    """a's col_a ÷ b's col_b over their common usable, finite tiers."""
    rows = usable(tiers)
    left = rows[rows["engine"] == a].set_index("concurrency")[col_a]
    right = rows[rows["engine"] == b].set_index("concurrency")[col_b]
    both = pd.concat({"a": left, "b": right}, axis=1, join="inner").astype(float)
    both = both[(both["a"] > 0) & (both["b"] > 0) & np.isfinite(both["a"] + both["b"])
                & np.isfinite(both.index.to_numpy(dtype=float))].sort_index()
    return pd.DataFrame({"concurrency": both.index.to_numpy(dtype=float),
                         "ratio": (both["a"] / both["b"]).to_numpy()})
