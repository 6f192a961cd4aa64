"""Per-tier table: one row per engine × concurrency from the bench summary rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

# bench summary column -> tiers column (SPEC §3 names: p50 = the client's "median")
STAT_COLUMNS: dict[str, str] = {
    "ttft_median_ms": "ttft_p50_ms",
    "ttft_p99_ms": "ttft_p99_ms",
    "ttft_mean_ms": "ttft_mean_ms",
    "itl_median_ms": "itl_p50_ms",
    "itl_mean_ms": "itl_mean_ms",
    "itl_p99_ms": "itl_p99_ms",
    "tpot_median_ms": "tpot_p50_ms",
    "tpot_mean_ms": "tpot_mean_ms",
    "e2el_median_ms": "e2el_p50_ms",
    "e2el_mean_ms": "e2el_mean_ms",
}

# the file's own throughput keys, as written (the page computes its own from the counts; these
# are kept so that `diff` shows an edit of a key even when the value used did not move)
FILE_KEY_COLUMNS: dict[str, str] = {
    "output_throughput_tok_s": "file_output_tok_s",
    "request_throughput_req_s": "file_request_req_s",
    "total_token_throughput_tok_s": "file_total_tok_s",
}

BASE_COLUMNS: tuple[str, ...] = (
    "engine", "concurrency", "requests", "completed", "failed", "duration_s",
    "total_input_tokens", "total_output_tokens", "output_tok_s", "total_tok_s",
    *STAT_COLUMNS.values(), "mean_output_tokens", *FILE_KEY_COLUMNS.values(),
)


REPEAT_COLUMNS = ("repeats", "output_tok_s_min", "output_tok_s_max", "requests_per_run",
                  "failed_min", "failed_max")

# Counts are summed over a tier's repeats, never a median: one repeat with 2 failed requests
# out of three must leave 2 failed on the page, and the setup totals count every request sent.
# Tokens are summed with them so that tokens per completed request stays a true ratio.
SUMMED_COLUMNS = ("num_prompts", "completed", "failed", "total_input_tokens",
                  "total_output_tokens")


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    """A float column, all-NaN when the input never had it (old clients omit keys)."""
    if name in frame.columns:
        return pd.to_numeric(frame[name], errors="coerce").astype(float)
    return pd.Series(np.nan, index=frame.index, dtype=float)


def _per_second(amount: pd.Series, duration_s: pd.Series) -> pd.Series:
    ok = duration_s > 0
    return (amount / duration_s).where(ok)


def empty_tiers() -> pd.DataFrame:
    frame = pd.DataFrame({name: pd.Series(dtype=float) for name in BASE_COLUMNS})
    frame["engine"] = frame["engine"].astype(str)
    frame["concurrency"] = frame["concurrency"].astype("int64")
    return frame


def axis_values(values: pd.Series) -> pd.Series:
    """Whole numbers stay integers (concurrency tiers); a request-rate axis may hold
    fractions and inf."""
    finite = np.isfinite(values)
    if finite.all() and (values == values.round()).all():
        return values.astype("int64")
    return values.astype(float)


REPEAT_KEYS = ("engine", "concurrency")


def aggregate_repeats(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per (configuration, tier) from several runs of it: the counts of
    ``SUMMED_COLUMNS`` are summed over every repeat, every other numeric column is the median
    across repeats (robust to one disturbed run); ``repeats`` counts them,
    ``output_tok_s_min``/``_max`` keep the spread, from each run's tokens ÷ duration,
    ``requests_per_run`` (median) is what one run sent (waves count one run) and
    ``failed_min``/``_max`` show repeats that disagree on failures."""
    if summary.empty or "repeat" not in summary.columns:
        return summary
    if "failed" in summary.columns and "num_prompts" in summary.columns:
        # a run that does not state its failures: sent − completed, as for a single run
        summary = summary.assign(failed=summary["failed"].fillna(
            summary["num_prompts"] - summary["completed"]))
    ok = summary["duration_s"] > 0
    per_run = (summary["total_output_tokens"] / summary["duration_s"]).where(ok).fillna(
        summary["output_throughput_tok_s"])
    total = ((summary["total_input_tokens"] + summary["total_output_tokens"])
             / summary["duration_s"]).where(ok).fillna(summary["total_token_throughput_tok_s"])
    work = summary.assign(_tok_s=per_run, _total_tok_s=total)
    groups = work.groupby(list(REPEAT_KEYS), sort=False, dropna=False)
    numeric = [c for c in work.columns if c not in REPEAT_KEYS
               and pd.api.types.is_numeric_dtype(work[c]) and work[c].dtype != bool]
    first = groups.first()
    med = groups[numeric].median()
    # built in one concat: a column set at a time fragments a wide frame (a round of several
    # clients has hundreds of metric columns) and pandas warns on stderr
    base = pd.concat([first.drop(columns=numeric), med], axis=1)[list(first.columns)]
    extra: dict[str, pd.Series] = {}
    for column in SUMMED_COLUMNS:
        if column in numeric:
            extra[column] = groups[column].sum(min_count=1)
    extra["repeats"] = groups.size()
    if "num_prompts" in numeric:
        extra["requests_per_run"] = med["num_prompts"]
    if "failed" in numeric:
        extra["failed_min"] = groups["failed"].min()
        extra["failed_max"] = groups["failed"].max()
    extra["output_tok_s_min"] = groups["_tok_s"].min()
    extra["output_tok_s_max"] = groups["_tok_s"].max()
    # the tier's throughput is the median of the runs' throughputs, not a ratio of medians
    extra["output_tok_s_median"] = groups["_tok_s"].median()
    extra["total_tok_s_median"] = groups["_total_tok_s"].median()
    out = pd.concat([base.drop(columns=[c for c in extra if c in base.columns]),
                     pd.DataFrame(extra)], axis=1)
    return out.drop(columns=["_tok_s", "_total_tok_s"]).reset_index()


