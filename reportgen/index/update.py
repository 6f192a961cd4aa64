"""`reportgen index DIR… -o site/`: every round's report plus one index.html, incrementally.

Beside the site, ``.reportgen-index/`` keeps a cache entry per round (``index.cache``): a hash
of every input file and reportgen's version, and the round's tables as its page embeds them.
A round whose hash is unchanged is neither analysed nor rewritten; the index page and the
trend figure are made from the cached tables alone. Changed rounds are built in ``jobs``
parallel processes, one round at a time each, nothing kept after its page is written, so
memory does not grow with the number of rounds. Each report links to index.html and to the
rounds either side of it; when only those change, the nav is spliced into the existing page
without analysing anything. ``index.site`` decides what may be written and in which order.

A folder holding only ``baseline.toml`` (an old round known only by its published figures)
gets a card marked "as published" and no report. Series order: the order given, sorted by
date when every round has one; the index lists the newest first. Bytes are deterministic.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from reportgen.errors import InputError
from reportgen.files.safe_read import printable, read_bytes, read_input
from reportgen.index.cache import (
    SCHEMA,
    Fingerprint,
    card_tables,
    dump_entry,
    entry_path,
    fingerprint,
    page_sha256,
    read_entry,
    tables_path,
)
from reportgen.index.page import METRICS, Entry, Metric, render_index
from reportgen.index.site import Site, staged
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import is_missing

if TYPE_CHECKING:   # the parent of an unchanged site never imports pandas (page.model does)
    from reportgen.page.model import SeriesLink

BASELINE_TOML = "baseline.toml"   # = reportgen.sources.baseline.BASELINE_TOML
Progress = Callable[[str], None]
INDEX = "index.html"
STATIC_DIR = "_static"  # = render.STATIC: the reports' shared scripts
DATASET = "dataset"     # the site's Parquet tables (reportgen/dataset.py, docs/DATASET.md)

def _metrics(values: Mapping[str, object], engines: list[str]) -> list[Metric]:
    out = []
    for name, key, spec in METRICS:
        for e in (engines if "{e}" in name else [None]):
            full = name.format(e=e)
            value = values.get(full)
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    is_missing(value):
                continue
            out.append(Metric(full, key, e, value, spec))
    return out


def entry_from_tables(name: str, folder: Path, tables: Mapping[str, Any]) -> Entry:
    """A round's card and trend points from its tables (``reportgen tables`` JSON, as the
    page embeds it): the first workload's figures when there are several."""
    info = tables.get("round") or {}
    values: Mapping[str, Any] = tables.get("values") or {}
    workloads = info.get("workloads") or []
    if workloads:
        prefix = f"{workloads[0].get('id')}/"
        values = {k[len(prefix):]: v for k, v in values.items() if k.startswith(prefix)}
    labels = {str(e.get("id")): Bi.read(e.get("label"), str(e.get("id")))
              for e in info.get("engines") or [] if isinstance(e, Mapping)}
    gpu = str(info.get("gpu") or "")
    count = info.get("gpu_count")
    if gpu and isinstance(count, int) and count > 1:
        gpu = f"{count} × {gpu}"
    return Entry(name, folder, quote(f"{name}.html"), Bi.read(info.get("title"), name),
                 str(info.get("date") or ""), gpu, list(labels.values()), labels,
                 _metrics(values, list(labels)))


def _published(name: str, folder: Path) -> Entry:
    from reportgen.sources.baseline import from_published

    b = from_published(folder / BASELINE_TOML)
    return Entry(name, folder, None, b.title, b.date, str(b.values.get("setup.gpu") or ""),
                 list(b.labels.values()), b.labels, _metrics(b.values, list(b.labels)), True,
                 b.source)


def _folder_name(folder: Path, real: Path) -> str:
    name = real.name
    if not name or name.lower() == "index" or name.startswith("."):
        raise InputError(folder, "a round folder for the index needs a name other than "
                                 "'index' and not starting with '.' (its report is written as "
                                 "<name>.html)")
    return name


