"""GPU telemetry per tier: nvidia-smi samples aligned to each run's window; mean board power,
energy per output token, GPU utilisation.

Clocks (from the clients' source, see ../shared/notes/distributions-slo-telemetry.md §3.6):
vLLM's result ``date`` is ``datetime.now()`` taken after the benchmark returned, so the end of
the run in the host's local time, truncated to the second; ``start_times`` are
``perf_counter`` (no wall clock). nvidia-smi's ``timestamp`` is the host's local time with
milliseconds. So a run's window is [date − duration, date] on the same local clock as the
samples, late by the client's post-processing (about a second or two) and by up to one second
of truncation: the page says so.

Energy follows InferenceX's rules: per GPU, trapezoids over the window with linear
interpolation at its edges, summed over GPUs (never averaged); valid only when samples
bracket the window on both sides and no gap inside it exceeds 3 s or 5 % of the duration,
whichever is larger. Gross board energy (no idle subtraction), per output token.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any, cast

import numpy as np
import pandas as pd

TELEMETRY_COLUMNS = ("engine", "concurrency", "runs", "gpus", "samples", "duration_s",
                     "mean_power_w", "energy_j", "output_tokens", "energy_per_output_token_j",
                     "gpu_util_pct", "status")
MAX_GAP_S = 3.0
MAX_GAP_SHARE = 0.05
DATE_FORMAT = "%Y%m%d-%H%M%S"


def run_windows(summary: pd.DataFrame) -> pd.DataFrame:
    """engine, concurrency, start, end (naive local datetimes), duration_s, output_tokens: one
    row per result record whose ``date`` reads as vLLM writes it (YYYYmmdd-HHMMSS)."""
    rows = []
    cols = ["engine", "concurrency", "date", "duration_s", "total_output_tokens"]
    if summary.empty or any(c not in summary.columns for c in cols):
        return pd.DataFrame(columns=["engine", "concurrency", "start", "end", "duration_s",
                                     "output_tokens"])
    for e, c, date, duration, tokens in summary[cols].itertuples(index=False, name=None):
        try:
            end = dt.datetime.strptime(str(date), DATE_FORMAT)
        except ValueError:
            continue
        if not (isinstance(duration, float | int) and math.isfinite(duration) and duration > 0):
            continue
        rows.append({"engine": e, "concurrency": float(c),
                     "start": end - dt.timedelta(seconds=float(duration)), "end": end,
                     "duration_s": float(duration), "output_tokens": float(tokens)})
    return pd.DataFrame(rows, columns=["engine", "concurrency", "start", "end", "duration_s",
                                       "output_tokens"])


def window_energy(t_s: np.ndarray, power_w: np.ndarray, start: float, end: float
                  ) -> tuple[float, int, str]:
    """(energy J, samples inside, status) of one GPU over [start, end] (seconds on one clock):
    trapezoids with linear interpolation at the edges; status ``ok``, ``not_bracketed`` or
    ``gap`` (energy NaN unless ok)."""
    keep = np.isfinite(t_s) & np.isfinite(power_w)
    t, p = t_s[keep], power_w[keep]
    order = np.argsort(t, kind="stable")
    t, p = t[order], p[order]
    inside = int(((t >= start) & (t <= end)).sum())
    if t.size < 2 or t[0] > start or t[-1] < end:
        return math.nan, inside, "not_bracketed"
    grid = np.concatenate([[start], t[(t > start) & (t < end)], [end]])
    limit = max(MAX_GAP_S, MAX_GAP_SHARE * (end - start))
    lo = np.searchsorted(t, start, side="right") - 1
    hi = np.searchsorted(t, end, side="left")
    if np.diff(t[lo:hi + 1]).max(initial=0.0) > limit:
        return math.nan, inside, "gap"
    values = np.interp(grid, t, p)
    return float(np.sum((values[1:] + values[:-1]) / 2 * np.diff(grid))), inside, "ok"


def tier_telemetry(gpu: pd.DataFrame, windows: pd.DataFrame, engine: str) -> pd.DataFrame:
    """TELEMETRY_COLUMNS for one configuration's tiers (its runs pooled: energy and tokens
    summed, power = energy ÷ summed duration)."""
    mine = windows[windows["engine"] == engine]
    if gpu is None or gpu.empty or mine.empty or "timestamp" not in gpu.columns \
            or "power_draw_w" not in gpu.columns:
        return pd.DataFrame(columns=list(TELEMETRY_COLUMNS))
    origin = pd.Timestamp(min(mine["start"].min(), gpu["timestamp"].min()))
    t_all = (pd.to_datetime(gpu["timestamp"]) - origin).dt.total_seconds().to_numpy(float)
    power = pd.to_numeric(gpu["power_draw_w"], errors="coerce").to_numpy(float)
    util = pd.to_numeric(gpu.get("utilization_gpu_pct", pd.Series(np.nan, index=gpu.index)),
                         errors="coerce").to_numpy(float)
    index = gpu["index"].to_numpy() if "index" in gpu.columns else np.zeros(len(gpu))
    boards = list(dict.fromkeys(index.tolist()))
    rows = []
    for c, runs in mine.groupby("concurrency", sort=True):
        energy, samples, status, utils = 0.0, 0, "ok", []
        for w in runs.itertuples(index=False):
            start = (pd.Timestamp(cast(Any, w.start)) - origin).total_seconds()
            end = (pd.Timestamp(cast(Any, w.end)) - origin).total_seconds()
            for board in boards:
                sel = index == board
                e, n, s = window_energy(t_all[sel], power[sel], start, end)
                energy += e
                samples += n
                status = s if status == "ok" else status
                within = sel & (t_all >= start) & (t_all <= end)
                utils.append(util[within])
        duration = float(runs["duration_s"].sum())
        tokens = float(runs["output_tokens"].sum())
        ok = status == "ok"
        joined = np.concatenate(utils) if utils else np.array([])
        joined = joined[np.isfinite(joined)]
        rows.append({
            "engine": engine, "concurrency": float(cast(float, c)), "runs": len(runs),
            "gpus": len(boards),
            "samples": samples, "duration_s": duration,
            "mean_power_w": energy / duration if ok else math.nan,
            "energy_j": energy if ok else math.nan, "output_tokens": tokens,
            "energy_per_output_token_j": energy / tokens if ok and tokens > 0 else math.nan,
            "gpu_util_pct": float(joined.mean()) if joined.size else math.nan,
            "status": status})
    return pd.DataFrame(rows, columns=list(TELEMETRY_COLUMNS))


def telemetry_samples(gpus: dict[str, pd.DataFrame], windows: pd.DataFrame,
                      margin_s: float = 60.0) -> pd.DataFrame:
    """engine, timestamp, index, power_draw_w: each configuration's samples from a minute
    before its first run to a minute after its last (what the timeline draws)."""
    parts = []
    for engine, gpu in gpus.items():
        mine = windows[windows["engine"] == engine]
        if gpu is None or gpu.empty or mine.empty or "power_draw_w" not in gpu.columns:
            continue
        lo = pd.Timestamp(mine["start"].min()) - pd.Timedelta(seconds=margin_s)
        hi = pd.Timestamp(mine["end"].max()) + pd.Timedelta(seconds=margin_s)
        t = pd.to_datetime(gpu["timestamp"])
        keep = (t >= lo) & (t <= hi)
        part = pd.DataFrame({"engine": engine, "timestamp": t[keep],
                             "index": gpu["index"][keep] if "index" in gpu.columns else 0,
                             "power_draw_w": pd.to_numeric(gpu["power_draw_w"][keep],
                                                           errors="coerce")})
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=["engine", "timestamp", "index", "power_draw_w"])
    return pd.concat(parts, ignore_index=True)
