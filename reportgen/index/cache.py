"""The index's cache of one round: what decides whether it must be built again, and the tables
its page embeds (the only thing the index page and the trend figure are made from).

An entry is two files in ``<site>/.reportgen-index/``: ``tables/<name>.json``, the round's
tables (as ``reportgen tables`` writes them: what the page embeds), and ``<name>.json``, its
head, written after it: ``{schema, key, files, dirs, checked_ns, baseline, page, page_sha256,
nav, card}`` — ``card`` the part of the tables the index page reads (``card_tables``), so a
run reads a few hundred bytes per unchanged round, not its tables. ``key`` hashes reportgen's
version, the opening language and the content (sha256) of every file of the round, plus those
of the round its round.toml names as baseline.

The check of an unchanged round costs a ``stat`` per file and per folder, nothing more:

- ``files``: ``{path: [size, mtime_ns, ctime_ns, inode, sha256]}``. A file whose four stat
  values are those recorded is not read again; any other is hashed again (the key, the
  content, decides whether the round is rebuilt; a stat change alone only re-hashes). The
  ctime cannot be set by a program, so a rewrite that keeps the size and puts the old mtime
  back (``touch -r``, ``cp -p``) is still seen; only a change that also keeps ctime and inode
  (the clock set back, the disk written under the file system) is not — as with git.
- ``dirs``: ``{folder: [mtime_ns, ctime_ns, inode]}``. A folder whose stat is that recorded has
  the same names (creating, removing or renaming an entry changes it), so it is not listed
  again; its files are still each stat'ed: a file rewritten in place changes only its own stat.
- The "racy git" rule: ``checked_ns`` is the clock when the stamps were taken. A file or
  folder whose mtime or ctime falls within ``RACY_NS`` of it may have changed again within
  the same tick of the file system's clock after it was read, so its stamp is not trusted next
  time: it is hashed (listed) again, and the entry's stamps are refreshed (``refreshed``).
- ``baseline``: round.toml's ``[baseline] round`` as written, reused while round.toml's stamp
  is unchanged (the folder it names is still resolved and stamped every time).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen import __version__
from reportgen.errors import InputError
from reportgen.files.safe_read import printable, read_input

SCHEMA = "reportgen.index-cache/3"
CACHE_DIR = ".reportgen-index"
ENTRY = "json"  # an entry head is read with the cap of a metadata JSON file (safe_read.CAPS)
TABLES_DIR = "tables"
FileStamp = list[object]            # [size, mtime_ns, ctime_ns, inode, sha256 hex]
DirStamp = list[int]                # [mtime_ns, ctime_ns, inode]
Files = dict[str, FileStamp]
Dirs = dict[str, DirStamp]
CHUNK = 1 << 20
# A stamp this close to (or after) the moment it was taken is not trusted next time: file
# system clocks are coarse (FAT: 2 s; Linux's coarse clock lags by a tick; NFS servers drift).
RACY_NS = 2_000_000_000
TOML = "round.toml"
BASELINE = "../baseline/"        # where the files of the baseline round are recorded


@dataclass(frozen=True)
class Fingerprint:
    key: str
    files: Files
    dirs: Dirs
    checked_ns: int
    baseline: str            # round.toml's [baseline] round as written ("" when none)
    refreshed: bool          # a stamp was taken again (not trusted, or changed)

    def head(self) -> dict[str, object]:
        """The fields of a cache entry's head that the next check reads."""
        return {"key": self.key, "files": self.files, "dirs": self.dirs,
                "checked_ns": self.checked_ns, "baseline": self.baseline}


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


@dataclass
class _Previous:
    """The stamps of the last check, and the moment before which they can be trusted."""
    files: Mapping[str, object]
    dirs: Mapping[str, object]
    trusted_before: int

    def trusted(self, old: object, now: list[int]) -> bool:
        """``old`` recorded exactly ``now``'s stat values, none of them racy."""
        return (isinstance(old, list) and len(old) >= len(now) and old[:len(now)] == now
                and max(now[-3], now[-2]) < self.trusted_before)


def _file_stamp(path: str, st: os.stat_result, rel: str, prev: _Previous,
                out: Files) -> bool:
    """Record the file or link ``rel``; True when its old stamp was trusted."""
    if stat.S_ISLNK(st.st_mode):
        out[rel] = [0, 0, 0, 0, "link:" + os.readlink(path)]
        return bool(prev.files.get(rel) == out[rel])
    now = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
    old = prev.files.get(rel)
    if isinstance(old, list) and len(old) == 5 and isinstance(old[4], str) and \
            prev.trusted(old, now):
        out[rel] = [*now, old[4]]
        return True
    out[rel] = [*now, _sha256(path)]
    return False


