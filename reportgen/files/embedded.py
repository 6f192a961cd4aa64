"""The one checked reader of report data read back from outside: a report's ``report-data``
block (``diff``, ``--previous``, ``--baseline report.html``) and a ``reportgen tables`` JSON.

Everything here is untrusted, so before any value is used:

- the JSON is parsed with no NaN/Infinity literal and no float that overflows (``1e999``);
  an integer beyond float range is refused (a 401-digit integer would crash every later
  ``float()``);
- nesting is capped (``MAX_DEPTH``; the tables dict nests 4 deep);
- the types are checked against the tables schema (``schema_problem``): every table a list of
  row objects whose cells are scalars or ``{zh, en}`` texts, key columns text or numbers as the
  schema says (an engine id is text, never a number), ``values`` an object of scalars or
  texts, ``round`` an object whose ``workloads`` are ``{id: text, label}`` objects; parts no
  reader uses that lack their type (``runs: 5``) are dropped (``usable``), as before;
- a packed block's unpacked size is capped in ``datablock.unpack`` (absolutely and relative to
  its packed size), so memory stays bounded whatever the block claims.

Any problem is an ``InputError`` naming the file and what was wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reportgen import schema
from reportgen.errors import InputError
from reportgen.files.safe_read import SURROGATE_ESCAPE, whole_text

MAX_DEPTH = 32
INT_STRING_LIMIT = 4300   # Python's default int-from-string limit
FLOAT_MAX = 1.7976931348623157e308
# Which tables there are, their key columns (text or number) and which are refused rather
# than dropped when malformed: reportgen/schema.py's ``TABLE_SPECS``, read per call.
UNBOUNDED = "inf"  # an unbounded request rate as the ``tables`` command writes it
TEXT_CELLS = frozenset({"label", "message", "provenance"})  # {zh, en} texts in rows
TEXT_ROUND = ("title", "subtitle", "series", "date", "axis", "gpu", "model", "client", "driver",
              "cuda", "default_language", "bandwidth_source", "exclude_reason")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > INT_STRING_LIMIT:  # Python's own limit, said before trying
        raise ValueError(f"Exceeds the limit ({INT_STRING_LIMIT} digits) for integer string "
                         "conversion")
    return int(text)


def _in_range(value: Any) -> bool:
    """False for an integer that no float can hold (every later ``float()`` would raise)."""
    return not isinstance(value, int) or isinstance(value, bool) or abs(value) <= FLOAT_MAX


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is beyond float range")
    return value


def parse_json(path: Path | str, data: bytes, what: str) -> Any:
    """``data`` parsed under the rules above (not yet type-checked); InputError otherwise."""
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_int=_int,
                           parse_float=_float)
        # a lone surrogate escape: U+FFFD, so no page or message fails to encode it
        return whole_text(value) if SURROGATE_ESCAPE.search(data) else value
    except UnicodeDecodeError as exc:
        raise InputError(path, f"{what} is not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"{what} is damaged: {exc}") from None
    except RecursionError:
        raise InputError(path, f"{what} is nested too deeply") from None
    except ValueError as exc:
        raise InputError(path, f"{what}: {exc}") from None


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, depth + 1) for v in item]
    return False


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | bool) or _is_number(value)


def _is_text(value: Any) -> bool:
    """Text: a string, or ``{zh, en}`` strings (either may be missing, never another type)."""
    if isinstance(value, str):
        return True
    return isinstance(value, Mapping) and bool(value) and set(value) <= {"zh", "en"} and \
        all(isinstance(v, str) for v in value.values())


def _cell_problem(where: str, value: Any) -> str | None:
    if not _in_range(value):
        return f"{where} is too large (beyond float range)"
    if _is_scalar(value) or _is_text(value):
        return None
    if isinstance(value, list) and all(_is_scalar(v) for v in value):
        return None
    return f"{where} is {_shown(value)}, expected a number, text or null"


def _row_problem(table: str, i: int, row: Any) -> str | None:
    if not isinstance(row, dict):
        return f"{table} row {i} is not an object"
    numbers = schema.number_keys(table)
    keys = schema.row_keys().get(table, ())
    for key, value in row.items():
        if not isinstance(key, str):
            return f"{table} row {i}: a column name is not text"
        if key in numbers:
            if value is not None and not _is_number(value):
                return f"{table} row {i}: {key} is {_shown(value)}, expected a number"
            if not _in_range(value):
                return f"{table} row {i}: {key} is too large"
        elif key == "request_rate" and (value == UNBOUNDED or _is_number(value)):
            continue  # a tier's rate, a key where the ``tables`` command splits the axis
        elif key in keys or key in ("engine", "workload", "source", "name"):
            if value is not None and not isinstance(value, str):
                return f"{table} row {i}: {key} is {_shown(value)}, expected text"
        elif key in TEXT_CELLS:
            if value is not None and not _is_text(value):
                return f"{table} row {i}: {key} is {_shown(value)}, expected text"
        elif (problem := _cell_problem(f"{table} row {i}: {key}", value)) is not None:
            return problem
    return None


def _round_problem(info: Any) -> str | None:
    if not isinstance(info, dict):
        return f"round is {_shown(info)}, expected an object"
    for key in TEXT_ROUND:
        value = info.get(key)
        if value is not None and not _is_text(value):
            return f"round.{key} is {_shown(value)}, expected text"
    workloads = info.get("workloads")
    if workloads is not None:
        if not isinstance(workloads, list):
            return f"round.workloads is {_shown(workloads)}, expected a list"
        for i, w in enumerate(workloads, 1):
            if not (isinstance(w, dict) and isinstance(w.get("id"), str)
                    and (w.get("label") is None or _is_text(w.get("label")))):
                return f"round.workloads[{i}] is {_shown(w)}, expected {{id: text, label}}"
    for key in ("engines", "related"):
        rows = info.get(key)
        if rows is not None and not (isinstance(rows, list)
                                     and all(isinstance(r, dict) for r in rows)):
            return f"round.{key} is {_shown(rows)}, expected a list of objects"
    for key, kind in (("concurrency", _is_number), ("primary_pair", lambda v: isinstance(v, str))):
        items = info.get(key)
        # an unbounded rate among the tiers is written null (JSON has no inf)
        if items is not None and not (isinstance(items, list)
                                      and all(v is None or kind(v) for v in items)):
            return f"round.{key} is {_shown(items)}, expected a list"
    return None


def schema_problem(tables: Mapping[str, Any]) -> str | None:
    """What in ``tables`` does not have the type the tables schema gives it (None: all do)."""
    if isinstance(tables.get("round"), dict) and \
            (problem := _round_problem(tables["round"])) is not None:
        return problem
    for table in schema.required():  # refused when malformed (the others: ``usable``)
        rows = tables.get(table, [])
        if not isinstance(rows, list):
            return f"{table} is not a list of rows"
        for i, row in enumerate(rows, 1):
            if (problem := _row_problem(table, i, row)) is not None:
                return problem
    values = tables.get("values", {})
    if not isinstance(values, dict):
        return "values is not an object"
    stack = [(str(name), value) for name, value in values.items()]
    while stack:  # named values may nest (``crossover.concurrency``): every leaf a scalar
        name, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{name}.{k}", v) for k, v in value.items()]
        elif isinstance(value, list):  # compared as a whole; only its numbers must be floats
            stack += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        elif not _in_range(value):
            return f"values[{_shown(name)}] is too large (beyond float range)"
    return None


def joined_axis(tables: dict[str, Any]) -> dict[str, Any]:
    """A ``tables`` command JSON read back as the page's data block holds it: a rate sweep's
    tier key (exported under ``request_rate``, ``"inf"`` unbounded, beside an empty
    ``concurrency``) back in ``concurrency``, where ``diff`` and baselines match rows."""
    out = dict(tables)
    for table in (s.name for s in schema.specs() if s.source == schema.WORKLOAD):
        rows = out.get(table)
        if not isinstance(rows, list) or not any(
                isinstance(r, dict) and "request_rate" in r for r in rows):
            continue
        joined = []
        for row in rows:
            if isinstance(row, dict) and "request_rate" in row and row.get("concurrency") is None:
                row = dict(row)
                rate = row.pop("request_rate")
                # the data block writes an unbounded tier null (JSON has no inf): so here
                row["concurrency"] = None if rate == "inf" else rate
            joined.append(row)
        out[table] = joined
    return out


def usable(tables: dict[str, Any]) -> dict[str, Any]:
    """``tables`` without the parts no reader uses and that do not have their schema type (a
    ``round`` that is not an object, a ``runs`` that is not a list of objects): ignored, as
    they always were, rather than refused."""
    out = dict(tables)
    if "round" in out and not isinstance(out["round"], dict):
        del out["round"]
    required = schema.required()
    for table in schema.row_keys():
        if table in required or table not in out:
            continue
        rows = out[table]
        if not isinstance(rows, list):
            del out[table]
        else:
            out[table] = [r for r in rows if isinstance(r, dict)
                          and _row_problem(table, 0, r) is None]
    return out


def read_tables(path: Path | str, data: bytes, what: str) -> Any:
    """The parsed JSON of ``data`` (parse rules above); the caller checks the depth, the
    schema name, then ``schema_problem``."""
    return parse_json(path, data, what)
