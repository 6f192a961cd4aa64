"""Goodput at the reader's SLO, and the capacity of each configuration at that SLO, with its
confidence.

Rules (vLLM's `--goodput`, DistServe's definition): a request is good when it succeeded and
each threshold the objective names holds inclusively (value ≤ threshold, compared in seconds
as vLLM does); a failed request is never good; a value that is unknown never meets a
threshold. A tier pools all its repeats: attainment = good ÷ sent, goodput = good ÷ the
summed duration of its runs.

Confidence of a tier's attainment (95 %): the Wilson score interval of good out of sent.
Where the tier ran two or more times (repeats), the interval also covers the run-to-run
spread: mean of the runs' attainments ± t(0.975, runs − 1) · sd ÷ √runs; the tier's interval
is the wider of the two (``interval_basis`` says ``repeats`` then, ``binomial`` otherwise).

Capacity at SLO: the highest load (the sweep axis) at which at least ``target`` of the
requests are good. With attainment a_i at tier x_i (usable tiers, ascending), take the last
tier i with a_i ≥ target; when a next tier exists, interpolate linearly in load to where the
line from (x_i, a_i) to (x_{i+1}, a_{i+1}) crosses the target (``interpolated``); when none
does (or the next is an unbounded rate), the capacity is at least x_i (``at_least``: the
highest tier tested meets it); when no tier meets the target, there is none (``none``, NaN).
The same crossing along the intervals' lower and upper ends gives the capacity's interval
(``capacity_low``, ``capacity_high``). When a tier the verdict rests on (tiers i and i+1;
the highest for ``at_least``; the lowest for ``none``) has an interval that straddles the
target (low < target ≤ high), the round cannot tell: status ``undecided`` at that tier
(``undecided_tier``), the point value kept for reference.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import cast

import numpy as np
import pandas as pd

from reportgen.analyze.values import Value, flatten_rows
from reportgen.slo import METRICS, Slo
from reportgen.text.bilingual import Bi

GOODPUT_COLUMNS = ("engine", "concurrency", "requests_sent", "requests_good", "attainment",
                   "attainment_low", "attainment_high", "interval_basis", "runs",
                   "duration_s", "goodput_rps")
CAPACITY_COLUMNS = ("engine", "capacity", "capacity_low", "capacity_high", "status",
                    "undecided_tier", "lower_tier", "upper_tier", "attainment_lower",
                    "attainment_upper", "target")   # + REPLICA_COLUMNS (with_replicas)
TIER_KEYS = ["engine", "concurrency"]
# the two-sided 95 % normal quantile (Wilson) and Student t quantiles t(0.975, df), df 1-30
# (beyond 30 the normal quantile); slo.js receives the same table in its data block
Z95 = 1.959963984540054
T975 = (12.706204736174696, 4.302652729749464, 3.182446305284263, 2.7764451051977934,
        2.5705818356363146, 2.446911851144969, 2.364624251592785, 2.3060041352041662,
        2.2621571627982053, 2.2281388519862744, 2.200985160082949, 2.1788128296672284,
        2.1603686564610127, 2.1447866879169273, 2.131449545559323, 2.1199052992210112,
        2.1098155778331806, 2.100922040241036, 2.093024054408263, 2.0859634472658364,
        2.0796138447276626, 2.0738730679040147, 2.0686576104190406, 2.0638985616280205,
        2.0595385527532946, 2.0555294386428713, 2.0518305164802833, 2.048407141795244,
        2.045229642132703, 2.0422724563012373)
DECIDED = ("interpolated", "at_least")


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


MISSING_COLUMNS = ("engine", "client", "reason", "why")
# clients with their own sentence in analysis.toml [requests.missing]
CLIENTS_EXPLAINED = ("vllm", "sglang", "aiperf", "genai-perf", "guidellm", "inference-perf",
                     "llmperf", "inferencex", "tidy")


def missing_requests(summary: pd.DataFrame, per_request: pd.DataFrame, order: list[str],
                     labels: Mapping[str, Bi]) -> pd.DataFrame:
    """MISSING_COLUMNS: one row per configuration of ``order`` with runs but no per-request
    value, naming its client, the reason (``listed_not_counted``: the client's request list
    does not match the run's count, as GuideLLM's sampled or warm-up lists; else
    ``not_recorded``) and, as ``why`` (Bi), the client's own flag or setting that records
    them (templates/i18n/analysis.toml [requests.missing])."""
    from reportgen.analyze.checks import strings

    have = set(per_request["engine"].unique()) if len(per_request) else set()
    rows = []
    for engine in order:
        mine = summary[summary["engine"] == engine] if "engine" in summary.columns \
            else summary.iloc[0:0]
        if engine in have or mine.empty:
            continue
        clients = [str(c) for c in mine["client"]] if "client" in mine.columns else []
        client = clients[0] if clients else "vllm"
        notes = [m.get("requests_note") for m in mine.get("metadata", pd.Series(dtype=object))
                 if isinstance(m, dict) and isinstance(m.get("requests_note"), str)]
        name = labels.get(engine, Bi.plain(engine))
        if notes:
            listed, _, counted = str(notes[0]).partition("/")
            reason, key = "listed_not_counted", f"{client}_listed"
            why = strings().bi(f"requests.missing.{key}", engine=name, listed=listed,
                               counted=counted)
        else:
            reason = "not_recorded"
            key = client if client in CLIENTS_EXPLAINED else "other"
            why = strings().bi(f"requests.missing.{key}", engine=name, client=client)
        rows.append({"engine": engine, "client": client, "reason": reason, "why": why})
    return pd.DataFrame(rows, columns=list(MISSING_COLUMNS))


def t975(df: int) -> float:
    return T975[df - 1] if 1 <= df <= len(T975) else Z95


def wilson(good: float, sent: float) -> tuple[float, float]:
    """The 95 % Wilson score interval of good ÷ sent; (NaN, NaN) for no request."""
    if not sent > 0:
        return math.nan, math.nan
    p, z2 = good / sent, Z95 * Z95
    denom = 1 + z2 / sent
    centre = (p + z2 / (2 * sent)) / denom
    half = Z95 / denom * math.sqrt(p * (1 - p) / sent + z2 / (4 * sent * sent))
    return max(0.0, centre - half), min(1.0, centre + half)


def attainment_interval(good: list[int], sent: list[int]) -> tuple[float, float, str]:
    """(low, high, basis) of a tier whose runs had ``good`` of ``sent`` requests good (one
    entry per run): Wilson on the pooled counts, widened to the repeats' t interval when
    there are two or more runs."""
    low, high = wilson(float(sum(good)), float(sum(sent)))
    shares = [g / s for g, s in zip(good, sent, strict=True) if s > 0]
    if len(shares) < 2:
        return low, high, "binomial"
    k = len(shares)
    mean = sum(shares) / k
    sd = math.sqrt(sum((a - mean) ** 2 for a in shares) / (k - 1))
    half = t975(k - 1) * sd / math.sqrt(k)
    return min(low, max(0.0, mean - half)), max(high, min(1.0, mean + half)), "repeats"


def goodput_table(per_request: pd.DataFrame, durations: pd.DataFrame,
                  slo: Slo) -> pd.DataFrame:
    """GOODPUT_COLUMNS, one row per tier of ``per_request`` in its order."""
    if per_request.empty:
        return pd.DataFrame(columns=list(GOODPUT_COLUMNS))
    frame = per_request[[*TIER_KEYS, "source", "record"]].assign(
        good=good_requests(per_request, slo))
    per_run = frame.groupby([*TIER_KEYS, "source", "record"], sort=False).agg(
        sent=("good", "size"), good=("good", "sum")).reset_index()
    intervals = {}
    for key, runs in per_run.groupby(TIER_KEYS, sort=False):
        intervals[key] = (*attainment_interval([int(g) for g in runs["good"]],
                                               [int(s) for s in runs["sent"]]), len(runs))
    counts = frame.groupby(TIER_KEYS, sort=False).agg(
        requests_sent=("good", "size"), requests_good=("good", "sum")).reset_index()
    out = counts.merge(durations, on=TIER_KEYS, how="left")
    sent = out["requests_sent"].to_numpy(float)
    good = out["requests_good"].to_numpy(float)
    duration = out["duration_s"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["attainment"] = np.where(sent > 0, good / sent, np.nan)
        out["goodput_rps"] = np.where(duration > 0, good / duration, np.nan)
    found = [intervals[(e, c)] for e, c in out[TIER_KEYS].itertuples(index=False, name=None)]
    out["attainment_low"] = [f[0] for f in found]
    out["attainment_high"] = [f[1] for f in found]
    out["interval_basis"] = [f[2] for f in found]
    out["runs"] = [f[3] for f in found]
    out["requests_sent"] = out["requests_sent"].astype(int)
    out["requests_good"] = out["requests_good"].astype(int)
    return out[list(GOODPUT_COLUMNS)]


def capacity(loads: np.ndarray, attainment: np.ndarray, target: float
             ) -> tuple[float, str, float, float, float, float]:
    """(capacity, status, lower tier, upper tier, attainment there) along one attainment
    curve of one configuration's usable tiers, ascending (see the module docstring)."""
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


