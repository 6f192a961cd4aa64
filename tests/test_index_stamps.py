"""The index's unchanged check (reportgen/index/cache.py): a file whose (size, mtime, ctime,
inode) are those recorded is not read; a folder whose stamp is that recorded is not listed;
a stamp taken within RACY_NS of its check is not trusted (git's "racy" rule); a rewrite that
keeps the size and puts the old mtime back is still seen (its ctime moved)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import tiny_rounds
from reportgen.index import cache as index_cache
from reportgen.index.cache import RACY_NS, file_stamps, fingerprint
from reportgen.index.update import build_index

PAST = 1_500_000_000 * 10**9          # 2017: long before any check
FAKE = "0" * 64                       # a hash no file has: kept only when the file is not read


def tree(root: Path) -> Path:
    (root / "a" / "b").mkdir(parents=True)
    (root / "round.toml").write_text("[round]\n")
    (root / "a" / "x.json").write_text('{"v": 1}')
    (root / "a" / "b" / "y.json").write_text('{"v": 2}')
    return root


def head(root: Path, checked_ns: int, fake: bool = True) -> dict[str, Any]:
    """An entry head for ``root`` as it is now, checked at ``checked_ns``; with ``fake``
    every recorded hash is FAKE, so a file that is read again shows its real hash."""
    files, dirs, _ = file_stamps(root, None)
    if fake:
        files = {k: [*v[:4], FAKE] for k, v in files.items()}
    return {"files": files, "dirs": dirs, "checked_ns": checked_ns}


def later() -> int:
    return time.time_ns() + 10 * RACY_NS      # nothing on disk is racy against this check


def test_a_trusted_stamp_is_not_read_and_a_racy_one_is(tmp_path: Path) -> None:
    root = tree(tmp_path / "r")
    files, _, clean = file_stamps(root, head(root, later()))
    assert clean and {v[4] for v in files.values()} == {FAKE}       # nothing read
    # the same stamps, checked just now: the files were written within RACY_NS, so each is
    # hashed again (a change in the same clock tick as the check would otherwise be missed)
    files, _, clean = file_stamps(root, head(root, time.time_ns()))
    assert not clean and FAKE not in {v[4] for v in files.values()}
    assert files["a/x.json"][4] == index_cache._sha256(str(root / "a" / "x.json"))


def test_same_size_rewrite_with_the_old_mtime_is_seen(tmp_path: Path) -> None:
    root = tree(tmp_path / "r")
    x = root / "a" / "x.json"
    os.utime(x, ns=(PAST, PAST))
    before = head(root, later(), fake=False)
    time.sleep(0.01)
    x.write_text('{"v": 7}')                     # same size
    os.utime(x, ns=(PAST, PAST))                 # mtime put back, as `touch -r` / `cp -p` do
    st = x.stat()
    assert (st.st_size, st.st_mtime_ns) == tuple(before["files"]["a/x.json"][:2])
    files, _, clean = file_stamps(root, before)
    assert not clean
    assert files["a/x.json"][4] != before["files"]["a/x.json"][4]
    assert files["a/x.json"][4] == index_cache._sha256(str(x))
    # the edge left, documented: a change that also keeps ctime and inode (the clock set
    # back, the disk written under the file system) cannot be told from no change; this
    # stands in for it by recording the new stat with the old hash
    forged = {**before, "files": {**before["files"],
                                  "a/x.json": [st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                                               st.st_ino, before["files"]["a/x.json"][4]]}}
    files, _, _ = file_stamps(root, forged)
    assert files["a/x.json"][4] == before["files"]["a/x.json"][4]


def test_a_trusted_folder_is_not_listed_and_a_changed_one_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path / "r")
    listed: list[str] = []
    real = os.scandir

    def scandir(path: str) -> Any:
        listed.append(os.path.relpath(path, root))
        return real(path)

    monkeypatch.setattr(index_cache.os, "scandir", scandir)
    old = head(root, later(), fake=False)
    listed.clear()
    files, _, clean = file_stamps(root, old)
    assert clean and listed == []                       # a stat per folder and file, no listing
    assert set(files) == {"round.toml", "a/x.json", "a/b/y.json"}

    (root / "a" / "b" / "new.json").write_text("{}")     # the folder's mtime moves
    listed.clear()
    files, _, clean = file_stamps(root, old)
    assert not clean and listed == ["a/b"] and "a/b/new.json" in files

    # a file added and the folder's mtime put back: its ctime moved, so it is listed
    old = head(root, later(), fake=False)
    mtime = (root / "a").stat().st_mtime_ns
    (root / "a" / "late.json").write_text("{}")
    os.utime(root / "a", ns=(mtime, mtime))
    listed.clear()
    files, _, _ = file_stamps(root, old)
    assert "a/late.json" in files and "a" in listed

    # a folder stamp that lies (a recorded name is gone): it is listed after all
    (root / "a" / "b" / "y.json").unlink()
    lying = head(root, later(), fake=False)
    lying["files"]["a/b/y.json"] = [1, PAST, PAST, 1, FAKE]
    files, _, clean = file_stamps(root, lying)
    assert not clean and "a/b/y.json" not in files


def test_links_are_recorded_not_followed(tmp_path: Path) -> None:
    root = tree(tmp_path / "r")
    (root / "a" / "to-x").symlink_to("x.json")
    (root / "dirlink").symlink_to("a")
    files, dirs, _ = file_stamps(root, None)
    assert files["a/to-x"][4] == "link:x.json" and files["dirlink"][4] == "link:a"
    assert not any(k.startswith("dirlink/") for k in files)
    again, _, clean = file_stamps(root, {"files": files, "dirs": dirs, "checked_ns": later()})
    assert clean and again == files


def test_round_toml_baseline_is_reused_while_its_hash_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tree(tmp_path / "r1")
    root = tree(tmp_path / "r2")
    (root / "round.toml").write_text('[baseline]\nround = "../r1"\n')
    first = fingerprint(root, None, None)
    assert first.baseline == "../r1"
    assert first.files["../baseline/a/x.json"][4] == index_cache._sha256(str(base / "a/x.json"))
    calls: list[Path] = []
    monkeypatch.setattr(index_cache, "baseline_given", lambda f: calls.append(f) or "")
    again = fingerprint(root, None, {**first.head(), "checked_ns": later()})
    assert calls == [] and again.key == first.key and not again.refreshed
    (base / "a" / "x.json").write_text('{"v": 9}')       # the baseline's data moved
    moved = fingerprint(root, None, {**first.head(), "checked_ns": later()})
    assert calls == [] and moved.key != first.key


def test_index_rebuilds_a_round_rewritten_with_its_old_mtime_and_hashes_nothing_when_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rounds = tiny_rounds.generate(tmp_path / "rounds", 2)
    for r in rounds:                              # old files, as a nightly series has
        for p in r.rglob("*"):
            os.utime(p, ns=(PAST, PAST))
    monkeypatch.setattr(index_cache, "RACY_NS", 0)   # so that ctime, not the racy rule, decides
    site = tmp_path / "site"
    build_index(rounds, site, jobs=1)
    hashed: list[str] = []
    real = index_cache._sha256
    monkeypatch.setattr(index_cache, "_sha256", lambda p: hashed.append(p) or real(p))
    said: list[str] = []
    time.sleep(0.01)
    build_index(rounds, site, jobs=1, progress=said.append)
    assert hashed == [] and "the site is up to date" in said[-1]

    c1 = rounds[1] / "vllm" / "bench" / "c1.json"
    data = json.loads(c1.read_text())
    text = json.dumps(data)
    data["failed"], data["completed"] = 1, data["completed"] - 1
    edited = json.dumps(data)
    assert len(edited) == len(text)
    c1.write_text(edited)
    os.utime(c1, ns=(PAST, PAST))
    out = build_index(rounds, site, jobs=1)
    assert [p.name for p in out] == ["index.html", "nightly-0001.html"]
    assert hashed == [str(c1)]
