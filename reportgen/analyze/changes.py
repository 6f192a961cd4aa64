"""What changed between two tables dicts (schema ``reportgen.tables/2``): the records and the
pure functions of ``reportgen diff`` and the page's revisions section.

``diff_tables(old, new)`` matches cells by row identity (``schema.row_keys``) and lists every
``Change``; ``group_changes`` makes one ``ChangedFigure`` per changed figure (a cell and the
``values`` entry quoting it are one figure) in ``Group``s per ``Input``, a ``Diff``. Reading
reports and round folders is reportgen.sources.diff's job; this module reads no file.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from reportgen import schema
from reportgen.analyze import claims
from reportgen.text.formatting import tier_label

# Row identity per table (cells are matched by these columns, not by position, so adding a
# tier does not mark every later row as changed): each table's spec (reportgen/schema.py), read
# per call, so every table declared there is compared.
# The same figure under another name in ``values`` (leaf names compared when grouping).
_ALIASES = {"server_ms": "server_prefill_ms"}

# An input file named in a cell (source columns, check messages): "<round folder>/vllm/x.json"
_FILE_REF = re.compile(r"(?<![\w/.-])([\w.+-]+)/[\w.+/-]*\.(?:jsonl?|log|txt|csv|prom|md|toml)\b")
_TIER_KEY = re.compile(r"^c(?:inf|\d+(?:_\d+)?)$")

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Change:
    """One cell (or headline value) that differs."""

    table: str      # "values" for headline figures, else a table name
    row: str        # row identity, e.g. "llamacpp C=32"; the dotted name for values
    column: str
    old: Any
    new: Any
    # where the cell belongs and the figure it shows (not part of its identity)
    workload: str = field(default="", compare=False)
    engine: str = field(default="", compare=False)
    point: float | None = field(default=None, compare=False)
    figure: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        return change_kind(self.old, self.new)



def change_kind(old: object, new: object) -> str:
    """added (no old value), removed (no new one) or changed."""
    if old is None:
        return "added"
    if new is None:
        return "removed"
    return "changed"

@dataclass(frozen=True)
class Input:
    """What a group of changes belongs to: a configuration's tier, a configuration, or the round
    (``engine`` empty). ``source`` is the raw file behind a tier, when the report lists it."""

    workload: str = ""
    engine: str = ""
    point: float | None = None
    source: str = ""


@dataclass(frozen=True)
class ChangedFigure:
    """One changed figure, with every place it appears (``table[row].column`` or
    ``values:<name>``)."""

    name: str
    old: Scalar
    new: Scalar
    places: tuple[str, ...]
    # the run-to-run spread of this figure at its tier, as a fraction (max − min over the
    # median of the round's repeats, ``analyze.claims.spread``); None without repeats
    noise: float | None = None

    @property
    def kind(self) -> str:
        return change_kind(self.old, self.new)

    @property
    def within_noise(self) -> bool | None:
        """True when the change lies inside the run-to-run spread (not beyond the noise, by
        ``analyze.claims``' rule), False beyond it, None when no spread is known."""
        relative = self.relative
        if self.noise is None or relative is None:
            return None
        return abs(relative) <= self.noise

    @property
    def delta(self) -> int | float | None:
        """new − old for two numbers, else None."""
        a, b = self.old, self.new
        if not (_number(a) and _number(b)):
            return None
        assert isinstance(a, int | float) and isinstance(b, int | float)
        try:
            return b - a
        except OverflowError:
            return None

    @property
    def relative(self) -> float | None:
        """(new − old) / |old|; None when old is zero or not a number."""
        delta, a = self.delta, self.old
        if delta is None or not isinstance(a, int | float) or a == 0:
            return None
        try:
            value = delta / abs(a)
        except OverflowError:
            return None
        return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Group:
    input: Input
    figures: tuple[ChangedFigure, ...]


@dataclass(frozen=True)
class Diff:
    axis: str                 # "concurrency" or "request_rate": how a point is named
    groups: tuple[Group, ...]

    @property
    def figures(self) -> Iterator[ChangedFigure]:
        for group in self.groups:
            yield from group.figures

    def counts(self) -> dict[str, int]:
        out = {"changed": 0, "added": 0, "removed": 0}
        for figure in self.figures:
            out[figure.kind] += 1
        return out

    def point_label(self, point: float | None) -> str:
        return point_label(point, self.axis)

    def input_label(self, item: Input) -> str:
        """``vllm C=8``, ``vllm``, ``round``; prefixed ``<workload>/`` with several."""
        parts = [item.engine or "round"]
        if item.point is not None:
            parts.append(self.point_label(item.point))
        text = " ".join(parts)
        return f"{item.workload}/{text}" if item.workload else text


def point_label(point: float | None, axis: str = "concurrency") -> str:
    return "" if point is None else tier_label(point, axis)


# ----------------------------------------------------------------------------- cell changes

def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, int) and isinstance(b, int):
        return a == b  # exact, however many digits
    if _number(a) and _number(b):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except OverflowError:
            return False
    return bool(a == b)


