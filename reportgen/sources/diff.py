"""What changed between two versions of a round: reports (their embedded JSON) or round dirs.

Works on the tables dict only (schema ``reportgen.tables/2``; a ``/1`` report is read too), so a
published report.html can be compared with a corrected round directory without the old raw
files. The result is data: ``Diff`` groups one ``ChangedFigure`` per changed figure by the input it
belongs to (a configuration's tier, a configuration, or the round); console.py and the page
render it. A figure that appears in several places (the tiers table and ``values``, say) is one
row that lists its places. The records and the comparison itself are pure and live below the
page, in reportgen.analyze.changes (imported from there); this module reads the files.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

from reportgen.analyze.changes import (
    Diff,
    diff_tables,
    group_changes,
)
from reportgen.analyze.goodput import LOAD_UNITS
from reportgen.errors import InputError
from reportgen.files import datablock, embedded, value_refs
from reportgen.files.safe_read import CAPS, printable, read_bytes
from reportgen.schema import READABLE, RENAMED, SCHEMA
from reportgen.slo import CLI_SOURCE, METRICS, Slo

MAX_DEPTH = embedded.MAX_DEPTH   # the tables dict nests 4 deep; deeper is crafted
_DATA_ID = b'id="report-data"'
__all__ = ["checked", "diff_sources", "find_data_block", "load_tables", "tables_from_html",
           "tables_from_round"]

# ----------------------------------------------------------------------------- reading

def _read_capped(path: Path) -> bytes:
    """A report's bytes through the one checked reader: regular file, at most its cap."""
    return read_bytes(path, printable(str(path)), "report")


def find_data_block(raw: bytes) -> bytes | None:
    """The body of ``<script … id="report-data" …>``, found in linear time: tags are visited
    left to right, each byte at most a few times (a regex with ``[^>]*`` and ``.*?`` rescans
    from every ``<script`` of a crafted file and takes minutes)."""
    lower = raw.lower()
    pos = 0
    while (start := lower.find(b"<script", pos)) >= 0:
        end = lower.find(b">", start)
        if end < 0:
            return None
        body_end = lower.find(b"</script", end)
        if _DATA_ID in lower[start:end]:
            return raw[end + 1:body_end] if body_end >= 0 else None
        if body_end < 0:
            return None
        pos = body_end  # a script's body is text: a "<script" inside it opens no tag
    return None


def _parse(path: Path, text: bytes, what: str) -> Any:
    return embedded.read_tables(path, text, what)


def checked(path: Path, data: Any, what: str) -> dict[str, Any]:
    """``data`` as a tables dict of a known schema (schema 1 renamed to 2), or InputError."""
    if not isinstance(data, dict):
        raise InputError(path, f"{what} is not a JSON object")
    if embedded.too_deep(data):
        raise InputError(path, f"{what} is nested more than {MAX_DEPTH} levels deep")
    tables = data.get("tables", data)
    if not isinstance(tables, dict) or tables.get("schema") not in READABLE:
        raise InputError(path, f"{what} is not schema {SCHEMA}")
    tables = embedded.usable(tables)
    problem = embedded.schema_problem(tables)   # every type checked before any use
    if problem:
        raise InputError(path, f"{what}: {problem}")
    tables = embedded.joined_axis(tables)
    if tables["schema"] != SCHEMA:  # version 1: the names version 2 gave its columns
        tables = dict(tables)
        for table, names in RENAMED.items():
            tables[table] = [{names.get(k, k): v for k, v in row.items()}
                             for row in tables.get(table, [])]
    return cast(dict[str, Any], tables)


