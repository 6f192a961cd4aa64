"""``nvidia-smi --query-gpu=... --format=csv[,nounits] -l N`` captures → one row per GPU sample.

The header is printed once, fields are separated by ``", "``, values carry their unit unless
``nounits`` was given, and unavailable values read ``[N/A]`` / ``[Not Supported]`` (→ NaN).
Column names: the queried field with dots → ``_`` plus the unit from the header bracket
(``memory.used [MiB]`` → ``memory_used_mib``); ``temperature.*`` fields get ``_c``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.errors import InputError
from reportgen.files.safe_read import read_input

SEP = ", "
HEADER_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)(?: \[([^\]]+)\])?$")
UNIT_SUFFIX = {"%": "pct", "mib": "mib", "gib": "gib", "w": "w", "mhz": "mhz", "c": "c",
               "s": "s", "ms": "ms", "us": "us", "kb/s": "kb_s", "mb/s": "mb_s"}
TEXT_FIELDS = {"name", "uuid", "pci.bus_id", "driver_version", "pstate", "compute_mode",
               "serial", "vbios_version", "persistence_mode", "display_mode", "display_active",
               "mig.mode.current", "mig.mode.pending", "gpu_name", "gpu_bus_id", "gpu_serial",
               "gpu_uuid"}
TIME_FORMAT = "%Y/%m/%d %H:%M:%S.%f"
UNIT = r"(?<=\d) ?(?:%|[A-Za-z][A-Za-z/]*)$"  # the unit after a number: "45 %", "250.07 W"

KIND = "gpu_csv"  # its size cap in reportgen.files.safe_read.CAPS
NON_WORD = re.compile(r"\W+")


def _clip(text: str, limit: int = 80) -> str:
    """Echo at most ``limit`` characters of the input in a message (a line can be megabytes)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _column(field: str, unit: str | None) -> str:
    base = field.replace(".", "_").lower()
    if unit:
        suffix = UNIT_SUFFIX.get(unit.strip().lower(), NON_WORD.sub("_", unit.lower()).strip("_"))
        return f"{base}_{suffix}"
    if field.startswith("temperature."):
        return f"{base}_c"
    return base


def _parse_header(line: str) -> list[tuple[str, str | None]] | None:
    """[(field, unit)] when ``line`` looks like a ``--format=csv`` header, else None."""
    fields = [f.strip() for f in line.split(",")]
    out = []
    for f in fields:
        m = HEADER_FIELD.match(f)
        if not m or m.group(1).replace(".", "").isdigit():
            return None
        out.append((m.group(1), m.group(2)))
    # a data row of bare words would match too; real headers always name a dotted field,
    # `timestamp`, `index` or `name`
    names = {f for f, _ in out}
    if not any("." in f or f in ("timestamp", "index", "name", "count") for f in names):
        return None
    return out


def _numbers(values: list[str], field: str, shown: str, row_lines: list[int]) -> np.ndarray:
    """Vectorised: strip the unit (``45 %``, ``17304 MiB``), missing markers → NaN."""
    series = pd.Series(values, dtype=object)
    missing = series.map(_missing).to_numpy(dtype=bool)
    bare = series.str.replace(UNIT, "", regex=True)
    numbers = pd.to_numeric(bare.where(~missing), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(numbers) & ~missing)  # "Infinity" parses, but is no sample
    if bad.size:
        j = int(bad[0])
        raise InputError(shown, f"field '{field}': expected a number, got {_clip(values[j])!r}",
                         row_lines[j])
    return numbers


def load_gpu_csv(path: Path, *, name: str | None = None) -> pd.DataFrame:
    """Read a sampler CSV. ``name`` is how the file is shown in errors (default: the path)."""
    shown = str(path) if name is None else name
    text = read_input(path, shown, KIND).decode("utf-8", errors="replace")

    lines = text.splitlines()
    header: list[tuple[str, str | None]] | None = None
    header_text = ""
    rows: list[list[str]] = []
    row_lines: list[int] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        parsed = _parse_header(line)
        if parsed is not None:
            if header is None:
                header, header_text = parsed, line
            elif line != header_text:  # a restarted sampler may repeat the same header
                raise InputError(shown, f"a different header appears mid-file: {_clip(line)!r}",
                                 number)
            continue
        if header is None:
            raise InputError(
                shown,
                "no header line before the first sample (written with --format=csv,noheader?); "
                "expected a header such as 'timestamp, index, name, utilization.gpu [%], ...'",
                number,
            )
        values = raw.split(SEP)
        if len(values) != len(header):
            raise InputError(
                shown, f"expected {len(header)} fields separated by ', ', got {len(values)}",
                number,
            )
        rows.append([v.strip() for v in values])
        row_lines.append(number)
    if header is None:
        raise InputError(shown, "empty file; expected an nvidia-smi --query-gpu CSV with a header")

    columns: dict[str, object] = {}
    for i, (field, unit) in enumerate(header):
        column = _column(field, unit)
        raw_values = [r[i] for r in rows]
        if field == "timestamp":
            try:
                columns[column] = pd.to_datetime(raw_values, format=TIME_FORMAT)
            except (ValueError, TypeError):
                bad = next((j for j, v in enumerate(raw_values) if not _is_time(v)), 0)
                raise InputError(
                    shown,
                    f"timestamp {_clip(raw_values[bad])!r}: expected YYYY/MM/DD HH:MM:SS.mmm",
                    row_lines[bad],
                ) from None
        elif field in TEXT_FIELDS or field.startswith("name"):
            columns[column] = pd.Series([None if _missing(v) else v for v in raw_values],
                                        dtype=object)
        else:
            strict = bool(unit) or field in ("index", "count") or field.startswith("temperature.")
            try:
                columns[column] = _numbers(raw_values, field, shown, row_lines)
            except InputError:
                if strict:
                    raise
                # an unknown unit-less field that is not numeric (e.g. a hex bit mask): keep text
                columns[column] = pd.Series([None if _missing(v) else v for v in raw_values],
                                            dtype=object)
    frame = pd.DataFrame(columns)
    if "index" in frame.columns and frame["index"].notna().all():
        frame["index"] = frame["index"].astype(np.int64)
    lead = [c for c in ("timestamp", "index", "name") if c in frame.columns]
    return frame[lead + [c for c in frame.columns if c not in lead]]


def _missing(value: str) -> bool:
    """``[N/A]``, ``[Not Supported]``, ``[Unknown Error]``… and a bare ``N/A`` are all missing."""
    return (value.startswith("[") and value.endswith("]")) or value in ("N/A", "")


def _is_time(value: str) -> bool:
    try:  # a one-item list: the scalar parser stops at a NUL byte the array parser rejects
        pd.to_datetime([value], format=TIME_FORMAT)
    except (ValueError, TypeError):
        return False
    return True
