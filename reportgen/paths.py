"""How input paths are shown in messages, provenance and tables: relative to the parent of the
round directory, e.g. ``round2-rtx4090/vllm/bench/c8.json`` (short, and still names the round).
A module of its own so every stage (loaders, narrative, page) can use it without importing
another stage."""

from __future__ import annotations

from pathlib import Path


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to the parent of the round directory ``root`` (POSIX separators);
    the path as given when it lies elsewhere."""
    base = root.resolve().parent
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: resolve the folder, keep the name
        resolved = path.parent.resolve() / path.name
    try:
        return resolved.relative_to(base).as_posix()
    except ValueError:
        return str(path)
