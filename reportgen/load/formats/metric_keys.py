"""What every reader needs: a JSON file decoded with errors naming it, a client's statistic
turned into the common record's ``<stat>_<metric>_ms`` key, numbers checked as they are read."""

from __future__ import annotations

import math
import re
from typing import Any, cast

from reportgen.errors import InputError
from reportgen.load.bench_json import decode_records

PERCENTILE = re.compile(r"^p(\d+(?:\.\d+)?)$")
STATS = {"mean": "mean", "avg": "mean", "average": "mean", "median": "median", "p50": "median",
         "std": "std", "stddev": "std", "stdev": "std"}


def decode_one(raw: bytes, shown: str) -> Any:
    """The top-level JSON value of ``raw``: an object, or a list (a list of one object stays a
    list; JSON Lines become the list of their values)."""
    records = decode_records(raw, shown)
    if raw.lstrip().lstrip(b"\xef\xbb\xbf")[:1] == b"[" or len(records) != 1:
        if len(records) == 1 and isinstance(records[0][0], list):
            return records[0][0]  # a list that is not of objects: as it is
        return [value for value, _ in records]
    return records[0][0]


def member(value: object, *path: str) -> dict[str, Any]:
    """The object at ``path`` inside ``value`` (``value`` itself for no path); ``{}`` where a
    step is missing or is not an object, so a reader asks for settings a file may not have."""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def stat_name(stat: str) -> str | None:
    """``median``/``p50`` → median, ``avg`` → mean, ``p99.9`` → p99.9; None for min/max/count."""
    s = stat.lower()
    if s in STATS:
        return STATS[s]
    m = PERCENTILE.match(s)
    return f"p{m.group(1)}" if m else None


def number(value: object) -> float:
    """A finite number, else NaN (a missing statistic is NaN, never 0)."""
    if type(value) is float:  # nearly every value: no ABC checks (readers ask millions)
        return value if math.isfinite(value) else math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value) if math.isfinite(value) else math.nan


def add_stats(record: dict[str, Any], metric: str, stats: dict[str, object], to_ms: float
              ) -> None:
    """``record["<stat>_<metric>_ms"]`` for each statistic of ``stats`` that has one
    (``to_ms``: 1000 for seconds, 1 for milliseconds); the median wins over a ``p50``."""
    for stat, value in stats.items():
        name = stat_name(str(stat))
        v = number(value)
        if name is None or math.isnan(v):
            continue
        key = f"{name}_{metric}_ms"
        if key in record and str(stat).lower() == "p50":
            continue
        record[key] = v * to_ms


def count(value: object, shown: str, what: str) -> int:
    """A whole number >= 0 (a request count), else InputError naming the key."""
    v = number(value)
    if math.isnan(v) or v < 0 or v != int(v):
        raise InputError(shown, f"{what}: expected a whole number >= 0, got {value!r}")
    return int(v)
