"""The documented import for results of your own harness: a tidy CSV (or JSON list of objects)
with one row per run. See docs/ROUNDS.md, "Your own harness: a tidy CSV".

Columns (names are case-insensitive; a line starting with ``#`` outside a quoted cell is a
comment; counts are whole numbers; errors give the file's physical line):

- ``configuration`` (required): what was measured (engine, GPU, settings); runs of one
  configuration form one curve;
- ``concurrency`` or ``request_rate`` (one required; ``inf`` allowed for the rate);
- ``output_tok_s`` (required): output tokens per second of the run;
- ``workload`` and/or ``input_tokens`` + ``output_tokens`` (the lengths the run asked for);
- optional ``duration_s``, ``completed``, ``failed``, ``total_output_tokens``, ``model``;
- optional latency statistics ``<metric>_<stat>_<unit>``: metric ttft, tpot, itl or e2el; stat
  mean, median, p50, p90, p99 …, std; unit ``ms`` or ``s`` (``ttft_p50_ms``, ``e2el_p99_s``).
  The unit comes from the name, never from the size of the value: a latency column without a
  unit is an error.

A run length or request count that the file does not give stays unknown (NaN).
"""

from __future__ import annotations

import csv
import io
import math
import re
from typing import Any

from reportgen.errors import InputError
from reportgen.load.formats import ClientRun
from reportgen.load.formats.metric_keys import LARGEST_WHOLE, decode_one, stat_name

CLIENT = "tidy"
LATENCY = re.compile(r"^(ttft|tpot|itl|e2el)_(mean|median|std|p\d+(?:\.\d+)?)_(ms|s)$")
LATENCY_NO_UNIT = re.compile(r"^(ttft|tpot|itl|e2el)_(mean|median|std|p\d+(?:\.\d+)?)$")
REQUIRED = ("configuration", "output_tok_s")
AXES = ("concurrency", "request_rate")
NUMBERS = ("concurrency", "request_rate", "output_tok_s", "input_tokens", "output_tokens",
           "duration_s", "completed", "failed", "total_output_tokens")
TEXT = ("configuration", "workload", "model")
KNOWN = set(NUMBERS) | set(TEXT) | {"repeat", "notes", "note"}
NO_LENGTH = (math.nan, math.nan)


def _is_tidy(columns: list[str]) -> bool:
    cols = {c.strip().lower() for c in columns}
    return all(c in cols for c in REQUIRED) and any(a in cols for a in AXES)


def _csv_header(head: bytes) -> list[str] | None:
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return next(csv.reader([line]), [])
    return None


def sniff(name: str, head: bytes) -> str | None:
    text = head.lstrip()
    if text[:1] in (b"{", b"["):
        if b'"output_tok_s"' in head and b'"configuration"' in head:
            return "tidy JSON import (one object per run)"
        return None
    header = _csv_header(head)
    if header and _is_tidy(header):
        return "tidy CSV import (one row per run)"
    return None


def read(raw: bytes, shown: str) -> list[ClientRun]:
    text = raw.lstrip()
    if text[:1] in (b"{", b"["):
        data = decode_one(raw, shown)
        rows = data.get("runs") if isinstance(data, dict) else data
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise InputError(shown, "expected a list of run objects (or {\"runs\": [...]}) "
                                    "for a tidy import")
        lines = _object_lines(raw, isinstance(data, dict))
        items = [({str(k).strip().lower(): v for k, v in r.items()},
                  lines[i] if i < len(lines) else 1) for i, r in enumerate(rows)]
        header_line = 1
    else:
        items, header_line = _csv_rows(raw, shown)
    if items and not _is_tidy(list(items[0][0])):
        raise InputError(shown, "a tidy import needs columns configuration, output_tok_s and "
                                "concurrency or request_rate", header_line)
    return [_run(row, line, shown, header_line) for row, line in items]


_JSON_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]')


def _object_lines(raw: bytes, wrapped: bool) -> list[int]:
    """The line each run object starts on in a tidy JSON list (``[{…}, …]``, JSON Lines, or
    the list under ``"runs"`` when ``wrapped``), so its errors name the object's own line."""
    out: list[int] = []
    line, depth, key = 1, 0, b""
    # the depth of the run objects (None: not inside the runs list)
    at: int | None = None if wrapped else 1 if raw.lstrip()[:1] == b"[" else 0
    for m in _JSON_TOKEN.finditer(raw):
        token = m.group()
        if token == b"\n":
            line += 1
        elif token[:1] == b'"':
            key = token
        elif token in (b"[", b"{"):
            if token == b"{" and depth == at:
                out.append(line)
            depth += 1
            if token == b"[" and wrapped and depth == 2 and key == b'"runs"':
                at = 2
        else:
            depth -= 1
            if wrapped and depth == 1 and token == b"]":
                at = None
    return out