def tables_from_html(path: Path) -> dict[str, Any]:
    """The tables dict embedded in a report built by reportgen."""
    block = find_data_block(_read_capped(path))
    if block is None:
        raise InputError(path, "no report-data JSON found (is this a report built by reportgen?)")
    try:
        block = datablock.unpack(block, limit=CAPS["report"].limit)
    except ValueError as exc:
        raise InputError(path, f"report-data: {exc}") from None
    data = _parse(path, block, "report-data JSON")
    if isinstance(data, dict):   # a packed block's named values by reference, written back
        try:
            data = value_refs.expand(data)
        except ValueError as exc:
            raise InputError(path, f"report-data: {exc}") from None
    return checked(path, data, "report-data")


def tables_from_round(path: Path, like: dict[str, Any] | None = None) -> dict[str, Any]:
    """The tables dict of a round folder (what its report would embed). ``like``: the other
    side's tables; the command-line objective (``--slo``) and load (``--load``) it was built
    with apply here too, so its goodput, capacity and load tables are compared, not listed as
    removed (an objective read from round.toml stays the folder's own: a corrected one
    shows)."""
    from reportgen import pipeline
    from reportgen.tables import to_json_dict

    slo, load, price = _given(like or {})
    if slo is None and load is None and price is None:
        return pipeline.tables_of(path)
    tables = to_json_dict(pipeline.analyze_dir(path, slo=slo, load=load).analysis)
    if price is not None and not tables.get("cost"):
        # the other side was priced (--price) and this folder states no price of its own: its
        # cost table is compared at that price (a price in its round.toml stays its own)
        tables = to_json_dict(pipeline.analyze_dir(path, slo=slo, load=load,
                                                   price=price).analysis)
    return tables


def _given(tables: dict[str, Any]) -> tuple[Slo | None, tuple[float, str] | None,
                                             float | None]:
    """The objective given on the command line, the load and the $/GPU-hour a tables dict was
    built with."""
    info, slo = tables.get("slo"), None
    if isinstance(info, dict) and info.get("source") == CLI_SOURCE:
        ms = {m: info.get(f"{m}_ms") for m in METRICS}
        target = info.get("target")
        if all(v is None or isinstance(v, int | float) for v in ms.values()) and \
                isinstance(target, int | float) and 0 < target <= 1:
            ttft, tpot, e2el = (math.nan if v is None else float(v) for v in ms.values())
            slo = Slo(ttft, tpot, e2el, float(target), CLI_SOURCE)
            slo = slo if slo.given else None
    load = None
    for row in tables.get("load") or []:
        value, unit = row.get("load"), row.get("unit")
        if isinstance(value, int | float) and value > 0 and unit in LOAD_UNITS:
            load = (float(value), str(unit))
            break
    price = None
    for row in tables.get("cost") or []:
        value = row.get("usd_per_gpu_h")
        if isinstance(value, int | float) and math.isfinite(value) and value > 0:
            price = float(value)
            break
    return slo, load, price


def load_tables(path: Path, like: dict[str, Any] | None = None) -> dict[str, Any]:
    """The tables dict of a report, a tables JSON or a round folder (``like``: see
    ``tables_from_round``)."""
    if path.is_dir():
        return tables_from_round(path, like)
    if path.name == "round.toml":
        return tables_from_round(path.parent, like)
    if not path.exists():
        raise InputError(path, "not found (expected a report .html or a round directory)")
    if path.suffix.lower() == ".json":
        data = _parse(path, _read_capped(path), "JSON")
        if not isinstance(data, dict) or data.get("schema") not in READABLE:
            raise InputError(path, f"not a `reportgen tables` JSON (schema {SCHEMA})")
        return checked(path, data, "tables JSON")
    return tables_from_html(path)


def _is_round(path: Path) -> bool:
    return path.is_dir() or path.name == "round.toml"


def diff_sources(old: Path, new: Path) -> Diff:
    if _is_round(old) and not _is_round(new):  # the file first: the folder is read like it
        new_tables = load_tables(new)
        old_tables = load_tables(old, new_tables)
    else:
        old_tables = load_tables(old)
        new_tables = load_tables(new, old_tables)
    return group_changes(diff_tables(old_tables, new_tables), new_tables, old_tables)