def capacity_verdict(loads: np.ndarray, attainment: np.ndarray, low: np.ndarray,
                     high: np.ndarray, target: float) -> dict[str, float | str]:
    """One configuration's capacity row (CAPACITY_COLUMNS but engine and target): the point
    crossing, its interval from the intervals' ends, and ``undecided`` when a tier the
    verdict rests on straddles the target."""
    ok = np.isfinite(attainment)
    loads, attainment, low, high = loads[ok], attainment[ok], low[ok], high[ok]
    cap, status, lo, hi, a_lo, a_hi = capacity(loads, attainment, target)
    cap_low = capacity(loads, low, target)[0]
    cap_high = capacity(loads, high, target)[0]
    if status == "interpolated":
        rests = [lo, hi]
    elif status == "at_least":
        rests = [lo]
    else:
        rests = [float(loads[0])] if loads.size else []
    undecided = math.nan
    for tier in rests:
        j = int(np.flatnonzero(loads == tier)[0])
        if low[j] < target <= high[j]:
            undecided = tier
            break
    return {"capacity": cap, "capacity_low": cap_low, "capacity_high": cap_high,
            "status": status if math.isnan(undecided) else "undecided",
            "undecided_tier": undecided, "lower_tier": lo, "upper_tier": hi,
            "attainment_lower": a_lo, "attainment_upper": a_hi}


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
        row = capacity_verdict(
            mine["concurrency"].to_numpy(float), mine["attainment"].to_numpy(float),
            mine["attainment_low"].to_numpy(float), mine["attainment_high"].to_numpy(float),
            target)
        rows.append({"engine": engine, **row, "target": target})
    return pd.DataFrame(rows, columns=list(CAPACITY_COLUMNS))