def _checked(folders: list[Path]) -> tuple[list[tuple[str, Path]], list[tuple[Path, Path]]]:
    """Each folder with its report's name, and each folder with its real path (resolved once
    for both: a 10,000-round site resolved them twice)."""
    out: list[tuple[str, Path]] = []
    reals: list[tuple[Path, Path]] = []
    seen: dict[str, Path] = {}
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError(folder, "not a round directory (expected a folder of benchmark "
                                     "results, or one with baseline.toml)")
        real = Path(os.path.realpath(folder))
        reals.append((folder, real))
        name = _folder_name(folder, real)
        if name in seen:
            raise InputError(folder, f"two rounds named '{name}' ({seen[name]} and {folder}): "
                                     "reports are written as <folder name>.html")
        seen[name] = folder
        out.append((name, folder))
    return out, reals


def _is_published(folder: Path) -> bool:
    return (folder / BASELINE_TOML).is_file() and not (folder / "round.toml").is_file()


# ----------------------------------------------------------------------------- one round

@dataclass(frozen=True)
class Job:
    name: str
    folder: Path
    lang: str | None
    page: Path                   # the staged page
    tables: Path                 # the staged tables
    entry: Path                  # the staged head of the cache entry
    fingerprint: Fingerprint
    index_label: Bi
    series_label: Bi
    shared_to: Path | None = None   # the site: the report shares its scripts there
    dataset_to: Path | None = None  # the site's dataset/: the round's Parquet tables go there


# what the shared scripts are made from (render.PAGE_SCRIPTS and the vendored plotly.js):
# read here without importing render, which an index run with nothing to build never needs
SHARED_SOURCES = ("loader.js", "app.js", "slo.js", "vendor/plotly-custom.min.js.gz")


def shared_key() -> str:
    """A hash of the shared scripts' sources: part of every round's key, so a changed script
    rebuilds the pages that reference it."""
    from reportgen.files.resources import templates_dir

    h = hashlib.sha256()
    for name in SHARED_SOURCES:
        path = templates_dir() / "static" / name
        h.update(f"{name}\0".encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def write_shared(site: Path, files: Mapping[str, bytes]) -> None:
    """The site's shared scripts (``render.shared_scripts``): content-hashed names, so a file
    already there is the same file; written before the commit, harmless until a committed
    page references them."""
    from reportgen.files.write import write_atomic

    for rel, data in files.items():
        path = site / rel
        try:
            if path.stat().st_size == len(data):
                continue
        except FileNotFoundError:
            pass
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(printable(str(path.parent)),
                             f"cannot create: {exc.strerror or exc}") from None
        write_atomic(path, data)


def build_round(job: Job) -> float:
    """Load, analyse and render one round into its staged page and cache entry (the nav holds
    the index link only; the caller splices the neighbours in). Returns the seconds taken.
    Runs in a worker process: nothing of the analysis outlives the call."""
    from reportgen.build import resolve_baseline
    from reportgen.files.resources import templates_dir
    from reportgen.files.write import write_atomic
    from reportgen.page.model import Series
    from reportgen.pipeline import analyze_dir, assemble_page
    from reportgen.render import shared_scripts
    from reportgen.tables import to_json_dict

    began = time.perf_counter()
    done = analyze_dir(job.folder)
    loaded, ra = done.loaded, done.analysis
    base = resolve_baseline(loaded.manifest, None, lambda _: None)
    series = Series(INDEX, job.series_label, [])
    assembled = assemble_page(ra, job.folder, job.lang, lambda _: None, None, baseline=base,
                              series=series)
    html = assembled.html(shared=job.shared_to is not None)
    if job.shared_to is not None:
        write_shared(job.shared_to, shared_scripts(assembled.figures.trace_types,
                                                   templates_dir()))
    data = html.encode("utf-8")
    write_atomic(job.page, data)
    tables = to_json_dict(ra)
    write_atomic(job.tables, dump_entry(tables))
    if job.dataset_to is not None:    # derived files beside the site, not staged
        from reportgen.dataset import write_round

        write_round(job.dataset_to, job.name, tables)
    entry = {"schema": SCHEMA, **job.fingerprint.head(), "page": f"{job.name}.html",
             "page_sha256": page_sha256(data), "nav": None,
             "card": card_tables(tables, [name for name, _, _ in METRICS])}
    write_atomic(job.entry, dump_entry(entry))
    return time.perf_counter() - began


def _run_jobs(jobs: list[Job], workers: int, say: Progress) -> None:
    """Build every job, ``workers`` processes at a time (in this process for one)."""
    total = len(jobs)
    done = 0

    def report(job: Job, seconds: float) -> None:
        nonlocal done
        done += 1
        say(f"[{done}/{total}] built {job.name} ({seconds:.2f} s)")

    if workers <= 1 or total <= 1:
        for job in jobs:
            report(job, build_round(job))
        return
    import multiprocessing

    context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             max_tasks_per_child=50) as pool:
        pending: dict[Future[float], Job] = {}
        queue: Iterator[Job] = iter(jobs)
        try:
            for job in queue:   # at most 2 × workers in flight: bounded memory in the parent
                pending[pool.submit(build_round, job)] = job
                if len(pending) >= 2 * workers:
                    break
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    job = pending.pop(fut)
                    try:
                        seconds = fut.result()
                    except BrokenProcessPool:   # killed (out of memory?): no traceback
                        raise InputError(printable(str(job.folder)), "the process building "
                                         "this round stopped without an answer (killed, or out "
                                         "of memory?); `index -j 1` builds it in this "
                                         "process") from None
                    report(job, seconds)
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending[pool.submit(build_round, nxt)] = nxt
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise


