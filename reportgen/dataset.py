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
writes no file.

The index also writes a compacted copy (``compact``): ``<dir>/compacted/<table>/part-NN.parquet``,
NN = ``bucket_of(round)`` (crc32 of the name, mod 64), the rows of the bucket's rounds one
round after another in name order; a type that differs between rounds becomes string (JSON
text). A query over thousands of rounds opens 64 files instead of a file a round.
pyarrow (and DuckDB, for ``trend_values``) come with ``reportgen[dataset]``;
this module imports them only when called.
"""

from __future__ import annotations

import json
import math
import os
import stat
import zlib
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


# ----------------------------------------------------------------------------- compacted
# ``<dir>/compacted/<table>/part-NN.parquet``: the same rows as the per-round files, the rounds
# of bucket NN in one file, so a query over thousands of rounds opens 64 files, not thousands
# (DuckDB pays ~0.1–0.2 ms a file). A round's bucket depends on its name alone: it never moves.

BUCKETS = 64
COMPACTED = "compacted"


def bucket_of(round_name: str) -> int:
    return zlib.crc32(round_name.encode("utf-8", "surrogateescape")) % BUCKETS


def part_name(bucket: int) -> str:
    return f"part-{bucket:02d}.parquet"


def parts_present(out: Path, table: str = "values") -> set[int]:
    """The buckets whose compacted ``table`` file is there: one folder listing."""
    names = {part_name(b): b for b in range(BUCKETS)}
    try:
        with os.scandir(out / COMPACTED / table) as it:
            return {names[e.name] for e in it if e.name in names}
    except (FileNotFoundError, NotADirectoryError):
        return set()


def _read_round_file(path: Path) -> Any:
    """One per-round file as a pyarrow table, or None when it is missing or unreadable; read
    through a buffer (a path would be globbed by some readers: round names may hold ``[``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):    # a FIFO in its place is never read
            return None
        data = path.read_bytes()
        return pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False) \
            .replace_schema_metadata(None)
    except (OSError, pa.ArrowException):
        return None


def _concatenated(tables: Sequence[Any]) -> Any:
    """The rows of ``tables`` one after another: the union of their columns in first-seen
    order, a column missing from a table null there, a column whose type differs between
    tables string (JSON text, the rule of ``columns``)."""
    import pyarrow as pa

    types: dict[str, set[Any]] = {}
    for t in tables:
        for field in t.schema:
            types.setdefault(field.name, set()).add(field.type)
    mixed = {name for name, seen in types.items() if len(seen - {pa.null()}) > 1}
    if mixed:
        tables = [_as_text(t, mixed) for t in tables]
    # permissive: a missing or all-null column is null there (no type conflict is left)
    return pa.concat_tables(tables, promote_options="permissive").select(list(types))


def _as_text(table: Any, names: set[str]) -> Any:
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        if field.name in names and field.type not in (pa.string(), pa.null()):
            table = table.set_column(i, pa.field(field.name, pa.string()), pa.array(
                [_text(v) for v in table.column(i).to_pylist()], pa.string()))
    return table


def compact(out: Path, rounds: Iterable[str], buckets: Iterable[int]) -> None:
    """Rewrite the compacted files of ``buckets`` (every table) from the per-round files of
    those of ``rounds`` in them, in round-name order; a bucket with no rows for a table has no
    file (an old one is removed). Only the rounds given: a round that left the series leaves
    its bucket, whatever per-round files remain."""
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow as pa
    import pyarrow.parquet as pq

    from reportgen.files.write import write_atomic

    wanted = set(buckets)
    members: dict[int, list[str]] = {b: [] for b in wanted}
    for r in sorted(set(rounds)):
        b = bucket_of(r)
        if b in members:
            members[b].append(r)
    # threads read the files (pyarrow decodes without the GIL: ~1.3 ms a small file); this
    # thread writes (write_atomic's signal handling belongs to the main thread)
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        for table in TABLES:
            folder = out / COMPACTED / table
            for b in sorted(wanted):
                got = [t for t in pool.map(_read_round_file, [
                    out / table / f"{r}.parquet" for r in members[b]])
                    if t is not None and t.num_rows]
                path = folder / part_name(b)
                if not got:
                    path.unlink(missing_ok=True)
                    continue
                sink = pa.BufferOutputStream()
                pq.write_table(_concatenated(got), sink, compression="zstd")
                folder.mkdir(parents=True, exist_ok=True)
                write_atomic(path, bytes(sink.getvalue().to_pybytes()))


