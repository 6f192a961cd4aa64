"""The index's cache of one round: what decides whether it must be built again, and the tables
its page embeds (the only thing the index page and the trend figure are made from).

An entry is two files in ``<site>/.reportgen-index/``: ``tables/<name>.json``, the round's
tables (as ``reportgen tables`` writes them: what the page embeds), and ``<name>.json``, its
head, written after it: ``{schema, key, files: {path: [size, mtime_ns, sha256]}, page,
page_sha256, nav, card}`` — ``card`` the part of the tables the index page reads
(``card_tables``), so a run reads a few hundred bytes per unchanged round, not its tables.
``key`` hashes reportgen's version, the opening language and the content (sha256) of every file
of the round, plus those of the round its round.toml names as baseline. A file whose size and
mtime are those recorded is not read again (as git does), so an unchanged round of gigabytes
costs a ``stat`` per file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen import __version__
from reportgen.errors import InputError
from reportgen.safe_read import printable, read_input

SCHEMA = "reportgen.index-cache/2"
CACHE_DIR = ".reportgen-index"
TABLES_DIR = "tables"
FileStamp = list[object]            # [size, mtime_ns, sha256 hex]
Files = dict[str, FileStamp]
CHUNK = 1 << 20


@dataclass(frozen=True)
class Fingerprint:
    key: str
    files: Files


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def file_stamps(folder: Path, previous: Mapping[str, FileStamp], prefix: str = "") -> Files:
    """Every file under ``folder`` (links recorded by their target text, never followed), in
    a fixed order; contents hashed unless size and mtime match ``previous``."""
    out: Files = {}
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(root) / name
            rel = prefix + path.relative_to(folder).as_posix()
            try:
                st = path.lstat()
                if path.is_symlink():
                    out[rel] = [0, 0, "link:" + os.readlink(path)]
                    continue
                if not path.is_file():
                    continue
                old = previous.get(rel)
                if old and old[0] == st.st_size and old[1] == st.st_mtime_ns:
                    out[rel] = list(old)
                else:
                    out[rel] = [st.st_size, st.st_mtime_ns, _sha256(path)]
            except OSError as exc:
                raise InputError(printable(str(path)),
                                 f"cannot read: {exc.strerror or exc}") from None
    return out


def baseline_folder(folder: Path) -> Path | None:
    """The round round.toml names as ``[baseline] round`` (its files change this page too)."""
    toml = folder / "round.toml"
    if not toml.is_file():
        return None
    try:
        data = tomllib.loads(read_input(toml, printable(str(toml)), "round.toml")
                             .decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return None          # the build itself reports the error, with its line
    base = data.get("baseline")
    given = base.get("round") if isinstance(base, dict) else None
    if not isinstance(given, str) or not given:
        return None
    path = (folder / given).resolve()
    return path if path.exists() and path != folder.resolve() else None


def fingerprint(folder: Path, lang: str | None, previous: Mapping[str, FileStamp]
                ) -> Fingerprint:
    files = file_stamps(folder, previous)
    base = baseline_folder(folder)
    if base is not None:
        if base.is_dir():
            files |= file_stamps(base, previous, "../baseline/")
        else:
            files |= {"../baseline": [0, 0, _sha256(base)]}
    h = hashlib.sha256(f"{SCHEMA}\0{__version__}\0{lang or ''}\0".encode())
    for rel in files:
        h.update(f"{rel}\0{files[rel][2]}\0".encode("utf-8", "surrogateescape"))
    return Fingerprint(h.hexdigest(), files)


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
    """A cache entry, or None when it is missing, unreadable or of another schema (the round
    is then simply built again)."""
    try:
        data = _loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    return data


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
