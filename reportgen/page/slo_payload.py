"""The per-request data the page's SLO view recomputes goodput from (templates/static/
slo.js), gzip + base64, in one of two modes.

``exact`` (the round holds at most ``EXACT_BUDGET`` values, three per request): each
request's TTFT, TPOT and E2EL in seconds as the float64 the goodput table compares (byte
planes, so gzip packs the sign and exponent bytes); slo.js compares ``v <= ms / 1000`` as
the table does, so its counts equal `reportgen tables --slo` at any threshold the reader
types. A failed request is stored as −1 (no value is negative), an unknown value as NaN.

``bins`` (beyond the budget, where float64s would grow the page past what a page should
weigh: 200,000 values are about 1.6 MB before gzip): each value v (ms) of metric m is
stored as the index k of its bin (r·γ^(k−1), r·γ^k], with γ = (1 + α)/(1 − α), α = 1 %
(DDSketch's mapping: the bin's representative 2·r·γ^k/(γ + 1) is within 1 % of every value
in it) and r the metric's default threshold (1 ms when there is none). A default threshold
is a bin edge, so the page equals `tables --slo` there; elsewhere a bin that straddles the
threshold leaves a request undecided and the page gives a range, saying why. k is forced to
agree with the exact comparison the goodput table makes (seconds, as vLLM), so
floating-point rounding cannot move a request across.

Either way a tier's requests are stored run by run (``runs``: the request count of each of
its repeats), so slo.js can give the repeats' interval (analyze/goodput.py), and each
request's output and input token counts (``tokens``: int32 byte planes, the same request
order, output then input, from ``tok_at``) give the $ per 1M tokens at the reader's price
(goodput.cost_table).
"""

from __future__ import annotations

import base64
import gzip
import math
import zlib
from collections.abc import Mapping

import numpy as np
import pandas as pd

from reportgen.analyze.distributions import tpot_of
from reportgen.analyze.goodput import T975, Z95
from reportgen.slo import METRICS, Slo

ALPHA = 0.01
GAMMA = (1 + ALPHA) / (1 - ALPHA)
ZERO = -32768      # the value is 0 (a one-token request's TPOT): meets every threshold
FAILED = 32767     # a failed request: never good, in no distribution
UNKNOWN = 32766    # a successful request whose value is unknown: never meets a threshold
LIMIT = 32000      # bins beyond ±LIMIT (values beyond r·γ^±32000) are clamped
EXACT_BUDGET = 200_000   # values (three per request) embedded exactly; bins beyond
FAILED_S = -1.0          # exact mode: a failed request's values
NAN_EXPONENT = -128      # a decimal-coded value's exponent byte for NaN


def reference_ms(slo: Slo | None, metric: str) -> float:
    limit = slo.threshold(metric) if slo is not None else math.nan
    return limit if math.isfinite(limit) else 1.0


def bin_codes(values_s: np.ndarray, ref_ms: float) -> np.ndarray:
    """int16 bin index per value (seconds in); 0 or less → ZERO, NaN → UNKNOWN."""
    values_s = np.asarray(values_s, dtype=float)
    finite = np.isfinite(values_s)
    zero = finite & (values_s <= 0)
    pos = finite & (values_s > 0)
    every = bool(pos.all())   # a tier's ITL gaps: millions, none picked out or copied
    v = values_s if every else values_s[pos]
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.ceil(np.log(v * 1000.0 / ref_ms) / math.log(GAMMA))
    k = np.clip(k, -LIMIT, LIMIT).astype(np.int64)
    meets = v <= ref_ms / 1000.0     # the goodput table's own comparison
    k = np.where(meets & (k > 0), 0, np.where(~meets & (k <= 0), 1, k))
    if every:
        return k.astype(np.int16)
    out = np.full(values_s.shape, UNKNOWN, dtype=np.int64)
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