REPLICA_COLUMNS = ("replica_req_s", "replica_output_tok_s", "gpus", "per_gpu_req_s",
                   "per_gpu_output_tok_s")
LOAD_COLUMNS = ("engine", "load", "unit", "per_replica", "bound", "replicas", "gpus_per_replica",
                "gpus", "status")
LOAD_UNITS = {"req/s": "replica_req_s", "tok/s": "replica_output_tok_s"}


def tier_rates(tiers: pd.DataFrame) -> pd.DataFrame:
    """engine, concurrency, req_s (completed ÷ duration), output_tok_s of each tier."""
    with np.errstate(divide="ignore", invalid="ignore"):
        req_s = tiers["completed"].to_numpy(float) / tiers["duration_s"].to_numpy(float)
    return pd.DataFrame({"engine": tiers["engine"].astype(str).to_numpy(),
                         "concurrency": tiers["concurrency"].to_numpy(float), "req_s": req_s,
                         "output_tok_s": tiers["output_tok_s"].to_numpy(float)})


def rate_at(loads: np.ndarray, rates: np.ndarray, load: float, lo: float, hi: float) -> float:
    """A tier rate at ``load``: the measured one at tier ``lo``, or linear between ``lo``
    and ``hi`` (the tiers either side of an interpolated capacity)."""
    at = {float(x): float(r) for x, r in zip(loads, rates, strict=True)}
    if lo not in at:
        return math.nan
    if not math.isfinite(hi) or hi not in at or load == lo:
        return at[lo]
    return at[lo] + (load - lo) / (hi - lo) * (at[hi] - at[lo])


