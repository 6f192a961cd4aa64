"""Render the page: jinja2 with autoescaping, inline assets, escaped JSON, and plotly.js inlined
once as gzip+base64 (decoded in the browser by DecompressionStream).

Determinism: no clock, no random ids, gzip with mtime=0, our own JSON serializer, dict order
fixed by construction — identical input gives identical bytes.

Security: ``Environment(autoescape=True, undefined=StrictUndefined)`` (not select_autoescape,
which skips ``*.html.j2``); JSON inside ``<script>`` escapes ``< > & U+2028 U+2029``; a CSP
meta allows only the page's own inline scripts by their sha256 (including the unpacked
plotly.js), no network at all.

Shared scripts (``reportgen index``): a report can instead reference plotly.js and the page's
own scripts (loader, app, slo) as files of its site, ``_static/<name>-<sha256 prefix>.js``
(``shared_scripts``), by relative URLs: the site holds them once, not once per report. Their
CSP source is ``'self'`` (Chromium allows a page opened from file:// to load the file: scripts
beside it that way; an ``integrity`` attribute would block them there, since file: requests
are not CORS requests); nothing is fetched from the network either way.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import json
import re
from collections.abc import Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from reportgen.files import datablock, value_refs
from reportgen.page.model import Page, Row, Series, Table
from reportgen.schema import JsonObject
from reportgen.text.bidi import has_bidi, isolate
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import input_percent, input_value

_SWAP = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
         ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
CSP_REST = ("style-src 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'none'; "
            "base-uri 'none'; form-action 'none'; object-src 'none'")


class _Encoder(json.JSONEncoder):
    """JSON with NaN/inf → null and UTF-8 kept; anything beyond plain Python values (numpy,
    pandas, dates) goes through plotly's encoder. The page's data is plain already, so plotly's
    encoder (and the ~40 ms of imports behind it) is loaded only when it is needed."""

    def default(self, o: Any) -> Any:
        from plotly.utils import PlotlyJSONEncoder

        return PlotlyJSONEncoder().default(o)

    def encode(self, o: Any) -> str:
        text = json.JSONEncoder.encode(self, o)
        if "NaN" not in text and "Infinity" not in text:
            return text
        clean = json.loads(text, parse_constant=lambda _: None)
        return json.dumps(clean, ensure_ascii=False, separators=(",", ":"))


def script_json(obj: Any) -> Markup:
    """JSON safe to place inside ``<script type="application/json">``: no ``</script>``, no
    ``<!--``, no line separators a JS parser would choke on. NaN becomes null."""
    text = json.dumps(obj, cls=_Encoder, separators=(",", ":"), ensure_ascii=False)
    for a, b in _SWAP:
        text = text.replace(a, b)
    return Markup(text)


def environment(templates: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)), autoescape=True,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters["table_rows"] = table_rows
    env.filters["script_json"] = script_json
    env.filters["page_json"] = page_json
    env.filters["exact_number"] = input_value
    env.filters["exact_percent"] = input_percent
    # text-only contexts (<title>, attributes) cannot hold <bdi>: FSI … PDI instead
    env.filters["isolated"] = isolate
    env.globals["bi"] = bi   # both templates print every Bi through the one function
    env.globals["series_nav"] = series_nav
    env.globals["rows_label"] = rows_label
    return env


# ----------------------------------------------------------------------------- table rows

_HTML_SPECIAL = (("&", "&amp;"), (">", "&gt;"), ("<", "&lt;"), ("'", "&#39;"), ('"', "&#34;"))


def _escaped(text: str) -> str:
    """markupsafe.escape's text without building a Markup object per cell (the cost that
    matters at 60,000 cells): the same five replacements; Markup passes through."""
    if isinstance(text, Markup):
        return str(text)
    for char, entity in _HTML_SPECIAL:
        if char in text:
            text = text.replace(char, entity)
    return text


# a run of this many characters without a space cannot sit in a table cell kept on one line
# (a 500-character label made the page 4× as wide as the screen): it wraps anywhere instead
# (CJK text breaks between any two characters: only other scripts' runs count)
LONG_WORD = re.compile("[^\\s\u2e80-\ud7ff\uf900-\uffef]{48}")


def _text(text: str) -> str:
    """Escaped element text; a text with bidi controls is an isolated ``<bdi>`` run, and one
    with a very long word a run that wraps anywhere (class ``long``)."""
    escaped = _escaped(text)
    long = ' class="long"' if LONG_WORD.search(text) else ""
    if has_bidi(escaped):
        return f"<bdi{long}>{escaped}</bdi>"
    return f"<span{long}>{escaped}</span>" if long else escaped


def bi_html(text: Bi) -> str:
    """One escaped text, or both languages as data-l spans (what the templates' ``bi()``
    prints; table cells call it directly)."""
    if text.same:
        return _text(text.zh)
    return (f'<span data-l="zh" lang="zh-CN">{_text(text.zh)}</span>'
            f'<span data-l="en" lang="en">{_text(text.en)}</span>')


def bi(text: Bi) -> Markup:
    return Markup(bi_html(text))


def series_nav(series: Series, index_label: Bi) -> Markup:
    """The nav of a report built by `reportgen index` (index link, then the rounds around this
    one); the index splices a fresh copy into a page when only its neighbours changed."""
    out = [f'<nav class="series-nav" aria-label="{_escaped(series.label.en)}">'
           f'<a class="series-index" href="{_escaped(series.index_href)}">'
           f'{bi_html(index_label)}</a>']
    for link in series.links:
        if link.current:
            out.append(f' · <span class="series-current" aria-current="page">'
                       f'{bi_html(link.title)}</span>')
        else:
            out.append(f' · <a class="series-link" href="{_escaped(link.href)}">'
                       f'{bi_html(link.title)}</a>')
    out.append("</nav>")
    return Markup("".join(out))


def row_lines(rows: list[Row]) -> list[str]:
    """Each row's ``<tr>`` line, after a newline, built here rather than by template loops: a
    page of many configurations has ~60,000 cells, and a jinja macro call per cell made
    rendering the slowest stage. Every text is escaped exactly as autoescaping would."""
    lines: list[str] = []
    for row in rows:
        out = [f'\n<tr class="{_escaped(row.cls)}">' if row.cls else "\n<tr>"]
        for cell in row.cells:
            if cell.num or cell.cls:
                gap = " " if cell.num and cell.cls else ""
                out.append(f'<td class="{"num" if cell.num else ""}{gap}{_escaped(cell.cls)}">')
            else:
                out.append("<td>")
            out.append(bi_html(cell.text))
            out.append("</td>")
        out.append("</tr>")
        lines.append("".join(out))
    return lines


def table_rows(rows: list[Row]) -> Markup:
    """A table's ``<tr>`` lines (``row_lines``) as one text."""
    return Markup("".join(row_lines(rows)))