# ----------------------------------------------------------------------------- the site

def _series_order(entries: list[Entry]) -> list[Entry]:
    """Oldest first: the order given, by date when every round has one (stable)."""
    if entries and all(e.date for e in entries):
        return sorted(entries, key=lambda e: e.date)
    return list(entries)


def _navs(order: list[Entry]) -> list[list[SeriesLink]]:
    """For each round of ``order``: the rounds either side of it that have a report, and
    itself (one pass each way: a series of thousands of rounds)."""
    from reportgen.page.model import SeriesLink

    def nearest(seq: list[Entry]) -> list[Entry | None]:
        out: list[Entry | None] = []
        last: Entry | None = None
        for e in seq:
            out.append(last)
            if e.href:
                last = e
        return out

    before = nearest(order)
    after = nearest(order[::-1])[::-1]
    return [[SeriesLink(b.href or "", b.title) for b in (before[i],) if b]
            + [SeriesLink(e.href or "", e.title, True)]
            + [SeriesLink(a.href or "", a.title) for a in (after[i],) if a]
            for i, e in enumerate(order)]


def _nav_key(links: list[SeriesLink]) -> list[list[str]]:
    return [[link.href, link.title.zh, link.title.en, "1" if link.current else ""]
            for link in links]


NAV_START = b'<nav class="series-nav"'
NAV_END = b"</nav>"


def splice_nav(page: bytes, nav: str) -> bytes:
    """``page`` with its series nav replaced (it is the first ``<nav class="series-nav"``: no
    input text can produce that markup, every input string being escaped)."""
    start = page.find(NAV_START)
    end = page.find(NAV_END, start)
    if start < 0 or end < 0:
        raise ValueError("no series nav in the page")
    return page[:start] + nav.encode("utf-8") + page[end + len(NAV_END):]


class Written(list[Path]):
    """What ``build_index`` returns: index.html, then the reports (re)written; ``up_to_date``
    when nothing needed doing (the command says so instead of "wrote")."""

    up_to_date: bool = False