def select_tier_rows(summary: pd.DataFrame, engine_order: Sequence[str]) -> pd.DataFrame:
    """Rows that sit on the round's axis: known engine, a value on the axis (an inf request
    rate is the last point of a rate sweep); the last record wins when a tier was run twice
    (checks.duplicate_tiers reports it)."""
    if summary.empty or "engine" not in summary.columns:
        return summary.iloc[0:0]
    conc = _column(summary, "concurrency")
    keep = summary["engine"].isin(list(engine_order)) & conc.notna() & (conc > 0)
    rows = summary[keep]
    return rows[~rows.duplicated(["engine", "concurrency"], keep="last")]


def tier_stats(summary: pd.DataFrame, engine_order: Sequence[str]) -> pd.DataFrame:
    """Measured per-tier figures, sorted by manifest engine order then concurrency.

    Throughputs are recomputed as tokens / duration (the client's own keys are the fallback),
    so they follow corrected token counts.
    """
    rows = select_tier_rows(summary, engine_order)
    if rows.empty:
        return empty_tiers()
    out = pd.DataFrame(index=rows.index)
    out["engine"] = rows["engine"].astype(str)
    out["concurrency"] = axis_values(_column(rows, "concurrency"))
    out["requests"] = _column(rows, "num_prompts")
    out["completed"] = _column(rows, "completed")
    failed = _column(rows, "failed")
    # a file that states completed and failed but not what was sent (a tidy CSV) still counts
    # its requests: "1 of 3201 failed", never "1 of ?"
    out["requests"] = out["requests"].fillna(out["completed"] + failed)
    out["failed"] = failed.fillna(out["requests"] - out["completed"])
    out["duration_s"] = _column(rows, "duration_s")
    out["total_input_tokens"] = _column(rows, "total_input_tokens")
    out["total_output_tokens"] = _column(rows, "total_output_tokens")
    out["output_tok_s"] = _per_second(out["total_output_tokens"], out["duration_s"]).fillna(
        _column(rows, "output_throughput_tok_s"))
    out["total_tok_s"] = _per_second(
        out["total_input_tokens"] + out["total_output_tokens"], out["duration_s"]
    ).fillna(_column(rows, "total_token_throughput_tok_s"))
    for source, target in STAT_COLUMNS.items():
        out[target] = _column(rows, source)
    out["mean_output_tokens"] = (out["total_output_tokens"] / out["completed"]).where(
        out["completed"] > 0)
    for source, target in FILE_KEY_COLUMNS.items():
        out[target] = _column(rows, source)
    if "output_tok_s_median" in rows.columns:
        out["output_tok_s"] = _column(rows, "output_tok_s_median")
        out["total_tok_s"] = _column(rows, "total_tok_s_median")
    for column in REPEAT_COLUMNS:
        if column in rows.columns:
            out[column] = _column(rows, column)
    rank = {engine: i for i, engine in enumerate(engine_order)}
    out["_rank"] = out["engine"].map(rank)
    out = out.sort_values(["_rank", "concurrency"], kind="stable").drop(columns="_rank")
    extra = [c for c in REPEAT_COLUMNS if c in out.columns]
    return out.reset_index(drop=True)[[*BASE_COLUMNS, *extra]]


