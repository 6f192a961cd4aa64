"""GPU and engine telemetry per tier: nvidia-smi or DCGM samples and engine gauges aligned to
each run's window; mean board power, energy per output token, GPU utilisation, SM active, and
from the engine's ``/metrics``: mean running / waiting requests, peak KV-cache usage,
preemptions during the tier.

Clocks (from the clients' source, see ../shared/notes/distributions-slo-telemetry.md §3.6):
vLLM's result ``date`` is ``datetime.now()`` taken after the benchmark returned, so the end of
the run in the host's local time, truncated to the second; ``start_times`` are
``perf_counter`` (no wall clock). nvidia-smi's ``timestamp`` is the host's local time with
milliseconds. So a run's window is [date − duration, date] on the same local clock as the
samples, late by the client's post-processing (about a second or two) and by up to one second
of truncation: the page says so.

DCGM samples and Prometheus-stamped engine scrapes carry UTC epoch times: they are placed on
the results' local clock only with round.toml's ``[telemetry] utc_offset``; without it they
are not aligned (``alignment_notes`` says so) rather than guessed.

Energy follows InferenceX's rules: per GPU, trapezoids over the window with linear
interpolation at its edges, summed over GPUs (never averaged); valid only when samples
bracket the window on both sides and no gap inside it exceeds 3 s or 5 % of the duration,
whichever is larger. Gross board energy (no idle subtraction), per output token. Where DCGM's
energy counter (mJ since boot) brackets the window, its interpolated difference is the energy
(an exact integral); a counter that went backwards falls back to the trapezoids.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

TELEMETRY_COLUMNS = ("engine", "concurrency", "runs", "gpus", "samples", "duration_s",
                     "mean_power_w", "energy_j", "output_tokens", "energy_per_output_token_j",
                     "gpu_util_pct", "status", "source", "sm_active_pct", "mean_running",
                     "mean_waiting", "peak_kv_usage", "preemptions")
ENGINE_COLUMNS = ("mean_running", "mean_waiting", "peak_kv_usage", "preemptions")
MARGIN_S = 60.0   # samples this close to a window count as "near the runs"
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
        try:
            start = end - dt.timedelta(seconds=float(duration))
        except OverflowError:   # a duration reaching before year 1: no window to place
            continue
        rows.append({"engine": e, "concurrency": float(c),
                     "start": start, "end": end,
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


def window_counter(t_s: np.ndarray, energy_mj: np.ndarray, start: float, end: float
                   ) -> float:
    """Joules of one GPU over [start, end] from an energy counter (mJ): the counter
    interpolated at both edges; NaN unless samples bracket the window and the counter never
    went backwards inside it (a reset)."""
    keep = np.isfinite(t_s) & np.isfinite(energy_mj)
    t, e = t_s[keep], energy_mj[keep]
    order = np.argsort(t, kind="stable")
    t, e = t[order], e[order]
    if t.size < 2 or t[0] > start or t[-1] < end:
        return math.nan
    lo = np.searchsorted(t, start, side="right") - 1
    hi = np.searchsorted(t, end, side="left")
    if np.any(np.diff(e[lo:hi + 1]) < 0):
        return math.nan
    return float(np.interp(end, t, e) - np.interp(start, t, e)) / 1000


def _column(frame: pd.DataFrame, name: str) -> np.ndarray:
    if name not in frame.columns:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(float)


def tier_telemetry(gpu: pd.DataFrame | None, windows: pd.DataFrame, engine: str,
                   source: str = "nvidia-smi") -> pd.DataFrame:
    """TELEMETRY_COLUMNS for one configuration's tiers (its runs pooled: energy and tokens
    summed, power = energy ÷ summed duration). ``gpu`` has a local-clock ``timestamp``, an
    ``index`` per GPU and ``power_draw_w``; ``energy_mj`` (DCGM's counter), ``sm_active`` and
    ``utilization_gpu_pct`` where measured. The engine columns are left NaN here."""
    mine = windows[windows["engine"] == engine]
    if gpu is None or gpu.empty or mine.empty or "timestamp" not in gpu.columns \
            or "power_draw_w" not in gpu.columns:
        return pd.DataFrame(columns=list(TELEMETRY_COLUMNS))
    origin = pd.Timestamp(min(mine["start"].min(), gpu["timestamp"].min()))
    t_all = (pd.to_datetime(gpu["timestamp"]) - origin).dt.total_seconds().to_numpy(float)
    power = _column(gpu, "power_draw_w")
    util = _column(gpu, "utilization_gpu_pct")
    sm = _column(gpu, "sm_active")
    counter = _column(gpu, "energy_mj")
    index = gpu["index"].to_numpy() if "index" in gpu.columns else np.zeros(len(gpu))
    boards = list(dict.fromkeys(index.tolist()))
    rows = []
    for c, runs in mine.groupby("concurrency", sort=True):
        energy, samples, status, utils, sms = 0.0, 0, "ok", [], []
        for w in runs.itertuples(index=False):
            start = (pd.Timestamp(cast(Any, w.start)) - origin).total_seconds()
            end = (pd.Timestamp(cast(Any, w.end)) - origin).total_seconds()
            for board in boards:
                sel = index == board
                e, n, s = window_energy(t_all[sel], power[sel], start, end)
                exact = window_counter(t_all[sel], counter[sel], start, end)
                energy += exact if s == "ok" and math.isfinite(exact) else e
                samples += n
                status = s if status == "ok" else status
                within = sel & (t_all >= start) & (t_all <= end)
                utils.append(util[within])
                sms.append(sm[within])
        duration = float(runs["duration_s"].sum())
        tokens = float(runs["output_tokens"].sum())
        ok = status == "ok"
        rows.append({
            "engine": engine, "concurrency": float(cast(float, c)), "runs": len(runs),
            "gpus": len(boards),
            "samples": samples, "duration_s": duration,
            "mean_power_w": energy / duration if ok else math.nan,
            "energy_j": energy if ok else math.nan, "output_tokens": tokens,
            "energy_per_output_token_j": energy / tokens if ok and tokens > 0 else math.nan,
            "gpu_util_pct": _mean(utils), "status": status, "source": source,
            "sm_active_pct": _mean(sms) * 100, **dict.fromkeys(ENGINE_COLUMNS, math.nan)})
    return pd.DataFrame(rows, columns=list(TELEMETRY_COLUMNS))


def _mean(parts: list[np.ndarray]) -> float:
    joined = np.concatenate(parts) if parts else np.array([])
    joined = joined[np.isfinite(joined)]
    return float(joined.mean()) if joined.size else math.nan


def tier_engine(series: pd.DataFrame | None, windows: pd.DataFrame, engine: str
                ) -> pd.DataFrame:
    """engine, concurrency and ENGINE_COLUMNS per tier from engine gauges with a local-clock
    ``timestamp``: the mean of the running / waiting samples inside the tier's windows, the
    highest KV usage sampled there, and the preemption counter's rise over each window (its
    last sample at or before the end minus its last at or before the start; NaN without one
    before the start, or after a reset)."""
    mine = windows[windows["engine"] == engine]
    cols = ["engine", "concurrency", *ENGINE_COLUMNS]
    if series is None or series.empty or mine.empty:
        return pd.DataFrame(columns=cols)
    t = pd.to_datetime(series["timestamp"]).to_numpy("datetime64[ns]")
    running, waiting = _column(series, "running"), _column(series, "waiting")
    kv, counter = _column(series, "kv_usage"), _column(series, "preemptions_total")
    rows = []
    for c, runs in mine.groupby("concurrency", sort=True):
        inside = np.zeros(len(series), dtype=bool)
        preempted = 0.0
        for w in runs.itertuples(index=False):
            lo = np.datetime64(pd.Timestamp(cast(Any, w.start)).value, "ns")
            hi = np.datetime64(pd.Timestamp(cast(Any, w.end)).value, "ns")
            inside |= (t >= lo) & (t <= hi)
            preempted += _rise(t, counter, lo, hi)
        rows.append({"engine": engine, "concurrency": float(cast(float, c)),
                     "mean_running": _mean([running[inside]]),
                     "mean_waiting": _mean([waiting[inside]]),
                     "peak_kv_usage": float(np.nanmax(kv[inside]))
                     if np.isfinite(kv[inside]).any() else math.nan,
                     "preemptions": preempted})
    return pd.DataFrame(rows, columns=cols)


def _rise(t: np.ndarray, counter: np.ndarray, lo: np.datetime64, hi: np.datetime64) -> float:
    keep = np.isfinite(counter)
    t, counter = t[keep], counter[keep]
    before, last = np.flatnonzero(t <= lo), np.flatnonzero(t <= hi)
    if not before.size:
        return math.nan
    span = counter[before[-1]:last[-1] + 1]
    if np.any(np.diff(span) < 0):
        return math.nan
    return float(span[-1] - span[0])


def utc_to_local(time_s: pd.Series, offset_min: float) -> pd.DatetimeIndex:
    """Seconds since the epoch (UTC) → naive datetimes on the host's local clock."""
    return pd.to_datetime(time_s.to_numpy(float) * 1e9 + offset_min * 60e9, unit="ns")


