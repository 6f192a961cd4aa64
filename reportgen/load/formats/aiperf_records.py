"""AIPerf's ``profile_export.jsonl`` streamed into columns (issue 35).

A record holds some 33 metrics and a block of metadata; the reader uses the phase, the error
and five metrics. msgspec decodes those into typed Structs and skips the rest without making
Python objects for it; the file is read in blocks of whole lines (never whole: 1 M records are
2.9 GB), and each block's values go straight into numpy arrays: the ITL gaps of every request
as one float64 array and each request's count (``Ragged``), no per-gap Python call.

This is a faster route to the values ``aiperf._requests`` gives, never a second schema: where a
block is not what the Structs expect (a value that is not a number, a time in a unit that is
not one, a line that is not JSON, a NaN literal …) ``columns`` answers None and the caller reads
the whole file the usual way, with its usual values and errors.
"""

from __future__ import annotations

import gc
import math
from typing import Any, Literal, get_args

import msgspec
import numpy as np

from reportgen.files.safe_read import UTF8_BOM, InputStream
from reportgen.load.formats.metric_blocks import TIME_UNITS
from reportgen.load.formats.metric_keys import member
from reportgen.load.gaps import Ragged

BLOCK = 16 << 20   # bytes decoded at once: the Structs of ~6,000 records


# a time's unit as TIME_UNITS spells it (a literal makes no string a record); any other
# spelling goes the usual route, which lower-cases it or says it is no time
Unit = Literal["ns", "us", "µs", "ms", "s", "sec", "seconds", "milliseconds", "nanoseconds"]
assert set(get_args(Unit)) == set(TIME_UNITS)


class _Value(msgspec.Struct):
    value: float | None = None
    unit: Unit | None = None


class _Count(msgspec.Struct):
    value: float | None = None   # its unit is not read


class _Gaps(msgspec.Struct):
    # the list's bytes, parsed once for a whole block (a Python float a gap costs more than
    # the rest of the record)
    value: msgspec.Raw = msgspec.Raw(b"null")
    unit: Unit | None = None


class _Metrics(msgspec.Struct):
    time_to_first_token: _Value | None = None
    request_latency: _Value | None = None
    input_sequence_length: _Count | None = None
    output_sequence_length: _Count | None = None
    inter_chunk_latency: _Gaps | None = None


class _Meta(msgspec.Struct):
    benchmark_phase: Any = msgspec.UNSET


class _Line(msgspec.Struct):
    metadata: _Meta | None = None
    metrics: _Metrics | None = None
    error: Any = None


_DECODER = msgspec.json.Decoder(_Line)
_NUMBERS = msgspec.json.Decoder(list[float])
_NO_METRICS = _Metrics()
_ABSENT = object()   # a metric the record does not have: no unit to check


class _Odd(Exception):
    """A record the fast route does not decide: the whole file is read the usual way."""


def _factors(metrics: list[_Value | None] | list[_Gaps | None]) -> np.ndarray:
    """ms per unit of each record's time metric (NaN where it is missing); each distinct
    unit is looked at once."""
    units = [m.unit if m is not None else _ABSENT for m in metrics]
    table: dict[object, float] = {}
    for unit in set(units):   # TypeError (caught by the caller) for an unhashable unit
        if unit is _ABSENT:
            table[unit] = math.nan
            continue
        name = unit.strip().lower() if isinstance(unit, str) else None
        if name not in TIME_UNITS:
            raise _Odd  # the usual route words the error, at the record's line
        table[unit] = TIME_UNITS[name]
    return np.asarray([table[u] for u in units], dtype=np.float64)


def _values(metrics: list[_Value | None] | list[_Count | None]) -> np.ndarray:
    # None (no metric, or a null value) becomes NaN
    return np.asarray([m.value if m is not None else None for m in metrics], dtype=np.float64)