def with_replicas(capacity_frame: pd.DataFrame, rates: pd.DataFrame,
                  gpus: Mapping[str, int]) -> pd.DataFrame:
    """The capacity table with what one replica carries at capacity (REPLICA_COLUMNS): the
    request and output-token rates measured there (interpolated along the tiers, as the
    capacity is), per replica and per GPU; only for ``interpolated`` (a value) and
    ``at_least`` (a lower bound, at the highest tier tested); NaN where the round cannot
    tell or none meets the SLO."""
    out = capacity_frame.copy()
    values: dict[str, list[float]] = {c: [] for c in REPLICA_COLUMNS}
    for row in capacity_frame.itertuples(index=False):
        mine = rates[rates["engine"] == row.engine]
        count = float(gpus.get(str(row.engine), 1) or 1)
        req = tok = math.nan
        if row.status in DECIDED:
            loads = mine["concurrency"].to_numpy(float)
            args = (float(cast(float, row.capacity)), float(cast(float, row.lower_tier)),
                    float(cast(float, row.upper_tier)))
            req = rate_at(loads, mine["req_s"].to_numpy(float), *args)
            tok = rate_at(loads, mine["output_tok_s"].to_numpy(float), *args)
        for name, value in zip(REPLICA_COLUMNS, (req, tok, count, req / count, tok / count),
                               strict=True):
            values[name].append(value)
    for name in REPLICA_COLUMNS:
        out[name] = values[name]
    return out


def load_table(capacity_frame: pd.DataFrame, load: float, unit: str) -> pd.DataFrame:
    """LOAD_COLUMNS: per configuration, the replicas and GPUs that carry ``load`` (``unit``
    req/s or tok/s of output) within the SLO: ceil(load ÷ what one replica carries at
    capacity). ``bound`` ``at_most`` where the capacity is only a lower bound (every tier
    passed: fewer replicas may do); ``status`` the capacity's; NaN where it cannot tell."""
    column = LOAD_UNITS[unit]
    rows = []
    for row in capacity_frame.itertuples(index=False):
        per = float(getattr(row, column))
        ok = math.isfinite(per) and per > 0
        replicas = float(math.ceil(load / per)) if ok else math.nan
        rows.append({"engine": row.engine, "load": load, "unit": unit, "per_replica": per,
                     "bound": ("at_most" if row.status == "at_least" else "exact") if ok
                     else "", "replicas": replicas,
                     "gpus_per_replica": float(cast(float, row.gpus)),
                     "gpus": replicas * float(cast(float, row.gpus)), "status": row.status})
    return pd.DataFrame(rows, columns=list(LOAD_COLUMNS))


def most_capacity(capacity_frame: pd.DataFrame) -> str | None:
    """The configuration that carries the most load within the SLO with confidence: among
    the decided ones (``interpolated``, ``at_least``), the highest point capacity, when its
    interval's low end lies above every other decided one's high end (an ``at_least`` one's
    high end is unbounded). None when no configuration is decided, or the lead is within the
    intervals (a tie is not a lead)."""
    decided = capacity_frame[capacity_frame["status"].isin(DECIDED)]
    if decided.empty:
        return None
    point = decided["capacity"].to_numpy(float)
    i = int(np.argmax(point))
    best = decided.iloc[i]
    for j in range(len(decided)):
        if j == i:
            continue
        other = decided.iloc[j]
        ceiling = math.inf if other["status"] == "at_least" else float(other["capacity_high"])
        if not float(best["capacity_low"]) > ceiling:
            return None
    return str(best["engine"])


