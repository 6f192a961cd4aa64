"""The throughput–interactivity trade-off: output tok/s per user against output tok/s per
GPU, the Pareto frontier of the two, and each configuration's throughput at fixed per-user
speeds (engines compared at the same speed).

One interactivity definition for the whole page (Terms, Figure 6, the Pareto figure, the
same-speed table): per-user output tok/s = 1000 ÷ TPOT p50, TPOT per request ((E2EL − TTFT) ÷
(output tokens − 1)) and p50 its median over the tier's requests, as the client reports it.
It holds on a concurrency sweep and on a rate sweep alike. Tokens per GPU = output
throughput ÷ the GPU count (tensor × pipeline × data parallel sizes, 1 when none is known),
as ``vllm bench sweep plot_pareto``; a point is on the frontier when no point at a higher or
equal per-user rate has a higher per-GPU rate (plot_pareto's scan, tolerance 1e-9).

Throughput at a per-user speed s (``same_speed``): along the configuration's measured curve
(its tiers in load order, joined by straight lines in (per-user, per-GPU) space), the highest
tok/s per GPU at which the per-user speed is still ≥ s: at a measured point, or where a
segment crosses s (linear interpolation). ``not_reached`` when no tier is as fast as s;
``at_least`` when the best is the highest tier tested and still faster than s (more load
might carry more at s).

Its interval where repeats exist (``same_speed_repeats``): each repeat k (the k-th run of
every tier) is a curve of its own, its tok/s per user from its own TPOT p50 and its tok/s per
GPU from its own tokens ÷ duration; the same rule gives one value per repeat, and the
interval is their mean ± t(0.975, n − 1) · sd ÷ √n over the n repeats that reach s (n ≥ 2;
the t quantile as goodput's; the low end at least 0). No interval from a single run.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

import numpy as np
import pandas as pd

PARETO_COLUMNS = ("engine", "concurrency", "output_tok_s", "tpot_p50_ms", "gpus",
                  "tok_s_per_user", "tok_s_per_gpu", "excluded", "frontier")
SAME_SPEED_COLUMNS = ("engine", "tok_s_per_user", "tok_s_per_gpu", "status", "lower_tier",
                      "upper_tier", "tok_s_per_gpu_low", "tok_s_per_gpu_high", "repeats")
RUN_POINT_COLUMNS = ("engine", "concurrency", "repeat", "tok_s_per_user", "tok_s_per_gpu")
SPEEDS = (10.0, 20.0, 50.0, 100.0)   # tok/s per user the page compares at (and the reader's)
EPSILON = 1e-9  # plot_pareto's tolerance


def pareto_points(tiers: pd.DataFrame, gpus: Mapping[str, int]) -> pd.DataFrame:
    """One row per tier with a finite, positive output throughput and TPOT p50, in tiers
    order. ``frontier`` marks the Pareto-optimal tiers among those not excluded from
    conclusions (an excluded tier is drawn, never a headline)."""
    if tiers.empty or "tpot_p50_ms" not in tiers.columns:
        return pd.DataFrame(columns=list(PARETO_COLUMNS))
    tpot = tiers["tpot_p50_ms"].to_numpy(dtype=float)
    out_tok = tiers["output_tok_s"].to_numpy(dtype=float)
    keep = np.isfinite(tpot) & (tpot > 0) & np.isfinite(out_tok) & (out_tok > 0)
    rows = tiers.loc[keep, ["engine", "concurrency", "output_tok_s", "tpot_p50_ms",
                            "excluded"]]
    count = rows["engine"].map(lambda e: int(gpus.get(e, 1) or 1)).astype(int)
    frame = pd.DataFrame({
        "engine": rows["engine"].astype(str).to_numpy(),
        "concurrency": rows["concurrency"].to_numpy(dtype=float),
        "output_tok_s": rows["output_tok_s"].to_numpy(dtype=float),
        "tpot_p50_ms": rows["tpot_p50_ms"].to_numpy(dtype=float),
        "gpus": count.to_numpy(),
        "tok_s_per_user": 1000.0 / rows["tpot_p50_ms"].to_numpy(dtype=float),
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


def at_speed(loads: np.ndarray, per_user: np.ndarray, per_gpu: np.ndarray, speed: float
             ) -> tuple[float, str, float, float]:
    """(tok/s per GPU, status, lower tier, upper tier) of one configuration's curve (tiers in
    load order) at per-user ``speed`` (see the module docstring)."""
    order = np.argsort(loads, kind="stable")
    x, u, g = loads[order], per_user[order], per_gpu[order]
    best, lo, hi, status = -np.inf, np.nan, np.nan, "not_reached"
    for i in range(len(x)):
        if u[i] >= speed and g[i] > best:
            best, lo, hi, status = float(g[i]), float(x[i]), np.nan, "measured"
        if i + 1 < len(x) and (u[i] - speed) * (u[i + 1] - speed) < 0:
            t = (u[i] - speed) / (u[i] - u[i + 1])
            y = float(g[i] + t * (g[i + 1] - g[i]))
            if y > best:
                best, lo, hi, status = y, float(x[i]), float(x[i + 1]), "interpolated"
    if status == "not_reached":
        return np.nan, status, np.nan, np.nan
    if status == "measured" and lo == float(x[-1]) and u[-1] > speed:
        status = "at_least"
    return best, status, lo, hi


def same_speed(points: pd.DataFrame, order: list[str],
               speeds: tuple[float, ...] = SPEEDS) -> pd.DataFrame:
    """SAME_SPEED_COLUMNS: per configuration of ``order`` with points, and per speed, its
    tok/s per GPU at that per-user speed (tiers excluded from conclusions left out)."""
    rows = []
    if points.empty:
        return pd.DataFrame(columns=list(SAME_SPEED_COLUMNS))
    usable = points[~points["excluded"].to_numpy(dtype=bool)]
    for engine in order:
        mine = usable[usable["engine"] == engine]
        if mine.empty:
            continue
        for speed in speeds:
            value, status, lo, hi = at_speed(
                mine["concurrency"].to_numpy(float), mine["tok_s_per_user"].to_numpy(float),
                mine["tok_s_per_gpu"].to_numpy(float), speed)
            rows.append({"engine": engine, "tok_s_per_user": speed, "tok_s_per_gpu": value,
                         "status": status, "lower_tier": lo, "upper_tier": hi,
                         "tok_s_per_gpu_low": np.nan, "tok_s_per_gpu_high": np.nan,
                         "repeats": np.nan})
    return pd.DataFrame(rows, columns=list(SAME_SPEED_COLUMNS))


def run_points(runs: pd.DataFrame, gpus: Mapping[str, int],
               excluded: Collection[tuple[str, float]] = ()) -> pd.DataFrame:
    """RUN_POINT_COLUMNS: one row per run of a tier that ran two or more times (the summary
    before repeats are aggregated, with its ``repeat`` number), not excluded from
    conclusions: its own per-user speed (1000 ÷ its TPOT p50) and tok/s per GPU (its output
    tokens ÷ its duration, the client's own throughput where those are missing)."""
    need = {"engine", "concurrency", "repeat", "tpot_median_ms"}
    if runs.empty or not need <= set(runs.columns):
        return pd.DataFrame(columns=list(RUN_POINT_COLUMNS))
    def column(name: str) -> pd.Series:
        return pd.to_numeric(runs[name], errors="coerce") if name in runs.columns \
            else pd.Series(np.nan, index=runs.index)
    duration = column("duration_s")
    tok_s = (column("total_output_tokens") / duration.where(duration > 0)).fillna(
        column("output_throughput_tok_s"))
    frame = pd.DataFrame({
        "engine": runs["engine"].astype(str).to_numpy(),
        "concurrency": column("concurrency").to_numpy(float),
        "repeat": column("repeat").to_numpy(float),
        "tpot": column("tpot_median_ms").to_numpy(float), "tok_s": tok_s.to_numpy(float)})
    skip = {(str(e), float(c)) for e, c in excluded}
    ok = (np.isfinite(frame["tpot"]) & (frame["tpot"] > 0) & np.isfinite(frame["tok_s"])
          & (frame["tok_s"] > 0) & np.isfinite(frame["repeat"])
          & ~pd.Series([(e, c) in skip for e, c in zip(frame["engine"], frame["concurrency"],
                                                        strict=True)], index=frame.index))
    frame = frame[ok]
    many = frame.groupby(["engine", "concurrency"])["repeat"].transform("size") >= 2
    frame = frame[many]
    count = frame["engine"].map(lambda e: int(gpus.get(e, 1) or 1)).astype(float)
    return pd.DataFrame({"engine": frame["engine"], "concurrency": frame["concurrency"],
                         "repeat": frame["repeat"].astype(int),
                         "tok_s_per_user": 1000.0 / frame["tpot"],
                         "tok_s_per_gpu": frame["tok_s"] / count}).reset_index(drop=True)


def repeat_interval(values: list[float]) -> tuple[float, float]:
    """mean ± t(0.975, n − 1) · sd ÷ √n of two or more values; (NaN, NaN) otherwise."""
    from reportgen.analyze.goodput import t975

    n = len(values)
    if n < 2:
        return np.nan, np.nan
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return max(0.0, mean - half), mean + half   # a throughput is never below 0


def same_speed_repeats(frame: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The same-speed table with each value's interval from the repeats (``run_points``):
    one curve per repeat number, the same rule at each speed (module docstring)."""
    out = frame.copy()
    if out.empty or runs.empty:
        return out
    for i, row in out.iterrows():
        mine = runs[runs["engine"] == row["engine"]]
        values = []
        for _, curve in mine.groupby("repeat", sort=True):
            value = at_speed(curve["concurrency"].to_numpy(float),
                             curve["tok_s_per_user"].to_numpy(float),
                             curve["tok_s_per_gpu"].to_numpy(float),
                             float(row["tok_s_per_user"]))[0]
            if math.isfinite(value):
                values.append(value)
        low, high = repeat_interval(values)
        out.loc[i, ["tok_s_per_gpu_low", "tok_s_per_gpu_high"]] = [low, high]
        out.loc[i, "repeats"] = float(len(values)) if len(values) >= 2 else np.nan
    return out
