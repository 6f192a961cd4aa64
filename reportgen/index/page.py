"""The index page of a series (`reportgen index`): a card per round, newest first, in pages of
``PAGE_SIZE`` with a filter by GPU, configuration and date (templates/static/index.js, vanilla
JS; without script every card shows), and the trend figure of the headline figures. Made from
``Entry`` records only — the cached tables — never from an analysis."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import MISSING, format_value
from reportgen.text.i18n import UI

if TYPE_CHECKING:
    from reportgen.analyze.compare import Value

PAGE_SIZE = 24
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class RoundCard:
    title: Bi
    href: str | None
    facts: list[tuple[Bi, Bi]]
    figures: list[tuple[Bi, str]]
    note: Bi | None
    gpu: str
    configs: list[str]          # filter keys: each configuration's English label
    date: str


@dataclass(frozen=True)
class Choice:
    value: str
    text: str


# round cards and trend figures: (value name with {e} per engine, UI key under [index.metric],
# format)
INDEX_TRACES = frozenset({"scatter"})   # the trend figure's trace types
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


def _value(m: Metric, as_published: bool) -> str:
    spec = m.spec if not as_published or m.spec.endswith("pct") else ""
    try:
        return format_value(m.value, spec)
    except ValueError:
        return MISSING


def _metric_label(ui: UI, m: Metric, labels: Mapping[str, Bi]) -> Bi:
    engine = labels.get(m.engine or "", Bi.plain(m.engine or ""))
    return ui.plain(f"index.metric.{m.key}", engine=engine)


def newest_first(entries: list[Entry]) -> list[Entry]:
    return list(reversed(entries))


def cards(entries: list[Entry], ui: UI) -> list[RoundCard]:
    """One card per round, in the order of ``entries`` (the caller puts the newest first)."""
    out = []
    date, gpu, configs = ui.t("index.date"), ui.t("index.gpu"), ui.t("index.configurations")
    names: dict[tuple[str, str | None, Bi | None], Bi] = {}   # rounds share their labels

    def label(m: Metric, labels: Mapping[str, Bi]) -> Bi:
        key = (m.key, m.engine, labels.get(m.engine or ""))
        if key not in names:
            names[key] = _metric_label(ui, m, labels)
        return names[key]

    for e in entries:
        facts: list[tuple[Bi, Bi]] = []
        if e.date:
            facts.append((date, Bi.plain(e.date)))
        if e.gpu:
            facts.append((gpu, Bi.plain(e.gpu)))
        if e.configurations:
            facts.append((configs, Bi(
                *(" · ".join(c.get(lang) for c in e.configurations) for lang in LANGS))))
        figures = [(label(m, e.labels), _value(m, e.as_published)) for m in e.metrics]
        note = None
        if e.as_published:
            note = ui.t("index.source", source=e.source or Bi.plain(MISSING))
        out.append(RoundCard(e.title, e.href, facts, figures, note, e.gpu,
                        [c.en for c in e.configurations], e.date))
    return out


def choices(values: list[str]) -> list[Choice]:
    return [Choice(v, v) for v in sorted(set(v for v in values if v))]


def _dated(entries: list[Entry]) -> bool:
    return bool(entries) and all(ISO_DATE.fullmatch(e.date) for e in entries)


def trend_figure(entries: list[Entry], ui: UI, lang: str) -> dict[str, object]:
    """One panel per headline metric (a line per engine where it has one), rounds along x in
    series order: their dates when every round has one, else their folder names. A round
    without the figure leaves a gap; hover names the round by its title."""
    from reportgen.figures.base import PALETTE, Fig, Scatter, plotly_text

    dated = _dated(entries)
    x = [e.date if dated else plotly_text(e.name) for e in entries]
    titles = [plotly_text(e.title.get(lang)) for e in entries]
    panels: list[tuple[str, list[tuple[str | None, list[float]]]]] = []
    for _, key, _spec in METRICS:
        lines: dict[str | None, list[float]] = {}
        for i, e in enumerate(entries):
            for m in e.metrics:
                if m.key == key:
                    number = float(cast(float, m.value))
                    lines.setdefault(m.engine, [math.nan] * len(entries))[i] = number
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
    for p, (key, series) in enumerate(panels):
        axis = "" if p == 0 else str(p + 1)
        top = 1 - p * (height + gap)
        for engine, ys in series:
            label = labels.get(engine or "", Bi.plain(engine or ""))
            color = PALETTE[engines.index(engine) % len(PALETTE)] if engine in engines else \
                "#1f2937"
            name = ui.raw(f"index.metric.{key}", lang, engine=plotly_text(label.get(lang)))
            fig.add_trace(Scatter(
                x=x, y=[None if math.isnan(v) else v for v in ys], mode="lines+markers",
                name=name, xaxis=f"x{axis}", yaxis=f"y{axis}", text=titles,
                line=dict(color=color, width=2), marker=dict(size=9, color=color),
                connectgaps=False, hovertemplate=ui.raw("fig.trend.hover", lang),
            ))
        fig.add_annotation(text=ui.raw(f"index.panel.{key}", lang), x=0, xref="paper",
                           xanchor="left", y=top, yref="paper", yanchor="bottom",
                           showarrow=False, font=dict(size=13, color="#6b7280"))
        xaxis: dict[str, object] = (dict(type="date") if dated else
                                    dict(type="category", categoryorder="array", categoryarray=x))
        layout[f"xaxis{axis}"] = xaxis | dict(anchor=f"y{axis}",
                                              showticklabels=p == len(panels) - 1,
                                              matches="x" if p else None)
        layout[f"yaxis{axis}"] = dict(domain=[max(top - height, 0), top], anchor=f"x{axis}",
                                      rangemode="tozero",
                                      tickformat=".0%" if key == "efficiency" else None)
    fig.update_layout(title=dict(text=ui.raw("fig.trend.title", lang)),
                      height=max(260 * n, 320), showlegend=True, hovermode="closest",
                      legend=dict(y=-0.03, yanchor="top"), **layout)
    return fig.to_dict()


def render_index(entries: list[Entry], ui: UI, default_lang: str, shared: bool = False) -> str:
    """index.html for ``entries`` in series order (oldest first); ``shared``: plotly.js,
    loader.js and app.js referenced as the site's shared scripts (``index_scripts``)."""
    from reportgen import __version__
    from reportgen.figures.base import template
    from reportgen.files.resources import templates_dir
    from reportgen.render import (
        bundle_for,
        content_security_policy,
        environment,
        load_assets,
        plotly_version,
        script_json,
        shared_scripts,
        static_script,
    )
    from reportgen.text.i18n import figure_patches

    templates = templates_dir()
    dicts = {lang: trend_figure(entries, ui, lang) for lang in LANGS}
    figs = {"defaultLang": default_lang, "template": template(), "figs": [
        {"id": "trend-plot", "fig": dicts[default_lang], "i18n": figure_patches(dicts)}]}
    height = int(cast("dict[str, Any]", dicts[default_lang]["layout"]).get("height", 460))
    bundle = bundle_for(INDEX_TRACES, templates)
    assets = load_assets(templates)
    js_index = static_script(templates, "index.js")
    shown = cards(newest_first(entries), ui)
    chrome = {
        "lang_button": ui.plain("page.lang_button"),
        "lang_button_title": ui.plain("page.lang_button_title"),
        "title": ui.t("index.title"),
        "lead": ui.t("index.lead", n=str(len(entries))),
        "open": ui.t("index.open"), "no_report": ui.t("index.no_report"),
        "as_published": ui.t("index.as_published"),
        "trend_heading": ui.t("index.trend_heading"), "trend_note": ui.t("index.trend_note"),
        "noscript": ui.t("page.noscript"), "render_error": ui.t("page.render_error"),
        "no_decompress": ui.t("page.no_decompress"),
        "filter": ui.t("index.filter.label"), "any": ui.t("index.filter.any"),
        "gpu": ui.t("index.gpu"), "config": ui.t("index.configurations"),
        "from": ui.t("index.filter.from"), "to": ui.t("index.filter.to"),
        "reset": ui.t("index.filter.reset"), "prev": ui.t("index.pager.prev"),
        "next": ui.t("index.pager.next"), "none": ui.t("index.filter.none"),
        "footer": ui.t("index.footer", version=__version__, plotly=plotly_version(templates)),
    }
    csp = content_security_policy(assets, bundle, (js_index,), shared=shared)
    srcs = [s for s in shared_scripts(INDEX_TRACES, templates) if "/slo-" not in s] \
        if shared else []
    return environment(templates).get_template("index.html.j2").render(
        lang=default_lang, chrome=chrome, cards=shown, fig_height=height,
        gpus=choices([c.gpu for c in shown]),
        configs=choices([k for c in shown for k in c.configs]),
        dated=any(c.date for c in shown), page_size=PAGE_SIZE,
        version=__version__, csp=csp,
        plotly_src=srcs[0] if srcs else "", script_srcs=srcs[1:],
        css=assets.css, js_lang=assets.js_lang, js_loader=assets.js_loader,
        js_app=assets.js_app, js_index=js_index,
        figs_json=script_json(figs), plotly_b64="" if shared else bundle.b64,
        plotly_kind=bundle.kind,
        plotly_version=bundle.version, plotly_notice=bundle.notice,
        plotly_integrity=bundle.sha256)
