"""Copies of results: never read as runs of their own.

A folder copied for safety (``backup/``, ``old-copy/``…), a macOS archive's ``__MACOSX/`` and a
file saved twice (``c8 (1).json``, ``c8 - Copy.json``, ``Copy of c8.json``, ``c8.json.bak``,
``c8.json~``) hold the same runs as the original. Read as runs, a copy could be chosen over
the original (it may sort first) or make a configuration of its own, so:

- anything under ``__MACOSX`` or a folder named ``backup(s)`` / ``bak`` is skipped;
- a folder or file whose name is a copy's name is skipped when its original (the name with the
  copy marker removed) exists beside it; alone, it is the only copy there is and is read.

``same_run`` also lives here: whether two records are one run saved twice (a result JSON and
its console log), compared within the console's printed precision.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from reportgen.errors import Finding
    from reportgen.load.scanned import ScannedFile

ALWAYS_COPIES = frozenset({"__macosx", "backup", "backups", "bak"})
# "name (1)", "name - Copy", "name - Copy (2)", "name copy", "name copy 2", "Copy of name",
# "name.bak", "name.orig", "name~", "name - 副本"
_COPY_NAME = re.compile(
    r"^(?:copy of |copy \(\d+\) of )(?P<a>.+)$"
    r"|^(?P<b>.+?)(?: \(\d+\)| - copy(?: \(\d+\))?| copy(?: \d+)?| - 副本(?: \(\d+\))?"
    r"|\.bak|\.orig|\.backup|~)$", re.IGNORECASE)
# consoles print floats with two decimals: a value they print is within half a unit of it
PRINTED_HALF_UNIT = 0.005


def original_name(name: str) -> str | None:
    """The name a copy was made from (``c8 (1).json`` → ``c8.json``), or None."""
    stem, dot, suffix = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    for candidate, tail in ((name, ""), (stem, dot + suffix)):
        if not candidate:
            continue
        m = _COPY_NAME.match(candidate)
        if m:
            base = m.group("a") or m.group("b")
            if base and base != candidate:
                return base + tail
    return None


def copy_reason(rel: str, present: frozenset[str]) -> str | None:
    """Why the file at ``rel`` (POSIX, relative to the round) is a copy, or None."""
    parts = PurePosixPath(rel).parts
    for i, part in enumerate(parts):
        low = part.lower()
        if low in ALWAYS_COPIES:
            what = "macOS archive metadata" if low == "__macosx" else f"a backup folder ({part})"
            return f"in {what}; copies are not read as runs"
        original = original_name(part)
        if original is None:
            continue
        twin = "/".join((*parts[:i], original))
        if twin in present:
            return (f"a copy of {twin} (by its name); the original is used"
                    if i == len(parts) - 1 else
                    f"in {'/'.join(parts[:i + 1])}, a copy of the folder {twin}; the "
                    "original is used")
    return None


def skip_copies(files: Sequence[ScannedFile]) -> list[ScannedFile]:
    """``files`` with every copy turned into a skipped entry saying what it copies."""
    present: set[str] = set()
    for f in files:
        parts = PurePosixPath(f.rel).parts
        present.update("/".join(parts[:i + 1]) for i in range(len(parts)))
    frozen = frozenset(present)
    out = []
    for f in files:
        reason = copy_reason(f.rel, frozen) if f.kind != "skipped" else None
        out.append(dataclasses.replace(f, kind="skipped", reason=reason) if reason else f)
    return out


def _finite(value: object) -> bool:
    if type(value) is float:  # nearly every figure: no ABC check (dedupe compares thousands)
        return math.isfinite(value)
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and \
        math.isfinite(value)


def agree(a: object, b: object) -> bool:
    """Two figures of one run, one possibly printed by a console (two decimals)."""
    if not (_finite(a) and _finite(b)):
        return True  # one of them does not state it: nothing to disagree on
    x, y = float(a), float(b)  # type: ignore[arg-type]
    return abs(x - y) <= PRINTED_HALF_UNIT + 1e-9 * max(abs(x), abs(y), 1.0)


def comparable(record: Mapping[str, object]) -> bool:
    """Whether a record states what ``same_run`` needs of both sides: the request count and
    the duration (a record without them is never taken for a copy of another)."""
    return _finite(record.get("completed")) and _finite(record.get("duration_s"))


def same_run(a: Mapping[str, object], b: Mapping[str, object], columns: Sequence[str],
             exact: Sequence[str]) -> bool:
    """Whether records ``a`` and ``b`` are one run: the ``exact`` counts equal where both
    state them, every other column within the printed precision, and at least the request
    count and the duration stated by both."""
    for column in exact:
        x, y = a.get(column), b.get(column)
        if _finite(x) and _finite(y) and float(x) != float(y):  # type: ignore[arg-type]
            return False
    if not (comparable(a) and comparable(b)):
        return False
    return all(agree(a.get(c), b.get(c)) for c in columns)


# a start time to the second (vLLM's "%Y%m%d-%H%M%S"): two runs cannot share one
_STARTED = re.compile(r"\d{8}-\d{6}|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}")


def conflicting_runs(summary: pd.DataFrame) -> list[Finding]:
    """A warning for every pair of results that state the same start time, model and tier
    but different figures (after ``dedupe``, so they are not one run saved twice): one of
    them was edited or mislabelled, and the report cannot tell which."""
    from reportgen.errors import Finding

    needed = ("date", "model_id", "concurrency", "request_rate", "source")
    if summary.empty or any(c not in summary.columns for c in needed):
        return []
    first: dict[tuple[str, ...], str] = {}
    out: list[Finding] = []
    for date, model, conc, rate, source in zip(*(summary[c] for c in needed), strict=True):
        if not (isinstance(date, str) and _STARTED.search(date)):
            continue
        key = (date, str(model), f"{conc!r}", f"{rate!r}")
        if key not in first:
            first[key] = str(source)
        elif first[key] != str(source):
            out.append(Finding(str(source), f"states the same start time ({date}), model and "
                                            f"tier as {first[key]} but different results; "
                                            "one of the two files is not what it claims "
                                            "(both are used)"))
    return out
