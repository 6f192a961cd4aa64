"""The page in section order: each section's blocks (reportgen.page.<section>), its narrative,
the † legend under marked tables and the notes on what would fill empty cells."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from reportgen.analyze.compare import Comparison
from reportgen.analyze.result import Analysis
from reportgen.narrative import SECTIONS, Prose
from reportgen.page import (
    anomalies,
    constants,
    crossover,
    distributions,
    findings,
    memory,
    prefill,
    related,
    revisions,
    roofline,
    setup,
    since,
    stalls,
    telemetry,
    tiers,
    waves,
)
from reportgen.page.builder import Builder
from reportgen.page.cells import all_missing, same
from reportgen.page.model import (
    Inputs,
    Page,
    PageBlock,
    Revisions,
    Section,
    Series,
    Table,
    View,
)
from reportgen.page.provenance import provenance_notice
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.i18n import UI

Maker = Callable[[Builder], list[PageBlock]]

# section id → what builds its blocks; the page order is narrative.SECTIONS ("revisions",
# only with --previous, goes after the headline)
MAKERS: dict[str, Maker] = {
    "setup": setup.setup, "glossary": setup.glossary, "headline": setup.headline,
    "crossover": crossover.crossover, "bytes": roofline.bytes_per_step, "prefill": prefill.prefill,
    "batching": roofline.batching, "waves": waves.waves, "stalls": stalls.stalls,
    "anomalies": anomalies.anomalies, "memory": memory.memory, "data": tiers.data,
    "checks": anomalies.checks, "constants": constants.constants, "next": related.related,
    "baseline": since.since, "revisions": revisions.revisions, "findings": findings.findings,
    "distributions": distributions.distributions, "telemetry": telemetry.telemetry,
}


def sections(b: Builder) -> list[Section]:
    out: list[Section] = []
    order = list(SECTIONS)
    if b.revisions is not None:
        order.insert(order.index("headline") + 1, "revisions")
    for sid in order:
        b.section_id = sid
        # a table with no value in any cell says nothing: the gap notes say what would fill it
        blocks = [b.with_legend(block) for block in MAKERS[sid](b)
                  if not (isinstance(block, Table) and all_missing(block))]
        if blocks:
            blocks += b.gaps(sid)
        prose = b.narrative.get(sid)
        if sid == "baseline" and not isinstance(b.inputs.since, Comparison):
            prose = None    # its prose compares with a baseline this build does not have
        if not blocks and prose is None:
            continue
        headline = prose.title if prose and (prose.title.zh or prose.title.en) else None
        out.append(Section(
            id=sid, number=len(out) + 1, title=b.t(f"section.{sid}.title"),
            headline=headline, prose=prose.body if prose else None,
            prose_lang=dict(prose.source_lang) if prose else {lang: lang for lang in LANGS},
            blocks=blocks, anchor=b.prefix + sid))
    return out


def build_sections(analysis: Analysis, ui: UI, narrative: Mapping[str, Prose],
                   figures: Mapping[str, tuple[str, int]], revisions: Revisions | None = None,
                   inputs: Inputs | None = None, prefix: str = "") -> list[Section]:
    """One workload's sections (ids prefixed when the page holds several workloads)."""
    return sections(Builder(analysis, ui.for_axis(analysis.round.axis), narrative,
                            figures, revisions, inputs, prefix))


def build_page(analysis: Analysis, ui: UI, narrative: Mapping[str, Prose],
               figures: Mapping[str, tuple[str, int]], default_lang: str,
               chrome: Mapping[str, Bi], date: str, revisions: Revisions | None = None,
               inputs: Inputs | None = None, views: list[View] | None = None,
               series: Series | None = None, fallback_lang: str = "zh") -> Page:
    """Assemble the page. ``figures`` maps figure kind → (id, height) of the figures built;
    ``chrome`` holds footer/toggle texts prepared by the caller. With ``views`` (several
    workloads) the page shows those instead of one analysis's sections. ``default_lang`` is
    the round's stated opening language ('' when neither --lang nor round.toml states one)."""
    r = analysis.round
    title = r.title or same("reportgen")
    notice = provenance_notice(analysis, ui)
    if views:
        return Page(default_lang=default_lang, title=title,
                    subtitle=r.subtitle, date=date,
                    sections=views[0].sections, chrome=dict(chrome), views=views,
                    series=series, notice=notice, fallback_lang=fallback_lang)
    return Page(default_lang=default_lang, title=title, subtitle=r.subtitle,
                date=date, sections=build_sections(analysis, ui, narrative, figures, revisions,
                                                   inputs),
                chrome=dict(chrome), series=series, notice=notice, fallback_lang=fallback_lang)