def _point(value: Any) -> float | None:
    return float(value) if _number(value) else None


def _row_id(row: dict[str, Any], keys: tuple[str, ...], moved: Moved) -> str:
    parts = [str(row["workload"])] if row.get("workload") else []
    for key in keys:
        value = row.get(key)
        if value is None:
            continue
        if key in schema.POINT_KEYS:
            parts.append(point_label(_point(value)))
        elif _number(value):
            parts.append(f"{key}={value:g}")
        else:
            parts.append(_moved(str(value), moved))
    return " ".join(parts) or "(all)"


# (old folder prefix, new one): a round compared with its corrected copy in another folder
Moved = tuple[str, str] | None


def _moved(text: str, moved: Moved) -> str:
    return text.replace(*moved) if moved else text


def _rows(table: Any, keys: tuple[str, ...], moved: Moved = None) -> dict[str, dict[str, Any]]:
    """Rows by identity; a second row of the same identity (two constants of one name, two
    runs of one tier and repeat) is ``<id> #2``, by order."""
    if not isinstance(table, list):
        return {}
    out: dict[str, dict[str, Any]] = {}
    seen: Counter[str] = Counter()
    for row in table:
        if isinstance(row, dict):
            row_id = _row_id(row, keys, moved)
            seen[row_id] += 1
            out[row_id if seen[row_id] == 1 else f"{row_id} #{seen[row_id]}"] = row
    return out


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted names (iterative: the depth was checked on reading)."""
    out: dict[str, Any] = {}
    stack = [(prefix, value)]
    while stack:
        name, item = stack.pop()
        if isinstance(item, dict):
            stack += [(f"{name}.{k}" if name else str(k), v) for k, v in item.items()]
        else:
            out[name] = item
    return dict(sorted(out.items()))


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack += item.values()
        elif isinstance(item, list):
            stack += item


def _round_folder(tables: dict[str, Any]) -> str | None:
    """The round folder name file references start with (the most common first segment)."""
    counts: Counter[str] = Counter()
    # the tables whose file references start with the round folder (runs name files inside it)
    for table in (*schema.required(), "inferred"):
        for text in _strings(tables.get(table)):
            counts.update(m.group(1) for m in _FILE_REF.finditer(text))
    return counts.most_common(1)[0][0] if counts else None


def _engines(*tables: dict[str, Any]) -> list[str]:
    found: dict[str, None] = {}
    for t in tables:
        for name in ("engines", "tiers"):
            for row in t.get(name) or []:
                engine = row.get("id" if name == "engines" else "engine")
                if isinstance(engine, str):
                    found.setdefault(engine)
    return list(found)


def _tier_point(key: str) -> float:
    if key == "cinf":
        return math.inf
    return float(key[1:].replace("_", "."))


def _value_place(name: str, engines: set[str]) -> tuple[str, str, float | None, str]:
    """(workload, engine, point, figure) of a ``values`` name: ``w1/tiers.vllm.c8.itl_p50_ms``
    is figure ``tiers.itl_p50_ms`` of workload w1, engine vllm, C=8."""
    workload, _, rest = name.rpartition("/")
    parts = rest.split(".")
    if len(parts) < 3 or parts[1] not in engines:
        return workload, "", None, rest
    if _TIER_KEY.match(parts[2]) and len(parts) > 3:
        return workload, parts[1], _tier_point(parts[2]), ".".join([parts[0], *parts[3:]])
    return workload, parts[1], None, ".".join([parts[0], *parts[2:]])


def _row_place(table: str, row: dict[str, Any], column: str) -> tuple[str, str, float | None,
                                                                        str]:
    engine = "" if table == "crossovers" else row.get("id" if table == "engines" else "engine")
    figure = f"checks.{row.get('id')}.{column}" if table == "checks" else f"{table}.{column}"
    return (str(row.get("workload") or ""), engine if isinstance(engine, str) else "",
            None if table == "crossovers" else _point(row.get("concurrency")), figure)


_ENGINE_COLUMNS = ("engine", "engine_a", "engine_b")


def _identity(tables: dict[str, Any], engine: str) -> tuple[object, ...] | None:
    """What defines a configuration in a tables dict, without its id or any path: the settings
    inferred for it (model, layout, GPU …; not its label) and its runs (workload, axis point,
    repeat, file name). None when the report lists neither."""
    settings = sorted((str(r.get("key", "")).split(".", 2)[2], str(r.get("value")))
                      for r in tables.get("inferred") or [] if isinstance(r, dict)
                      and str(r.get("key", "")).startswith(f"engines.{engine}.")
                      and not str(r.get("key")).endswith(".label"))
    runs = sorted((str(r.get("workload")), str(r.get("concurrency")), str(r.get("request_rate")),
                   str(r.get("repeat")), str(r.get("source", "")).rsplit("/", 1)[-1])
                  for r in tables.get("runs") or [] if isinstance(r, dict)
                  and r.get("engine") == engine)
    return (tuple(settings), tuple(runs)) if settings or runs else None


def matched_ids(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """Old configuration id → new id, for configurations that only one side names but whose
    identity (``_identity``) one configuration of the other side has exactly: a configuration
    renamed with its folder is the same configuration."""
    olds, news = _engines(old), _engines(new)
    gone = [e for e in olds if e not in news]
    came = [e for e in news if e not in olds]
    by_identity: dict[tuple[object, ...], list[str]] = {}
    for e in came:
        ident = _identity(new, e)
        if ident is not None:
            by_identity.setdefault(ident, []).append(e)
    out: dict[str, str] = {}
    for e in gone:
        ident = _identity(old, e)
        if ident is None:
            continue
        twins = by_identity.get(ident, [])
        if len(twins) == 1 and sum(_identity(old, o) == ident for o in gone) == 1:
            out[e] = twins[0]
    return out


def _renamed(tables: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    """``tables`` with configuration ids replaced (rows, values names, inferred keys)."""
    if not ids:
        return tables
    out = dict(tables)
    for name, rows in tables.items():
        if isinstance(rows, list):
            out[name] = [{**row, **{c: ids.get(row[c], row[c]) for c in (*_ENGINE_COLUMNS, "id")
                                    if isinstance(row.get(c), str) and (c != "id"
                                                                        or name == "engines")}}
                         if isinstance(row, dict) else row for row in rows]
    values = tables.get("values")
    if isinstance(values, dict):
        out["values"] = {_renamed_value(k, ids): _renamed_id(v, ids) for k, v in values.items()}
    if isinstance(out.get("inferred"), list):
        out["inferred"] = [{**r, "key": _renamed_key(str(r.get("key", "")), ids)}
                           if isinstance(r, dict) else r for r in out["inferred"]]
    if isinstance(out.get("constants"), list):  # named ``<configuration>.<constant>``
        out["constants"] = [{**r, "name": _renamed_constant(r["name"], ids)}
                            if isinstance(r, dict) and isinstance(r.get("name"), str) else r
                            for r in out["constants"]]
    return out


def _renamed_constant(name: str, ids: dict[str, str]) -> str:
    head, dot, rest = name.partition(".")
    return f"{ids[head]}.{rest}" if dot and head in ids else name


def _renamed_id(value: Any, ids: dict[str, str]) -> Any:
    """A value that is a configuration id (``pair.a``), renamed; nested values as they are."""
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, dict):
        return {k: _renamed_id(v, ids) for k, v in value.items()}
    return value


def _renamed_value(name: str, ids: dict[str, str]) -> str:
    workload, slash, rest = name.rpartition("/")
    parts = rest.split(".")
    if len(parts) >= 2 and parts[1] in ids:
        parts[1] = ids[parts[1]]
    return f"{workload}{slash}{'.'.join(parts)}"


def _renamed_key(key: str, ids: dict[str, str]) -> str:
    parts = key.split(".", 2)
    if len(parts) == 3 and parts[0] == "engines" and parts[1] in ids:
        parts[1] = ids[parts[1]]
    return ".".join(parts)


def diff_tables(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every headline value and table cell that differs, in a stable order. File references
    are compared as if both rounds lived in folders of the same name, so comparing
    ``round2/`` with ``round2-fixed/`` does not list every source cell as changed; a
    configuration whose id changed with its folder's name is matched by what defines it
    (``matched_ids``), so it is the same configuration, not one removed and one added."""
    old = _renamed(old, matched_ids(old, new))
    changes: list[Change] = []
    folders = _round_folder(old), _round_folder(new)
    renamed = None if None in folders or folders[0] == folders[1] else \
        (f"{folders[0]}/", f"{folders[1]}/")
    engines = set(_engines(old, new))

    def same(a: Any, b: Any) -> bool:
        if renamed and isinstance(a, str) and isinstance(b, str):
            a = a.replace(*renamed)
        return _same(a, b)

    old_values, new_values = _flatten(old.get("values", {})), _flatten(new.get("values", {}))
    for name in sorted(set(old_values) | set(new_values)):
        a, b = old_values.get(name), new_values.get(name)
        if not same(a, b):
            changes.append(Change("values", name, "", a, b, *_value_place(name, engines)))
    for table, keys in schema.row_keys().items():
        old_rows, new_rows = _rows(old.get(table), keys, renamed), _rows(new.get(table), keys)
        ids = set(old_rows) | set(new_rows)
        if f"{table}_not_listed" in old or f"{table}_not_listed" in new:
            ids = set(old_rows) & set(new_rows)  # a page lists a long table in part only
        for row_id in sorted(ids):
            a_row, b_row = old_rows.get(row_id, {}), new_rows.get(row_id, {})
            row = b_row or a_row
            for column in sorted(set(a_row) | set(b_row)):
                if column in keys or column == "workload":
                    continue
                a, b = a_row.get(column), b_row.get(column)
                if isinstance(a, dict) or isinstance(b, dict):  # bilingual messages
                    a, b = (x.get("en") if isinstance(x, dict) else x for x in (a, b))
                if not same(a, b):
                    changes.append(Change(table, row_id, column, a, b,
                                          *_row_place(table, row, column)))
    return changes


