"""The summary schema AIPerf inherited from GenAI-Perf: one block per metric with its unit.

JSON: ``{"time_to_first_token": {"unit": "ms", "avg": 51.2, "p50": …, "std": …}, …}``.
CSV: a table ``Metric,avg,min,max,p99,…`` whose first cell names the metric and its unit
(``Time To First Token (ms)``), then a ``Metric,Value`` table of single values
(``Request Throughput (per sec)``). Each value's unit is the one its block or header states
(the clients' display units); a latency in a unit not listed here is refused, never guessed.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

from reportgen.errors import InputError
from reportgen.load.formats.metric_keys import add_stats, number

# a time unit as these clients write it → factor to ms
TIME_UNITS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "sec": 1000.0,
              "seconds": 1000.0, "milliseconds": 1.0, "nanoseconds": 1e-6}
# the artifact folder both clients name by default: <model>-openai-chat-concurrency4
AXIS_IN_PATH = re.compile(r"(?:^|[-_/])(concurrency|request_rate)[-_]?(\d+(?:\.\d+)?)(?=$|[-_/])")
HEADER = re.compile(r"^(?P<name>.*?)\s*(?:\((?P<unit>[^()]*)\))?\s*$")


@dataclass
class Block:
    """One metric's statistics and the unit the file states for them."""

    unit: str
    stats: dict[str, float] = field(default_factory=dict)

    @property
    def avg(self) -> float:
        return self.stats.get("avg", math.nan)


@functools.lru_cache(maxsize=4096)  # the same row names recur in every file of a round
def tag_of(header: str) -> tuple[str, str]:
    """``Time To First Token (ms)`` → (``time_to_first_token``, ``ms``)."""
    m = HEADER.match(header.strip())
    assert m is not None  # the pattern matches any string
    name = re.sub(r"[^0-9a-z]+", "_", m.group("name").lower()).strip("_")
    return name, (m.group("unit") or "").strip()


def axis_from_path(shown: str) -> tuple[float, float] | None:
    """(concurrency, request rate), one of them NaN, from the last ``concurrencyN`` or
    ``request_rateR`` in a path; None when the path names neither."""
    found = list(AXIS_IN_PATH.finditer(shown))
    if not found:
        return None
    kind, value = found[-1].group(1), float(found[-1].group(2))
    return (value, math.nan) if kind == "concurrency" else (math.nan, value)


def put_axis(record: dict[str, Any], settings: dict[str, tuple[str, str]], shown: str,
             conc: float, rate: float, where: str) -> None:
    """A run's concurrency and request rate as its settings state them (``where``), else as
    its artifact folder's name does: ``max_concurrency`` for a whole concurrency >= 1, the rate
    when > 0, and a closed loop (a concurrency, no rate) at rate ``inf``."""
    if not (math.isfinite(conc) or math.isfinite(rate)):
        found = axis_from_path(shown)
        if found is not None:
            where = "the artifact folder's name"
            conc, rate = found
    if conc >= 1 and conc == int(conc):
        record["max_concurrency"] = int(conc)
        settings["max_concurrency"] = (str(int(conc)), f"{shown}: {where}")
    if rate > 0:
        record["request_rate"] = rate
        settings["request_rate"] = (f"{rate:g}", f"{shown}: {where}")
    elif "max_concurrency" in record:
        record["request_rate"] = "inf"  # a closed loop: requests sent as fast as slots free


# the blocks summary_record reads besides a client's latencies (AIPerf 0.13 writes ~70 blocks)
COUNTS = ("request_count", "error_request_count", "benchmark_duration", "output_token_throughput",
          "request_throughput", "total_isl", "total_osl", "input_sequence_length",
          "output_sequence_length")


def blocks_from_json(data: dict[str, Any], wanted: set[str]) -> dict[str, Block]:
    out = {}
    for tag in wanted & data.keys():
        value = data[tag]
        if isinstance(value, dict) and isinstance(value.get("unit"), str) and any(
                k in value for k in ("avg", "p50", "value")):
            stats = {str(k): number(v) for k, v in value.items() if k != "unit"}
            if "value" in stats and "avg" not in stats:
                stats["avg"] = stats["value"]
            out[tag] = Block(value["unit"], {k: v for k, v in stats.items()
                                             if math.isfinite(v)})
    return out


