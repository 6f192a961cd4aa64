"""One report build: load_round → analyze → narrative → figures → page → render → atomic write.

Progress goes to an optional callback (the CLI prints it); nothing here touches click or the
clock. The page's date comes from round.toml, else SOURCE_DATE_EPOCH, else it is left out.
"""

from __future__ import annotations

import copy
import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen import __version__
from reportgen.errors import InputError
from reportgen.i18n import UI, Bi, load_ui

if TYPE_CHECKING:
    from reportgen.analyze.result import Analysis, RoundAnalysis
    from reportgen.baseline import Baseline, Comparison, Missing, Source
    from reportgen.manifest import Manifest
    from reportgen.page.model import Page, Revisions, Series
    from reportgen.slo import Slo

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def page_date(round_info: dict[str, Any]) -> str:
    """The data date shown on the page: never the build time."""
    date = round_info.get("date")
    if date:
        return str(date)
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC).date().isoformat()
    return ""


def chrome(ui: UI, date: str, plotly_version: str, declared: bool = False) -> dict[str, Bi]:
    """Page furniture outside the sections. ``declared``: round.toml declares some input
    reconstructed or synthetic, so the footer may not claim every number is a measurement."""
    return {
        "lang_button": Bi(ui.raw("page.lang_button", "zh"), ui.raw("page.lang_button", "en")),
        "lang_button_title": Bi(ui.raw("page.lang_button_title", "zh"),
                                ui.raw("page.lang_button_title", "en")),
        "contents": ui.t("page.contents"),
        "data_date": ui.t("page.data_date", date=date),
        "footer": ui.t("provenance.footer" if declared else "page.footer", version=__version__,
                       plotly=plotly_version),
        "noscript": ui.t("page.noscript"),
        "render_error": ui.t("page.render_error"),
        "no_decompress": ui.t("page.no_decompress"),
    }


@dataclass(frozen=True)
class Assembled:
    """Everything the page is rendered from: the page model, the data block and the figures
    payload. ``html()`` is the report's text; the gold test (tests/test_page_gold.py) reads
    ``page`` too."""

    page: Page
    report_data: dict[str, Any]
    figs: dict[str, Any]
    trace_types: set[str]

    def html(self) -> str:
        from reportgen.render import render_page
        from reportgen.resources import templates_dir

        return render_page(self.page, templates=templates_dir(), report_data=self.report_data,
                           figs=self.figs, trace_types=self.trace_types, version=__version__)


def render_analysis(analysis: RoundAnalysis | Analysis, round_dir: Path,
                    lang: str | None = None, progress: Progress = _quiet,
                    revisions: Revisions | None = None,
                    baseline: Source | Missing | None = None,
                    series: Series | None = None,
                    reuse: dict[str, Any] | None = None) -> str:
    """The HTML text for an already computed RoundAnalysis (or a single Analysis); narrative
    read from ``round_dir``. A round with several workloads gets one view per workload.
    ``baseline`` adds "Since the previous round" and the baseline's dashed curves; ``series``
    the links of a report built by `reportgen index`.

    ``reuse``: a dict kept by a caller that renders the same analysis again with new prose
    (``reportgen serve``): the figures and the data block, which depend on the analysis
    only, are computed once into it."""
    return assemble_page(analysis, round_dir, lang, progress, revisions, baseline=baseline,
                         series=series, reuse=reuse).html()