@dataclass
class _Plan:
    """Step 1 of ``build_index``: each round against its cache entry."""

    rounds: list[tuple[str, Path, Fingerprint | None, bool]]   # name, folder, fp, changed
    kept: dict[str, tuple[dict[str, Any], object]]   # unchanged rounds: card, nav
    index_key: str

    @property
    def changed(self) -> list[str]:
        return [name for name, _, fp, ch in self.rounds if fp is not None and ch]

    @property
    def built(self) -> list[str]:
        """The rounds with a report (published rounds have none)."""
        return [name for name, _, fp, _ in self.rounds if fp is not None]

    @property
    def names(self) -> list[str]:
        """The site's report files."""
        return [f"{name}.html" for name in self.built]


def _plan(rounds: list[tuple[str, Path]], site: Site, key_lang: str | None) -> _Plan:
    """What changed: a hash per round against its cache entry; the stamps of unchanged rounds
    whose files were touched are written again (the next check trusts them)."""
    from reportgen import __version__
    from reportgen.files.write import write_atomic

    plan: list[tuple[str, Path, Fingerprint | None, bool]] = []
    restamp: list[tuple[str, dict[str, Any]]] = []   # unchanged rounds: fresh stamps
    kept: dict[str, tuple[dict[str, Any], object]] = {}
    whole = hashlib.sha256(f"{SCHEMA}\0{__version__}\0{key_lang or ''}\0".encode())
    for name, folder in rounds:
        if _is_published(folder):
            plan.append((name, folder, None, False))
            toml = folder / BASELINE_TOML
            toml_bytes = read_input(toml, printable(str(toml)), BASELINE_TOML)
            whole.update(f"{name}\0{page_sha256(toml_bytes)}\0"
                         .encode("utf-8", "surrogateescape"))
            continue
        old = read_entry(entry_path(site.cache, name))
        fp = fingerprint(folder, key_lang, old)
        page = site.out / f"{name}.html"
        fresh = old is not None and old.get("key") == fp.key and page.is_file()
        plan.append((name, folder, fp, not fresh))
        if fresh and old is not None:
            kept[name] = (old.get("card") or {}, old.get("nav"))
            if fp.refreshed:     # same content, stamps taken again
                restamp.append((name, {**old, **fp.head()}))
        whole.update(f"{name}\0{fp.key}\0".encode("utf-8", "surrogateescape"))
        del old
    done = _Plan(plan, kept, whole.hexdigest())
    site.check_folders()   # the pages are checked once the run knows it writes one
    for name, head in restamp:
        write_atomic(entry_path(site.cache, name), dump_entry(head))
    return done


def _gone(site: Site, plan: _Plan) -> list[str]:
    """The site's reports of rounds no longer given."""
    names = set(plan.names)
    return sorted(f for f in site.owned if f.endswith(".html") and f != INDEX
                  and f not in names)


