"""How input paths are shown in messages, provenance and tables: relative to the parent of the
round directory, e.g. ``round2-rtx4090/vllm/bench/c8.json`` (short, and still names the round).
A module of its own so every stage (loaders, narrative, page) can use it without importing
another stage."""

from __future__ import annotations

import re
from pathlib import Path

from reportgen.safe_read import printable


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to the parent of the round directory ``root`` (POSIX separators);
    the path as given when it lies elsewhere. Bytes that are not UTF-8 are shown as ``\\xNN``."""
    base = root.resolve().parent
    try:  # the folder resolved, the name kept: a link is named as it is in the round
        resolved = path.parent.resolve() / path.name
    except (OSError, RuntimeError):
        resolved = path
    try:
        return printable(resolved.relative_to(base).as_posix())
    except ValueError:
        return printable(str(path))


DIGIT_RUN = re.compile(r"([0-9]+)")


def natural_key(name: str) -> tuple[tuple[int, int, str], ...]:
    """Numbers compare as numbers (`run=2` before `run=10`), so repeats keep their order;
    by length and digits, so no int() of a digit run of any length."""
    return tuple((0, len(p.lstrip("0")), p.lstrip("0")) if p.isdigit() else (1, 0, p)
                 for p in DIGIT_RUN.split(name))
