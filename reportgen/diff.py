"""What changed between two versions of a round: reports (their embedded JSON) or round dirs.

Works on the `reportgen.tables/1` dict only, so a published report.html can be compared with a
corrected round directory without the old raw files.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen import datablock
from reportgen.errors import InputError

SCHEMA = "reportgen.tables/1"

# Row identity per table: cells are matched by these columns, not by position, so adding a
# tier does not mark every later row as changed.
ROW_KEYS: dict[str, tuple[str, ...]] = {
    "engines": ("id",),
    "tiers": ("engine", "concurrency"),
    "crossovers": ("engine_a", "engine_b", "lower_tier"),
    "graph_reuse": ("engine", "concurrency"),
    "memory": ("engine",),
    "prefill": ("engine", "concurrency"),
    "checks": ("id", "engine", "concurrency"),
}

# An input file named in a cell (source columns, check messages): "<round folder>/vllm/x.json"
_FILE_REF = re.compile(r"(?<![\w/.-])([\w.+-]+)/[\w.+/-]*\.(?:jsonl?|log|txt|csv|prom|md|toml)\b")
_DATA_SCRIPT = re.compile(
    rb'<script[^>]*\bid="report-data"[^>]*>(.*?)</script>', re.DOTALL | re.IGNORECASE
)


@dataclass(frozen=True)
class Change:
    table: str      # "values" for headline figures, else a table name
    row: str        # row identity, e.g. "llamacpp C=32"; the dotted name for values
    column: str
    old: Any
    new: Any

    @property
    def kind(self) -> str:
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        return "changed"


def tables_from_html(path: Path) -> dict[str, Any]:
    """The tables dict embedded in a report built by reportgen."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    found = _DATA_SCRIPT.search(raw)
    if not found:
        raise InputError(path, "no report-data JSON found (is this a report built by reportgen?)")
    try:
        data = json.loads(datablock.unpack(found.group(1)).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        raise InputError(path, f"report-data JSON is damaged: {exc}") from None
    tables = data.get("tables", data) if isinstance(data, dict) else None
    if not isinstance(tables, dict) or tables.get("schema") != SCHEMA:
        raise InputError(path, f"report-data is not schema {SCHEMA}")
    return tables


def tables_from_round(path: Path) -> dict[str, Any]:
    from reportgen.analyze.run import analyze
    from reportgen.load.round import load_round
    from reportgen.tables import to_json_dict

    return to_json_dict(analyze(load_round(path)))


def load_tables(path: Path) -> dict[str, Any]:
    if path.is_dir():
        return tables_from_round(path)
    if path.name == "round.toml":
        return tables_from_round(path.parent)
    if not path.exists():
        raise InputError(path, "not found (expected a report .html or a round directory)")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(path, f"invalid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise InputError(path, f"not a `reportgen tables` JSON (schema {SCHEMA})")
        return data
    return tables_from_html(path)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _row_id(row: dict[str, Any], keys: tuple[str, ...]) -> str:
    parts = []
    for key in keys:
        value = row.get(key)
        if value is None:
            continue
        if key in ("concurrency", "lower_tier"):
            value = f"C={float(value):g}"
        parts.append(str(value))
    return " ".join(parts) or "(all)"


def _rows(table: Any, keys: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    if not isinstance(table, list):
        return {}
    return {_row_id(row, keys): row for row in table if isinstance(row, dict)}


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key in sorted(value):
            out.update(_flatten(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _round_folder(tables: dict[str, Any]) -> str | None:
    """The round folder name file references start with (the most common first segment)."""
    counts: Counter[str] = Counter()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            counts.update(m.group(1) for m in _FILE_REF.finditer(value))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for table in ROW_KEYS:
        walk(tables.get(table))
    return counts.most_common(1)[0][0] if counts else None


def diff_tables(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every headline value and table cell that differs, in a stable order. File references
    are compared as if both rounds lived in folders of the same name, so comparing
    ``round2/`` with ``round2-fixed/`` does not list every source cell as changed."""
    changes: list[Change] = []
    folders = _round_folder(old), _round_folder(new)
    renamed = None if None in folders or folders[0] == folders[1] else \
        (f"{folders[0]}/", f"{folders[1]}/")

    def same(a: Any, b: Any) -> bool:
        if renamed and isinstance(a, str) and isinstance(b, str):
            a = a.replace(*renamed)
        return _same(a, b)

    old_values, new_values = _flatten(old.get("values", {})), _flatten(new.get("values", {}))
    for name in sorted(set(old_values) | set(new_values)):
        a, b = old_values.get(name), new_values.get(name)
        if not same(a, b):
            changes.append(Change("values", name, "", a, b))
    for table, keys in ROW_KEYS.items():
        old_rows, new_rows = _rows(old.get(table), keys), _rows(new.get(table), keys)
        for row_id in sorted(set(old_rows) | set(new_rows)):
            a_row, b_row = old_rows.get(row_id, {}), new_rows.get(row_id, {})
            for column in sorted(set(a_row) | set(b_row)):
                if column in keys:
                    continue
                a, b = a_row.get(column), b_row.get(column)
                if isinstance(a, dict) or isinstance(b, dict):  # bilingual messages
                    a, b = (x.get("en") if isinstance(x, dict) else x for x in (a, b))
                if not same(a, b):
                    changes.append(Change(table, row_id, column, a, b))
    return changes


def diff_sources(old: Path, new: Path) -> list[Change]:
    return diff_tables(load_tables(old), load_tables(new))


def format_value(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return f"{value:.6g}"
    return str(value)


TEXT_WIDTH = 48


def format_changes(changes: list[Change], fmt: str = "text") -> str:
    if fmt == "json":
        return json.dumps(
            [
                {"table": c.table, "row": c.row, "column": c.column, "old": c.old, "new": c.new}
                for c in changes
            ],
            ensure_ascii=False,
            indent=1,
        )
    if not changes:
        return "no changes"
    header = ["table", "row", "column", "old", "new"]
    rows = [[c.table, c.row, c.column, format_value(c.old), format_value(c.new)] for c in changes]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
        return "\n".join(lines)
    from reportgen.console import table_text

    # a terminal table: long texts (check messages) are clipped; --format json has them whole
    clipped = [[c if len(c) <= TEXT_WIDTH else c[:TEXT_WIDTH - 1] + "…" for c in r] for r in rows]
    return table_text(clipped, header, set()) + f"\n\n{len(changes)} change(s)"
