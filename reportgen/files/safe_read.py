"""The one way any input file is read: type, size and encoding checks before a parser sees it.

Every loader, round.toml, the narrative and the auto-scan go through here, so the rules hold
for every input:

- **Only regular files.** The path is ``stat``-ed (following links) before it is opened: a
  FIFO, a device (``/dev/zero``), a socket or a folder is refused without being opened (opening
  a FIFO would block). The file is then opened with ``O_NONBLOCK`` and checked again on the
  open descriptor, so a file swapped for a FIFO in between cannot block either.
- **A size cap per input type** (``CAPS``). A file whose size is over the cap is refused from its
  ``stat`` alone (a 2 GB sparse file fails at once); otherwise at most ``cap + 1`` bytes are ever
  read, so a file that grows, or reports a wrong size, cannot eat memory.
- **Encodings.** A UTF-8 byte-order mark is dropped; gzip data and UTF-16/32 text are refused
  with a message that says so (rather than "not UTF-8 (byte 1)" or silently misread text).
- **Links stay in the round.** ``leads_out`` tells whether a path resolves outside the round
  folder; discovery refuses such inputs (see ``reportgen.load.discover``, ``load.scan``).
- **Names are printable.** ``printable`` turns the undecodable bytes of a file name (which
  Python keeps as lone surrogates) into ``\\xNN`` escapes, so a message or the page can show it.

Every failure is an ``InputError`` naming the file as the caller shows it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from reportgen.errors import InputError

MiB = 1 << 20
GiB = 1 << 30


@dataclass(frozen=True)
class Cap:
    """How large one type of input may be, and how a message names that type."""

    limit: int  # bytes
    what: str


# Sizes far above any real file of the kind (the 2026 benchmark round: 264 MB of detailed JSON
# over 48 files, a 1 GB llama-server log), far below what would exhaust a machine's memory.
CAPS: dict[str, Cap] = {
    "round.toml": Cap(1 * MiB, "a round.toml"),
    "baseline.toml": Cap(1 * MiB, "a baseline.toml"),
    "narrative": Cap(1 * MiB, "a narrative file"),
    "image": Cap(512 << 10, "an image embedded in the narrative"),
    "bench": Cap(1 * GiB, "a benchmark result file"),
    "console": Cap(256 * MiB, "a benchmark console log"),
    "json": Cap(64 * MiB, "a metadata JSON file"),
    "vllm_log": Cap(2 * GiB, "a vLLM server log"),
    "llama_log": Cap(16 * GiB, "a llama-server log"),  # streamed, never held in memory whole
    "fingerprint": Cap(16 * MiB, "a fingerprint.txt"),
    "gpu_csv": Cap(1 * GiB, "an nvidia-smi CSV"),
    "metrics": Cap(256 * MiB, "a Prometheus scrape"),
    "series": Cap(1 * GiB, "a telemetry time series (timestamped scrapes or query_range JSON)"),
    "report": Cap(256 * MiB, "a report.html"),
}

UTF8_BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"
_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
         (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16"))
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


def printable(text: str) -> str:
    """``text`` with the undecodable bytes of a file name (lone surrogates, as ``os.fsdecode``
    keeps them) shown as ``\\xNN``; any other text unchanged."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace") if _fs_roundtrips(text) \
            else text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


# a JSON or YAML escape of a UTF-16 surrogate (``\\ud800``); a pair decodes to one character,
# a lone one to a string no UTF-8 output can hold
SURROGATE_ESCAPE = re.compile(rb"\\(?:u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}")


