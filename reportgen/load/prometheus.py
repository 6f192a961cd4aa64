"""Prometheus text exposition (format 0.0.4) scrapes → ``name, labels, value`` rows, and the
before/after deltas the analysis needs.

A counter that went backwards between the two scrapes (server restart) has no meaningful
delta: the helpers return NaN rather than raising, because a reset is a fact about the run,
not a malformed file; the caller turns NaN into a visible finding.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.errors import InputError
from reportgen.files.safe_read import read_input

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
# names start after a non-name character: a long run of letters or blanks stays linear
LABEL_NAME = re.compile(r"(?<![a-zA-Z0-9_])([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*=[ \t]*\"")
UNESCAPE = {"\\": "\\", '"': '"', "n": "\n"}

KIND = "metrics"  # its size cap in reportgen.files.safe_read.CAPS
TIMESTAMP = re.compile(r"-?\d+")  # the optional sample timestamp (ms)


def _clip(text: str, limit: int = 60) -> str:
    """Echo at most ``limit`` characters of the input in a message (a line can be megabytes)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


# `{k="v",k2="v2"}` with no backslash in any value; anything else takes parse_labels.
_PLAIN_LABELS = re.compile(r'\{((?:\s*[a-zA-Z_][a-zA-Z0-9_]*\s*=\s*"[^"\\]*"\s*,)*'
                           r'(?:\s*[a-zA-Z_][a-zA-Z0-9_]*\s*=\s*"[^"\\]*"\s*)?)\}')
_PLAIN_PAIR = re.compile(r'(?<![a-zA-Z0-9_])([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"([^"\\]*)"'
                         )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def canonical_labels(labels: dict[str, str]) -> str:
    """``k="v",…`` sorted by label name, values escaped as on the wire."""
    return ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))


def parse_labels(text: str, start: int = 0) -> tuple[dict[str, str], int]:
    """Parse ``k="v",…}`` from ``text[start:]`` (just after ``{``); returns (labels, index after
    ``}``). Raises ValueError with a short reason."""
    labels: dict[str, str] = {}
    i = start
    while True:
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == "}":
            return labels, i + 1
        m = LABEL_NAME.match(text, i)
        if m is None:
            raise ValueError("expected a label name followed by =\"")
        key = m.group(1)
        i = m.end()
        chars = []
        while True:
            if i >= len(text):
                raise ValueError(f"label '{key}': unterminated quoted value")
            c = text[i]
            if c == "\\":
                if i + 1 >= len(text) or text[i + 1] not in UNESCAPE:
                    raise ValueError(f"label '{key}': bad escape in value")
                chars.append(UNESCAPE[text[i + 1]])
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                chars.append(c)
                i += 1
        labels[key] = "".join(chars)
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == ",":
            i += 1
        elif i < len(text) and text[i] == "}":
            return labels, i + 1
        else:
            raise ValueError("expected ',' or '}' after a label value")


def _value(token: str) -> float:
    lowered = token.lower()
    if lowered in ("+inf", "inf"):
        return math.inf
    if lowered == "-inf":
        return -math.inf
    if lowered == "nan":
        return math.nan
    return float(token)


def nonfinite_note(frame: pd.DataFrame) -> str | None:
    """A warning when samples are NaN or ±Inf (legal in the format, but no counter delta can
    use them), naming the first such metric; None when every value is finite. A histogram's
    ``le="+Inf"`` bucket is a label, not a value, and is not counted."""
    values = frame["value"].to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if not bad.size:
        return None
    first = frame.iloc[int(bad[0])]
    return (f"{bad.size:,} sample(s) are NaN or Inf (first: {_clip(str(first['name']))} = "
            f"{first['value']}); figures that need them are left blank")


def parse_prometheus(path: Path, *, name: str | None = None, kind: str = KIND,
                     with_time: bool = False) -> pd.DataFrame:
    """One row per sample. Comments (``# HELP``, ``# TYPE``, others) are skipped; an optional
    trailing timestamp (ms since the epoch) is accepted and dropped, or kept as a ``time_s``
    column (seconds since the epoch, NaN where a sample has none) when ``with_time``."""
    shown = str(path) if name is None else name
    text = read_input(path, shown, kind).decode("utf-8", errors="replace")

    names: list[str] = []
    label_texts: list[str] = []
    values: list[float] = []
    times: list[float] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = NAME.match(line)
        if m is None:
            raise InputError(shown, "expected 'metric_name{labels} value [timestamp]'", number)
        i = m.end()
        labels: dict[str, str] = {}
        if i < len(line) and line[i] == "{":
            fast = _PLAIN_LABELS.match(line, i)
            if fast is not None:  # no escapes: the common case, parsed by one regex
                labels = dict(_PLAIN_PAIR.findall(fast.group(1)))
                i = fast.end()
            else:
                try:
                    labels, i = parse_labels(line, i + 1)
                except ValueError as exc:
                    raise InputError(shown, f"{_clip(m.group(0))}: {exc}", number) from None
        rest = line[i:].split()
        if not rest or len(rest) > 2 or line[i] not in " \t":
            raise InputError(
                shown, f"{_clip(m.group(0))}: expected 'name{{labels}} value [timestamp]'",
                number,
            )
        try:
            value = _value(rest[0])
        except ValueError:
            raise InputError(shown, f"{_clip(m.group(0))}: value {_clip(rest[0])!r} is not a "
                                    "number",
                             number) from None
        if len(rest) == 2 and not TIMESTAMP.fullmatch(rest[1]):
            raise InputError(shown, f"{_clip(m.group(0))}: timestamp {_clip(rest[1])!r} is not "
                                    "an integer (ms)",
                             number)
        names.append(m.group(0))
        label_texts.append(canonical_labels(labels))
        values.append(value)
        times.append(int(rest[1]) / 1000 if len(rest) == 2 else math.nan)
    frame = pd.DataFrame({
        "name": pd.Series(names, dtype=object),
        "labels": pd.Series(label_texts, dtype=object),
        "value": np.asarray(values, dtype=np.float64),
    })
    if with_time:
        frame["time_s"] = np.asarray(times, dtype=np.float64)
    return frame


def _select(frame: pd.DataFrame, name: str, labels: dict[str, str]) -> pd.Series:
    rows = frame[frame["name"] == name]
    if labels and not rows.empty:
        wanted = set(labels.items())
        keep = [wanted <= set(parse_labels(t + "}")[0].items()) if t else False
                for t in rows["labels"]]
        rows = rows[np.asarray(keep, dtype=bool)]
    return rows["value"]


def counter_delta(before: pd.DataFrame, after: pd.DataFrame, name: str, **labels: str) -> float:
    """after − before for counter ``name``, summed over the series whose labels include
    ``labels``. NaN when the series is missing from either scrape or the counter went backwards
    (a reset)."""
    b = _select(before, name, labels)
    a = _select(after, name, labels)
    if a.empty or b.empty:
        return math.nan
    delta = float(a.sum() - b.sum())
    return delta if delta >= 0 else math.nan


def histogram_mean_delta(
    before: pd.DataFrame, after: pd.DataFrame, base: str, **labels: str,
) -> float:
    """Mean of the observations made between the scrapes: Δ``base_sum`` / Δ``base_count``.
    NaN when nothing was observed (Δcount = 0) or either counter is missing or was reset."""
    count = counter_delta(before, after, f"{base}_count", **labels)
    total = counter_delta(before, after, f"{base}_sum", **labels)
    if not math.isfinite(count) or count == 0 or not math.isfinite(total):
        return math.nan
    return total / count