Listing = dict[str, list[str]]       # folder → the names the last check found in it


def _listings(prev: _Previous) -> Listing:
    out: Listing = {d: [] for d in prev.dirs}
    for rel in [*prev.files, *(d[:-1] for d in prev.dirs if d)]:
        parent, _, name = rel.rpartition("/")
        names = out.get(parent + "/" if parent else "")
        if names is not None:
            names.append(name)
    return out


def _entries(path: str, names: list[str] | None) -> list[tuple[str, os.stat_result]] | None:
    """(name, lstat) of the recorded ``names`` of the folder (``path`` ends in "/"); None
    when one is gone."""
    if names is None:
        return None
    out = []
    for name in names:
        try:
            out.append((name, os.lstat(path + name)))
        except FileNotFoundError:
            return None
    return out


def _stamp_folder(root: str, rel_dir: str, prev: _Previous, listings: Listing, files: Files,
                  dirs: Dirs) -> bool:
    """Stamp the folder ``root/rel_dir`` and everything under it (links recorded by their
    target text, never followed; FIFOs, devices and sockets are not inputs). Returns
    whether every old stamp was trusted."""
    # joined by hand: `root` ends in "/" and names hold none (os.path.join was a third of a
    # 10,000-round check)
    path = root + rel_dir
    st = os.stat(path)
    now = [st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
    dirs[rel_dir] = now
    listed = prev.trusted(prev.dirs.get(rel_dir), now)
    entries = _entries(path, listings.get(rel_dir)) if listed else None
    clean = entries is not None
    if entries is None:
        with os.scandir(path) as it:
            entries = [(e.name, e.stat(follow_symlinks=False)) for e in it]
    for name, est in sorted(entries, key=lambda e: e[0]):
        rel = rel_dir + name
        if stat.S_ISDIR(est.st_mode):
            clean &= _stamp_folder(root, rel + "/", prev, listings, files, dirs)
        elif stat.S_ISREG(est.st_mode) or stat.S_ISLNK(est.st_mode):
            clean &= _file_stamp(path + name, est, rel, prev, files)
    return clean


def _previous(old: Mapping[str, object], prefix: str) -> _Previous:
    """The stamps of ``old`` under ``prefix`` ("" for the round's own: not ../)."""
    def under(stamps: object) -> dict[str, object]:
        if not isinstance(stamps, dict):
            return {}
        if not prefix:
            return {k: v for k, v in stamps.items() if not k.startswith("../")}
        return {k[len(prefix):]: v for k, v in stamps.items() if k.startswith(prefix)}

    checked = old.get("checked_ns")
    return _Previous(under(old.get("files")), under(old.get("dirs")),
                     checked - RACY_NS if isinstance(checked, int) else -1)


def file_stamps(folder: Path, previous: Mapping[str, object] | None, prefix: str = ""
                ) -> tuple[Files, Dirs, bool]:
    """Every file under ``folder`` in a fixed order, contents hashed unless their stamp in
    ``previous`` (an entry head) is trusted; its folders' stamps; and whether every old stamp
    was trusted. ``prefix`` names the files of a baseline round."""
    prev = _previous(previous or {}, prefix)
    files: Files = {}
    dirs: Dirs = {}
    try:
        root = str(folder)
        clean = _stamp_folder(root if root.endswith("/") else root + "/", "", prev,
                              _listings(prev), files, dirs)
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else str(folder)
        raise InputError(printable(where), f"cannot read: {exc.strerror or exc}") from None
    clean &= files.keys() == prev.files.keys()
    if prefix:
        files = {prefix + k: v for k, v in files.items()}
        dirs = {prefix + k: v for k, v in dirs.items()}
    return files, dirs, clean


def baseline_given(folder: Path) -> str:
    """round.toml's ``[baseline] round`` as written ("" when none, or unreadable: the build
    itself reports a broken round.toml, with its line)."""
    toml = folder / TOML
    if not toml.is_file():
        return ""
    try:
        data = tomllib.loads(read_input(toml, printable(str(toml)), TOML)
                             .decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return ""
    base = data.get("baseline")
    given = base.get("round") if isinstance(base, dict) else None
    return given if isinstance(given, str) else ""


def baseline_folder(folder: Path, given: str | None = None) -> Path | None:
    """The round round.toml names as ``[baseline] round`` (its files change this page too)."""
    given = baseline_given(folder) if given is None else given
    if not given:
        return None
    path = (folder / given).resolve()
    return path if path.exists() and path != folder.resolve() else None


def fingerprint(folder: Path, lang: str | None, previous: Mapping[str, object] | None
                ) -> Fingerprint:
    """The round's key and stamps, against ``previous`` (its last cache entry head, or
    None)."""
    old = previous or {}
    checked_ns = time.time_ns()        # before any stat: see RACY_NS
    files, dirs, clean = file_stamps(folder, old)
    old_files = old.get("files")
    old_toml = old_files.get(TOML) if isinstance(old_files, dict) else None
    cached = old.get("baseline")
    same_toml = TOML in files and isinstance(old_toml, list) and old_toml[4:] == files[TOML][4:]
    given = cached if same_toml and isinstance(cached, str) else baseline_given(folder)
    base = baseline_folder(folder, given)
    if base is not None:
        if base.is_dir():
            more, more_dirs, base_clean = file_stamps(base, old, BASELINE)
            files |= more
            dirs |= more_dirs
            clean &= base_clean
        else:            # a published report.html
            prev = _Previous(old_files if isinstance(old_files, dict) else {}, {},
                             _previous(old, "").trusted_before)
            try:
                clean &= _file_stamp(str(base), os.stat(base), BASELINE[:-1], prev, files)
            except OSError as exc:
                raise InputError(printable(str(base)),
                                 f"cannot read: {exc.strerror or exc}") from None
    h = hashlib.sha256(f"{SCHEMA}\0{__version__}\0{lang or ''}\0".encode())
    for rel in sorted(files):
        h.update(f"{rel}\0{files[rel][4]}\0".encode("utf-8", "surrogateescape"))
    return Fingerprint(h.hexdigest(), files, dirs, checked_ns, given, not clean)


# ----------------------------------------------------------------------------- entries

def entry_path(cache: Path, name: str) -> Path:
    """The head of a round's entry (key, file stamps, page hash, nav, card)."""
    return cache / f"{name}.json"


def tables_path(cache: Path, name: str) -> Path:
    return cache / TABLES_DIR / f"{name}.json"


def card_tables(tables: Mapping[str, Any], value_names: list[str]) -> dict[str, Any]:
    """The part of a round's tables its card and trend points come from: the round facts and
    the named values (``value_names``, an engine as ``{e}``; workload-prefixed names too)."""
    info = tables.get("round") or {}
    keep = ("title", "date", "gpu", "gpu_count", "default_language")
    round_part: dict[str, Any] = {k: info[k] for k in keep if k in info}
    round_part["engines"] = [{"id": e.get("id"), "label": e.get("label")}
                             for e in info.get("engines") or [] if isinstance(e, Mapping)]
    if info.get("workloads"):
        round_part["workloads"] = [{"id": w.get("id")} for w in info["workloads"][:1]]
    ids = [str(e["id"]) for e in round_part["engines"]]
    wanted = {n.format(e=e) for n in value_names for e in (ids if "{e}" in n else [""])}
    values = {k: v for k, v in (tables.get("values") or {}).items()
              if k.rsplit("/", 1)[-1] in wanted}
    return {"round": round_part, "values": values}


def read_entry(path: Path) -> dict[str, Any] | None:
    """A cache entry, or None when it is missing, unreadable (through the checked reader: a
    FIFO, a device, a link to /dev/zero or a file over the cap is never opened or read whole),
    of another schema or of the wrong shape: the round is then simply built again."""
    try:
        data = _loads(read_input(path, printable(str(path)), ENTRY))
    except (InputError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not _entry_shape(data):
        return None
    return data


def _entry_shape(data: dict[str, Any]) -> bool:
    """Whether an entry head has the types every reader of it relies on (a hand edit or a
    half-written disk gives a list where an object belongs)."""
    card = data.get("card")
    if not (isinstance(data.get("key"), str) and isinstance(data.get("page_sha256"), str)
            and isinstance(data.get("files"), dict) and isinstance(data.get("dirs"), dict)
            and isinstance(data.get("nav"), list | None) and isinstance(card, dict)):
        return False
    info, values = card.get("round"), card.get("values")
    if not isinstance(info, dict) or not isinstance(values, dict):
        return False
    engines, workloads = info.get("engines"), info.get("workloads") or []
    texts = (info.get("title"), info.get("date"), info.get("gpu"),
             *(e.get("label") for e in engines or [] if isinstance(e, dict)))
    return (isinstance(engines, list) and all(isinstance(e, dict) for e in engines)
            and isinstance(workloads, list) and all(isinstance(w, dict) for w in workloads)
            and all(isinstance(t, str | dict | None) for t in texts)
            and isinstance(info.get("gpu_count"), int | None))


def dump_entry(entry: Mapping[str, Any]) -> bytes:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


def _loads(data: bytes) -> Any:
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib is the fallback
        return json.loads(data)
    return orjson.loads(data)


def page_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
