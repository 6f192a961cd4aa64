"""Writing the report: the output-path policy and the atomic write.

One output policy for every file reportgen writes (``-o``, ``--pdf``, ``tables -o``, init's
round.toml, index's pages call ``output_target`` / ``write_output`` with their ``kind``):

- no input is replaced, and neither is another output of the same run (``avoid``: the other
  outputs, and inputs given outside the round such as ``--previous`` / ``--baseline``);
- the content is checked before it replaces anything (``CONTENT``: a PDF starts ``%PDF-``, a
  page ``<!doctype html``, a round.toml parses as TOML);
- a new file's mode follows the umask (an existing file keeps its mode);
- temporary files and child processes are cleaned up on every terminating signal
  (``cleanup_on_signals``; ``pdf.py`` ends its browser's whole process group).

Output-path policy (``output_target``; docs/OUTPUT.md, "Output file"):

- ``-o -`` writes to standard output.
- A symlink is written *through*: the file it points to is replaced (atomically, the temporary
  file next to it) and the link stays a link.
- An existing output that is not a regular file (a FIFO, a device such as ``/dev/full``, a
  socket, a folder) is refused: it is never replaced by a regular file.
- Inside the round folder the output may only be a new file or an existing file of its own
  kind (``.html`` / ``.htm`` for a page, ``.pdf`` for a PDF): every input of the round
  (round.toml, results, logs, samples, narrative, the files read for settings) is refused,
  whatever the path says (both sides are resolved).

Atomic write (``write_atomic``): the bytes go to a temporary file in the target's own directory
(so ``os.replace`` stays on one filesystem and is atomic), are flushed and fsynced, then renamed
over the target. Any failure — an exception, Ctrl-C (SIGINT), SIGTERM, SIGHUP, SIGQUIT,
SIGUSR1/2 or SIGALRM — removes the temporary file and leaves an existing target untouched;
after a signal the process then ends as that signal would have ended it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import FrameType

from reportgen.errors import InputError
from reportgen.files.safe_read import file_kind, printable

STDOUT = "-"
REPORT_SUFFIXES = (".html", ".htm")
CLEANUP_SIGNALS = tuple(getattr(signal, name) for name in
                        ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")
                        if hasattr(signal, name))
# What may be replaced inside the round folder, per kind of output (anything else there may be
# an input: refused unless new).
OWN_SUFFIXES: dict[str, tuple[str, ...]] = {
    "report": REPORT_SUFFIXES, "tables": REPORT_SUFFIXES, "pdf": (".pdf",),
    "index": REPORT_SUFFIXES, "round.toml": (),
}

# How a refusal inside the round names what could have been replaced, and the option to change.
REFUSED_IN_ROUND: dict[str, tuple[str, str]] = {
    "report": ("an .html report", "-o"), "tables": ("an .html report", "-o"),
    "pdf": ("a .pdf file", "--pdf"), "index": ("an .html page", "-o"),
}


def _is_page(data: bytes) -> bool:
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:15].lower().startswith(b"<!doctype html")


def _is_toml(data: bytes) -> bool:
    try:
        tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return True


# Where each kind may go, as a refusal of anything else says it (the tables' CSV alone goes
# into a folder, one file per table).
ONLY_TO: dict[str, str] = {
    "report": "the report is only written to a regular file",
    "tables": "the tables are only written to a regular file (as CSV, also into a folder: "
              "-o DIR/ --format csv)",
    "pdf": "the PDF is only written to a regular file",
    "index": "the index is only written to a regular file",
    "round.toml": "round.toml is only written to a regular file",
}


# The content each kind must have before it may replace a file.
CONTENT: dict[str, tuple[str, Callable[[bytes], bool]]] = {
    "report": ("an HTML page", _is_page),
    "index": ("an HTML page", _is_page),
    "pdf": ("a PDF (starting %PDF-)", lambda data: data.startswith(b"%PDF-")),
    "round.toml": ("valid TOML", _is_toml),
    "tables": ("non-empty text", lambda data: bool(data.strip())),
}
# Tests only: seconds to wait with the temporary file written, so a test can send a signal
# mid-write (tests/test_hardening.py). Unset in normal use.
DELAY_ENV = "REPORTGEN_TEST_WRITE_DELAY"


def output_target(path: Path | str, round_dir: Path | None = None, *, kind: str = "report",
                  avoid: Iterable[Path | str | None] = ()) -> Path | None:
    """The file a write to ``path`` replaces, after the policy above; None for stdout.
    InputError (naming ``path``) when the policy refuses it. ``avoid``: files this run also
    reads or writes, which the output must not be (compared after resolving links)."""
    if str(path) == STDOUT:
        return None
    path = Path(path)
    shown = printable(str(path))
    try:
        target = Path(os.path.realpath(path))  # through every link; a missing tail stays
    except (OSError, RuntimeError) as exc:
        raise InputError(shown, f"cannot write: {exc}") from None
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(shown, f"cannot write: {exc.strerror or exc}") from None
    if st is not None and (what := file_kind(st)) is not None:
        only = ONLY_TO.get(kind, "the output is only written to a regular file")
        raise InputError(shown, f"is {what}, not a regular file; refused ({only}, or to stdout "
                                "with -o -)")
    if round_dir is not None and st is not None and _inside(target, round_dir) \
            and target.suffix.lower() not in OWN_SUFFIXES[kind]:
        what, option = REFUSED_IN_ROUND.get(kind, ("output of this command", "output"))
        raise InputError(shown, f"is a file of the round folder, not {what}; refused so no "
                                f"input is overwritten (choose another {option})")
    for other in avoid:
        if other is not None and str(other) != STDOUT and _same_file(target, Path(other)):
            raise InputError(shown, f"is also {printable(str(other))}, another input or output "
                                    "of this run; refused so one does not replace the other")
    return target


def _same_file(target: Path, other: Path) -> bool:
    try:
        if Path(os.path.realpath(other)) == target:
            return True
        return target.exists() and other.exists() and os.path.samefile(target, other)
    except (OSError, RuntimeError):
        return False


def _inside(target: Path, round_dir: Path) -> bool:
    try:
        target.relative_to(Path(os.path.realpath(round_dir)))
    except ValueError:
        return False
    return True


def check_content(path: Path | str, data: bytes, kind: str) -> None:
    """InputError unless ``data`` is what a ``kind`` output must be (before it replaces
    anything)."""
    what, ok = CONTENT[kind]
    if not ok(data):
        raise InputError(printable(str(path)), f"the {kind} to write is not {what}; nothing "
                                               "was written (the previous file is unchanged)")


def write_output(path: Path | str, data: bytes, round_dir: Path | None = None, *,
                 kind: str = "report", avoid: Iterable[Path | str | None] = ()) -> Path | None:
    """Apply the policy and write ``data``: to stdout for ``-``, else atomically to the
    resolved target, which is returned. InputError when the policy refuses, the content is
    not of its kind, or writing fails (the previous file, if any, is unchanged)."""
    check_content(path, data, kind)
    target = output_target(path, round_dir, kind=kind, avoid=avoid)
    if target is None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return None
    try:
        return write_atomic(target, data)
    except OSError as exc:  # e.g. the output folder does not exist or is read-only
        raise InputError(printable(str(path)), f"cannot write: {exc.strerror or exc} (the "
                                               "previous file, if any, is unchanged)") from None


class _Signalled(BaseException):
    """A cleanup signal arrived during the write (raised by the handler, re-sent after)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_signal(signum: int, _frame: FrameType | None) -> None:
    raise _Signalled(signum)