# A table of more cells than this comes folded, its rows out of the HTML (issue 35: a page of
# 64 configurations held ~72,000 cells, 5.6 MB, and its first layout took 600 ms; folded, ~2,900
# cells are laid out). The sample's largest table has 224 cells, 4 configurations' full tiers
# table 1,728.
FOLD_CELLS = 1000


class FoldedRows:
    """The rows of a page's large tables (``big``), kept out of the HTML: the template leaves
    each one's ``<tbody data-rows="i">`` empty and ``packed`` is the ``report-rows`` block
    (base64 of gzip of JSON: per table, its ``<tr>`` lines, the markup ``table_rows`` writes),
    which app.js puts in when the reader opens the table's fold, and before printing."""

    def __init__(self) -> None:
        self.tables: list[list[str]] = []

    @staticmethod
    def over(cells: int) -> bool:
        return cells > FOLD_CELLS

    def big(self, table: Table) -> bool:
        return self.over(len(table.rows) * max(1, len(table.columns)))

    def add(self, rows: list[Row]) -> int:
        self.tables.append(row_lines(rows))
        return len(self.tables) - 1

    def packed(self) -> str:
        text = json.dumps(self.tables, ensure_ascii=False, separators=(",", ":"))
        # mtime 0: the same page, the same bytes
        return gzip_b64(text, 6)    # megabytes of rows: level 9 takes twice as long for 5 %


