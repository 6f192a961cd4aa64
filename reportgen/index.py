"""`reportgen index DIR… -o site/`: every round's report plus one index.html.

The index has a card per round (title, date, GPU, configurations, headline figures), a trend
figure of the headline figures across rounds, and relative links only, so the folder works from
file:// and on any static host. A folder holding only ``baseline.toml`` (an old round known only
by its published figures) gets a card marked "as published" and no report. Each report built
here links back to index.html and to its siblings. Bytes are deterministic: rounds stay in the
order given, nothing reads the clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from reportgen.baseline import BASELINE_TOML, Value, from_published
from reportgen.errors import InputError
from reportgen.formatting import MISSING, format_value, is_missing
from reportgen.i18n import UI, Bi, load_ui
from reportgen.text import LANGS

if TYPE_CHECKING:
    from reportgen.analyze.result import RoundAnalysis
    from reportgen.load.records import LoadedRound

Progress = Callable[[str], None]
INDEX = "index.html"

# Card and trend figures: (value name with {e} per engine, UI key under [index.metric], format)
METRICS: tuple[tuple[str, str, str], ...] = (
    ("crossover.concurrency", "crossover", ".1f"),
    ("setup.failed_total", "failed", "d"),
    ("setup.tier_count", "tier_count", "d"),
    ("engines.{e}.itl_p50_c1_ms", "step", ".2f"),
    ("engines.{e}.efficiency_cmax", "efficiency", "pct"),
)


@dataclass(frozen=True)
class Metric:
    name: str            # value name, engine filled in
    key: str
    engine: str | None
    value: Value
    spec: str


@dataclass(frozen=True)
class Entry:
    """One round of the series, as the index shows it."""

    name: str                    # output file stem: the folder's name
    folder: Path
    href: str | None             # relative link to its report; None: as published, no report
    title: Bi
    date: str
    gpu: str
    configurations: list[Bi]
    labels: dict[str, Bi]        # engine id → label
    metrics: list[Metric]
    as_published: bool = False
    source: Bi | None = None


@dataclass(frozen=True)
class Built:
    entry: Entry
    loaded: LoadedRound
    analysis: RoundAnalysis


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


def _text(value: object, fallback: str) -> Bi:
    if isinstance(value, Mapping):
        zh, en = value.get("zh"), value.get("en")
        return Bi(str(zh or en or fallback), str(en or zh or fallback))
    return Bi.plain(str(value) if value else fallback)


def _folder_name(folder: Path) -> str:
    name = folder.resolve().name
    if not name or name.lower() == "index":
        raise InputError(folder, "a round folder for the index needs a name other than "
                                 "'index' (its report is written as <name>.html)")
    return name


def collect(folders: list[Path], say: Progress) -> list[Built | Entry]:
    """Load and analyse every round (a baseline.toml folder becomes an as-published entry)."""
    from reportgen.pipeline import analyze_dir

    out: list[Built | Entry] = []
    seen: dict[str, Path] = {}
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError(folder, "not a round directory (expected a folder of benchmark "
                                     "results, or one with baseline.toml)")
        name = _folder_name(folder)
        if name in seen:
            raise InputError(folder, f"two rounds named '{name}' ({seen[name]} and {folder}): "
                                     "reports are written as <folder name>.html")
        seen[name] = folder
        if (folder / BASELINE_TOML).is_file() and not (folder / "round.toml").is_file():
            say(f"as published {folder}")
            b = from_published(folder / BASELINE_TOML)
            out.append(Entry(name, folder, None, b.title, b.date,
                             str(b.values.get("setup.gpu") or ""), list(b.labels.values()),
                             b.labels, _metrics(b.values, list(b.labels)), True, b.source))
            continue
        done = analyze_dir(folder, say)
        loaded, ra = done.loaded, done.analysis
        first = ra.first
        labels = first.labels()   # page text: escaped by the template, not for Plotly
        info = first.round
        gpu = str(info.get("gpu") or "")
        if gpu and isinstance(info.get("gpu_count"), int) and info["gpu_count"] > 1:
            gpu = f"{info['gpu_count']} × {gpu}"
        entry = Entry(name, folder, quote(f"{name}.html"),
                      _text(info.get("title"), name), str(info.get("date") or ""), gpu,
                      list(labels.values()), labels, _metrics(first.values, list(labels)))
        out.append(Built(entry, loaded, ra))
    return out


def build_index(folders: list[Path], out_dir: Path, lang: str | None = None,
                progress: Progress | None = None) -> list[Path]:
    """Build every round's report into ``out_dir`` and index.html beside them; returns the
    files written, index.html first. Bad input raises InputError before anything is
    written."""
    from reportgen.build import render_analysis, resolve_baseline, write_page
    from reportgen.page.model import Series, SeriesLink
    from reportgen.resources import templates_dir

    say = progress or (lambda _: None)
    if not folders:
        raise InputError("index", "no round folders given")
    items = collect(list(folders), say)
    entries = [i.entry if isinstance(i, Built) else i for i in items]
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    built = [i for i in items if isinstance(i, Built)]
    default = lang or (built[0].analysis.first.round.get("default_language") if built
                       else None) or "zh"
    pages: list[tuple[Path, str]] = []
    for item in built:
        links = [SeriesLink(e.href, e.title, e is item.entry) for e in entries if e.href]
        series = Series(INDEX, ui.t("series.label"), links)
        base = resolve_baseline(item.loaded.manifest, None, say)
        html = render_analysis(item.analysis, item.entry.folder, lang, say, None, base, series)
        pages.append((Path(out_dir) / f"{item.entry.name}.html", html))
    say("index")
    index_html = render_index(entries, ui, default)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(out, f"cannot create the output folder: {exc.strerror or exc}") \
            from None
    written = [write_page(path, html, say) for path, html in pages]
    first = write_page(out / INDEX, index_html, say)
    return [p for p in (first, *written) if p is not None]   # files, never stdout


# ----------------------------------------------------------------------------- the page

@dataclass(frozen=True)
class Card:
    title: Bi
    href: str | None
    facts: list[tuple[Bi, Bi]]
    figures: list[tuple[Bi, str]]
    note: Bi | None


def _value(m: Metric, as_published: bool) -> str:
    spec = m.spec if not as_published or m.spec.endswith("pct") else ""
    try:
        return format_value(m.value, spec)
    except ValueError:
        return MISSING


def _metric_label(ui: UI, m: Metric, labels: Mapping[str, Bi]) -> Bi:
    engine = labels.get(m.engine or "", Bi.plain(m.engine or ""))
    return Bi(*(ui.raw(f"index.metric.{m.key}", lang, engine=engine.get(lang))
                for lang in LANGS))


def cards(entries: list[Entry], ui: UI) -> list[Card]:
    out = []
    for e in entries:
        facts: list[tuple[Bi, Bi]] = []
        if e.date:
            facts.append((ui.t("index.date"), Bi.plain(e.date)))
        if e.gpu:
            facts.append((ui.t("index.gpu"), Bi.plain(e.gpu)))
        if e.configurations:
            facts.append((ui.t("index.configurations"), Bi(
                *(" · ".join(c.get(lang) for c in e.configurations) for lang in LANGS))))
        figures = [(_metric_label(ui, m, e.labels), _value(m, e.as_published))
                   for m in e.metrics]
        note = None
        if e.as_published:
            note = ui.t("index.source", source=e.source or Bi.plain(MISSING))
        out.append(Card(e.title, e.href, facts, figures, note))
    return out


def trend_figure(entries: list[Entry], ui: UI, lang: str) -> dict[str, object]:
    """One panel per headline metric (a line per engine where it has one), rounds along x in
    the order given. A round without the figure leaves a gap."""
    from reportgen.figures import PALETTE, Fig, Scatter, plotly_text

    x = [e.name for e in entries]
    panels: list[tuple[str, list[tuple[str | None, list[float]]]]] = []
    for _, key, _spec in METRICS:
        lines: dict[str | None, list[float]] = {}
        for i, e in enumerate(entries):
            for m in e.metrics:
                if m.key == key:
                    lines.setdefault(m.engine, [math.nan] * len(entries))[i] = float(m.value)
        if lines:
            panels.append((key, list(lines.items())))
    labels: dict[str, Bi] = {}
    for e in reversed(entries):     # the latest round's engine order and labels (its colours)
        labels.update({k: v for k, v in e.labels.items() if k not in labels})
    engines = list(labels)
    fig = Fig()
    n = max(len(panels), 1)
    gap = 0.08
    height = (1 - gap * (n - 1)) / n
    layout: dict[str, object] = {}
    for p, (key, lines) in enumerate(panels):
        axis = "" if p == 0 else str(p + 1)
        top = 1 - p * (height + gap)
        for engine, ys in lines:
            label = labels.get(engine or "", Bi.plain(engine or ""))
            color = PALETTE[engines.index(engine) % len(PALETTE)] if engine in engines else \
                "#1f2937"
            name = ui.raw(f"index.metric.{key}", lang, engine=plotly_text(label.get(lang)))
            fig.add_trace(Scatter(
                x=x, y=[None if math.isnan(v) else v for v in ys], mode="lines+markers",
                name=name, xaxis=f"x{axis}", yaxis=f"y{axis}",
                line=dict(color=color, width=2), marker=dict(size=9, color=color),
                connectgaps=False, hovertemplate=ui.raw("fig.trend.hover", lang),
            ))
        fig.add_annotation(text=ui.raw(f"index.panel.{key}", lang), x=0, xref="paper",
                           xanchor="left", y=top, yref="paper", yanchor="bottom",
                           showarrow=False, font=dict(size=13, color="#6b7280"))
        layout[f"xaxis{axis}"] = dict(type="category", categoryorder="array", categoryarray=x,
                                      anchor=f"y{axis}", showticklabels=p == len(panels) - 1,
                                      matches="x" if p else None)
        layout[f"yaxis{axis}"] = dict(domain=[max(top - height, 0), top], anchor=f"x{axis}",
                                      rangemode="tozero",
                                      tickformat=".0%" if key == "efficiency" else None)
    fig.update_layout(title=dict(text=ui.raw("fig.trend.title", lang)),
                      height=max(260 * n, 320), showlegend=True,
                      legend=dict(y=-0.03, yanchor="top"), **layout)
    return fig.to_dict()


def render_index(entries: list[Entry], ui: UI, default_lang: str) -> str:
    from plotly.offline import get_plotlyjs_version

    from reportgen import __version__
    from reportgen.figures import CARTESIAN_TRACES, template
    from reportgen.i18n import figure_patches
    from reportgen.render import (
        content_security_policy,
        environment,
        load_assets,
        plotly_bundle,
        script_json,
    )
    from reportgen.resources import templates_dir

    templates = templates_dir()
    dicts = {lang: trend_figure(entries, ui, lang) for lang in LANGS}
    figs = {"defaultLang": default_lang, "template": template(), "figs": [
        {"id": "trend-plot", "fig": dicts[default_lang], "i18n": figure_patches(dicts)}]}
    height = int(dicts[default_lang]["layout"].get("height", 460))  # type: ignore[union-attr]
    bundle = plotly_bundle({"scatter"} <= CARTESIAN_TRACES, templates)
    assets = load_assets(templates)
    chrome = {
        "lang_button": Bi(ui.raw("page.lang_button", "zh"), ui.raw("page.lang_button", "en")),
        "lang_button_title": Bi(ui.raw("page.lang_button_title", "zh"),
                                ui.raw("page.lang_button_title", "en")),
        "title": ui.t("index.title"),
        "lead": ui.t("index.lead", n=str(len(entries))),
        "open": ui.t("index.open"), "no_report": ui.t("index.no_report"),
        "as_published": ui.t("index.as_published"),
        "trend_heading": ui.t("index.trend_heading"), "trend_note": ui.t("index.trend_note"),
        "noscript": ui.t("page.noscript"), "render_error": ui.t("page.render_error"),
        "no_decompress": ui.t("page.no_decompress"),
        "footer": ui.t("index.footer", version=__version__, plotly=get_plotlyjs_version()),
    }
    return environment(templates).get_template("index.html.j2").render(
        lang=default_lang, chrome=chrome, cards=cards(entries, ui), fig_height=height,
        version=__version__, csp=content_security_policy(assets, bundle), css=assets.css,
        js_lang=assets.js_lang, js_loader=assets.js_loader, js_app=assets.js_app,
        figs_json=script_json(figs), plotly_b64=bundle.b64, plotly_kind=bundle.kind,
        plotly_version=bundle.version, plotly_notice=bundle.notice)