def _tier_block(columns: list[np.ndarray], runs: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """One tier's TTFT, TPOT, E2EL codes, each run's requests sorted by them (goodput does
    not depend on the order within a run, and sorted codes compress to about half) and TTFT
    as differences from the previous request (int16, wrapping); and the order (the tokens
    follow it)."""
    ttft, tpot, e2el = (c.astype(np.int16) for c in columns)
    parts, at = [], 0
    for n in runs:
        parts.append(at + np.lexsort((e2el[at:at + n], tpot[at:at + n], ttft[at:at + n])))
        at += n
    order = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    ttft, tpot, e2el = ttft[order], tpot[order], e2el[order]
    delta = np.diff(ttft.astype(np.int32), prepend=0).astype(np.int16)
    return np.concatenate([delta, tpot, e2el]), order


def _planes(array: np.ndarray) -> bytes:
    """int16 as two byte planes (every low byte, then every high byte): the high bytes are
    nearly constant, so gzip packs them into almost nothing."""
    pairs = array.astype("<i2").view(np.uint8).reshape(-1, 2)
    return pairs[:, 0].tobytes() + pairs[:, 1].tobytes()


def _float_planes(array: np.ndarray) -> bytes:
    """float64 as eight byte planes, lowest byte first (slo.js ``valuesOf`` reverses it)."""
    octets = array.astype("<f8").view(np.uint8).reshape(-1, 8)
    return b"".join(octets[:, i].tobytes() for i in range(8))


def _int_planes(array: np.ndarray) -> bytes:
    """int32 as four byte planes, lowest byte first (slo.js ``tokensOf`` reverses it)."""
    octets = array.astype("<i4").view(np.uint8).reshape(-1, 4)
    return b"".join(octets[:, i].tobytes() for i in range(4))


def token_codes(values: np.ndarray) -> np.ndarray:
    """Token counts as int32; an unknown count (NaN, negative) is −1."""
    values = np.asarray(values, dtype=float)
    ok = np.isfinite(values) & (values >= 0)
    return np.where(ok, np.clip(np.where(ok, values, 0), 0, 2**31 - 1), -1).astype(np.int32)


def decode_tokens(data: Mapping[str, object]) -> list[np.ndarray]:
    """What slo.js reads back: per tier, a (2, n) int32 array of output and input tokens
    (requests in the order of ``values`` / ``codes``; −1 unknown)."""
    raw = np.frombuffer(gzip.decompress(base64.b64decode(str(data["tokens"]))), np.uint8)
    tokens = raw.reshape(4, -1).T.copy().view("<i4").ravel()
    return [tokens[int(t["tok_at"]):int(t["tok_at"]) + 2 * int(t["n"])].reshape(2, int(t["n"]))
            for t in data["tiers"]]  # type: ignore[attr-defined]


def _pack(data: bytes) -> str:
    return base64.b64encode(gzip.compress(data, 9, mtime=0)).decode("ascii")


def decode_codes(data: Mapping[str, object]) -> list[np.ndarray]:
    """What slo.js reads back in ``bins`` mode: per tier, a (3, n) array of TTFT, TPOT, E2EL
    codes (requests in the stored order)."""
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


def decode_values(data: Mapping[str, object]) -> list[np.ndarray]:
    """What slo.js reads back in ``exact`` mode: per tier, a (3, n) float64 array of TTFT,
    TPOT, E2EL seconds (−1: failed)."""
    raw = np.frombuffer(gzip.decompress(base64.b64decode(str(data["values"]))), np.uint8)
    if data.get("encoding") == "decimal":
        n = raw.size // 9
        ms = raw[:8 * n].reshape(8, -1).T.copy().view("<i8").ravel()
        es = raw[8 * n:].view(np.int8)
        values = np.array([math.nan if e == NAN_EXPONENT else float(f"{m}e{e}")
                           for m, e in zip(ms.tolist(), es.tolist(), strict=True)])
    else:
        values = raw.reshape(8, -1).T.copy().view("<f8").ravel()
    tiers: list[Mapping[str, int]] = data["tiers"]  # type: ignore[assignment]
    if data.get("tpot") != "derived":
        return [values[t["at"]:t["at"] + 3 * t["n"]].reshape(3, t["n"]) for t in tiers]
    tokens = decode_tokens(data)
    out, at = [], 0
    for t, tok in zip(tiers, tokens, strict=True):
        n = t["n"]
        ttft, e2el = values[at:at + n], values[at + n:at + 2 * n]
        out.append(np.stack([ttft, derived_tpot(ttft, e2el, tok[0]), e2el]))
        at += 2 * n
    return out


def _decimal(value: float) -> tuple[int, int]:
    """(m, e) with ``float(f"{m}e{e}") == value``: the shortest decimal that reads back as the
    float (Python's repr; slo.js's parseFloat rounds the same decimal to the same float)."""
    text = repr(value)
    base, _, exp = text.partition("e")
    whole, _, frac = base.lstrip("-").partition(".")
    m, e = int(whole + frac), (int(exp) if exp else 0) - len(frac)
    while m and m % 10 == 0:
        m, e = m // 10, e + 1
    return (-m if base.startswith("-") else m), (e if m else 0)


def _decimal_planes(values: np.ndarray) -> bytes | None:
    """Each value as its shortest decimal m·10^e: m as eight int64 byte planes, e as one int8
    plane (``NAN_EXPONENT``: NaN); None when an exponent does not fit. A client that writes
    milliseconds with a few decimals (AIPerf, llama.cpp) needs three or four bytes a value where
    a float64 needs eight."""
    ms = np.zeros(values.size, dtype="<i8")
    es = np.full(values.size, NAN_EXPONENT, dtype=np.int8)
    for i, v in enumerate(values.tolist()):
        if math.isnan(v):
            continue
        m, e = _decimal(v)
        if not -NAN_EXPONENT > e > NAN_EXPONENT or not -(2**63) <= m < 2**63:
            return None
        ms[i], es[i] = m, e
    octets = ms.view(np.uint8).reshape(-1, 8)
    return b"".join(octets[:, i].tobytes() for i in range(8)) + es.tobytes()


def _stored_values(tiers: list[list[np.ndarray]], outputs: list[np.ndarray]
                   ) -> tuple[dict[str, object], bytes]:
    """The exact mode's ``values`` from each tier's TTFT, TPOT, E2EL columns and output token
    counts: (fields saying how they are stored, bytes before gzip). Every tier's TPOT is left
    out when each request's equals what slo.js derives from its TTFT, E2EL and output tokens
    (``derived_tpot``), as the loaders compute it; the rest as float64 byte planes or as
    decimals (``_decimal_planes``), whichever packs smaller."""
    fields: dict[str, object] = {"tpot": "stored", "encoding": "float64"}
    if all(np.array_equal(derived_tpot(ttft, e2el, out), tpot, equal_nan=True)
           for (ttft, tpot, e2el), out in zip(tiers, outputs, strict=True)):
        fields["tpot"] = "derived"
        tiers = [[ttft, e2el] for ttft, _, e2el in tiers]
    # per tier: its metrics one after the other (the layout ``decode_values`` reads)
    joined = np.concatenate([c for t in tiers for c in t]) if tiers else np.empty(0)
    data = _float_planes(joined)
    decimal = _decimal_planes(joined)
    # compared at level 1 (a fifth of level 9's time; they rank the two alike)
    if decimal is not None and len(zlib.compress(decimal, 1)) < len(zlib.compress(data, 1)):
        fields["encoding"], data = "decimal", decimal
    return fields, data


def derived_tpot(ttft: np.ndarray, e2el: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """slo.js's TPOT from the stored values: ``distributions.tpot_of`` (an unknown count, −1,
    gives NaN), ``FAILED_S`` for a failed request."""
    return np.where(ttft == FAILED_S, FAILED_S,
                    tpot_of(ttft, e2el, np.where(tokens < 0, np.nan, tokens)))


def _run_ids(per_request: pd.DataFrame) -> np.ndarray:
    """A number per row naming its run (source, record), read once for every tier."""
    if not len(per_request):
        return np.empty(0, dtype=np.int64)
    # numbered by grouping, not by a joined string a row (1 M requests: no 1 M strings)
    return per_request.groupby(["source", "record"], sort=False, dropna=False
                               ).ngroup().to_numpy(np.int64)


def _runs(run_ids: np.ndarray, index: np.ndarray) -> list[int]:
    """The request count of each run of one tier's rows (``index``), in the order the runs
    first appear (tier_requests sorts a tier's rows by run)."""
    if not len(index):
        return []
    _, first, counts = np.unique(run_ids[index], return_index=True, return_counts=True)
    return [int(n) for n in counts[np.argsort(first, kind="stable")]]


def payload(per_request: pd.DataFrame, gaps: Mapping[tuple[str, float], np.ndarray],
            slo: Slo | None, tiers: list[dict[str, object]],
            budget: int = EXACT_BUDGET) -> dict[str, object]:
    """The data block: the mode (``exact`` while 3 × the requests fit ``budget``, else
    ``bins``), bin parameters, and per tier (``tiers``: dicts with engine, c, excluded,
    synthetic, duration_s, in page order) its offset and count in ``values`` / ``codes``
    (TTFT, TPOT, E2EL of its n requests, one metric after the other; ``decode_values`` /
    ``decode_codes`` read them back), its runs' request counts, and its pooled ITL histogram
    as (bin, count) int32 pairs in ``itl``."""
    refs = {m: reference_ms(slo, m) for m in METRICS}
    groups = per_request.groupby(["engine", "concurrency"], sort=False).indices \
        if len(per_request) else {}
    indexes = [np.asarray(groups.get((str(t["engine"]), float(t["c"])),  # type: ignore[arg-type]
                                     np.empty(0, dtype=np.int64)), dtype=np.int64)
               for t in tiers]
    exact = 3 * sum(len(i) for i in indexes) <= budget
    success = per_request["success"].to_numpy(bool) if len(per_request) else np.empty(0, bool)
    count = {c: token_codes(per_request[c].to_numpy(float)) if c in per_request.columns
             else np.full(len(per_request), -1, np.int32)
             for c in ("output_tokens", "input_tokens")}
    if exact:
        stored = {m: per_request[f"{m}_s"].to_numpy(float).copy() if len(per_request)
                  else np.empty(0) for m in METRICS}
        for m in METRICS:
            stored[m][~success] = FAILED_S
    else:
        stored = {m: bin_codes(per_request[f"{m}_s"].to_numpy(float), refs[m]).astype(float)
                  for m in METRICS}
        for m in METRICS:
            stored[m][~success] = FAILED
    run_ids = _run_ids(per_request)
    blocks: list[np.ndarray] = []
    exact_tiers: list[list[np.ndarray]] = []     # exact mode: each tier's three columns
    outputs: list[np.ndarray] = []               # and its output token counts
    tokens: list[np.ndarray] = []
    itl: list[np.ndarray] = []
    offset = itl_offset = 0
    out_tiers = []
    for t, index in zip(tiers, indexes, strict=True):
        e, c = str(t["engine"]), float(t["c"])  # type: ignore[arg-type]
        n = len(index)
        runs = _runs(run_ids, index)
        columns = [stored[m][index] for m in METRICS]
        if exact:
            exact_tiers.append(columns)
        else:
            block, order = _tier_block(columns, runs)
            blocks.append(block)
            index = index[order]
        outputs.append(count["output_tokens"][index])
        tokens.append(np.concatenate([outputs[-1],
                                      count["input_tokens"][index]]))
        pairs = _histogram(gaps.get((e, c)))
        itl.append(pairs.ravel())
        out_tiers.append(t | {"c": None if math.isinf(c) else c, "n": n, "at": offset,
                              "runs": runs, "tok_at": 2 * offset // 3,
                              "itl_at": itl_offset, "itl_bins": len(pairs)})
        offset += 3 * n
        itl_offset += 2 * len(pairs)
    all_itl = np.concatenate(itl) if itl else np.empty(0, dtype=np.int64)
    out: dict[str, object] = {
        "mode": "exact" if exact else "bins", "budget": budget,
        "values_n": 3 * sum(len(i) for i in indexes),
        "gamma": GAMMA, "refs": refs, "zero": ZERO, "failed": FAILED, "unknown": UNKNOWN,
        "defaults": {m: (slo.threshold(m) if slo is not None and math.isfinite(
            slo.threshold(m)) else None) for m in METRICS}
        | {"target": slo.target if slo is not None else 0.99},
        "z95": Z95, "t975": list(T975),
        "tiers": out_tiers,
        "itl": _pack(all_itl.astype("<i4").tobytes()),
        "tokens": _pack(_int_planes(np.concatenate(tokens) if tokens
                                    else np.empty(0, np.int32))),
    }
    if exact:
        fields, data = _stored_values(exact_tiers, outputs)
        out |= fields
        out["values"] = _pack(data)
    else:
        joined = np.concatenate(blocks) if blocks else np.empty(0, dtype=np.int16)
        out["codes"] = _pack(_planes(joined.astype(np.int16)))
    return out