def _csv_rows(raw: bytes, shown: str) -> tuple[list[tuple[dict[str, Any], int]], int]:
    """(cells by column, physical line where the row starts) of every row, and the header's
    line. A ``#`` line is a comment only where a row would start: inside a quoted cell it is
    the cell's text. Lines are the file's own (a quoted cell may span several)."""
    try:
        text = raw.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError as exc:
        raise InputError(shown, f"not UTF-8 (byte {exc.start})",
                         raw.count(b"\n", 0, exc.start) + 1) from None
    at = _Lines(text)
    # strict: a quote left open swallows every row after it, and text after a closing quote
    # is a typo; both are one line naming where the row starts, never rows silently lost
    reader = csv.reader(at, strict=True)
    records: list[tuple[list[str], int]] = []
    while True:
        at.row_start = True
        try:
            cells = next(reader, None)
        except csv.Error as exc:  # a cell over the csv module's limit, an unclosed quote …
            raise InputError(shown, f"not a readable CSV row ({exc})", at.first) from None
        if cells is None:
            break
        if any(c.strip() for c in cells):
            records.append((cells, at.first))
    if not records:
        raise InputError(shown, "no header line")
    (names, header_line), rows = records[0], records[1:]
    header = [h.strip().lower() for h in names]
    if len(set(header)) != len(header):
        raise InputError(shown, "a column name appears twice", header_line)
    out = []
    for cells, number in rows:
        if len(cells) != len(header):
            raise InputError(shown, f"{len(cells)} cells, the header has {len(header)}", number)
        out.append((dict(zip(header, (c.strip() for c in cells), strict=True)), number))
    return out, header_line


class _Lines:
    """The physical lines of a CSV text for ``csv.reader``, which asks for one more line
    only to finish a row or to start the next: ``row_start`` (set before each row) tells a
    comment line, skipped, from a line inside a quoted cell; ``first`` is the physical line
    the current row starts on."""

    def __init__(self, text: str) -> None:
        self._lines = iter(io.StringIO(text, newline=""))
        self.number = 0   # the last line handed out
        self.first = 1
        self.row_start = True

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        while True:
            line = next(self._lines)
            self.number += 1
            if self.row_start and line.lstrip().startswith("#"):
                continue
            if self.row_start:
                self.first, self.row_start = self.number, False
            return line


def _number(row: dict[str, Any], key: str, shown: str, line: int) -> float:
    value = row.get(key)
    if value is None or (isinstance(value, str) and value.strip() in ("", "-", "—")):
        return math.nan
    if isinstance(value, bool):
        raise InputError(shown, f"column '{key}': expected a number, got {value!r}", line)
    if isinstance(value, str):
        if key == "request_rate" and value.strip().lower() in ("inf", "infinity"):
            return math.inf
        try:
            value = float(value)
        except ValueError:
            raise InputError(shown, f"column '{key}': expected a number, got {value!r}",
                             line) from None
    if not isinstance(value, int | float) or math.isnan(value) or value < 0 or (
            math.isinf(value) and key != "request_rate"):
        raise InputError(shown, f"column '{key}': expected a number >= 0, got {value!r}", line)
    return float(value)


def _run(row: dict[str, Any], line: int, shown: str, header_line: int = 1) -> ClientRun:
    def num(key: str) -> float:
        return _number(row, key, shown, line)

    config = str(row.get("configuration") or "").strip()
    if not config:
        raise InputError(shown, "column 'configuration': empty (name what was measured)", line)
    out_tps = num("output_tok_s")
    if math.isnan(out_tps):
        raise InputError(shown, "column 'output_tok_s': empty", line)
    conc, rate = num("concurrency"), num("request_rate")
    if math.isnan(conc) and math.isnan(rate):
        raise InputError(shown, "give concurrency or request_rate for every run", line)
    record: dict[str, Any] = {"label": config, "output_throughput": out_tps}
    if math.isfinite(conc):
        if conc < 1 or conc != int(conc):
            raise InputError(shown, f"column 'concurrency': expected a whole number >= 1, got "
                                    f"{row.get('concurrency')!r}", line)
        record["max_concurrency"] = int(conc)
    if not math.isnan(rate):
        if rate <= 0:
            raise InputError(shown, "column 'request_rate': expected a rate > 0", line)
        record["request_rate"] = "inf" if math.isinf(rate) else rate
    for key, field in (("duration", "duration_s"), ("completed", "completed"),
                       ("failed", "failed"), ("total_output_tokens", "total_output_tokens")):
        v = num(field)
        if math.isfinite(v) and key != "duration" and (v != int(v) or v > LARGEST_WHOLE):
            raise InputError(shown, f"column '{field}': expected a whole number, got "
                                    f"{row.get(field)!r}", line)
        if math.isfinite(v):
            record[key] = int(v) if key != "duration" else v
    for key, field in (("input_len", "input_tokens"), ("output_len", "output_tokens")):
        v = num(field)
        if math.isfinite(v):
            record[key] = v
    workload = str(row.get("workload") or "").strip()
    if workload:
        record["dataset_name"] = workload
    model = str(row.get("model") or "").strip()
    if model:
        record["model_id"] = model
    units: dict[str, str] = {}
    for key in row:
        m = LATENCY.match(key)
        if m is None:
            if LATENCY_NO_UNIT.match(key):
                raise InputError(shown, f"column '{key}': the unit must be in the name "
                                        f"({key}_ms or {key}_s)", header_line)
            continue
        v = num(key)
        if math.isnan(v):
            continue
        stat = stat_name(m.group(2)) or m.group(2)
        record[f"{stat}_{m.group(1)}_ms"] = v * (1000.0 if m.group(3) == "s" else 1.0)
        units[f"{stat}_{m.group(1)}_ms"] = f"{'seconds' if m.group(3) == 's' else 'ms'} " \
                                           f"(column {key})"
    return ClientRun(record, line=line, client=CLIENT, units=units)
