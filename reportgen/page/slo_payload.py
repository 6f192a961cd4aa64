"""The compact per-request data the page's SLO view recomputes goodput from (templates/static/
slo.js): log-binned values, gzip + base64.

Each value v (ms) of metric m is stored as the index k of its bin (r·γ^(k−1), r·γ^k], with
γ = (1 + α)/(1 − α), α = 1 % (DDSketch's mapping: the bin's representative 2·r·γ^k/(γ + 1)
is within 1 % of every value in it) and r the metric's default threshold (1 ms when there is
none). Because a default threshold is a bin edge, "v ≤ threshold" is k ≤ 0 there: the page
reproduces `tables --slo` exactly at the defaults, and elsewhere gives bounds where a bin
straddles the threshold. k is forced to agree with the exact comparison the goodput table
makes (seconds, as vLLM), so floating-point rounding cannot move a request across.
"""

from __future__ import annotations

import base64
import gzip
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from reportgen.slo import METRICS, Slo

ALPHA = 0.01
GAMMA = (1 + ALPHA) / (1 - ALPHA)
ZERO = -32768      # the value is 0 (a one-token request's TPOT): meets every threshold
FAILED = 32767     # a failed request: never good, in no distribution
UNKNOWN = 32766    # a successful request whose value is unknown: never meets a threshold
LIMIT = 32000      # bins beyond ±LIMIT (values beyond r·γ^±32000) are clamped


def reference_ms(slo: Slo | None, metric: str) -> float:
    limit = slo.threshold(metric) if slo is not None else math.nan
    return limit if math.isfinite(limit) else 1.0


def bin_codes(values_s: np.ndarray, ref_ms: float) -> np.ndarray:
    """int16 bin index per value (seconds in); 0 or less → ZERO, NaN → UNKNOWN."""
    values_s = np.asarray(values_s, dtype=float)
    out = np.full(values_s.shape, UNKNOWN, dtype=np.int64)
    finite = np.isfinite(values_s)
    zero = finite & (values_s <= 0)
    pos = finite & (values_s > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.ceil(np.log(values_s[pos] * 1000.0 / ref_ms) / math.log(GAMMA))
    k = np.clip(k, -LIMIT, LIMIT).astype(np.int64)
    meets = values_s[pos] <= ref_ms / 1000.0     # the goodput table's own comparison
    k = np.where(meets & (k > 0), 0, np.where(~meets & (k <= 0), 1, k))
    out[pos] = k
    out[zero] = ZERO
    return out.astype(np.int16)


def _histogram(gaps_s: np.ndarray | None) -> np.ndarray:
    """(bin, count) rows of the non-empty bins of pooled ITL gaps (1 ms reference), by bin;
    a bincount, not a sort: a tier can hold millions of gaps."""
    if gaps_s is None or not gaps_s.size:
        return np.empty((0, 2), dtype=np.int64)
    k = bin_codes(gaps_s, 1.0).astype(np.int64)
    low = int(k.min())
    counts = np.bincount(k - low)
    bins = np.flatnonzero(counts)
    return np.stack([bins + low, counts[bins]], axis=1)


def _tier_block(columns: list[np.ndarray]) -> np.ndarray:
    """One tier's TTFT, TPOT, E2EL codes, requests sorted by them (goodput does not depend on
    the order, and sorted codes compress to about half) and TTFT as differences from the
    previous request (int16, wrapping)."""
    ttft, tpot, e2el = (c.astype(np.int16) for c in columns)
    order = np.lexsort((e2el, tpot, ttft))
    ttft, tpot, e2el = ttft[order], tpot[order], e2el[order]
    delta = np.diff(ttft.astype(np.int32), prepend=0).astype(np.int16)
    return np.concatenate([delta, tpot, e2el])


def _planes(array: np.ndarray) -> bytes:
    """int16 as two byte planes (every low byte, then every high byte): the high bytes are
    nearly constant, so gzip packs them into almost nothing."""
    pairs = array.astype("<i2").view(np.uint8).reshape(-1, 2)
    return pairs[:, 0].tobytes() + pairs[:, 1].tobytes()


def _pack(data: bytes) -> str:
    return base64.b64encode(gzip.compress(data, 9, mtime=0)).decode("ascii")


def decode_codes(data: Mapping[str, object]) -> list[np.ndarray]:
    """What slo.js reads back: per tier, a (3, n) array of TTFT, TPOT, E2EL codes (requests
    in the stored order)."""
    raw = np.frombuffer(gzip.decompress(base64.b64decode(str(data["codes"]))), np.uint8)
    half = raw.size // 2
    codes = (raw[:half].astype(np.uint16) | (raw[half:].astype(np.uint16) << 8)).view(np.int16)
    out = []
    for t in data["tiers"]:  # type: ignore[attr-defined]
        n, at = int(t["n"]), int(t["at"])
        block = codes[at:at + 3 * n].reshape(3, n).copy()
        block[0] = np.cumsum(block[0].astype(np.int64)).astype(np.int16)  # wraps as int16
        out.append(block)
    return out


def payload(per_request: pd.DataFrame, gaps: Mapping[tuple[str, float], np.ndarray],
            slo: Slo | None, tiers: list[dict[str, object]]) -> dict[str, object]:
    """The data block: bin parameters, and per tier (``tiers``: dicts with engine, c,
    excluded, synthetic, duration_s, in page order) its offset and count in ``codes`` (TTFT,
    TPOT, E2EL codes of its n requests, one metric after the other: see ``_tier_block``;
    int16 stored as byte planes, ``decode_codes`` reads it back) and its pooled ITL
    histogram as (bin, count) int32 pairs in ``itl``."""
    refs = {m: reference_ms(slo, m) for m in METRICS}
    codes: list[np.ndarray] = []
    itl: list[np.ndarray] = []
    offset = itl_offset = 0
    out_tiers = []
    groups = per_request.groupby(["engine", "concurrency"], sort=False).indices
    success = per_request["success"].to_numpy(bool)
    binned = {m: bin_codes(per_request[f"{m}_s"].to_numpy(float), refs[m]) for m in METRICS}
    for m in METRICS:
        binned[m][~success] = FAILED
    for t in tiers:
        e, c = str(t["engine"]), float(t["c"])  # type: ignore[arg-type]
        index = groups.get((e, c), np.empty(0, dtype=np.int64))
        n = len(index)
        codes.append(_tier_block([binned[m][index] for m in METRICS]))
        pairs = _histogram(gaps.get((e, c)))
        itl.append(pairs.ravel())
        out_tiers.append(t | {"c": None if math.isinf(c) else c, "n": n, "at": offset,
                              "itl_at": itl_offset, "itl_bins": len(pairs)})
        offset += 3 * n
        itl_offset += 2 * len(pairs)
    all_codes = np.concatenate(codes) if codes else np.empty(0, dtype=np.int16)
    all_itl = np.concatenate(itl) if itl else np.empty(0, dtype=np.int64)
    return {
        "gamma": GAMMA, "refs": refs, "zero": ZERO, "failed": FAILED, "unknown": UNKNOWN,
        "defaults": {m: (slo.threshold(m) if slo is not None and math.isfinite(
            slo.threshold(m)) else None) for m in METRICS}
        | {"target": slo.target if slo is not None else 0.99},
        "tiers": out_tiers,
        "codes": _pack(_planes(all_codes.astype(np.int16))),
        "itl": _pack(all_itl.astype("<i4").tobytes()),
    }