# ----------------------------------------------------------------------------- the trend

TREND_BATCH = 1000


def trend_values(out: Path, rounds: Iterable[str], names: Iterable[str], *,
                 compacted: bool = True) -> dict[str, dict[str, float]]:
    """Round → {value name: value} of the first workload, for the names given (``{e}`` matches
    an engine id), read with DuckDB: what the index's trend figure draws. The rounds are read
    from the compacted files of their buckets; a round whose bucket file is missing or
    unreadable, from its own ``values`` file. A round left out (in neither, a per-round name
    DuckDB would glob, or a per-round file DuckDB cannot read) keeps the index cache's points.
    ``compacted=False``: from the per-round files alone (the benchmark's comparison)."""
    import duckdb

    asked = list(dict.fromkeys(rounds))
    patterns = [n.replace("{e}", "%") for n in names]
    query = ("SELECT round, name, value FROM read_parquet(?, union_by_name = true) WHERE "
             "coalesce(workload_index, 0) = 0 AND value IS NOT NULL AND ("
             + " OR ".join(["name LIKE ?"] * len(patterns)) + ")")
    present = parts_present(out) if compacted else set()
    parts = sorted({bucket_of(r) for r in asked} & present)
    con = duckdb.connect()
    try:
        rows, read = _read_parts(con, query, patterns, out / COMPACTED / "values", parts)
        wanted = set(asked)
        rows = [row for row in rows if row[0] in wanted]
        # rows of rounds not asked for are ignored; the others, from their own files
        rest = [r for r in asked if bucket_of(r) not in read]
        rows += _read_round_files(con, query, patterns, out, rest)
    finally:
        con.close()
    got: dict[str, dict[str, float]] = {}
    for round_name, name, value in rows:
        got.setdefault(str(round_name), {})[str(name)] = float(value)
    return got


Rows = list[tuple[str, str, float]]


def _read_parts(con: Any, query: str, patterns: list[str], folder: Path, parts: list[int]
                ) -> tuple[Rows, set[int]]:
    """The rows of the compacted ``parts`` (one query; when it fails, a query a part, to keep
    the readable ones) and the parts read."""
    import duckdb

    files = {b: str(folder / part_name(b)) for b in parts}
    if not files:
        return [], set()
    try:
        return con.execute(query, [list(files.values()), *patterns]).fetchall(), set(files)
    except duckdb.Error:
        pass
    rows: Rows = []
    read = set()
    for b, file in files.items():
        try:
            rows += con.execute(query, [[file], *patterns]).fetchall()
            read.add(b)
        except duckdb.Error:
            continue
    return rows, read


def _read_round_files(con: Any, query: str, patterns: list[str], out: Path,
                      rounds: list[str]) -> Rows:
    """The rows of the rounds' own ``values`` files (none at all if any is unreadable)."""
    import duckdb

    # DuckDB expands glob characters in a path: such a round keeps its cached points
    files = [str(out / "values" / f"{r}.parquet") for r in rounds
             if not GLOB_CHARS & set(r) and (out / "values" / f"{r}.parquet").is_file()]
    rows: Rows = []
    try:
        # TREND_BATCH files a query: DuckDB holds every file's metadata until a query ends
        # (10,000 rounds in one query: 298 MB; in batches of 1,000: 113 MB, as fast)
        for i in range(0, len(files), TREND_BATCH):
            rows += con.execute(query, [files[i:i + TREND_BATCH], *patterns]).fetchall()
    except duckdb.Error:      # an unreadable file: the trend keeps the cached points
        return []
    return rows