# ----------------------------------------------------------------------------- grouping

def _scalar(value: Any) -> Scalar:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)  # depth checked on reading


def _leaf(name: str) -> str:
    leaf = name.rpartition(".")[2]
    return _ALIASES.get(leaf, leaf)


def _match_key(value: Scalar) -> Scalar:
    return float(f"{value:.12g}") if isinstance(value, float) and math.isfinite(value) else value


def group_changes(changes: list[Change], new: dict[str, Any] | None = None,
                  old: dict[str, Any] | None = None) -> Diff:
    """Cell changes as figures grouped by input. Within a group, cells with the same leaf name
    and the same old and new values are one figure (``tiers.output_tok_s`` and
    ``values:tiers.vllm.c8.output_tok_s``); so are cells whose old and new values are the same
    fractional numbers, which do not coincide by chance."""
    tables = new or {}
    info = tables.get("round")
    axis = str(info.get("axis") or "concurrency") if isinstance(info, dict) else "concurrency"
    engine_order = _engines(tables, old or {})
    sources: dict[tuple[str, str, float | None], str] = {}
    for t in (old or {}, tables):
        runs = t.get("runs")
        for run in runs if isinstance(runs, list) else []:
            if isinstance(run, dict) and isinstance(run.get("source"), str):
                key = (str(run.get("workload") or ""), str(run.get("engine")),
                       _point(run.get("concurrency")))
                sources.setdefault(key, run["source"])

    groups: dict[tuple[str, str, float | None], list[list[Any]]] = {}
    index: dict[tuple[Any, ...], list[Any]] = {}
    # table cells first: their names are the ones the page shows
    for change in sorted(changes, key=lambda c: c.table == "values"):
        where = (change.workload, change.engine, change.point)
        old_v, new_v = _scalar(change.old), _scalar(change.new)
        name = change.figure or change.row
        place = f"values:{change.row}" if change.table == "values" else \
            f"{change.table}[{change.row}].{change.column}"
        keys = [(where, _leaf(name), _match_key(old_v), _match_key(new_v))]
        if all(isinstance(v, float) and not v.is_integer() for v in (old_v, new_v)):
            keys.append((where, "*", _match_key(old_v), _match_key(new_v)))
        known = next((index[k] for k in keys if k in index), None)
        if known is not None:
            known[3].append(place)
            continue
        figure = [name, old_v, new_v, [place]]
        groups.setdefault(where, []).append(figure)
        for k in keys:
            index.setdefault(k, figure)

    def order(where: tuple[str, str, float | None]) -> tuple[Any, ...]:
        workload, engine, point = where
        rank = engine_order.index(engine) if engine in engine_order else len(engine_order)
        return (workload, bool(engine), rank, engine,
                -math.inf if point is None else point)

    spreads = _spreads(tables) or _spreads(old or {})
    out = []
    for where in sorted(groups, key=order):
        figures = tuple(ChangedFigure(n, a, b, tuple(p), spreads.get((*where, _leaf(n))))
                        for n, a, b, p in groups[where])
        out.append(Group(Input(*where, source=sources.get(where, "")), figures))
    return Diff(axis, tuple(out))


