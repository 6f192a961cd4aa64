"""How input paths are shown in messages, provenance and tables: relative to the parent of the
round directory, e.g. ``round2-rtx4090/vllm/bench/c8.json`` (short, and still names the round).
A module of its own so every stage (loaders, narrative, page) can use it without importing
another stage."""

from __future__ import annotations

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
