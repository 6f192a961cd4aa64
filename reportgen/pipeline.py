"""The one orchestrator: a round directory → LoadedRound → RoundAnalysis (``analyze_dir``;
``tables_of`` its tables dict), and an analysis → page model → HTML (``assemble_page``,
``render_analysis``), with the baseline and the revisions given as records already read.

Reading the files that name a baseline or a previous report, and writing the page, is
reportgen.build's job (it calls these); reportgen.sources.diff and reportgen.sources.baseline call
``tables_of`` for a round folder; `check`, `tables`, `serve` and `index` call ``analyze_dir``.
Nothing here imports those modules, so the stages meet here without a cycle. Progress goes to an
optional callback (the CLI prints it); nothing here touches click or the clock. The page's date
comes from round.toml, else SOURCE_DATE_EPOCH, else it is left out.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen import __version__
from reportgen.analyze.result import RoundAnalysis
from reportgen.errors import InputError
from reportgen.figures.built import FigureSet
from reportgen.load.records import LoadedRound
from reportgen.schema import JsonObject
from reportgen.slo import Slo
from reportgen.text.bilingual import Bi
from reportgen.text.i18n import UI, load_ui

if TYPE_CHECKING:
    import pandas as pd

    from reportgen.analyze.compare import Baseline, Comparison, Missing, Source
    from reportgen.analyze.result import Analysis
    from reportgen.analyze.round_facts import RoundInfo
    from reportgen.page.model import Page, Revisions, Series

Progress = Callable[[str], None]


def no_progress(_: str) -> None:
    pass


@dataclass(frozen=True)
class Analyzed:
    """A round as loaded, and its analysis (one part per workload)."""

    loaded: LoadedRound
    analysis: RoundAnalysis


def analyze_dir(round_dir: Path, progress: Progress | None = None, *, slo: Slo | None = None,
                slo_target: float | None = None,
                load: tuple[float, str] | None = None,
                price: float | None = None) -> Analyzed:
    """Load and analyse a round directory. Bad input raises InputError. ``slo`` (the command
    line's) replaces round.toml's ``[slo]``; ``slo_target`` replaces the target share of
    whichever objective applies; ``load`` (value, ``req/s`` or ``tok/s``) adds each
    workload's ``load`` table (replicas and GPUs that carry it within the SLO); ``price``
    ($/GPU-hour, the command line's) replaces round.toml's ``[cost] gpu_hour_usd``."""
    import dataclasses

    from reportgen.analyze.goodput import load_table
    from reportgen.analyze.run import analyze_round
    from reportgen.frames import use_python_strings
    from reportgen.load.round import load_round

    use_python_strings()   # before the round's first frame
    say = progress or no_progress
    say(f"load {round_dir}")
    loaded = with_price(with_slo(load_round(Path(round_dir)), slo, slo_target), price)
    say("analyze")
    analysis = analyze_round(loaded)
    if load is not None:
        analysis = dataclasses.replace(analysis, parts=[
            dataclasses.replace(p, load=_priced(load_table(p.capacity_at_slo, *load),
                                                p.price_usd_per_gpu_h))
            if len(p.capacity_at_slo) else p for p in analysis.parts])
    return Analyzed(loaded, analysis)


def _priced(load: pd.DataFrame, price: float | None) -> pd.DataFrame:
    """The load table with its GPUs' cost an hour, when a price is given."""
    from reportgen.analyze.goodput import with_cost

    return load if price is None else with_cost(load, price)


def with_price(loaded: LoadedRound, price: float | None) -> LoadedRound:
    """The round with the command line's $/GPU-hour in place of round.toml's [cost]."""
    import dataclasses

    from reportgen.load.manifest import COMMAND_LINE, Provenance

    if price is None:
        return loaded
    manifest = loaded.manifest
    sources = manifest.sources | {"cost.gpu_hour_usd": Provenance(COMMAND_LINE, "--price")}
    return dataclasses.replace(loaded, manifest=dataclasses.replace(
        manifest, gpu_hour_usd=price, sources=sources))


def with_slo(loaded: LoadedRound, slo: Slo | None, target: float | None) -> LoadedRound:
    """The round with the command line's objective in place of round.toml's."""
    import dataclasses

    chosen = slo if slo is not None else loaded.manifest.slo
    if chosen is None and target is None:
        return loaded
    if chosen is not None and target is not None:
        chosen = dataclasses.replace(chosen, target=target)
    elif chosen is None:  # a target alone: kept for the thresholds the results may carry
        return dataclasses.replace(loaded, manifest=dataclasses.replace(
            loaded.manifest, slo_target=target))
    return dataclasses.replace(loaded, manifest=dataclasses.replace(loaded.manifest,
                                                                   slo=chosen))


def tables_of(round_dir: Path) -> JsonObject:
    """The tables dict of a round folder (what its report would embed)."""
    from reportgen.tables import to_json_dict

    return to_json_dict(analyze_dir(round_dir).analysis)


def page_date(info: RoundInfo) -> str:
    """The data date shown on the page: never the build time."""
    if info.date:
        return info.date
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit() and len(epoch) <= 12:   # beyond year 9999 is no date
        try:
            return dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC).date().isoformat()
        except (OverflowError, ValueError, OSError):
            return ""
    return ""


def chrome(ui: UI, date: str, plotly_version: str, declared: bool = False) -> dict[str, Bi]:
    """Page furniture outside the sections. ``declared``: round.toml declares some input
    reconstructed or synthetic, so the footer may not claim every number is a measurement."""
    return {
        "lang_button": ui.plain("page.lang_button"),
        "lang_button_title": ui.plain("page.lang_button_title"),
        "contents": ui.t("page.contents"),
        "data_date": ui.t("page.data_date", date=date),
        "footer": ui.t("provenance.footer" if declared else "page.footer", version=__version__,
                       plotly=plotly_version),
        "noscript": ui.t("page.noscript"),
        "render_error": ui.t("page.render_error"),
        "no_decompress": ui.t("page.no_decompress"),
        "rows_fold": ui.t("page.rows_fold", n="{n}"),   # render.rows_label fills it in
        "rows_noscript": ui.t("page.rows_noscript"),
    }


@dataclass
class Reuse:
    """What a caller that renders the same analysis again with new prose keeps
    (``reportgen serve``): the figures and the data block depend on the analysis only, so
    they are computed once (and only read afterwards)."""

    figures: dict[str, FigureSet] = field(default_factory=dict)   # by workload and language
    report_data: JsonObject | None = None


@dataclass(frozen=True)
class Assembled:
    """Everything the page is rendered from: the page model, the data block and the figures
    placed on the page. ``html()`` is the report's text; the gold test
    (tests/test_page_gold.py) reads ``page`` too."""

    page: Page
    report_data: JsonObject
    figures: FigureSet
    packed: Future[tuple[str, str]] | None = field(default=None, compare=False)  # its block

    def html(self, shared: bool = False) -> str:
        """``shared``: plotly.js and the page's scripts as a site's files
        (``render.shared_scripts``), not inlined."""
        from reportgen.files.resources import templates_dir
        from reportgen.render import render_page

        return render_page(self.page, templates=templates_dir(), report_data=self.report_data,
                           figs=self.figures.payload(), trace_types=self.figures.trace_types,
                           version=__version__, shared=shared, packed=self.packed)


def render_analysis(analysis: RoundAnalysis | Analysis, round_dir: Path,
                    lang: str | None = None, progress: Progress = no_progress,
                    revisions: Revisions | None = None,
                    baseline: Source | Missing | None = None,
                    series: Series | None = None,
                    reuse: Reuse | None = None) -> str:
    """The HTML text for an already computed RoundAnalysis (or a single Analysis); narrative
    read from ``round_dir``. A round with several workloads gets one view per workload.
    ``baseline`` adds "Since the previous round" and the baseline's dashed curves; ``series``
    the links of a report built by `reportgen index`.

    ``reuse``: kept by a caller that renders the same analysis again with new prose
    (``reportgen serve``; see ``Reuse``)."""
    return assemble_page(analysis, round_dir, lang, progress, revisions, baseline=baseline,
                         series=series, reuse=reuse).html()


def assemble_page(analysis: RoundAnalysis | Analysis, round_dir: Path, lang: str | None = None,
                  progress: Progress = no_progress, revisions: Revisions | None = None, *,
                  baseline: Source | Missing | None = None, series: Series | None = None,
                  reuse: Reuse | None = None) -> Assembled:
    """What ``render_analysis`` renders (same arguments)."""
    from reportgen.figures.registry import figures_payload
    from reportgen.files.resources import templates_dir
    from reportgen.narrative import load_narrative
    from reportgen.page.assemble import build_page, build_sections
    from reportgen.page.figure_refs import figure_marks, figure_numbers, resolve_marks
    from reportgen.page.model import Inputs, View
    from reportgen.render import pack_later, plotly_version
    from reportgen.tables import to_json_dict
    from reportgen.text.bilingual import LANGS

    if lang is not None and lang not in LANGS:
        raise InputError("--lang", f"expected one of {', '.join(LANGS)}, got {lang!r}")
    ra = analysis if isinstance(analysis, RoundAnalysis) else RoundAnalysis(
        parts=[analysis], runs=None, axis=analysis.round.axis)
    first = ra.first
    templates = templates_dir()
    ui = load_ui(templates / "i18n" / "ui.toml")
    # The opening language: ?lang=, the reader's stored choice, then the round's stated one
    # (--lang, else round.toml), then the browser's; `fallback` when none of them decides.
    fallback = first.round.default_language or "zh"
    stated = lang or (fallback if first.round.default_language_given else "")
    default = stated or fallback   # the language the figure dicts are stored in
    many = len(ra.parts) > 1
    inferred = tuple(ra.inferred)

    if reuse is not None and reuse.report_data is not None:
        report_data = reuse.report_data  # read only by render_page
    else:
        from reportgen.text.listing import shorten_data

        report_data = shorten_data(to_json_dict(ra))  # a page stays small: no 50,000-row list
        if reuse is not None:
            reuse.report_data = report_data
    # packed (xz) in a thread while the figures and sections are made
    packed = pack_later(report_data)
    built: list[FigureSet] = []
    views: list[View] = []
    date = page_date(first.round)
    declared = any(part.synthetic.declared.stated for part in ra.parts)
    page_chrome = chrome(ui, date, plotly_version(templates), declared)
    if many:
        page_chrome |= {"views_label": ui.t("views.label"),
                        "views_note": ui.t("views.note", n=str(len(ra.parts)))}
    if series is not None:
        page_chrome |= {"series_index": ui.t("series.index")}
    page = None
    for i, part in enumerate(ra.parts):
        prefix = f"w{i + 1}-" if many else ""
        workload = part.round.workload
        since, prose_values, base = against_baseline(part, baseline)
        progress("figures")
        key = f"figures:{i}:{default}"
        cached = reuse.figures.get(key) if reuse is not None else None
        if cached is not None:
            own = cached
        else:
            own = figures_payload(part, ui.for_axis(ra.axis), default, base)
            if reuse is not None:
                reuse.figures[key] = own
        own = own.prefixed(prefix)
        built.append(own)
        kinds = own.placed()
        titles = {fig_id: ui.t(f"fig.{kind}.title") for kind, (fig_id, _) in kinds.items()}
        progress("narrative")
        narrative = load_narrative(round_dir, prose_values | figure_marks(kinds),
                                   part.synthetic.names)
        runs = ra.runs
        if runs is not None and workload is not None:
            runs = runs[runs["workload"] == workload.id]
        inputs = Inputs(runs=runs, skipped=tuple(ra.skipped), inferred=inferred,
                        workloads=len(ra.parts), since=since)
        progress("page")
        if many:
            label = workload.label if workload is not None else Bi("", "")
            views.append(View(prefix.rstrip("-"), label, resolve_marks(
                build_sections(part, ui, narrative, kinds, revisions, inputs, prefix), titles)))
        else:
            page = build_page(part, ui, narrative, kinds, stated, page_chrome, date,
                              revisions, inputs, series=series, fallback_lang=fallback)
            page = dataclasses.replace(page, sections=resolve_marks(page.sections, titles))
    if page is None:
        page = build_page(first, ui, {}, {}, stated, page_chrome, date, views=views,
                          series=series, fallback_lang=fallback)
    sections = [s for view in views for s in view.sections] if views else page.sections
    figures = FigureSet.joined(built, default).only(figure_numbers(sections))
    progress("render")
    return Assembled(page, report_data, figures, packed)


def figure_values(ra: RoundAnalysis, baseline: Baseline | None) -> dict[str, Bi]:
    """``figure.<kind>`` → the number the first workload's figure has on the page, as
    ``reportgen values`` lists them: its sections laid out once without prose (prose never
    moves a figure), so a narrative that does not build yet can still be listed."""
    from reportgen.figures.registry import figures_payload
    from reportgen.files.resources import templates_dir
    from reportgen.page.assemble import build_sections
    from reportgen.page.figure_refs import figure_numbers
    from reportgen.page.model import Inputs

    part = ra.first
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    kinds = figures_payload(part, ui.for_axis(ra.axis), "en", baseline).placed()
    numbers = figure_numbers(build_sections(part, ui, {}, kinds, inputs=Inputs(runs=ra.runs)))
    return {f"figure.{kind}": numbers[fig_id] for kind, (fig_id, _) in kinds.items()
            if fig_id in numbers}


def against_baseline(part: Analysis, baseline: Source | Missing | None
                     ) -> tuple[Comparison | Missing | None, dict[str, object], Baseline | None]:
    """For one workload's Analysis: the comparison the page shows, the names its narrative can
    use (the analysis values, plus ``baseline.*`` / ``since.*`` when a baseline is set — as
    missing values when round.toml's baseline is not there), and the baseline itself."""
    from reportgen.analyze.compare import Missing, compare, empty_values
    values: dict[str, object] = dict(part.values)
    if baseline is None:
        return None, values, None
    if isinstance(baseline, Missing):
        return baseline, values | empty_values(list(part.labels())), None
    base = baseline.for_workload(
        part.round.workload.id if part.round.workload is not None else None)
    since = compare(base, part.values, part.labels())   # page text, escaped by the template
    return since, values | since.values, base