@contextlib.contextmanager
def cleanup_on_signals() -> Iterator[None]:
    """While writing, SIGTERM / SIGHUP raise, so the ``except`` that removes the temporary
    file runs (SIGINT already raises KeyboardInterrupt); afterwards the signal is re-sent with
    the previous handler, so the process ends (or not) exactly as it would have."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set from the main thread
        return
    # only signals that would end the process now: an ignored or handled one stays as it is
    previous = {s: signal.signal(s, _raise_signal) for s in CLEANUP_SIGNALS
                if signal.getsignal(s) is signal.SIG_DFL}
    if not previous:  # nested in another cleanup (or every signal handled): let it propagate
        yield
        return
    try:
        yield
    except _Signalled as sig:
        for s, handler in previous.items():
            signal.signal(s, handler)
        previous = {}
        os.kill(os.getpid(), sig.signum)  # the default action: the process ends here
        raise SystemExit(128 + sig.signum) from None
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically and return ``path``.

    Raises ``OSError`` (or the original exception) after cleaning up; the caller decides how to
    report it. A new file gets the usual umask-derived mode; an existing file keeps its mode.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    with cleanup_on_signals():
        tmp: Path | None = None
        try:
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                            dir=directory)
            tmp = Path(tmp_name)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if delay := os.environ.get(DELAY_ENV):
                    time.sleep(float(delay))
                os.fsync(handle.fileno())
            os.chmod(tmp, _target_mode(path))
            os.replace(tmp, path)
        except BaseException:
            if tmp is not None:
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