def build_index(folders: list[Path], out_dir: Path, lang: str | None = None,
                progress: Progress | None = None, jobs: int | None = None, *,
                self_contained: bool = False) -> Written:
    """Bring the site in ``out_dir`` up to date with ``folders``; returns index.html then the
    reports (re)written. Bad input raises InputError; nothing is visible in the site until
    every changed round is built (see ``index.site``). The reports share the site's scripts
    (``_static/``) unless ``self_contained``."""
    from reportgen import dataset
    from reportgen.files.resources import templates_dir
    from reportgen.text.i18n import load_ui

    say = progress or (lambda _: None)
    if not folders:
        raise InputError("index", "no round folders given")
    rounds, reals = _checked(list(folders))
    site = Site(Path(out_dir))
    site.refuse_inside(reals)
    say(f"check {len(rounds)} round(s)")
    # a round's key covers how its page holds its scripts: switching rebuilds every page
    key_lang = lang if self_contained else f"{lang or ''}\0{shared_key()}"
    plan = _plan(rounds, site, key_lang)
    changed, names, gone = plan.changed, plan.names, _gone(site, plan)
    ds = site.out / DATASET if dataset.available() else None
    present = set() if ds is None else dataset.rounds_present(ds)
    unbuilt = [] if ds is None else [name for name in plan.built if name not in present]
    # buckets of the compacted layer that a built round with dataset files needs and that are
    # not there (a site made before it, or compacted/ deleted): one folder listing (a round
    # without files, its cached tables unreadable, asks for no part it would never get)
    uncompacted = set() if ds is None else \
        {dataset.bucket_of(name) for name in plan.built if name in present} \
        - dataset.parts_present(ds)
    # a site whose reports share scripts needs its _static/ (deleted: made again below)
    static_gone = not self_contained and bool(names) and not (site.out / STATIC_DIR).is_dir()
    if not changed and not gone and not unbuilt and not uncompacted and not static_gone \
            and site.unchanged(plan.index_key, INDEX):
        say(f"0 round(s) to build, {len(names)} unchanged, 0 removed: the site is up to date")
        fresh = Written([site.out / INDEX])
        fresh.up_to_date = True
        return fresh
    site.check_targets([INDEX, *names, *gone])
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    labels = (ui.t("series.index"), ui.t("series.label"))
    site.prepare([INDEX, *names])
    say(f"{len(changed)} round(s) to build, {len(names) - len(changed)} unchanged, "
        f"{len(gone)} removed")
    try:
        # 2. build what changed into staged files (nothing visible yet)
        todo = [Job(name, folder, lang, staged(site.out / f"{name}.html"),
                    staged(tables_path(site.cache, name)), staged(entry_path(site.cache, name)),
                    fp, *labels, None if self_contained else site.out, ds)
                for name, folder, fp, ch in plan.rounds if fp is not None and ch]
        _run_jobs(todo, max(1, jobs or os.cpu_count() or 1), say)
        if not self_contained:     # the scripts of kept pages and of index.html
            from reportgen.index.page import INDEX_TRACES
            from reportgen.render import bundled_traces, shared_scripts

            for traces in (bundled_traces(templates_dir()), INDEX_TRACES):
                write_shared(site.out, shared_scripts(traces, templates_dir()))
        if ds is not None:     # rounds built before the dataset was: from their cached tables
            for name in sorted(set(unbuilt) - set(changed)):
                tables = _cached_tables(tables_path(site.cache, name))
                if tables is not None:
                    dataset.write_round(ds, name, tables)
            # before the commit: an interrupted run finds these rounds changed again
            touched = uncompacted | {dataset.bucket_of(n) for n in (
                *changed, *unbuilt, *(g[:-len(".html")] for g in gone))}
            dataset.compact(ds, plan.built, touched)
        # 3. entries from the cached tables alone; the series order; every page's nav
        entries, first_lang = _entries(plan, site)
        if ds is not None and dataset.duckdb_available():
            entries = _trend_from_dataset(entries, ds)
        order = _series_order(entries)
        updates = _splice_navs(order, plan, site, labels)
        # 4. commit: new pages first, each cache entry after its page, index.html last
        say("write the site")
        index_html = render_index(order, ui, lang or first_lang or "zh",
                                  shared=not self_contained).encode("utf-8")
        _commit(site, updates, index_html)
    finally:
        site.discard_staged()
    for name in gone:
        site.remove(name)
        dataset.remove_round(site.out / DATASET, name[:-len(".html")])
    site.write_manifest([INDEX, *names], plan.index_key, page_sha256(index_html))
    say(f"done: {len(updates)} page(s) written, {len(gone)} removed")
    return Written([site.out / INDEX, *(site.out / f"{n}.html" for n in sorted(updates))])