def _run_point(run: dict[str, Any]) -> float | None:
    point = _point(run.get("concurrency"))
    rate = run.get("request_rate")
    if point is None and rate == "inf":
        return math.inf
    return point if point is not None else _point(rate)


def _spreads(tables: dict[str, Any]) -> dict[tuple[str, str, float | None, str], float]:
    """(workload, engine, point, column) → the relative spread of that figure over the
    round's repeats at that tier (the runs table: one row per run), where ≥ 2 runs state it."""
    runs = tables.get("runs")
    per: dict[tuple[str, str, float | None, str], list[float]] = {}
    for run in runs if isinstance(runs, list) else []:
        if not isinstance(run, dict) or not isinstance(run.get("engine"), str):
            continue
        where = (str(run.get("workload") or ""), str(run["engine"]), _run_point(run))
        for column, value in run.items():
            if _number(value) and math.isfinite(float(value)) and column not in (
                    "concurrency", "request_rate", "repeat"):
                per.setdefault((*where, column), []).append(float(value))
    out = {}
    for key, values in per.items():
        ordered = sorted(values)
        mid = len(ordered) // 2
        median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
        spread = claims.spread(median, ordered[0], ordered[-1], len(ordered))
        if math.isfinite(spread):
            out[key] = spread
    return out


def as_json(diff: Diff) -> dict[str, Any]:
    """The diff as plain data (``reportgen diff --format json``)."""
    groups = []
    for group in diff.groups:
        item = group.input
        groups.append({
            "input": diff.input_label(item), "workload": item.workload or None,
            "engine": item.engine or None,
            "point": item.point if item.point is None or math.isfinite(item.point) else None,
            "source": item.source or None,
            "figures": [{"name": f.name, "kind": f.kind, "old": f.old, "new": f.new,
                         "delta": f.delta, "relative": f.relative, "places": list(f.places),
                         "noise": f.noise, "within_noise": f.within_noise}
                        for f in group.figures]})
    return {"summary": diff.counts() | {"inputs": len(diff.groups)}, "groups": groups}
