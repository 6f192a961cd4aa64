"""How input paths are shown in messages, provenance and tables: relative to the parent of the
round directory, e.g. ``round2-rtx4090/vllm/bench/c8.json`` (short, and still names the round).
A module of its own so every stage (loaders, narrative, page) can use it without importing
another stage."""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from pathlib import Path

from reportgen.files.safe_read import printable


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to the parent of the round directory ``root`` (POSIX separators);
    the path as given when it lies elsewhere. Bytes that are not UTF-8 are shown as ``\\xNN``."""
    return _shown(path, root.resolve().parent, _resolved_folder)


def display_paths(root: Path) -> Callable[[Path], str]:
    """``display_path`` for the many files of one load of ``root``: the round and each folder
    are resolved once (system calls per path part), not once per file."""
    base = root.resolve().parent
    folders: dict[Path, Path | None] = {}

    def folder(path: Path) -> Path | None:
        # a folder that is no link is its parent resolved (once for all its folders) and its
        # name: one lstat, not one per part of the path. Climbed without recursion (a chain
        # of a thousand nested folders is a round too)
        chain: list[Path] = []
        top = path
        while top not in folders and top.name not in ("", ".", "..") \
                and top.parent != top and _plain_folder(top):
            chain.append(top)
            top = top.parent
        if top not in folders:
            folders[top] = _resolved_folder(top)
        for below in reversed(chain):
            up = folders[below.parent]
            folders[below] = up / below.name if up is not None else _resolved_folder(below)
        return folders[path]

    prefixes: dict[Path, str | None] = {}  # folder → how it is shown (None: outside base)

    def shown(path: Path) -> str:
        parent = path.parent
        if parent not in prefixes:
            where = folder(parent)
            try:
                prefixes[parent] = printable(where.relative_to(base).as_posix()) \
                    if where is not None else None
            except ValueError:
                prefixes[parent] = None
        prefix = prefixes[parent]
        if prefix is None or path.name in ("", ".", ".."):
            return _shown(path, base, folder)
        return f"{prefix}/{printable(path.name)}" if prefix != "." else printable(path.name)

    return shown


def _plain_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _resolved_folder(folder: Path) -> Path | None:
    try:
        return folder.resolve()
    except (OSError, RuntimeError):
        return None


def _shown(path: Path, base: Path, resolve: Callable[[Path], Path | None]) -> str:
    # the folder resolved, the name kept: a link is named as it is in the round
    folder = resolve(path.parent)
    resolved = folder / path.name if folder is not None else path
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
