"""Result files of clients other than vLLM/SGLang, through the readers of
``reportgen.load.formats``: which reader claims a file (asked once, by the scan), its runs as
the common record's summary rows, and runs split over two files joined again.

A reader only sees one file. Here a file of per-request data (``ClientRun.requests_of``) is
joined to the run of that key in the nearest folder; what cannot be joined, and what a reader
says is not a run, is listed as skipped with its reason, never dropped silently.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from reportgen.errors import Finding, InputError
from reportgen.files.paths import natural_key
from reportgen.files.safe_read import open_input, read_input
from reportgen.load.bench_json import BenchRows, bench_rows
from reportgen.load.formats import ClientRun, reader
from reportgen.load.formats.metric_keys import LARGEST_WHOLE
from reportgen.load.gaps import Ragged

if TYPE_CHECKING:
    from reportgen.load.scanned import ScannedFile

# what the common record requires (reportgen.load.bench_json) → its column in the summary
UNSTATED = {"duration": "duration_s", "completed": "completed"}


@dataclass
class ClientFile:
    """One file a reader claimed, and its runs."""

    file: ScannedFile
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
        # the bytes are dropped once read (a round's files are not all held at once); a
        # record found wrong below reads them again, for the line of the key
        runs = _read(f)
        read.append(ClientFile(f, [_own(r, f.client) for r in runs]))
    out = ClientRows()
    for cf in read:
        if not cf.runs:  # named in the no-results error with what it held, never "empty folder"
            out.skipped.append((cf.file.rel, f"{cf.file.reason or cf.file.client}, holding no "
                                             "run (its list of runs is empty)"))
    _copies(read)
    _join(read, out)
    _split_in_order(read, out)
    for cf in read:
        used = [r for r in cf.runs if not r.not_a_run and not r.requests_of]
        for reason in dict.fromkeys(r.not_a_run for r in cf.runs if r.not_a_run):
            out.skipped.append((cf.file.rel, reason))
        if not used:
            continue
        records = [(_checkable(r.record), r.line) for r in used]
        try:
            got = bench_rows(records, cf.file.shown, single=len(used) == 1, unknown=True)
        except InputError:  # the same error again, now with the line of the key
            bench_rows(records, cf.file.shown, read_input(cf.file.path, cf.file.shown, "bench"),
                       single=len(used) == 1, unknown=True)
            raise
        for row, run in zip(got.rows, used, strict=True):
            for key, column in UNSTATED.items():
                if key not in run.record:  # the client does not state it: unknown, not 0
                    row[column] = math.nan
            row["client"] = run.client
            row["units"] = dict(run.units)
            row["not_recomputable"] = run.not_recomputable
            row["rate_measured"] = run.rate_measured
            if run.settings:
                row["stated"] = dict(run.settings)
        out.rows[cf.file.rel] = got
        out.count[cf.file.rel] = len(used)
    return out


# a reader's arithmetic on a value no client writes (a huge or odd number where a count or a
# time belongs): the file is refused with one line, never a traceback
_READER_FAULTS = (ValueError, TypeError, ArithmeticError, LookupError, AttributeError,
                  RecursionError)
# no measurement of a run reaches this (1e15 ms is 31,000 years; 1e15 tokens/s): a value
# beyond it is refused, so no sum or ratio of it turns into infinity further on
LARGEST_VALUE = 1e15


def _read(f: ScannedFile) -> list[ClientRun]:
    """The runs of one claimed file, every one with possible values only. A reader with a
    ``read_stream`` (AIPerf's per-request records) is given the file to stream first; it
    answers None when the whole file must be read."""
    module = reader(f.client)
    try:
        runs = _streamed(module, f)
        if runs is None:
            runs = module.read(read_input(f.path, f.shown, "bench"), f.shown)
    except _READER_FAULTS as exc:
        raise InputError(f.shown, f"a value the {f.client} reader cannot use "
                                  f"({type(exc).__name__}: {exc}); expected the client's own "
                                  "output") from None
    for run in runs:
        _possible(run, f.shown)
    return cast(list[ClientRun], runs)


def _streamed(module: ModuleType, f: ScannedFile) -> list[ClientRun] | None:
    stream = getattr(module, "read_stream", None)
    streams = getattr(module, "streams", None)   # which of its files, by what the sniff said
    if stream is None or streams is None or not streams(f.reason):
        return None

    with open_input(f.path, f.shown, "bench") as opened:
        return cast("list[ClientRun] | None", stream(opened, f.shown))


def _possible(run: ClientRun, shown: str) -> None:
    """InputError for a count beyond any possible count or a number beyond any measurement
    (``LARGEST_VALUE``), in a run's record or its per-request arrays."""
    for key, value in run.record.items():
        kind = type(value)
        if kind is float or kind is str:   # the common cases first (a load reads ~100 a run)
            if kind is float and abs(value) > LARGEST_VALUE:
                raise InputError(shown, f"{key}: {value:g} is no possible value", run.line)
            continue
        if isinstance(value, Ragged):  # a reader's gaps as columns: each request's, by count
            big = np.abs(value.values) > LARGEST_VALUE
            if big.any():
                at = int(np.argmax(big))
                request = int(np.searchsorted(np.cumsum(value.lengths), at, side="right"))
                raise InputError(shown, f"{key}: {value.values[at]:g} is no possible value "
                                        f"(request {request})", run.line)
        elif isinstance(value, list | np.ndarray) and len(value):  # a reader's column
            try:
                arr = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                continue  # strings (errors) or mixed: the record check words it
            big = np.abs(arr) > LARGEST_VALUE
            if big.any():
                raise InputError(shown, f"{key}: {arr[big][0]:g} is no possible value "
                                        f"(request {int(np.argmax(big))})", run.line)
        elif isinstance(value, int | float) and not isinstance(value, bool) \
                and abs(value) > (LARGEST_WHOLE if isinstance(value, int) else LARGEST_VALUE):
            raise InputError(shown, f"{key}: {value:g} is no possible value", run.line)


def _checkable(record: dict[str, Any]) -> dict[str, Any]:
    """The record with stand-ins for what the common record requires but a client (a tidy
    import) may not state; the stand-ins are cleared to NaN once the record is checked."""
    if all(k in record for k in UNSTATED):
        return record
    return {"duration": 1.0, "completed": 0, **record}


def _own(run: ClientRun, client: str) -> ClientRun:
    if run.client:
        return run
    return dataclasses.replace(run, client=client)


COPY_ORDER = (".json", ".jsonl", ".yaml", ".yml", ".csv")  # the fullest form of a run first


def _copies(read: list[ClientFile]) -> None:
    """One run saved in several forms in one folder (AIPerf/GenAI-Perf JSON and CSV, GuideLLM
    JSON and YAML: the same key, or the same name with another suffix) counts once: the
    fullest form is kept and the others are listed as its copies."""
    groups: dict[tuple[str, str, str], list[ClientFile]] = {}
    for cf in read:
        path = PurePosixPath(cf.file.rel)
        keys = {r.key for r in cf.runs if r.key and not r.requests_of and not r.not_a_run}
        if not any(not r.not_a_run and not r.requests_of for r in cf.runs):
            continue
        name = next(iter(keys)) if len(keys) == 1 else path.stem
        groups.setdefault((cf.file.client, str(path.parent), name), []).append(cf)

    def rank(cf: ClientFile) -> tuple[int, str]:
        suffix = PurePosixPath(cf.file.rel).suffix.lower()
        return (COPY_ORDER.index(suffix) if suffix in COPY_ORDER else len(COPY_ORDER),
                cf.file.rel)

    for same in groups.values():
        if len(same) < 2:
            continue
        keep, *rest = sorted(same, key=rank)
        for cf in rest:
            cf.runs[:] = [r if r.not_a_run or r.requests_of else dataclasses.replace(
                r, not_a_run=f"the same run as {keep.file.rel} (kept: its fullest form)")
                for r in cf.runs]


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
            if not r.requests_of or r.requests_of.endswith("*"):
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
            owner.runs[i] = dataclasses.replace(run, record=record,
                                                units={**run.units, **r.units})
            out.skipped.append((cf.file.rel, f"per-request data of {owner.file.rel}; joined "
                                             "to that run"))


def _split_in_order(read: list[ClientFile], out: ClientRows) -> None:
    """Cut a file of several runs' requests (``requests_of="<prefix>*"``, sorted in order of
    sending) into the runs of that prefix in its folder, in the order of their keys, by each
    run's request count. Joined only when the counts add up and every run's slice holds as
    many successful requests as the run counts: else it is listed with why, never guessed."""
    for cf in read:
        folder = PurePosixPath(cf.file.rel).parent
        for r in cf.runs:
            if not r.requests_of.endswith("*"):
                continue
            prefix = r.requests_of[:-1]
            owners = sorted(
                ((o, i) for o in read if PurePosixPath(o.file.rel).parent == folder
                 for i, run in enumerate(o.runs)
                 if run.client == r.client and run.key.startswith(prefix)
                 and not run.not_a_run and not run.requests_of),
                key=lambda oi: natural_key(oi[0].runs[oi[1]].key))
            cut = _cut(r, [o.runs[i] for o, i in owners])
            if isinstance(cut, str):  # why not
                out.skipped.append((cf.file.rel, f"per-request data of every {r.client} "
                                                 f"{prefix.rstrip('_')}; not split: {cut}"))
                continue
            for (o, i), part in zip(owners, cut, strict=True):
                run = o.runs[i]
                o.runs[i] = dataclasses.replace(run, record={**run.record, **part},
                                                units={**run.units, **r.units})
            keys = [o.runs[i].key for o, i in owners]
            out.skipped.append((cf.file.rel, f"per-request data of {len(owners)} "
                                             f"{r.client} runs ({keys[0]} … {keys[-1]}); "
                                             "split in order of sending, joined to each"))


def _cut(part: ClientRun, runs: list[ClientRun]) -> list[dict[str, Any]] | str:
    """Each run's slice of ``part``'s arrays, or why they cannot be cut."""
    errors = part.record.get("errors")
    if not runs:
        return "no run of it in this folder"
    if not isinstance(errors, list):
        return "no per-request list"
    sizes = [r.record.get("num_prompts") for r in runs]
    if not all(isinstance(n, int) for n in sizes):
        return "a run states no request count"
    counts = [int(n) for n in sizes if isinstance(n, int)]
    if sum(counts) != len(errors):
        return f"{len(errors)} requests, the runs count {sum(counts)}"
    parts: list[dict[str, Any]] = []
    start = 0
    for run, n in zip(runs, counts, strict=True):
        ok = sum(1 for e in errors[start:start + n] if not e)
        if ok != run.record.get("completed"):
            return (f"{run.key}'s {n} requests in order of sending hold {ok} successful, "
                    f"it counts {run.record.get('completed')}")
        parts.append({k: v[start:start + n] for k, v in part.record.items()
                      if isinstance(v, list)})
        start += n
    return parts
