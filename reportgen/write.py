"""Atomic file output: the target is either the old file or the complete new one, never a mix.

The bytes go to a temporary file in the target's own directory (so ``os.replace`` stays on one
filesystem and is atomic), are flushed and fsynced, then renamed over the target. Any failure
removes the temporary file and leaves an existing target untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically and return ``path``.

    Raises ``OSError`` (or the original exception) after cleaning up; the caller decides how to
    report it. A new file gets the usual umask-derived mode; an existing file keeps its mode.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _target_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def _target_mode(path: Path) -> int:
    # mkstemp creates 0600; a report is meant to be shared, so use what open() would give.
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