def blocks_from_csv(raw: bytes, shown: str, wanted: set[str]) -> dict[str, Block]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(shown, f"not UTF-8 (byte {exc.start})") from None
    out: dict[str, Block] = {}
    header: list[str] | None = None
    for row in csv.reader(io.StringIO(text)):
        if not row or not any(c.strip() for c in row):
            header = None
            continue
        if row[0].strip() == "Metric":
            header = [c.strip() for c in row]
            continue
        if header is None:
            continue
        tag, unit = tag_of(row[0])
        if tag not in wanted:
            continue
        stats = {}
        for name, cell in zip(header[1:], row[1:], strict=False):
            try:
                v = float(cell.replace(",", "")) if cell.strip() else math.nan
            except ValueError:
                continue  # a text cell (GPU name …) in a telemetry table
            if math.isfinite(v):
                stats["avg" if name == "Value" else name] = v
        if stats and tag not in out:
            out[tag] = Block(unit, stats)
    return out


def to_ms(block: Block, tag: str, shown: str) -> float:
    factor = TIME_UNITS.get(block.unit.strip().lower())
    if factor is None:
        raise InputError(shown, f"{tag}: unit {block.unit!r} is not a time unit this reader "
                                f"knows ({', '.join(sorted(set(TIME_UNITS)))})")
    return factor


def add_latency(record: dict[str, Any], metric: str, block: Block, tag: str, shown: str
                ) -> None:
    """``<stat>_<metric>_ms`` keys from a latency block (``avg`` is the mean)."""
    add_stats(record, metric, {("mean" if k == "avg" else k): v
                               for k, v in block.stats.items()}, to_ms(block, tag, shown))


def _avg(blocks: dict[str, Block], tag: str) -> float:
    b = blocks.get(tag)
    return b.avg if b is not None else math.nan


def summary_record(blocks: dict[str, Block], latencies: dict[str, str], client: str,
                   shown: str, uncounted: bool = False) -> tuple[dict[str, Any], dict[str, str]]:
    """The common record's counts, time, throughput, tokens and latency statistics from the
    blocks both clients write (``latencies``: the client's tag → the common metric).
    ``uncounted``: a summary without ``request_count`` is a run whose requests are unknown
    (older GenAI-Perf wrote none), not an error."""
    if "request_latency" not in blocks and "time_to_first_token" not in blocks:
        raise InputError(shown, f"{client} summary, schema not supported: no request_latency "
                                "or time_to_first_token metric")
    completed = _avg(blocks, "request_count")
    units: dict[str, str] = {"latency": f"each metric's stated unit ({client} display units)"}
    record: dict[str, Any] = {}
    if completed >= 0:
        failed = _avg(blocks, "error_request_count")
        failed = 0.0 if math.isnan(failed) else failed
        record.update(completed=int(completed), failed=int(failed),
                      num_prompts=int(completed + failed))
    elif not uncounted:
        raise InputError(shown, f"{client} summary without request_count")
    else:  # throughputs and latencies stated, the count of requests not: unknown, never 0
        units["completed"] = (f"not stated: this {client} summary has no request_count (the "
                              "requests, their time and token totals are unknown)")
    dur = blocks.get("benchmark_duration")
    if dur is not None and math.isfinite(dur.avg):
        record["duration"] = dur.avg * to_ms(dur, "benchmark_duration", shown) / 1000.0
        units["duration"] = f"benchmark_duration ({dur.unit})"
    tput, rtput = _avg(blocks, "output_token_throughput"), _avg(blocks, "request_throughput")
    if math.isfinite(tput):
        record["output_throughput"] = tput
    if math.isfinite(rtput):
        record["request_throughput"] = rtput
    if "duration" not in record and rtput > 0 and completed > 0:
        record["duration"] = completed / rtput
        units["duration"] = "request_count / request_throughput (s)"
    for key, total, mean in (("total_input_tokens", "total_isl", "input_sequence_length"),
                             ("total_output_tokens", "total_osl", "output_sequence_length")):
        v = _avg(blocks, total)
        if math.isnan(v):
            v = _avg(blocks, mean) * completed  # the mean over the counted requests
        if math.isfinite(v):
            record[key] = round(v)
    for tag, metric in latencies.items():
        if tag in blocks:
            add_latency(record, metric, blocks[tag], tag, shown)
    return record, units