# A pooled gap whose median is below this is no decode step: a GPU forward pass of a served
# model takes milliseconds, so such a median counts the zero gaps of tokens delivered together
# in one chunk (inference-perf, AIPerf's received chunks).
MIN_STEP_MS = 1.0


def decode_step(tiers: pd.DataFrame, itl_is_step: Mapping[str, bool | None]
                ) -> tuple[pd.DataFrame, dict[str, str]]:
    """``step_p50_ms``: each tier's decode step, and configuration → its basis ("itl" or
    "tpot"; absent when neither is known).

    One basis per configuration, so a curve never mixes them: the pooled ITL p50 when the
    client's ITL is a gap between decode steps (``itl_is_step``: True, or None when the client
    does not say) and every tier's ITL p50 is at least ``MIN_STEP_MS``; else the per-request
    TPOT p50; NaN when neither is measured."""
    out = tiers.copy()
    itl, tpot = _column(out, "itl_p50_ms"), _column(out, "tpot_p50_ms")
    step = pd.Series(np.nan, index=out.index, dtype=float)
    basis: dict[str, str] = {}
    for engine in dict.fromkeys(out["engine"]):
        own = (out["engine"] == engine).to_numpy()
        gaps, per_request = itl[own].dropna(), tpot[own].dropna()
        if itl_is_step.get(str(engine)) is not False and len(gaps) \
                and bool((gaps >= MIN_STEP_MS).all()):
            basis[str(engine)] = "itl"
            step[own] = itl[own]
        elif len(per_request):
            basis[str(engine)] = "tpot"
            step[own] = tpot[own]
    out["step_p50_ms"] = step
    return out, basis


def latency_shape(tiers: pd.DataFrame) -> pd.DataFrame:
    """Stall indicators and per-slot decode rate.

    wait_ratio = mean TPOT / decode step − 1 (``step_p50_ms``, see decode_step: the ITL p50,
    or the TPOT p50 where the ITL is no decode step): how much longer a request's average gap
    is than a typical step (time spent waiting behind other requests' prefill).
    per_slot_tok_s = 1000 / decode step.
    tpot_implied_ms = (mean E2EL − mean TTFT) / (mean output tokens − 1): the mean TPOT the
    end-to-end times imply. Requests that stop early have a huge per-request TPOT and lift
    mean TPOT above it; wait_ratio_implied uses it instead and is free of that skew.
    """
    out = tiers.copy()
    step = out["step_p50_ms"] if "step_p50_ms" in out.columns else out["itl_p50_ms"]
    itl = step.where(step > 0)
    out["wait_ratio"] = out["tpot_mean_ms"] / itl - 1.0
    nan = pd.Series(np.nan, index=out.index)
    n, e2el, ttft = (out.get(c, nan) for c in ("mean_output_tokens", "e2el_mean_ms",
                                                "ttft_mean_ms"))
    out["tpot_implied_ms"] = (e2el - ttft).where(e2el > ttft) / (n - 1.0).where(n > 1)
    out["wait_ratio_implied"] = out["tpot_implied_ms"] / itl - 1.0
    out["itl_mean_over_p50"] = out["itl_mean_ms"] / out["itl_p50_ms"].where(out["itl_p50_ms"] > 0)
    out["per_slot_tok_s"] = 1000.0 / itl
    return out


def mark_excluded(tiers: pd.DataFrame, exclude: Mapping[str, Sequence[int]]) -> pd.DataFrame:
    """Flag tiers listed in [analysis].exclude_from_conclusions (kept in tables, never used in
    headline figures)."""
    out = tiers.copy()
    out["excluded"] = [
        c in set(exclude.get(e, ())) for e, c in zip(out["engine"], out["concurrency"],
                                                          strict=True)
    ]
    return out


def usable(tiers: pd.DataFrame) -> pd.DataFrame:
    """Tiers allowed to feed headline figures."""
    if "excluded" not in tiers.columns:
        return tiers
    return tiers[~tiers["excluded"].astype(bool)]
