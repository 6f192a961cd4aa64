"""Named values stored by reference in the page's data block.

Most named values of a round of many configurations repeat a table's cells:
``tiers.<engine>.c<C>.<column>`` is the tiers row's cell, ``prefill.<engine>.c<C>.server_ms``
the prefill row's ``server_prefill_ms`` (64 configurations × 12 tiers: 33,000 of 37,500
names, a third of the packed block). ``compact`` leaves out every group of names that a table's
rows give back exactly and lists the groups under ``REFS``; ``expand`` writes them back. The
tables dict read back is the one written: ``compact`` expands its own result and keeps the
values as they were unless it gets every name, value, type and the order back (values are
sorted by name, as ``tables.to_json_dict`` writes them).

A group is (table, name prefix, by workload, {name suffix: [column, as float]}: a count cell,
16, is the named value 16.0 when ``as float``); a row's names are
``[<workload>/]<prefix>.<engine>.<tier_key(axis)>.<suffix>``, its axis value ``concurrency``
(or ``request_rate``, a rate sweep's, ``"inf"`` for every request at once).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from reportgen.schema import Json, JsonObject, tier_key

REFS = "values_by_ref"


def _same(a: Json, b: Json) -> bool:
    """Equal as the JSON written (NaN is written null): same type, same value."""
    def missing(v: Json) -> bool:
        return v is None or (isinstance(v, float) and math.isnan(v))

    if missing(a) or missing(b):
        return missing(a) and missing(b)
    return type(a) is type(b) and a == b


def _as_float(cell: Json) -> Json:
    """A count cell (``requests``: 16) as the named value writes it (16.0)."""
    return float(cell) if isinstance(cell, int) and not isinstance(cell, bool) else cell


def _axis(row: Mapping[str, Json]) -> float | None:
    for key in ("concurrency", "request_rate"):
        value = row.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) \
                and not math.isnan(value):
            return float(value)
        if value == "inf":
            return math.inf
    return None


def _bases(rows: list[Json], by_workload: bool) -> list[str] | None:
    """Each row's ``[<workload>/]<prefix placeholder>`` parts: ``(head, tail)`` joined as
    ``head + prefix + tail``; None when a row has no engine or axis value."""
    out = []
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("engine"), str):
            return None
        axis = _axis(row)
        workload = row.get("workload")
        if axis is None or (by_workload and not isinstance(workload, str)):
            return None
        head = f"{workload}/" if by_workload else ""
        out.append(f"{head}\0.{row['engine']}.{tier_key(axis)}.")
    return out


def _name(base: str, prefix: str, suffix: str) -> str:
    return base.replace("\0", prefix, 1) + suffix


def _first_row_names(values: Mapping[str, Json], head: str, tail: str, taken: set[str]
                     ) -> list[tuple[str, str]]:
    """(prefix, suffix) of every name ``<head><prefix><tail><suffix>`` not yet taken, the
    prefix one non-empty segment: the first row's names."""
    out = []
    for n in values:
        at = n.find(tail, len(head)) if n.startswith(head) else -1
        if at > len(head) and "." not in n[len(head):at] and n not in taken:
            out.append((n[len(head):at], n[at + len(tail):]))
    return out


def _groups(table: str, rows: list[Json], values: Mapping[str, Json],
            taken: set[str]) -> list[JsonObject]:
    """The groups of ``table``'s rows whose every name is in ``values`` with the cell's value."""
    found: list[JsonObject] = []
    for by_workload in (False, True):
        bases = _bases(rows, by_workload)
        if not bases:
            continue
        head, tail = bases[0].split("\0")
        first = rows[0]
        assert isinstance(first, dict)
        by_prefix: dict[str, dict[str, Json]] = {}
        for prefix, suffix in _first_row_names(values, head, tail, taken):
            name = _name(bases[0], prefix, suffix)
            cands = ([suffix] if suffix in first else []) + [c for c in first if c != suffix]
            for column, as_float in ((c, f) for c in cands for f in (False, True)):
                cell = first.get(column)
                if not _same(_as_float(cell) if as_float else cell, values[name]):
                    continue
                if all(isinstance(r, dict) and (n := _name(b, prefix, suffix)) in values
                       and n not in taken and _same(_as_float(r.get(column)) if as_float
                                                    else r.get(column), values[n])
                       for r, b in zip(rows, bases, strict=True)):
                    by_prefix.setdefault(prefix, {})[suffix] = [column, as_float]
                    taken.update(_name(b, prefix, suffix) for b in bases)
                    break
        found += [{"table": table, "prefix": p, "by_workload": by_workload,
                   "columns": dict(cols)} for p, cols in by_prefix.items()]
    return found


def compact(tables: JsonObject) -> JsonObject:
    """``tables`` with the named values that its tables' rows give back left out and their
    groups listed under ``REFS``; ``tables`` itself when there are none, or when ``expand``
    would not give the same values back."""
    values = tables.get("values")
    if not isinstance(values, dict) or REFS in tables or list(values) != sorted(values):
        return tables
    taken: set[str] = set()
    groups: list[Json] = []
    for table, rows in tables.items():
        if table != "values" and isinstance(rows, list) and rows:
            groups += _groups(table, rows, values, taken)
    if not groups:
        return tables
    out = dict(tables)
    out["values"] = {k: v for k, v in values.items() if k not in taken}
    out[REFS] = groups
    back = expand(out)["values"]
    assert isinstance(back, dict)
    if list(back) != list(values) or not all(_same(back[k], v) for k, v in values.items()):
        return tables
    return out


def expand(tables: JsonObject) -> JsonObject:
    """The tables dict with the named values ``compact`` left out written back (sorted by name,
    ``REFS`` removed). Raises ValueError when ``REFS`` is malformed."""
    if REFS not in tables:
        return tables
    groups, values = tables[REFS], tables.get("values")
    if not isinstance(groups, list) or not isinstance(values, dict):
        raise ValueError(f"{REFS} is not a list of groups beside a values object")
    out = dict(values)
    for group in groups:
        if not isinstance(group, dict):
            raise ValueError(f"{REFS}: a group is not an object")
        table, prefix = group.get("table"), group.get("prefix")
        by_workload, columns = group.get("by_workload"), group.get("columns")
        rows = tables.get(table) if isinstance(table, str) and table != "values" else None
        if not isinstance(prefix, str) or not prefix or "." in prefix \
                or not isinstance(by_workload, bool) or not isinstance(columns, dict) \
                or not all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], str)
                           and isinstance(c[1], bool) for c in columns.values()) \
                or not isinstance(rows, list):
            raise ValueError(f"{REFS}: a group names no table, prefix or columns")
        bases = _bases(rows, by_workload)
        if bases is None:
            raise ValueError(f"{REFS}: table {table!r} has a row without engine or tier")
        refs = [(s, str(c[0]), bool(c[1])) for s, c in columns.items() if isinstance(c, list)]
        for row, base in zip(rows, bases, strict=True):
            assert isinstance(row, dict)
            for suffix, column, as_float in refs:
                cell = row.get(column)
                out[_name(base, prefix, suffix)] = _as_float(cell) if as_float else cell
    result = {k: v for k, v in tables.items() if k != REFS}
    result["values"] = dict(sorted(out.items()))
    return result