def slo_values(slo: Slo | None, goodput: pd.DataFrame, capacity_frame: pd.DataFrame,
               labels: dict[str, str]) -> dict[str, Value]:
    """The ``slo.*`` and ``capacity.*`` narrative names (ARCHITECTURE.md, values table)."""
    if slo is None:
        return {}
    v: dict[str, Value] = {f"slo.{m}_ms": slo.threshold(m) for m in METRICS}
    v["slo.target"] = slo.target
    v["slo.source"] = slo.source
    v |= flatten_rows(goodput, "slo", "engine",
                      ("requests_sent", "requests_good", "attainment", "attainment_low",
                       "attainment_high", "goodput_rps"))
    for row in capacity_frame.itertuples(index=False):
        v[f"capacity.{row.engine}.load"] = float(cast(float, row.capacity))
        v[f"capacity.{row.engine}.low"] = float(cast(float, row.capacity_low))
        v[f"capacity.{row.engine}.high"] = float(cast(float, row.capacity_high))
        v[f"capacity.{row.engine}.status"] = str(row.status)
        v[f"capacity.{row.engine}.undecided_tier"] = float(cast(float, row.undecided_tier))
    best = most_capacity(capacity_frame)
    v["capacity.best"] = best
    v["capacity.best_label"] = labels.get(best) if best is not None else None
    v["capacity.best_load"] = (float(capacity_frame.loc[capacity_frame["engine"] == best,
                                                        "capacity"].iloc[0])
                               if best is not None else math.nan)
    return v


# Cost per million tokens at the reader's $/GPU-hour (issue 32, Build 5). A tier's GPU time
# is what its runs held: GPUs × the summed duration of its runs with per-request rows
# (tier_durations), priced at ``usd_per_gpu_h``. Over all completed requests:
# $ per 1M tokens = GPUs × price × duration_h ÷ (tokens of the completed requests ÷ 10⁶);
# over good requests only (the cost of goodput): the same GPU time ÷ the good requests'
# tokens, so it rises as the SLO tightens. Total tokens = input + output. A token count that
# is unknown for any request summed leaves the sum (and its cost) unknown, never short.
# Energy per good output token = the tier's board energy (telemetry) ÷ good output tokens.
COST_COLUMNS = ("engine", "concurrency", "gpus", "usd_per_gpu_h", "duration_s",
                "requests_completed", "requests_good", "output_tokens", "total_tokens",
                "good_output_tokens", "good_total_tokens", "usd_per_m_output",
                "usd_per_m_total", "usd_per_m_good_output", "usd_per_m_good_total",
                "attainment", "attainment_low", "meets_target", "energy_j",
                "energy_per_good_output_token_j")


def _token_sum(values: np.ndarray) -> float:
    """The sum of a tier's token counts; NaN when any is unknown or there is none."""
    return float(values.sum()) if values.size and np.isfinite(values).all() else math.nan


def usd_per_million(gpus: float, usd_per_gpu_h: float, duration_s: float,
                    tokens: float) -> float:
    """GPUs × $/GPU-hour × hours ÷ millions of tokens; NaN without tokens or a duration."""
    if not (tokens > 0 and duration_s > 0 and gpus > 0):
        return math.nan
    return gpus * usd_per_gpu_h * duration_s / 3600.0 / (tokens / 1e6)


