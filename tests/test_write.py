"""Atomic write: the target is either untouched or completely replaced, never half-written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import reportgen.files.write as write_mod
from reportgen.files.write import write_atomic


def test_writes_a_new_file(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert write_atomic(out, b"<html>new</html>") == out
    assert out.read_bytes() == b"<html>new</html>"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_replaces_an_existing_file_and_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    write_atomic(out, b"new content")
    assert out.read_bytes() == b"new content"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_new_file_mode_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "r.html", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.html").stat().st_mode) == 0o644


@pytest.mark.parametrize("broken", ["replace", "fsync", "write"])
def test_failure_leaves_the_old_file_and_no_temp_file(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      broken: str) -> None:
    out = tmp_path / "report.html"
    out.write_bytes(b"previous report")

    def boom(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    if broken == "replace":
        monkeypatch.setattr(write_mod.os, "replace", boom)
    elif broken == "fsync":
        monkeypatch.setattr(write_mod.os, "fsync", boom)
    else:
        real_fdopen = os.fdopen

        def fdopen(fd: int, mode: str) -> object:
            handle = real_fdopen(fd, mode)

            class Half:
                def __enter__(self) -> Half:
                    return self

                def __exit__(self, *exc: object) -> None:
                    handle.close()

                def write(self, data: bytes) -> None:
                    handle.write(data[: len(data) // 2])  # half the bytes reach the disk
                    raise OSError(5, "I/O error")

                def flush(self) -> None:
                    handle.flush()

                def fileno(self) -> int:
                    return handle.fileno()

            return Half()

        monkeypatch.setattr(write_mod.os, "fdopen", fdopen)
    with pytest.raises(OSError):
        write_atomic(out, b"a much longer replacement that must never appear half-written")
    assert out.read_bytes() == b"previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_interrupt_also_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(write_mod.os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "r.html", b"data")
    assert list(tmp_path.iterdir()) == []


def test_missing_directory_raises_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "nope" / "r.html", b"data")
    assert list(tmp_path.iterdir()) == []


def test_relative_path_in_the_current_directory(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic(Path("r.html"), b"here")
    assert (tmp_path / "r.html").read_bytes() == b"here"