def _gaps(metrics: list[_Gaps | None], failed: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """(gaps each record lists, every gap in its unit): a failed request's are left out.

    Every record's list is joined into one text decoded at once: ``[1,2][][3]`` → ``[1,2,3]``.
    That is what the records hold only if each value was one flat list of numbers: a value
    that is no list leaves a bracket too few, a string or a nested list fails the decode, a
    count thrown off by whitespace fails the total; then the usual route decides."""
    texts = [b"[]" if m is None or bad else bytes(m.value)
             for m, bad in zip(metrics, failed, strict=True)]
    texts = [b"[]" if t == b"null" else t for t in texts]
    joined = b"".join(texts)
    if joined.count(b"[") != len(texts) or joined.count(b"]") != len(texts):
        raise _Odd
    counts = np.asarray([t.count(b",") + 1 if len(t) > 2 else 0 for t in texts],
                        dtype=np.int64)
    flat = joined.replace(b"[]", b"")[1:-1].replace(b"][", b",")
    values = np.asarray(_NUMBERS.decode(b"[" + flat + b"]"), dtype=np.float64)
    if values.size != counts.sum():
        raise _Odd
    return counts, values


def _block(lines: list[_Line]) -> dict[str, Any]:
    """One block's profiling records as columns (values in the file's units)."""
    phases = [ln.metadata.benchmark_phase if ln.metadata is not None else msgspec.UNSET
              for ln in lines]
    warmup = {p: p is not msgspec.UNSET and str(p).lower() != "profiling" for p in set(phases)}
    if any(warmup.values()):
        lines = [ln for ln, p in zip(lines, phases, strict=True) if not warmup[p]]
    metrics = [ln.metrics if ln.metrics is not None else _NO_METRICS for ln in lines]
    failed = [ln.error is not None for ln in lines]
    errors = ["" if ln.error is None else str(member(ln.error).get("message")
                                             or member(ln.error).get("type") or "error")
              for ln in lines]
    ttft = [m.time_to_first_token for m in metrics]
    latency = [m.request_latency for m in metrics]
    icl = [m.inter_chunk_latency for m in metrics]
    counts, gaps = _gaps(icl, failed)
    return {
        "failed": np.asarray(failed, dtype=bool), "errors": errors,
        "ttft": _values(ttft), "ttft_factor": _factors(ttft),
        "latency": _values(latency), "latency_factor": _factors(latency),
        "n_in": _values([m.input_sequence_length for m in metrics]),
        "n_out": _values([m.output_sequence_length for m in metrics]),
        "counts": counts, "gaps": gaps, "gap_factor": _factors(icl),
    }


def _blocks(stream: InputStream, head: bytes) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    rest = b""
    data = head
    while data:
        # the line cut by the last block, completed; then this block's whole lines, decoded
        # in place (no copy of the block)
        first = data.find(b"\n") + 1
        lines = _DECODER.decode_lines(rest + data[:first]) if rest and first else []
        if not first:
            rest += data
        else:
            cut = data.rfind(b"\n") + 1
            lines += _DECODER.decode_lines(memoryview(data)[first if rest else 0:cut])
            rest = data[cut:]
        if lines:
            blocks.append(_block(lines))
        data = stream.read(BLOCK)
    if rest.strip():
        blocks.append(_block(_DECODER.decode_lines(rest)))
    return blocks



def _seconds(values: np.ndarray, factor: np.ndarray, failed: np.ndarray) -> np.ndarray:
    """vLLM's seconds: value × ms-per-unit ÷ 1000 (as an SLO threshold is divided, so the
    inclusive rule holds at the file's own value); NaN when missing, negative or not finite
    (unknown, never 0); 0 for a failed request (never used, as vLLM writes it)."""
    with np.errstate(invalid="ignore", over="ignore"):
        known = np.isfinite(values) & (values >= 0)
        return np.where(failed, 0.0, np.where(known, values * factor / 1000.0, math.nan))


def _tokens(values: np.ndarray, zero: np.ndarray) -> np.ndarray | None:
    """Whole token counts (0 where unknown or ``zero``); None for a count no int64 holds (the
    usual route refuses it as no possible value)."""
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(values) & (values >= 0) & ~zero
    counts = np.trunc(np.where(ok, values, 0.0))
    return None if counts.size and counts.max() >= 2.0**53 else counts.astype(np.int64)


def columns(stream: InputStream, head: bytes) -> dict[str, Any] | None:
    """The per-request record (``ttfts`` … ``errors``) of the JSON Lines in ``head`` + the
    rest of ``stream``; None where the usual route must decide (see the module doc). An
    empty ``errors`` means no profiling record."""
    if head.startswith(UTF8_BOM):
        return None
    collect = gc.isenabled()
    gc.disable()  # millions of acyclic Structs: the cycle collector would double the time
    try:
        blocks = _blocks(stream, head)
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, _Odd):
        return None
    finally:
        if collect:
            gc.enable()
    if not blocks:
        return None

    def column(name: str) -> np.ndarray:
        return np.concatenate([b[name] for b in blocks])

    failed, counts, gaps = column("failed"), column("counts"), column("gaps")
    factor = np.repeat(column("gap_factor"), counts)
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(gaps) & (gaps >= 0)   # as the usual route: such a gap is left out
    owner = np.repeat(np.arange(counts.size), counts)
    n_in = _tokens(column("n_in"), np.zeros(failed.size, dtype=bool))
    n_out = _tokens(column("n_out"), failed)
    if n_in is None or n_out is None:
        return None
    return {
        "ttfts": _seconds(column("ttft"), column("ttft_factor"), failed),
        "latencies": _seconds(column("latency"), column("latency_factor"), failed),
        "input_lens": n_in,
        "output_lens": n_out,
        "itls": Ragged(np.bincount(owner[keep], minlength=counts.size).astype(np.int64),
                       gaps[keep] * factor[keep] / 1000.0),
        "errors": [e for b in blocks for e in b["errors"]],
    }
