"""A round's tables as Parquet files: the series as a dataset (docs/DATASET.md).

``<dir>/<table>/<round>.parquet``, one file per round and table, each with the round's name as
its first column (``round``), so ``read_parquet('<dir>/tiers/*.parquet')`` is every round's
tiers. The tables are those of ``reportgen tables`` (its JSON dict, ``tables.to_json_dict``):

- ``round``: one row, the round's scalar facts (a bilingual text as ``<key>_zh``/``<key>_en``);
- ``runs``, ``tiers``, ``goodput``: their rows as in the tables JSON;
- ``values``: the named values (``crossover.concurrency``, ``engines.<id>.itl_p50_c1_ms`` …),
  one row each: ``workload`` / ``workload_index`` (a round with several workloads prefixes its
  names with the workload's id; null otherwise), ``name``, ``value`` (float64) or ``text``.

Column types, the same for every round: a number column is float64 (missing = null, never 0),
text is string, true/false is boolean; a column that mixes kinds is string (numbers as JSON);
nested values are JSON text; a column with no value in a round is left out of that round's
file (read with ``union_by_name`` in DuckDB, ``mergeSchema`` in Spark). A table with no rows
writes no file. pyarrow (and DuckDB, for ``trend_values``) come with ``reportgen[dataset]``;
this module imports them only when called.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

GLOB_CHARS = frozenset("*?[]{}")
TABLES = ("round", "runs", "tiers", "goodput", "values")
SKIPPED = ("dataset: skipped (the Parquet tables under dataset/ need pyarrow: "
           "pip install 'reportgen[dataset]')")


def available() -> bool:
    """Whether pyarrow is installed (the Parquet writer); found, not imported (an index run
    with nothing to build must stay cheap)."""
    return _installed("pyarrow")


def duckdb_available() -> bool:
    return _installed("duckdb")


def _installed(module: str) -> bool:
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _kind(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "json"


def _text(value: object) -> str | None:
    if _kind(value) == "null":
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           sort_keys=True)


def columns(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, list[Any]]]:
    """Column name → (type: ``float64`` / ``bool`` / ``string``, values), in first-seen order;
    columns with no value left out (the rules in the module docstring)."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    out: dict[str, tuple[str, list[Any]]] = {}
    for name in names:
        values = [row.get(name) for row in rows]
        kinds = {_kind(v) for v in values} - {"null"}
        if not kinds:
            continue
        if kinds == {"number"}:
            out[name] = ("float64", [float(v) if isinstance(v, int | float) and not math.isnan(v)
                                     else None for v in values])
        elif kinds == {"bool"}:
            out[name] = ("bool", [None if _kind(v) == "null" else bool(v) for v in values])
        else:
            out[name] = ("string", [_text(v) for v in values])
    return out


def _round_row(info: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, Mapping) and set(value) == {"zh", "en"}:
            row[f"{key}_zh"], row[f"{key}_en"] = value["zh"], value["en"]
        elif _kind(value) != "json":
            row[key] = value
    return row


def _value_rows(tables: Mapping[str, Any]) -> list[dict[str, Any]]:
    workloads = [str(w.get("id")) for w in (tables.get("round") or {}).get("workloads") or []
                 if isinstance(w, Mapping)]
    rows = []
    for key, value in (tables.get("values") or {}).items():
        workload, index, name = None, None, str(key)
        head, sep, rest = name.partition("/")
        if sep and head in workloads:
            workload, index, name = head, workloads.index(head), rest
        kind = _kind(value)
        rows.append({"workload": workload, "workload_index": index, "name": name,
                     "value": float(value) if kind == "number" else None,
                     "text": None if kind in ("number", "null") else _text(value)})
    return rows