def cost_table(per_request: pd.DataFrame, durations: pd.DataFrame, slo: Slo,
               gpus: Mapping[str, int], usd_per_gpu_h: float,
               telemetry: pd.DataFrame | None = None) -> pd.DataFrame:
    """COST_COLUMNS, one row per tier of ``per_request`` in its order (see above)."""
    if per_request.empty:
        return pd.DataFrame(columns=list(COST_COLUMNS))
    good = good_requests(per_request, slo)
    done = per_request["success"].to_numpy(bool)
    out_tok = per_request["output_tokens"].to_numpy(float)
    in_tok = per_request["input_tokens"].to_numpy(float) if "input_tokens" in \
        per_request.columns else np.full(len(per_request), math.nan)
    duration = {(str(e), float(c)): float(d) for e, c, d in durations[
        [*TIER_KEYS, "duration_s"]].itertuples(index=False, name=None)}
    energy: dict[tuple[str, float], float] = {}
    if telemetry is not None and len(telemetry) and "energy_j" in telemetry.columns:
        energy = {(str(e), float(c)): float(j) for e, c, j in telemetry[
            [*TIER_KEYS, "energy_j"]].itertuples(index=False, name=None)}
    rows = []
    groups = per_request.groupby(TIER_KEYS, sort=False).indices
    for tier, found in groups.items():
        index = np.asarray(found, dtype=np.int64)
        engine, c = cast(tuple[str, float], tier)
        key = (str(engine), float(c))
        count = float(gpus.get(key[0], 1) or 1)
        d = duration.get(key, math.nan)
        ok, fine = index[done[index]], index[good[index]]
        tokens = {"output_tokens": _token_sum(out_tok[ok]),
                  "total_tokens": _token_sum(out_tok[ok] + in_tok[ok]),
                  "good_output_tokens": _token_sum(out_tok[fine]),
                  "good_total_tokens": _token_sum(out_tok[fine] + in_tok[fine])}
        # no good request: no good token at all (0, and its cost unknown, not infinite)
        if not fine.size:
            tokens["good_output_tokens"] = tokens["good_total_tokens"] = 0.0
        attainment = fine.size / index.size if index.size else math.nan
        # the attainment's 95 % low end (goodput_table's interval, runs as its repeats)
        runs = per_request.iloc[index].assign(good=good[index]).groupby(
            ["source", "record"], sort=False)["good"].agg(["sum", "size"])
        low = attainment_interval([int(g) for g in runs["sum"]],
                                  [int(n) for n in runs["size"]])[0]
        joules = energy.get(key, math.nan)
        good_out = tokens["good_output_tokens"]
        rows.append({
            "engine": key[0], "concurrency": key[1], "gpus": count,
            "usd_per_gpu_h": usd_per_gpu_h, "duration_s": d,
            "requests_completed": int(ok.size), "requests_good": int(fine.size), **tokens,
            "usd_per_m_output": usd_per_million(count, usd_per_gpu_h, d,
                                                tokens["output_tokens"]),
            "usd_per_m_total": usd_per_million(count, usd_per_gpu_h, d, tokens["total_tokens"]),
            "usd_per_m_good_output": usd_per_million(count, usd_per_gpu_h, d, good_out),
            "usd_per_m_good_total": usd_per_million(count, usd_per_gpu_h, d,
                                                    tokens["good_total_tokens"]),
            "attainment": attainment, "attainment_low": low,
            "meets_target": bool(low >= slo.target),
            "energy_j": joules,
            "energy_per_good_output_token_j": joules / good_out if good_out > 0 else math.nan})
    return pd.DataFrame(rows, columns=list(COST_COLUMNS))


def cheapest(cost: pd.DataFrame, excluded: Collection[tuple[str, float]] = ()
             ) -> dict[str, Value]:
    """The cheapest configuration at the SLO: among tiers that meet the target with
    confidence (``meets_target``: the attainment's 95 % low end at or above it, so no tier is
    named on a share the round cannot tell from the target) and are not excluded from
    conclusions, the lowest $ per 1M good output tokens; ties share it (``cost.cheapest`` the
    first, ``cost.cheapest_all`` every one, comma-separated)."""
    skip = {(str(e), float(c)) for e, c in excluded}
    ok = cost[[bool(m) and (str(e), float(c)) not in skip and math.isfinite(float(u))
               for e, c, m, u in cost[["engine", "concurrency", "meets_target",
                                       "usd_per_m_good_output"]].itertuples(
                                           index=False, name=None)]] if len(cost) else cost
    if ok.empty:
        return {"cost.cheapest": None}
    low = float(ok["usd_per_m_good_output"].min())
    best = ok[ok["usd_per_m_good_output"] == low]
    return {"cost.cheapest": str(best["engine"].iloc[0]),
            "cost.cheapest_all": ", ".join(dict.fromkeys(str(e) for e in best["engine"])),
            "cost.cheapest_tier": float(best["concurrency"].iloc[0]),
            "cost.cheapest_usd_per_m_good_output": low}


def with_cost(load: pd.DataFrame, usd_per_gpu_h: float) -> pd.DataFrame:
    """The load table with what its GPUs cost an hour (GPUs × price) and the cheapest
    configuration marked (the fewest GPUs that carry the load; ties all marked)."""
    out = load.copy()
    gpus = out["gpus"].to_numpy(float)
    out["usd_per_h"] = gpus * usd_per_gpu_h
    finite = gpus[np.isfinite(gpus)]
    out["cheapest"] = np.isfinite(gpus) & (gpus == finite.min()) if finite.size \
        else np.zeros(len(out), bool)
    return out