@dataclass(frozen=True)
class AlignmentNote:
    """Why some telemetry of ``engine`` is not in the table: ``kind`` ``no_offset`` (UTC
    samples, no utc_offset), ``untimed`` (samples with no timestamp), ``outside`` (no sample
    within a minute of any run window: the clock or the offset may be wrong) or ``no_window``
    (the results record no run end time); ``files`` as shown."""
    engine: str
    kind: str
    files: str


def near_windows(timestamps: pd.Series, windows: pd.DataFrame, engine: str) -> bool:
    """Whether any sample lies inside one of ``engine``'s windows widened by a minute."""
    mine = windows[windows["engine"] == engine]
    t = pd.to_datetime(timestamps).to_numpy("datetime64[ns]")
    pad = pd.Timedelta(seconds=MARGIN_S)
    for w in mine.itertuples(index=False):
        lo = (pd.Timestamp(cast(Any, w.start)) - pad).to_datetime64()
        hi = (pd.Timestamp(cast(Any, w.end)) + pad).to_datetime64()
        if np.any((t >= lo) & (t <= hi)):
            return True
    return False


def combine(gpu_rows: pd.DataFrame, engine_rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (engine, tier) with any telemetry: the engine columns filled in where
    gauges were sampled; a tier with gauges but no GPU samples has status ``no_gpu``."""
    if engine_rows.empty:
        return gpu_rows
    if gpu_rows.empty:
        out = engine_rows.assign(status="no_gpu", source="")
        for col in TELEMETRY_COLUMNS:
            if col not in out.columns:
                out[col] = math.nan
        return out[list(TELEMETRY_COLUMNS)]
    merged = gpu_rows.drop(columns=list(ENGINE_COLUMNS)).merge(
        engine_rows, on=["engine", "concurrency"], how="outer", sort=True)
    merged["status"] = merged["status"].fillna("no_gpu")
    merged["source"] = merged["source"].fillna("")
    return merged[list(TELEMETRY_COLUMNS)]


def run_span(windows: pd.DataFrame, engine: str, margin_s: float = MARGIN_S
             ) -> tuple[pd.Timestamp, pd.Timestamp] | None:
    """From ``margin_s`` before ``engine``'s first run to as long after its last (what the
    timeline draws); None when it has no run window."""
    mine = windows[windows["engine"] == engine]
    if mine.empty:
        return None
    pad = pd.Timedelta(seconds=margin_s)
    return pd.Timestamp(mine["start"].min()) - pad, pd.Timestamp(mine["end"].max()) + pad


def telemetry_samples(gpus: dict[str, pd.DataFrame], windows: pd.DataFrame,
                      margin_s: float = MARGIN_S) -> pd.DataFrame:
    """engine, timestamp, index, power_draw_w: each configuration's samples from a minute
    before its first run to a minute after its last (what the timeline draws)."""
    parts = []
    for engine, gpu in gpus.items():
        span = run_span(windows, engine, margin_s)
        if gpu is None or gpu.empty or span is None or "power_draw_w" not in gpu.columns:
            continue
        lo, hi = span
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