def _entries(plan: _Plan, site: Site) -> tuple[list[Entry], str | None]:
    """Every round's index entry, read from the cache alone (a round just built: from its
    staged entry, added to ``plan.kept``), and the first round's stated language."""
    entries: list[Entry] = []
    first_lang: str | None = None
    for name, folder, fp, _ in plan.rounds:
        if fp is None:
            entries.append(_published(name, folder))
            continue
        if name not in plan.kept:
            path = staged(entry_path(site.cache, name))
            data = read_entry(path)
            if data is None:
                raise InputError(printable(str(path)), "the cache entry just written "
                                                       "cannot be read back")
            plan.kept[name] = (data["card"], data.get("nav"))
        card = plan.kept[name][0]
        entries.append(entry_from_tables(name, folder, card))
        stated = (card.get("round") or {}).get("default_language")
        if first_lang is None and stated in LANGS:
            first_lang = str(stated)
    return entries, first_lang


def _splice_navs(order: list[Entry], plan: _Plan, site: Site,
                 labels: tuple[Bi, Bi]) -> list[str]:
    """Each page whose series links changed (or that was just built) gets its nav, staged with
    its entry; returns their names. A kept page changed by hand since is refused."""
    from reportgen.files.write import write_atomic
    from reportgen.page.model import Series
    from reportgen.render import series_nav

    index_label, series_label = labels
    updates: list[str] = []
    changed = set(plan.changed)
    for e, links in zip(order, _navs(order), strict=True):
        if e.href is None:
            continue
        was_changed = e.name in changed
        if not was_changed and plan.kept[e.name][1] == _nav_key(links):
            continue
        path = entry_path(site.cache, e.name)
        data = read_entry(staged(path) if was_changed else path)
        assert data is not None
        page = site.out / f"{e.name}.html"
        source = staged(page) if was_changed else page
        # the site's own page, through the checked reader (a FIFO or a link to a device in
        # its place is refused, never read)
        old_page = read_bytes(source, printable(str(source)), "report")
        body = splice_nav(old_page, str(series_nav(
            Series(INDEX, series_label, links), index_label)))
        if not was_changed and page_sha256(old_page) != data.get("page_sha256"):
            raise InputError(printable(str(page)), "was changed since `reportgen index` "
                                                   "wrote it; refused, not replaced")
        write_atomic(staged(page), body)
        data["nav"], data["page_sha256"] = _nav_key(links), page_sha256(body)
        write_atomic(staged(path), dump_entry(data))
        updates.append(e.name)
    return updates


def _commit(site: Site, updates: list[str], index_html: bytes) -> None:
    """Make the staged files visible: new pages first, each cache entry after its page,
    index.html last (unless it is byte-identical)."""
    from reportgen.files.write import write_atomic

    existing = {n for n in updates if (site.out / f"{n}.html").exists()}
    for name in sorted(updates, key=lambda n: (n in existing, n)):
        page = site.out / f"{name}.html"
        os.replace(staged(page), page)
        for path in (tables_path(site.cache, name), entry_path(site.cache, name)):
            if staged(path).exists():        # a nav-only update has no new tables
                os.replace(staged(path), path)
    if not _same_bytes(site.out / INDEX, index_html):
        write_atomic(site.out / INDEX, index_html)


def _cached_tables(path: Path) -> dict[str, Any] | None:
    """A round's cached tables (the tables JSON, not an entry head), or None when unreadable
    (the round's dataset is then written when it is next built)."""
    import json

    try:   # the checked reader: a FIFO, a device or a file over the cap is never read whole
        data = json.loads(read_input(path, printable(str(path)), "json"))
    except (InputError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _trend_from_dataset(entries: list[Entry], ds: Path) -> list[Entry]:
    """The trend points of every built round read back from the dataset's ``values`` files
    with DuckDB (the embedded default; without it, the cached cards give the same points)."""
    from dataclasses import replace

    from reportgen.dataset import trend_values

    built = [e.name for e in entries if e.href is not None]
    got = trend_values(ds, built, [name for name, _, _ in METRICS])
    return [replace(e, metrics=_metrics(got[e.name], list(e.labels)))
            if e.href is not None and e.name in got else e for e in entries]


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and \
            read_bytes(path, printable(str(path)), "report") == data
    except (OSError, InputError):
        return False
