"""Result files of clients other than vLLM/SGLang, through the readers of
``reportgen.load.formats``: which reader claims a file (asked once, by the scan), its runs as
the common record's summary rows, and runs split over two files joined again.

A reader only sees one file. Here a file of per-request data (``ClientRun.requests_of``) is
joined to the run of that key in the nearest folder; what cannot be joined, and what a reader
says is not a run, is listed as skipped with its reason, never dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import ModuleType
from typing import TYPE_CHECKING, Any

from reportgen.errors import Finding
from reportgen.load.bench_json import BenchRows, bench_rows
from reportgen.load.formats import READERS, ClientRun
from reportgen.safe_read import read_input

if TYPE_CHECKING:
    from reportgen.load.scan import ScannedFile

# what the common record requires (reportgen.load.bench_json) → its column in the summary
UNSTATED = {"duration": "duration_s", "completed": "completed"}
SNIFF_HEAD = 64 << 10  # a reader decides from the first 64 KiB (2,000 files sniff in ms)


def sniff(name: str, head: bytes) -> tuple[str, str] | None:
    """(client, what the file is) for the first reader that claims it, else None."""
    head = head[:SNIFF_HEAD]
    for reader in READERS:
        what = reader.sniff(name, head)
        if what:
            return reader.CLIENT, what
    return None


def reader(client: str) -> ModuleType:
    return next(r for r in READERS if client == r.CLIENT)


@dataclass
class ClientFile:
    """One file a reader claimed, and its runs."""

    file: ScannedFile
    raw: bytes
    runs: list[ClientRun]


@dataclass
class ClientRows:
    """Every claimed file's rows, by file (rel), and what was listed instead of read."""

    rows: dict[str, BenchRows] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=dict)  # runs per file
    skipped: list[tuple[str, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def read_client_files(files: list[ScannedFile]) -> ClientRows:
    """Read every file the scan gave to a reader; join per-request files to their runs."""
    read: list[ClientFile] = []
    for f in files:
        if f.kind != "client":
            continue
        raw = read_input(f.path, f.shown, "bench")
        runs = reader(f.client).read(raw, f.shown)
        read.append(ClientFile(f, raw, [_own(r, f.client) for r in runs]))
    out = ClientRows()
    _join(read, out)
    for cf in read:
        used = [r for r in cf.runs if not r.not_a_run and not r.requests_of]
        for r in cf.runs:
            if r.not_a_run:
                out.skipped.append((cf.file.rel, r.not_a_run))
        if not used:
            continue
        got = bench_rows([(_checkable(r.record), r.line) for r in used], cf.file.shown,
                         cf.raw, single=len(used) == 1)
        for row, run in zip(got.rows, used, strict=True):
            for key, column in UNSTATED.items():
                if key not in run.record:  # the client does not state it: unknown, not 0
                    row[column] = math.nan
            row["client"] = run.client
            row["units"] = dict(run.units)
            if run.settings:
                row["stated"] = dict(run.settings)
        out.rows[cf.file.rel] = got
        out.count[cf.file.rel] = len(used)
    return out


def _checkable(record: dict[str, Any]) -> dict[str, Any]:
    """The record with stand-ins for what the common record requires but a client (a tidy
    import) may not state; the stand-ins are cleared to NaN once the record is checked."""
    if all(k in record for k in UNSTATED):
        return record
    return {"duration": 1.0, "completed": 0, **record}


def _own(run: ClientRun, client: str) -> ClientRun:
    if run.client:
        return run
    return ClientRun(run.record, run.line, client, run.units, run.settings, run.not_a_run,
                     run.key, run.requests_of)


def _depth(pa: tuple[str, ...], pb: tuple[str, ...]) -> int:
    n = 0
    while n < min(len(pa), len(pb)) and pa[n] == pb[n]:
        n += 1
    return n


def _join(read: list[ClientFile], out: ClientRows) -> None:
    """Merge each per-request part into the run of its key in the nearest folder (one
    candidate only: two equally near would be a guess)."""
    owners: dict[tuple[str, str], list[tuple[ClientFile, int]]] = {}
    here: dict[tuple[str, str, tuple[str, ...]], list[tuple[ClientFile, int]]] = {}
    folder = {id(cf): PurePosixPath(cf.file.rel).parent.parts for cf in read}
    for cf in read:
        for i, r in enumerate(cf.runs):
            if r.key and not r.requests_of and not r.not_a_run:
                owners.setdefault((r.client, r.key), []).append((cf, i))
                here.setdefault((r.client, r.key, folder[id(cf)]), []).append((cf, i))
    for cf in read:
        for r in cf.runs:
            if not r.requests_of:
                continue
            near = here.get((r.client, r.requests_of, folder[id(cf)]))  # the same folder
            if not near:
                cands = owners.get((r.client, r.requests_of), [])
                depth = [_depth(folder[id(cf)], folder[id(o)]) for o, _ in cands]
                near = [c for c, d in zip(cands, depth, strict=True) if d == max(depth)]
            if len(near) != 1:
                why = ("its run's summary is not in this folder" if not near else
                       f"{len(near)} runs it could belong to, equally near")
                out.skipped.append((cf.file.rel, f"per-request data of a {r.client} run; not "
                                                 f"joined: {why}"))
                continue
            owner, i = near[0]
            run = owner.runs[i]
            record: dict[str, Any] = {**run.record, **r.record}
            owner.runs[i] = ClientRun(record, run.line, run.client, {**run.units, **r.units},
                                      run.settings, run.not_a_run, run.key)
            out.skipped.append((cf.file.rel, f"per-request data of {owner.file.rel}; joined "
                                             "to that run"))
