"""What `reportgen index` may write in its output folder, and in which order.

- The files the index wrote are listed in ``.reportgen-index/.manifest.json``; only those (or a
  page whose head says reportgen generated it, e.g. from an older version) are ever replaced or
  removed. A hand-written ``index.html`` or ``<round>.html`` is refused, never replaced.
- Every target is checked (``write.output_target``: no FIFO, device or folder) before the
  first write; an output folder inside an input round is refused.
- Pages are first written beside their target as ``.<name>.staged`` (atomically); the commit
  renames them into place — new pages first, so no page ever links to one not yet there —
  each round's cache entry after its page, then ``index.html``, then removes the pages of
  rounds that left, then rewrites the manifest. An error before the commit removes the staged
  files and leaves the site as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from reportgen.errors import InputError
from reportgen.files.safe_read import printable, read_bytes, read_input
from reportgen.files.write import output_target, write_atomic
from reportgen.index.cache import CACHE_DIR, TABLES_DIR

# a round's entry is <name>.json beside it, and no round name starts with "." (index/update.py):
# the manifest's name can be no round's
MANIFEST = ".manifest.json"
LEGACY_MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "reportgen.index-manifest/1"
GENERATOR = b'<meta name="generator" content="reportgen '
HEAD_BYTES = 4096


def staged(path: Path) -> Path:
    return path.with_name(f".{path.name}.staged")


class Site:
    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.cache = self.out / CACHE_DIR
        self.index_key = ""      # what index.html was made from, and its sha256
        self.index_sha256 = ""
        self.owned: set[str] = self._read_manifest()

    def _read_manifest(self) -> set[str]:
        """The files the index owns, from its manifest (read through the checked reader: a
        FIFO or a link to a device is never opened); nothing when it is missing, unreadable
        or not of its shape (``check_targets`` then refuses what is in its way). A manifest
        of an older version (``manifest.json``, where a round named ``manifest`` would now
        keep its entry) is read only when it has the manifest's schema."""
        data: object = None
        for name in (MANIFEST, LEGACY_MANIFEST):
            path = self.cache / name
            try:
                data = json.loads(read_input(path, printable(str(path)), "json"))
            except (InputError, ValueError, RecursionError):
                continue
            if isinstance(data, dict) and data.get("schema") == MANIFEST_SCHEMA:
                break
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA \
                or not isinstance(files, list):
            return set()
        self.index_key = str(data.get("index_key") or "")
        self.index_sha256 = str(data.get("index_sha256") or "")
        return {f for f in files if isinstance(f, str) and "/" not in f and f[:1] != "."}

    def unchanged(self, index_key: str, index: str) -> bool:
        """Whether index.html is the one made from ``index_key`` (every round's hash, in
        order), untouched since: then nothing at all needs doing."""
        if not self.index_key or self.index_key != index_key:
            return False
        try:
            data = read_bytes(self.out / index, printable(str(self.out / index)), "report")
        except (OSError, InputError):
            return False
        return hashlib.sha256(data).hexdigest() == self.index_sha256

    def refuse_inside(self, folders: Iterable[tuple[Path, Path]]) -> None:
        """The output folder may not be (inside) an input round: its pages would become
        inputs of that round. ``folders``: each round as given and its real path."""
        out = Path(os.path.realpath(self.out))
        parents = {out, *out.parents}
        for folder, real in folders:
            if real in parents:
                raise InputError(printable(str(self.out)),
                                 f"is inside the input round {printable(str(folder))}; refused "
                                 "(the site would become part of the round: choose another -o)")

    def mine(self, name: str) -> bool:
        """Whether ``name`` in the output folder may be replaced or removed by the index."""
        path = self.out / name
        if name in self.owned or not path.exists():
            return True
        try:
            with open(path, "rb") as f:
                head = f.read(HEAD_BYTES)
        except OSError:
            return False
        return GENERATOR in head

    def check_folders(self) -> None:
        """Before the first write (the cache's stamps included): the output is a folder and
        nothing is in the way of the cache."""
        if self.out.exists() and not self.out.is_dir():
            raise InputError(printable(str(self.out)), "is not a folder; refused (-o names the "
                                                       "folder for index.html and the reports)")
        for path in (self.cache, self.cache / MANIFEST):
            if path.exists() and not (path.is_dir() if path == self.cache else path.is_file()):
                raise InputError(printable(str(path)), "is in the way of the index's cache; "
                                                       "refused")

    def check_targets(self, names: Iterable[str]) -> None:
        """Before the first page is written: every file the run will write is a regular file
        (or new) and one the index owns (``check_folders`` first)."""
        self.check_folders()
        for name in names:
            path = self.out / name
            output_target(path)
            if not self.mine(name):
                raise InputError(printable(str(path)),
                                 "was not written by `reportgen index` (no reportgen generator "
                                 "tag, not in its manifest); refused, not replaced: move it "
                                 "or choose another -o")

    def prepare(self, planned: Iterable[str]) -> None:
        """Create the folders and record the planned files as the index's before any of them
        is written (so an interrupted run can finish them next time)."""
        try:
            (self.cache / TABLES_DIR).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(printable(str(self.out)),
                             f"cannot create the output folder: {exc.strerror or exc}") from None
        self.owned |= set(planned)
        self.write_manifest(self.owned)

    def write_manifest(self, files: Iterable[str], index_key: str = "",
                       index_sha256: str = "") -> None:
        body = {"schema": MANIFEST_SCHEMA, "files": sorted(set(files)),
                "index_key": index_key, "index_sha256": index_sha256}
        write_atomic(self.cache / MANIFEST,
                     (json.dumps(body, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))

    def remove(self, name: str) -> None:
        """Remove a page the index wrote (a round that left the series) and its cache entry."""
        if name in self.owned:
            with contextlib.suppress(FileNotFoundError):
                (self.out / name).unlink()
        stem = name[:-len(".html")] if name.endswith(".html") else name
        for entry in (self.cache / f"{stem}.json", self.cache / TABLES_DIR / f"{stem}.json"):
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()

    def discard_staged(self) -> None:
        for folder in (self.out, self.cache, self.cache / TABLES_DIR):
            with contextlib.suppress(OSError):
                for path in folder.glob(".*.staged"):
                    path.unlink()