# A JSON block the page reads (the figures, an SLO panel's per-request data) over this many
# characters is stored as base64 of gzip and unpacked in the page (loader.js reportJson): 64
# configurations' figures, 360 kB of JSON, are 99 kB so. The sample's blocks (54 kB at most)
# stay plain JSON.
PAGE_PACK_ABOVE = 100_000
FIGURE_BODY = ("fig", "i18n")   # each figure's part in report-figs-body when packed


def gzip_b64(text: str, level: int = 9) -> str:
    """base64 of gzip (mtime 0: the same page, the same bytes) of ``text``."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), level, mtime=0)).decode("ascii")


def page_json(obj: object) -> tuple[str, Markup]:
    """(script type, body) of a JSON block the page reads: plain JSON, or base64 of its gzip
    above ``PAGE_PACK_ABOVE`` characters (``application/octet-stream``)."""
    text = script_json(obj)
    if len(text) <= PAGE_PACK_ABOVE:
        return "application/json", text
    return "application/octet-stream", Markup(gzip_b64(str(text)))


def split_figures(figs: dict[str, object]) -> tuple[Markup, Markup]:
    """The ``report-figs`` block and, when the figures are larger than ``PAGE_PACK_ABOVE``,
    the ``report-figs-body`` block (each figure's ``FIGURE_BODY`` parts, in order, packed):
    what the page needs at once (ids, kinds, template) stays plain; app.js unpacks the rest
    before the first figure is drawn."""
    text = script_json(figs)
    entries = figs.get("figs")
    if len(text) <= PAGE_PACK_ABOVE or not isinstance(entries, list):
        return text, Markup("")
    head = dict(figs)
    head["figs"] = [{k: v for k, v in f.items() if k not in FIGURE_BODY} for f in entries]
    body = [{k: f[k] for k in FIGURE_BODY if k in f} for f in entries]
    return script_json(head), Markup(gzip_b64(str(script_json(body))))


def figures_of(html: str) -> dict[str, object]:
    """The figures of a page ``render_page`` wrote (``report-figs`` with its packed body put
    back): what tests and benchmarks read."""
    import re

    head = re.search(r'id="report-figs">(.*?)</script>', html, re.S)
    if head is None:
        raise ValueError("no report-figs block")
    figs: dict[str, object] = json.loads(head.group(1))
    body = re.search(r'id="report-figs-body">(.*?)</script>', html, re.S)
    if body is not None:
        parts = json.loads(gzip.decompress(base64.b64decode(body.group(1))))
        entries = figs["figs"]
        assert isinstance(entries, list)
        for entry, part in zip(entries, parts, strict=True):
            entry.update(part)
    return figs


def rows_label(label: Bi, n: int) -> Bi:
    """A fold's summary (``page.rows_fold``, its ``{n}`` left in) with the table's row count."""
    return Bi(*(label.get(lang).replace("{n}", f"{n:,}") for lang in LANGS))


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """jinja2's compiled-template cache in a private per-user temp directory, entries keyed by
    the template source's checksum: compiling report.html.j2 costs ~25 ms a build. A cache
    that cannot be read or written is skipped, never an error."""

    def load_bytecode(self, bucket: Any) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
            bucket.reset()

    def dump_bytecode(self, bucket: Any) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


@cache
def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:
        return _BytecodeCache()
    except (OSError, RuntimeError):   # no safe temp directory: compile every time
        return None


# ----------------------------------------------------------------------------- plotly.js

VENDOR = "plotly-custom"   # templates/static/vendor/plotly-custom.*, built by tools/build_plotly.sh


@dataclass(frozen=True)
class Bundle:
    kind: str          # "custom" (the vendored bundle of the pages' trace types) or "full"
    version: str
    b64: str           # base64 of the gzip stream
    sha256: str        # CSP hash of the unpacked script text
    notice: str        # the bundle's licence header, kept in the page


def _header(js: bytes) -> str:
    """The bundle's leading ``/* … */`` licence header, after any ``//#`` pragma lines (V8's
    compile hint, tools/step_plotly.py)."""
    while js.startswith(b"//#"):
        nl = js.find(b"\n")
        if nl < 0:
            return ""
        js = js[nl + 1:]
    if js.startswith(b"/*"):
        end = js.find(b"*/")
        if 0 < end < 2000:
            text = js[2:end].decode("utf-8", "replace")
            lines = [line.strip(" *\t") for line in text.splitlines()]
            return " ".join(line for line in lines if line)
    return ""


def _csp_hash(data: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode("ascii")


def plotly_version(templates: Path) -> str:
    """plotly.js's version as stored with the vendored bundle; plotly.py's without one."""
    version_path = templates / "static" / "vendor" / f"{VENDOR}.VERSION"
    if version_path.exists():
        return version_path.read_text().strip()
    from plotly.offline import get_plotlyjs_version

    return str(get_plotlyjs_version())


@cache
def bundled_traces(templates: Path) -> frozenset[str]:
    """The trace types the vendored bundle registers (its .TRACES file); none without it."""
    path = templates / "static" / "vendor" / f"{VENDOR}.TRACES"
    if not path.exists():
        return frozenset()
    return frozenset(line.strip() for line in path.read_text().splitlines() if line.strip())


def bundle_for(trace_types: Collection[str], templates: Path) -> Bundle:
    """The vendored bundle when it draws every trace type given, else plotly.py's full one."""
    return plotly_bundle(set(trace_types) <= bundled_traces(templates), templates)


