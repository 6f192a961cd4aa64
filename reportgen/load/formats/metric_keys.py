"""What every reader needs: a JSON file decoded with errors naming it, a client's statistic
turned into the common record's ``<stat>_<metric>_ms`` key, numbers checked as they are read."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any, cast

from reportgen.errors import InputError
from reportgen.files.safe_read import SURROGATE_ESCAPE, whole_text
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


def load_yaml(raw: bytes, shown: str) -> Any:
    """A YAML document, safely (no Python objects), its aliases bounded: a document whose
    aliases would expand to more values than the file could hold written out ("billion
    laughs": 1 KB naming 10^9 strings) or that refers to itself is refused, before any code
    walks it."""
    import yaml  # only YAML files need it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(raw, Loader=loader)  # aliases share one object: this part is linear
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(shown, f"not valid YAML ({getattr(exc, 'problem', None) or exc})",
                         mark.line + 1 if mark is not None else None) from None
    except RecursionError:
        raise InputError(shown, "YAML nested too deeply to be a result file") from None
    if b"*" in raw:  # an alias may be there
        limit = 2 * len(raw) + 100_000  # written out, a value takes at least two bytes
        size = _expanded(data, limit)
        if size is None:
            raise InputError(shown, "YAML that contains itself (a recursive alias); refused")
        if size > limit:
            raise InputError(shown, f"YAML aliases expand to more than {limit:,} values (the "
                                    f"file has {len(raw):,} bytes); refused: a result file "
                                    "repeats no structure that much")
    return whole_text(data) if SURROGATE_ESCAPE.search(raw) else data


def _expanded(data: Any, limit: int) -> int | None:
    """How many values ``data`` holds with every shared object counted each time it is used
    (up to just past ``limit``), computed once per object; None when it contains itself."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        obj, done = stack.pop()
        if not isinstance(obj, dict | list):
            continue
        children = [*obj.keys(), *obj.values()] if isinstance(obj, dict) else obj
        key = id(obj)
        if done:
            total = 1 + sum(sizes.get(id(c), 1) for c in children)
            sizes[key] = min(total, limit + 1)
            open_.discard(key)
            continue
        if key in sizes:
            continue
        if key in open_:
            return None
        open_.add(key)
        stack.append((obj, True))
        stack.extend((c, False) for c in children if isinstance(c, dict | list))
    return sizes.get(id(data), 1)


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
    try:
        return float(value) if math.isfinite(value) else math.nan
    except OverflowError:  # an integer beyond float range (YAML reads any length)
        return math.nan


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


# beyond 2**53 a float no longer holds every whole number, and a count that large is no
# count of requests or tokens: such a value is unknown (``whole``) or refused (``count``)
LARGEST_WHOLE = 2 ** 53
# the last second of year 9999: later epochs are no date (``datetime`` cannot hold them)
LAST_EPOCH_S = 253_402_300_799


def count(value: object, shown: str, what: str) -> int:
    """A whole number >= 0 (a request count), else InputError naming the key."""
    v = number(value)
    if math.isnan(v) or v < 0 or v > LARGEST_WHOLE or v != int(v):
        raise InputError(shown, f"{what}: expected a whole number >= 0, got {value!r}")
    return int(v)


def whole(value: object) -> int | None:
    """A total stated as a number (a token sum), rounded; None (unknown) when it is missing,
    not a number, negative or beyond any possible count."""
    v = number(value)
    return round(v) if 0 <= v <= LARGEST_WHOLE else None


def utc_stamp(value: object) -> str | None:
    """``YYYYmmdd-HHMMSS`` (UTC) of an epoch in seconds; None for a missing, non-positive or
    impossible one (after year 9999), which is no date rather than an error."""
    v = number(value)
    if not 0 < v <= LAST_EPOCH_S:
        return None
    return dt.datetime.fromtimestamp(v, dt.UTC).strftime("%Y%m%d-%H%M%S")