def assemble_page(analysis: RoundAnalysis | Analysis, round_dir: Path, lang: str | None = None,
                  progress: Progress = _quiet, revisions: Revisions | None = None, *,
                  baseline: Source | Missing | None = None, series: Series | None = None,
                  reuse: dict[str, Any] | None = None) -> Assembled:
    """What ``render_analysis`` renders (same arguments)."""
    from reportgen.analyze.result import RoundAnalysis
    from reportgen.figures import figures_payload
    from reportgen.narrative import LANGS, load_narrative
    from reportgen.page import build_page, build_sections
    from reportgen.page.model import Figure, Inputs, View
    from reportgen.render import plotly_version
    from reportgen.resources import templates_dir
    from reportgen.tables import to_json_dict

    if lang is not None and lang not in LANGS:
        raise InputError("--lang", f"expected one of {', '.join(LANGS)}, got {lang!r}")
    ra = analysis if isinstance(analysis, RoundAnalysis) else RoundAnalysis(
        parts=[analysis], runs=None, axis=str(analysis.round.get("axis", "concurrency")))
    first = ra.first
    templates = templates_dir()
    ui = load_ui(templates / "i18n" / "ui.toml")
    # The opening language: ?lang=, the reader's stored choice, then the round's stated one
    # (--lang, else round.toml), then the browser's; `fallback` when none of them decides.
    fallback = str(first.round.get("default_language") or "zh")
    stated = lang or (fallback if first.round.get("default_language_given") else "")
    default = stated or fallback   # the language the figure dicts are stored in
    many = len(ra.parts) > 1
    inferred = tuple(ra.inferred)

    figs: list[dict[str, Any]] = []
    trace_types: set[str] = set()
    template: Any = None
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
        workload = part.round.get("workload") or {}
        since, prose_values, base = against_baseline(part, baseline)
        progress("narrative")
        narrative = load_narrative(round_dir, prose_values, part.synthetic.names)
        progress("figures")
        key = f"figures:{i}:{default}"
        if reuse is not None and key in reuse:
            payload = copy.deepcopy(reuse[key])
        else:
            payload = figures_payload(part, ui.for_axis(ra.axis), default, base)
            if reuse is not None:
                reuse[key] = copy.deepcopy(payload)
        trace_types |= set(payload.pop("trace_types"))
        template = payload["template"]
        kinds = {f["kind"]: (prefix + f["id"], f["height"]) for f in payload["figs"]}
        for f in payload["figs"]:
            f["id"] = prefix + f["id"]
            del f["kind"], f["height"]
        figs += payload["figs"]
        runs = ra.runs
        if runs is not None and workload:
            runs = runs[runs["workload"] == workload.get("id")]
        inputs = Inputs(runs=runs, skipped=tuple(ra.skipped), inferred=inferred,
                        workloads=len(ra.parts), since=since)
        progress("page")
        if many:
            label = workload.get("label") or {}
            views.append(View(prefix.rstrip("-"), Bi(str(label.get("zh", "")),
                                                     str(label.get("en", ""))),
                              build_sections(part, ui, narrative, kinds, revisions, inputs,
                                             prefix)))
        else:
            page = build_page(part, ui, narrative, kinds, stated, page_chrome, date,
                              revisions, inputs, series=series, fallback_lang=fallback)
    if page is None:
        page = build_page(first, ui, {}, {}, stated, page_chrome, date, views=views,
                          series=series, fallback_lang=fallback)
    placed = {b.id for view in (views or [None]) for section in (
        view.sections if view else page.sections) for b in section.blocks
        if isinstance(b, Figure)}
    figs = [f for f in figs if f["id"] in placed]  # a section that does not apply has none
    progress("render")
    if reuse is not None and "report_data" in reuse:
        report_data = reuse["report_data"]  # read only by render_page
    else:
        report_data = to_json_dict(ra)
        if reuse is not None:
            reuse["report_data"] = report_data
    return Assembled(page, report_data,
                     {"defaultLang": default, "template": template, "figs": figs}, trace_types)


def against_baseline(part: Analysis, baseline: Source | Missing | None
                     ) -> tuple[Comparison | Missing | None, dict[str, Any], Baseline | None]:
    """For one workload's Analysis: the comparison the page shows, the names its narrative can
    use (the analysis values, plus ``baseline.*`` / ``since.*`` when a baseline is set — as
    missing values when round.toml's baseline is not there), and the baseline itself."""
    from reportgen.baseline import Missing, compare, empty_values
    if baseline is None:
        return None, part.values, None
    if isinstance(baseline, Missing):
        return baseline, part.values | empty_values(list(part.labels())), None
    base = baseline.for_workload((part.round.get("workload") or {}).get("id"))
    since = compare(base, part.values, part.labels())   # page text, escaped by the template
    return since, part.values | since.values, base