@cache
def plotly_bundle(vendored_ok: bool, templates: Path) -> Bundle:
    """The plotly.js to inline. The vendored bundle (only the trace types the pages draw) is
    used only when every trace is in its set (``vendored_ok``) — a missing trace type would
    otherwise not be drawn at all; tests/test_render.py fails when a page needs one. Its
    version is the one stored beside it (tools/build_plotly.sh writes plotly.py's;
    tests/test_render.py checks they still agree), so a build does not import plotly just to
    learn a version string."""
    vendor = templates / "static" / "vendor"
    gz_path = vendor / f"{VENDOR}.min.js.gz"
    vendored = (vendor / f"{VENDOR}.VERSION").exists() and plotly_version(templates)
    if vendored_ok and gz_path.exists() and vendored:
        packed = gz_path.read_bytes()
        js = gzip.decompress(packed)
        kind, version = "custom", vendored
        notice = _header(js) or f"plotly.js (custom) v{version}, MIT licence"
    else:
        from plotly.offline import get_plotlyjs, get_plotlyjs_version

        version = get_plotlyjs_version()
        js = get_plotlyjs().encode("utf-8")
        packed = gzip.compress(js, 9, mtime=0)
        kind = "full"
        notice = f"plotly.js v{version} (c) Plotly, Inc., MIT licence"
    return Bundle(kind, version, base64.b64encode(packed).decode("ascii"), _csp_hash(js),
                  notice.replace("--", "-"))


# ----------------------------------------------------------------------------- assets

@dataclass(frozen=True)
class Assets:
    css: Markup
    js_lang: Markup
    js_loader: Markup
    js_app: Markup
    js_slo: Markup


def static_script(templates: Path, name: str) -> Markup:
    """One file of templates/static, checked to be safe to inline in the page."""
    text = (templates / "static" / name).read_text(encoding="utf-8")
    if name.endswith(".js") and any(bad in text.lower() for bad in ("</", "<!--", "<script")):
        raise ValueError(f"{name} must not contain '</', '<!--' or '<script' (it is inlined)")
    return Markup(text)


def load_assets(templates: Path) -> Assets:
    def read(name: str) -> Markup:
        return static_script(templates, name)

    return Assets(read("style.css"), read("lang.js"), read("loader.js"), read("app.js"),
                  read("slo.js"))


def content_security_policy(assets: Assets, bundle: Bundle, extra: tuple[str, ...] = (),
                            shared: bool = False) -> str:
    """The CSP meta: the page's inline scripts (``extra``: others than the shared three) and
    the unpacked plotly.js, each by its sha256; nothing from the network. ``shared``: the
    site's own script files too (``'self'``: the report's own origin, or file: beside it)."""
    hashes = [_csp_hash(str(s).encode("utf-8"))
              for s in (assets.js_lang, assets.js_loader, assets.js_app, assets.js_slo,
                        *extra)]
    hashes.append(bundle.sha256)
    sources = " ".join(f"'{h}'" for h in hashes) + (" 'self'" if shared else "")
    return f"default-src 'none'; script-src {sources}; {CSP_REST}"