def whole_text(value: Any) -> Any:
    """``value`` (decoded JSON/YAML: dicts, lists, scalars) with every lone surrogate in its
    strings and keys replaced by U+FFFD, so no page, table or message fails to encode it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, dict):
        return {whole_text(k): whole_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_text(v) for v in value]
    return value


def _fs_roundtrips(text: str) -> bool:
    try:
        os.fsencode(text)
    except UnicodeEncodeError:  # a surrogate that did not come from a file name
        return False
    return True


def size_text(n: int) -> str:
    return f"{n / GiB:.1f} GiB" if n >= GiB else f"{n / MiB:.1f} MiB" if n >= MiB \
        else f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} bytes"


def leads_out(path: Path, root: Path) -> bool:
    """Whether ``path`` (through any symlink on the way) resolves outside the folder ``root``;
    a symlink loop counts as leading out (it leads nowhere readable)."""
    try:
        path.resolve().relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):
        return True
    return False


def refuse_outside(path: Path, root: Path, shown: str) -> None:
    """InputError when ``path`` is a link that leads out of the round folder ``root``."""
    if leads_out(path, root):
        try:
            target = printable(str(path.resolve()))
        except (OSError, RuntimeError):
            target = "a symlink loop"
        what = "a link that leads" if path.is_symlink() else "leads"
        raise InputError(shown, f"{what} out of the round folder (to {target}); refused: "
                                "copy the file into the round instead")


def file_kind(st: os.stat_result) -> str | None:
    """None for a regular file, else what it is (``a FIFO (named pipe)`` …)."""
    if stat.S_ISREG(st.st_mode):
        return None
    return next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")


def check_input(path: Path, shown: str, kind: str | None = None,
                missing: str = "file not found") -> os.stat_result:
    """Stat ``path`` without opening it: missing, unreadable, not a regular file, or (with
    ``kind``) larger than its cap → InputError. Returns the stat result."""
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise InputError(shown, "cannot read: a link to a file that does not exist "
                                    "(expected a readable file)") from None
        raise InputError(shown, missing) from None
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc} (expected a readable "
                                "file)") from None
    what = file_kind(st)
    if what is not None:
        raise InputError(shown, f"is {what}, not a regular file; refused without reading it")
    if kind is not None and st.st_size > CAPS[kind].limit:
        raise _too_large(shown, kind, st.st_size)
    return st


def _too_large(shown: str, kind: str, size: int | None) -> InputError:
    cap = CAPS[kind]
    have = f"{size_text(size)}, " if size is not None else ""
    return InputError(shown, f"too large ({have}more than the {size_text(cap.limit)} "
                             f"{cap.what} may have); is this the right file?")


def open_regular(path: Path, shown: str) -> BinaryIO:
    """``check_input`` then open: a regular file, opened without blocking (a sniff)."""
    check_input(path, shown)
    return _open_regular(path, shown)


def _open_regular(path: Path, shown: str) -> BinaryIO:
    """Open for reading without ever blocking on a FIFO, and check the descriptor again."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc} (expected a readable "
                                "file)") from None
    try:
        what = file_kind(os.fstat(fd))
        if what is not None:
            raise InputError(shown, f"is {what}, not a regular file; refused without reading "
                                    "it")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path, shown: str | Path, kind: str, missing: str = "file not found"
               ) -> bytes:
    """The raw bytes of one input (at most its cap), after the type and size checks; no
    encoding checks (see ``read_input``)."""
    shown = str(shown)
    check_input(path, shown, kind, missing)
    limit = CAPS[kind].limit
    try:
        with _open_regular(path, shown) as f:
            # a buffer of the file's size, not of the cap: read(1 GiB) maps and unmaps the
            # whole cap for every file (2,000 small files took 3× as long to read)
            size = os.fstat(f.fileno()).st_size
            data = f.read(min(size, limit) + 1)
            if len(data) > size:  # it grew while being read: the rest, up to the cap
                data += f.read(limit + 1 - len(data))
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise _too_large(shown, kind, None)
    return data


def read_input(path: Path, shown: str | Path, kind: str, missing: str = "file not found"
               ) -> bytes:
    """The bytes of one input file, checked (see the module doc): at most ``CAPS[kind]``
    bytes, a UTF-8 byte-order mark removed, gzip and UTF-16/32 refused."""
    data = read_bytes(path, shown, kind, missing)
    return check_encoding(data, str(shown))


