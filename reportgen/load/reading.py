"""Reading an input file: every loader's one way to turn an OS failure into an InputError."""

from __future__ import annotations

from pathlib import Path

from reportgen.errors import InputError


def read_input(path: Path, shown: str | Path, missing: str = "file not found") -> bytes:
    """The file's bytes; a missing or unreadable file raises InputError naming `shown`."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(shown, missing) from None
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror}") from None