STATIC = "_static"   # the folder of a site's shared scripts, beside its reports
PAGE_SCRIPTS = ("loader.js", "app.js", "slo.js")   # in page order, after the data blocks


def _hashed(stem: str, data: bytes) -> str:
    return f"{stem}-{hashlib.sha256(data).hexdigest()[:16]}.js"


def shared_scripts(trace_types: Collection[str], templates: Path) -> dict[str, bytes]:
    """The files a report with shared scripts references, path relative to the report (under
    ``STATIC``) → bytes: plotly.js (the bundle its figures need, unpacked) and the page's own
    scripts. Content-hashed names: a changed script is a new file, never a stale one."""
    bundle = bundle_for(trace_types, templates)
    js = gzip.decompress(base64.b64decode(bundle.b64))
    out = {f"{STATIC}/{_hashed(f'plotly-{bundle.kind}', js)}": js}
    for name in PAGE_SCRIPTS:
        data = str(static_script(templates, name)).encode("utf-8")
        out[f"{STATIC}/{_hashed(name[:-len('.js')], data)}"] = data
    return out


def pack_later(report_data: JsonObject) -> Future[tuple[str, str]]:
    """The data block (``datablock.pack``: script type, body), packed in a thread: its xz
    compression (0.25 s at 64 configurations) lets go of the GIL, so the caller builds the
    page meanwhile (pipeline.assemble_page starts it before the figures and sections)."""
    pool = ThreadPoolExecutor(1)
    future = pool.submit(_pack_block, report_data)
    pool.shutdown(wait=False)   # its one thread ends with the task
    return future


def _pack_block(report_data: JsonObject) -> tuple[str, str]:
    """A block that is packed (its JSON over ``datablock.PACK_ABOVE``) stores its named values
    by reference; a plain one as they are. The compacted JSON first: a large block is
    written once (4.5 MB of JSON at 64 × 12), a small one twice."""
    compact = value_refs.compact(report_data)
    text = str(script_json(compact))
    if not datablock.packs(text):
        whole = text if compact is report_data else str(script_json(report_data))
        if not datablock.packs(whole):
            return datablock.pack(whole)
    return datablock.pack(text, packed=True)


class _Later:
    """One part of a value computed in a thread, printed as it is (already escaped: the
    packed block is JSON safe in a script, or base64) once the template reaches it."""

    def __init__(self, future: Future[tuple[str, str]], part: int) -> None:
        self.future, self.part = future, part

    def __html__(self) -> str:
        return self.future.result()[self.part]

    __str__ = __html__


def render_page(page: Page, *, templates: Path, report_data: JsonObject,
                figs: dict[str, object], trace_types: Collection[str], version: str,
                shared: bool = False, packed: Future[tuple[str, str]] | None = None) -> str:
    """The complete HTML document as text; ``shared``: plotly.js and the page's scripts
    referenced as the site's ``shared_scripts`` instead of inlined; ``packed``: the data
    block already being packed (``pack_later(report_data)``)."""
    bundle = bundle_for(trace_types, templates)
    packing = packed or pack_later(report_data)
    report_type, report_json = _Later(packing, 0), _Later(packing, 1)
    assets = load_assets(templates)
    env = environment(templates)
    csp = content_security_policy(assets, bundle)
    srcs: list[str] = []
    if shared:
        srcs = list(shared_scripts(trace_types, templates))
        csp = content_security_policy(assets, bundle, shared=True)
    figs_json, figs_body = split_figures(figs)
    html = env.get_template("report.html.j2").render(
        page=page, chrome=page.chrome, version=version, csp=csp,
        css=assets.css, js_lang=assets.js_lang, js_loader=assets.js_loader, js_app=assets.js_app,
        js_slo=assets.js_slo, plotly_src=srcs[0] if srcs else "", script_srcs=srcs[1:],
        report_type=report_type, report_json=report_json, figs_json=figs_json,
        figs_body=figs_body,
        folded=FoldedRows(),
        plotly_b64="" if shared else bundle.b64, plotly_kind=bundle.kind,
        plotly_version=bundle.version, plotly_notice=bundle.notice,
        plotly_integrity=bundle.sha256,
    )
    return html