def read_head(path: Path, shown: str | Path, size: int) -> bytes:
    """The first ``size`` bytes (a sniff, not an error when the file is longer)."""
    shown = str(shown)
    try:
        with open_regular(path, shown) as f:
            return f.read(size)
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc}") from None


def check_encoding(data: bytes, shown: str) -> bytes:
    """``data`` without a UTF-8 byte-order mark; InputError for gzip or UTF-16/32 text."""
    if data.startswith(UTF8_BOM):
        return data[len(UTF8_BOM):]
    if data.startswith(GZIP_MAGIC):
        raise InputError(shown, "gzip-compressed; decompress it first (gunzip) — inputs are "
                                "read as plain text")
    encoding = utf16_encoding(data)
    if encoding is not None:
        raise InputError(shown, f"{encoding} text; save it as UTF-8 (e.g. iconv -f "
                                f"{encoding} -t UTF-8)")
    return data


def utf16_encoding(data: bytes) -> str | None:
    """"UTF-16" / "UTF-32" when ``data`` is text in one of them (a byte-order mark, or ASCII
    text with every other byte zero, as a Windows tool may write it); else None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:64]
    if len(head) >= 4 and (head[1::2].count(0) == len(head) // 2 or
                           head[0::2].count(0) == (len(head) + 1) // 2) and \
            head.replace(b"\x00", b"").isascii():
        return "UTF-16"
    return None


def check_head(data: bytes) -> str | None:
    """Why a sniffed file cannot be text input (gzip, UTF-16/32), or None."""
    if data.startswith(GZIP_MAGIC):
        return "gzip-compressed (decompress it to include it)"
    encoding = utf16_encoding(data)
    return f"{encoding} text (save it as UTF-8 to include it)" if encoding else None


class InputStream(Protocol):
    """What ``open_input`` yields: the few file methods a streaming parser uses."""

    def readinto(self, buf: memoryview | bytearray) -> int: ...
    def read(self, size: int = -1) -> bytes: ...
    def seek(self, offset: int, whence: int = 0) -> int: ...
    def tell(self) -> int: ...
    def fileno(self) -> int: ...


class _Capped:
    """A binary file that raises InputError once reading goes past ``limit`` bytes (for
    parsers that stream a file instead of reading it whole)."""

    def __init__(self, f: BinaryIO, limit: int, shown: str, kind: str) -> None:
        self._f, self._limit, self._shown, self._kind = f, limit, shown, kind

    def _check(self) -> None:
        if self._f.tell() > self._limit:
            raise _too_large(self._shown, self._kind, None)

    def readinto(self, buf: memoryview | bytearray) -> int:
        room = self._limit + 1 - self._f.tell()  # never more than one byte past the cap
        n = self._f.readinto(  # type: ignore[attr-defined]  # open() gives a BufferedReader
            memoryview(buf)[:max(room, 0)]) if room > 0 else 0
        self._check()
        return n or 0

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = self._limit + 1 - self._f.tell()
        data = self._f.read(max(size, 0))
        self._check()
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._f.seek(offset, whence)

    def tell(self) -> int:
        return self._f.tell()

    def fileno(self) -> int:
        return self._f.fileno()


@contextmanager
def open_input(path: Path, shown: str | Path, kind: str) -> Iterator[InputStream]:
    """An input opened for streaming: the same checks as ``read_input`` (type, cap on the
    ``stat`` size), and reading past the cap raises InputError."""
    shown = str(shown)
    check_input(path, shown, kind)
    f = _open_regular(path, shown)
    try:
        head = f.read(64)
        f.seek(0)
        if not head.startswith(UTF8_BOM):
            check_encoding(head, shown)
        yield _Capped(f, CAPS[kind].limit, shown, kind)
    finally:
        f.close()
