"""The folder walk of discovery: iterative (a chain of thousands of nested folders cannot
exhaust the interpreter's stack, as Python 3.11's recursive ``os.walk`` does) and honest (a
folder that cannot be listed is reported, never silently left out)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

Unreadable = Callable[[Path, OSError], None]


def walk(root: Path, unreadable: Unreadable) -> Iterator[tuple[Path, list[str], list[str]]]:
    """Top-down ``(folder, dirs, files)`` like ``os.walk(followlinks=False)``: ``dirs`` may be
    pruned in place by the caller; links to folders are listed in ``dirs`` and not entered.
    ``unreadable(folder, error)`` is called for every folder that cannot be listed."""
    stack = [Path(root)]
    while stack:
        folder = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                        if is_dir and entry.is_symlink():  # from the listing: no system call
                            links.add(entry.name)
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
        except OSError as exc:
            unreadable(folder, exc)
            continue
        yield folder, dirs, files
        # in reverse, so the stack visits them in the order the caller left them
        stack += [folder / d for d in reversed(dirs) if d not in links]
