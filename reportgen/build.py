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
    """The HTML text for an already computed Analysis (narrative read from ``round_dir``)."""
    from plotly.offline import get_plotlyjs_version

    from reportgen.context import build_page
    from reportgen.figures import figures_payload
    from reportgen.narrative import LANGS, load_narrative
    from reportgen.render import render_page
    from reportgen.resources import templates_dir
    from reportgen.tables import to_json_dict

    if lang is not None and lang not in LANGS:
        raise InputError("--lang", f"expected one of {', '.join(LANGS)}, got {lang!r}")
    templates = templates_dir()
    ui = load_ui(templates / "i18n" / "ui.toml")
    default = lang or analysis.round.get("default_language") or "zh"

    progress("narrative")
    narrative = load_narrative(round_dir, analysis.values)
    progress("figures")
    payload = figures_payload(analysis, ui, default)
    trace_types = payload.pop("trace_types")
    kinds = {f["kind"]: (f["id"], f["height"]) for f in payload["figs"]}
    for f in payload["figs"]:
        del f["kind"], f["height"]
    progress("page")
    date = page_date(analysis.round)
    page = build_page(analysis, ui, narrative, kinds, default,
                      chrome(ui, date, get_plotlyjs_version()), date, revisions)
    progress("render")
    return render_page(page, templates=templates, report_data=to_json_dict(analysis),
                       figs=payload, trace_types=trace_types, version=__version__)


def build_report(round_dir: Path, out: Path, lang: str | None = None,
                 progress: Progress | None = None, previous: Path | None = None) -> Path:
    """Build the report for ``round_dir`` into ``out`` (written atomically) and return ``out``.

    ``lang`` overrides round.toml's default_language (the language the page opens in when the
    reader has no stored or browser preference). Bad input raises InputError; the output file is
    then left exactly as it was.
    """
    from reportgen.analyze.run import analyze
    from reportgen.load.round import load_round
    from reportgen.write import write_atomic

    say = progress or _quiet
    round_dir = Path(round_dir)
    say(f"load {round_dir}")
    loaded = load_round(round_dir)
    say("analyze")
    analysis = analyze(loaded)
    revisions = None
    if previous is not None:
        say(f"compare with {previous}")
        revisions = _revisions(analysis, Path(previous))
    html = render_analysis(analysis, round_dir, lang, say, revisions)
    say(f"write {out}")
    try:
        return write_atomic(Path(out), html.encode("utf-8"))
    except OSError as exc:  # e.g. the output folder does not exist or is read-only
        raise InputError(out, f"cannot write: {exc.strerror or exc} (the previous file, if "
                              "any, is unchanged)") from None


def _revisions(analysis: Any, previous: Path) -> Any:
    """What changed since a previously published report (or round), shown as a section."""
    from reportgen.context import Revisions
    from reportgen.diff import diff_tables, load_tables
    from reportgen.tables import to_json_dict

    return Revisions(previous.name, diff_tables(load_tables(previous), to_json_dict(analysis)))