def narrative_values(round_dir: Path, baseline: Path | None = None) -> dict[str, Any]:
    """Every name the narrative of ``round_dir`` (first workload) can use, baseline included."""
    from reportgen.pipeline import analyze_dir

    done = analyze_dir(Path(round_dir))
    return against_baseline(done.analysis.first,
                            resolve_baseline(done.loaded.manifest, baseline))[1]


def build_report(round_dir: Path, out: Path | str, lang: str | None = None,
                 progress: Progress | None = None, previous: Path | None = None,
                 baseline: Path | None = None,
                 slo: tuple[Slo | None, float | None] = (None, None)) -> Path | None:
    """Build the report for ``round_dir`` into ``out`` (written atomically; ``-`` is stdout)
    and return the file written (None for stdout).

    ``lang`` overrides round.toml's default_language (the language the page opens in when the
    reader has no stored or browser preference). ``baseline`` (a round folder, report.html or
    baseline.toml folder) overrides round.toml's ``[baseline] round``. Bad input raises
    InputError; the output file is then left exactly as it was. ``out`` follows the output-path
    policy of ``reportgen.write``, checked before anything is loaded and again when writing.
    """
    from reportgen.write import output_target

    say = progress or _quiet
    output_target(out, round_dir)   # refused before anything is loaded
    html = assemble_report(round_dir, lang, say, previous, baseline, slo).html()
    return write_page(out, html, say, Path(round_dir))


def assemble_report(round_dir: Path, lang: str | None = None, progress: Progress | None = None,
                    previous: Path | None = None, baseline: Path | None = None,
                    slo: tuple[Slo | None, float | None] = (None, None)) -> Assembled:
    """``build_report`` up to the bytes: load, analyze, compare, assemble (nothing written).
    ``slo``: the command line's (objective, target share), replacing round.toml's."""
    from reportgen.analyze.run import analyze_round
    from reportgen.load.round import load_round

    say = progress or _quiet
    round_dir = Path(round_dir)
    old_tables = None
    if previous is not None:  # a bad previous report fails before the round is analysed
        from reportgen.diff import load_tables

        say(f"read {previous}")
        old_tables = load_tables(Path(previous))  # through safe_read: no FIFO, no /dev/zero
    say(f"load {round_dir}")
    from reportgen.pipeline import with_slo

    loaded = with_slo(load_round(round_dir), *slo)
    say("analyze")
    analysis = analyze_round(loaded)
    revisions = None
    if previous is not None and old_tables is not None:
        say(f"compare with {previous}")
        revisions = _revisions(analysis, Path(previous), old_tables)
    base = resolve_baseline(loaded.manifest, baseline, say)
    return assemble_page(analysis, round_dir, lang, say, revisions, baseline=base)


def write_page(out: Path | str, html: str, say: Progress = _quiet,
               round_dir: Path | None = None) -> Path | None:
    """Write one page under the output-path policy (``-`` is stdout: None is returned)."""
    from reportgen.write import write_output

    say(f"write {out}")
    return write_output(out, html.encode("utf-8"), round_dir)


def resolve_baseline(manifest: Manifest, given: Path | None,
                     say: Progress = _quiet) -> Source | Missing | None:
    """The baseline to compare with: ``given`` (the command line) wins over round.toml's
    ``[baseline] round`` (relative to round.toml's folder). A round.toml baseline that is not
    there leaves a note on the page (a copied round keeps building); a given one must exist."""
    from reportgen.baseline import Missing, open_baseline

    if given is not None:
        say(f"baseline {given}")
        return open_baseline(Path(given))
    if not manifest.baseline:
        return None
    path = manifest.path.parent / manifest.baseline
    if not path.exists():
        say(f"baseline {manifest.baseline} not found")
        return Missing(manifest.baseline)
    say(f"baseline {path}")
    return open_baseline(path)


def _revisions(analysis: RoundAnalysis, previous: Path, old: dict[str, Any]) -> Revisions:
    """What changed since a previously published report (or round), shown as a section."""
    from reportgen.diff import diff_tables, group_changes
    from reportgen.page.model import Revisions
    from reportgen.tables import to_json_dict

    new = to_json_dict(analysis)
    return Revisions(previous.name, group_changes(diff_tables(old, new), new, old))
