"""Plain-text views of an Analysis for the terminal (`reportgen check`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from reportgen.analyze.result import Analysis

_TIER_COLUMNS = (
    ("engine", "engine", "{}"),
    ("concurrency", "C", "{:.0f}"),
    ("requests", "requests", "{:.0f}"),
    ("completed", "done", "{:.0f}"),
    ("failed", "failed", "{:.0f}"),
    ("duration_s", "dur s", "{:.2f}"),
    ("output_tok_s", "out tok/s", "{:.1f}"),
    ("ttft_p50_ms", "TTFT p50", "{:.0f}"),
    ("itl_p50_ms", "ITL p50", "{:.2f}"),
    ("itl_p99_ms", "ITL p99", "{:.1f}"),
    ("excluded", "excl", "{}"),
)


def _cell(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else ""
    return fmt.format(value)


def table_text(rows: list[list[str]], header: list[str], right: set[int]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = (
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )
        return "  ".join(padded).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def tiers_text(analysis: Analysis) -> str:
    tiers: pd.DataFrame = analysis.tiers
    cols = [c for c in _TIER_COLUMNS if c[0] in tiers.columns]
    if analysis.round.get("axis") == "request_rate":
        cols = [("concurrency", "req/s", "{:g}") if c[0] == "concurrency" else c for c in cols]
    if "repeats" in tiers.columns:
        cols.insert(2, ("repeats", "runs", "{:.0f}"))
    rows = [[_cell(rec[key], fmt) for key, _, fmt in cols] for rec in tiers.to_dict("records")]
    right = {i for i, (key, _, _) in enumerate(cols) if key not in ("engine", "excluded")}
    return table_text(rows, [title for _, title, _ in cols], right)


def checks_text(analysis: Analysis, lang: str = "en") -> str:
    checks: pd.DataFrame = analysis.checks
    if not len(checks):
        return "no self-checks"
    rows = []
    for rec in checks.to_dict("records"):
        text = rec.get(f"message_{lang}") or rec.get("message_en") or ""
        engine = rec.get("engine")  # NaN (a float) for round-wide rows
        where = " ".join(
            part for part in (
                engine if isinstance(engine, str) else "",
                "" if _cell(rec.get("concurrency"), "{:.0f}") == "–"
                else f"C={rec['concurrency']:.0f}",
            ) if part
        )
        rows.append([rec["status"], rec["id"], where, text])
    return table_text(rows, ["status", "check", "where", "message"], set())


def values_text(values: dict[str, Any], pattern: str | None = None, lang: str = "en") -> str:
    """Placeholder names usable in narrative files, each with its default-formatted value.
    `pattern` keeps names containing it (or matching it as a glob when it has * or ?)."""
    from fnmatch import fnmatchcase

    from reportgen.narrative import format_value

    def wanted(name: str) -> bool:
        if not pattern:
            return True
        return fnmatchcase(name, pattern) if any(c in pattern for c in "*?[") else pattern in name

    rows = []
    for name in sorted(filter(wanted, values)):
        value = values[name]
        if isinstance(value, dict):
            value = value.get(lang, value.get("en", ""))
        try:
            text = format_value(value)
        except ValueError:  # e.g. a bool: shown as is, not usable as a number
            text = str(value)
        rows.append([name, text, repr(value) if isinstance(value, float) else ""])
    if not rows:
        return f"no value name matches '{pattern}'"
    return table_text(rows, ["name", "{{ name }}", "raw"], set())


def inputs_text(inferred: list[Any], skipped: list[tuple[str, str]]) -> str:
    """What `check` says about the folder: settings read from the files, files not read."""
    parts = []
    if inferred:
        rows = [[i.key, i.value, i.source,
                 f"overridden: {i.stated}" if i.status == "overridden" else i.status]
                for i in inferred]
        parts.append("inferred settings (round.toml can confirm or override each):\n"
                     + table_text(rows, ["key", "value", "read from", "status"], set()))
    if skipped:
        rows = [[f, why] for f, why in skipped]
        parts.append(f"files not read ({len(rows)}):\n"
                     + table_text(rows, ["file", "why"], set()))
    return "\n\n".join(parts)