def table_rows(tables: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The dataset's tables of one round, as rows (before the ``round`` column)."""
    out: dict[str, list[dict[str, Any]]] = {"round": [_round_row(tables.get("round") or {})]}
    for name in ("runs", "tiers", "goodput"):
        rows = tables.get(name) or []
        out[name] = [dict(r) for r in rows if isinstance(r, Mapping)]
    out["values"] = _value_rows(tables)
    return out


def parquet_bytes(round_name: str, rows: Sequence[Mapping[str, Any]]) -> bytes:
    """One table of one round as Parquet bytes (deterministic for one pyarrow version)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = columns(rows)
    # workload_index is a small integer: kept as int32, not float64
    arrays: dict[str, Any] = {"round": pa.array([round_name] * len(rows), pa.string())}
    for name, (kind, values) in cols.items():
        if name == "workload_index" and kind == "float64":
            arrays[name] = pa.array([None if v is None else int(v) for v in values], pa.int32())
        else:
            arrays[name] = pa.array(values, {"float64": pa.float64(), "bool": pa.bool_(),
                                             "string": pa.string()}[kind])
    if "workload_index" in {r for row in rows for r in row} and "workload_index" not in cols:
        arrays["workload_index"] = pa.array([None] * len(rows), pa.int32())
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(arrays), sink, compression="zstd")
    return bytes(sink.getvalue().to_pybytes())


def files_of(round_name: str, tables: Mapping[str, Any]) -> dict[str, bytes]:
    """``<table>/<round>.parquet`` → bytes for every table of the round that has rows."""
    return {f"{name}/{round_name}.parquet": parquet_bytes(round_name, rows)
            for name, rows in table_rows(tables).items() if rows}


def write_round(out: Path, round_name: str, tables: Mapping[str, Any]) -> list[Path]:
    """Write (atomically) one round's dataset files under ``out``; a table of this round
    that has no rows now loses its old file. Returns the files written."""
    from reportgen.files.write import write_atomic

    files = files_of(round_name, tables)
    written = []
    for name in TABLES:
        path = out / name / f"{round_name}.parquet"
        rel = f"{name}/{round_name}.parquet"
        if rel in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, files[rel])
            written.append(path)
        else:
            path.unlink(missing_ok=True)
    return written


def remove_round(out: Path, round_name: str) -> None:
    for name in TABLES:
        (out / name / f"{round_name}.parquet").unlink(missing_ok=True)


def rounds_present(out: Path) -> set[str]:
    """The rounds whose dataset is there (their ``round`` and ``values`` files: every round
    has both; the trend reads ``values``): two folder listings, not a stat a round."""
    def listed(table: str) -> set[str]:
        try:
            with os.scandir(out / table) as it:
                return {e.name[:-len(".parquet")] for e in it
                        if e.name.endswith(".parquet") and e.is_file()}
        except (FileNotFoundError, NotADirectoryError):
            return set()

    return listed("round") & listed("values")


TREND_BATCH = 1000


def trend_values(out: Path, rounds: Iterable[str], names: Iterable[str]
                 ) -> dict[str, dict[str, float]]:
    """Round → {value name: value} of the first workload, for the names given (``{e}`` matches
    an engine id), read from the dataset's ``values`` files with DuckDB: what the index's
    trend figure draws. A round left out (no file, a name DuckDB would glob, or any file
    DuckDB cannot read) keeps the points of the index's cache."""
    import duckdb

    # DuckDB expands glob characters in a path: such a round keeps its cached points
    files = [str(out / "values" / f"{r}.parquet") for r in rounds
             if not GLOB_CHARS & set(r) and (out / "values" / f"{r}.parquet").is_file()]
    if not files:
        return {}
    patterns = [n.replace("{e}", "%") for n in names]
    where = " OR ".join(["name LIKE ?"] * len(patterns))
    con = duckdb.connect()
    rows: list[tuple[str, str, float]] = []
    try:
        # TREND_BATCH files a query: DuckDB holds every file's metadata until a query ends
        # (10,000 rounds in one query: 298 MB; in batches of 1,000: 113 MB, as fast)
        for i in range(0, len(files), TREND_BATCH):
            rows += con.execute(
                "SELECT round, name, value FROM read_parquet(?, union_by_name = true) "
                f"WHERE coalesce(workload_index, 0) = 0 AND value IS NOT NULL AND ({where})",
                [files[i:i + TREND_BATCH], *patterns]).fetchall()
    except duckdb.Error:      # an unreadable file: the trend keeps the cached points
        return {}
    finally:
        con.close()
    got: dict[str, dict[str, float]] = {}
    for round_name, name, value in rows:
        got.setdefault(str(round_name), {})[str(name)] = float(value)
    return got
