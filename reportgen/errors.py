"""The one error type bad input may raise, and what loading collects beside the data: the findings
(warnings) and the settings inferred from the files (``Inferred``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class InputError(Exception):
    """Bad input: names the file (and line) and says what was expected.

    The CLI prints ``Error: <str(e)>`` and exits 2; nothing else may escape a loader.
    """

    def __init__(self, path: str | Path, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.message = message
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, int | None]]:
        # pickled whole: an error raised in an `index -j N` worker reaches the parent as it
        # was raised (the default pickles str(self) alone, which __init__ cannot take back)
        return (type(self), (self.path, self.message, self.line))


@dataclass(frozen=True)
class Finding:
    """A problem in the input that still lets an honest report be built (shown as a warning)."""

    path: str
    message: str
    line: int | None = None
    engine: str | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Inferred:
    """One setting read from the files (not from round.toml), with where it was read."""

    key: str      # round.toml key it corresponds to, e.g. "hardware.gpu"
    value: str
    source: str   # file[:line] or what it was derived from
    status: str = "inferred"  # | "confirmed" / "overridden" by round.toml
    stated: str = ""          # round.toml's value when it overrides
