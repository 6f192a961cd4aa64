"""One report build: load_round → analyze → narrative → figures → page → render → atomic write.

Progress goes to an optional callback (the CLI prints it); nothing here touches click or the
clock. The page's date comes from round.toml, else SOURCE_DATE_EPOCH, else it is left out.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reportgen import __version__
from reportgen.errors import InputError
from reportgen.i18n import UI, Bi, load_ui

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


def chrome(ui: UI, date: str, plotly_version: str) -> dict[str, Bi]:
    """Page furniture outside the sections."""
    return {
        "lang_button": Bi(ui.raw("page.lang_button", "zh"), ui.raw("page.lang_button", "en")),
        "lang_button_title": Bi(ui.raw("page.lang_button_title", "zh"),
                                ui.raw("page.lang_button_title", "en")),
        "contents": ui.t("page.contents"),
        "data_date": ui.t("page.data_date", date=date),
        "footer": ui.t("page.footer", version=__version__, plotly=plotly_version),
        "noscript": ui.t("page.noscript"),
        "render_error": ui.t("page.render_error"),
        "no_decompress": ui.t("page.no_decompress"),
    }


def render_analysis(analysis: Any, round_dir: Path, lang: str | None = None,
                    progress: Progress = _quiet, revisions: Any = None) -> str:
    """The HTML text for an already computed RoundAnalysis (or a single Analysis); narrative
    read from ``round_dir``. A round with several workloads gets one view per workload."""
    from plotly.offline import get_plotlyjs_version

    from reportgen.analyze.run import RoundAnalysis
    from reportgen.context import Figure, Inputs, View, build_page, build_sections
    from reportgen.figures import figures_payload
    from reportgen.narrative import LANGS, load_narrative
    from reportgen.render import render_page
    from reportgen.resources import templates_dir
    from reportgen.tables import to_json_dict

    if lang is not None and lang not in LANGS:
        raise InputError("--lang", f"expected one of {', '.join(LANGS)}, got {lang!r}")
    ra = analysis if isinstance(analysis, RoundAnalysis) else RoundAnalysis(
        parts=[analysis], runs=None, axis=str(analysis.round.get("axis", "concurrency")))
    first = ra.first
    templates = templates_dir()
    ui = load_ui(templates / "i18n" / "ui.toml")
    default = lang or first.round.get("default_language") or "zh"
    many = len(ra.parts) > 1
    inferred = tuple(ra.inferred)

    figs: list[dict[str, Any]] = []
    trace_types: set[str] = set()
    template: Any = None
    views: list[View] = []
    date = page_date(first.round)
    page_chrome = chrome(ui, date, get_plotlyjs_version())
    if many:
        page_chrome |= {"views_label": ui.t("views.label"),
                        "views_note": ui.t("views.note", n=str(len(ra.parts)))}
    page = None
    for i, part in enumerate(ra.parts):
        prefix = f"w{i + 1}-" if many else ""
        progress("narrative")
        narrative = load_narrative(round_dir, part.values)
        progress("figures")
        payload = figures_payload(part, ui.for_axis(ra.axis), default)
        trace_types |= set(payload.pop("trace_types"))
        template = payload["template"]
        kinds = {f["kind"]: (prefix + f["id"], f["height"]) for f in payload["figs"]}
        for f in payload["figs"]:
            f["id"] = prefix + f["id"]
            del f["kind"], f["height"]
        figs += payload["figs"]
        workload = part.round.get("workload") or {}
        runs = ra.runs
        if runs is not None and workload:
            runs = runs[runs["workload"] == workload.get("id")]
        inputs = Inputs(runs=runs, skipped=tuple(ra.skipped), inferred=inferred,
                        workloads=len(ra.parts))
        progress("page")
        if many:
            label = workload.get("label") or {}
            views.append(View(prefix.rstrip("-"), Bi(str(label.get("zh", "")),
                                                     str(label.get("en", ""))),
                              build_sections(part, ui, narrative, kinds, revisions, inputs,
                                             prefix)))
        else:
            page = build_page(part, ui, narrative, kinds, default, page_chrome, date,
                              revisions, inputs)
    if page is None:
        page = build_page(first, ui, {}, {}, default, page_chrome, date, views=views)
    placed = {b.id for view in (views or [None]) for section in (
        view.sections if view else page.sections) for b in section.blocks
        if isinstance(b, Figure)}
    figs = [f for f in figs if f["id"] in placed]  # a section that does not apply has none
    progress("render")
    return render_page(page, templates=templates, report_data=to_json_dict(ra),
                       figs={"defaultLang": default, "template": template, "figs": figs},
                       trace_types=trace_types, version=__version__)


def build_report(round_dir: Path, out: Path | str, lang: str | None = None,
                 progress: Progress | None = None, previous: Path | None = None
                 ) -> Path | None:
    """Build the report for ``round_dir`` into ``out`` (written atomically; ``-`` is stdout)
    and return the file written (None for stdout).

    ``lang`` overrides round.toml's default_language (the language the page opens in when the
    reader has no stored or browser preference). Bad input raises InputError; the output file is
    then left exactly as it was. ``out`` follows the output-path policy of ``reportgen.write``,
    checked before anything is loaded and again when writing.
    """
    from reportgen.analyze.run import analyze_round
    from reportgen.load.round import load_round
    from reportgen.write import output_target, write_output

    say = progress or _quiet
    round_dir = Path(round_dir)
    output_target(out, round_dir)
    say(f"load {round_dir}")
    loaded = load_round(round_dir)
    say("analyze")
    analysis = analyze_round(loaded)
    revisions = None
    if previous is not None:
        say(f"compare with {previous}")
        revisions = _revisions(analysis, Path(previous))
    html = render_analysis(analysis, round_dir, lang, say, revisions)
    say(f"write {out}")
    return write_output(out, html.encode("utf-8"), round_dir)


def _revisions(analysis: Any, previous: Path) -> Any:
    """What changed since a previously published report (or round), shown as a section."""
    from reportgen.context import Revisions
    from reportgen.diff import diff_tables, load_tables
    from reportgen.safe_read import check_input, printable
    from reportgen.tables import to_json_dict

    if not previous.is_dir():  # a round folder is read by load_round
        check_input(previous, printable(str(previous)), "report")  # no FIFO, no /dev/zero

    return Revisions(previous.name, diff_tables(load_tables(previous), to_json_dict(analysis)))
