"""Since the previous round (the baseline): set-up differences and headline figures."""

from __future__ import annotations

from typing import Any

from reportgen.analyze.compare import ComparisonRow, Missing
from reportgen.analyze.compare import delta as since_delta
from reportgen.page.builder import Builder
from reportgen.page.cells import same
from reportgen.page.model import Cell, Column, Heading, PageBlock, Para, Row, Table
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import fmt, fmt_g, signed_change, signed_delta


def since(b: Builder) -> list[PageBlock]:
    """Since the previous round: what changed in the set-up, headline figures side by side
    with their deltas, and where the baseline's curves are drawn."""
    since = b.inputs.since
    if since is None:
        return []
    if isinstance(since, Missing):
        return [Para(b.t("since.missing", path=since.path), "note")]
    base = since.baseline
    when = b.ui.plain("since.dated", date=base.date) if base.date else same("")
    out: list[PageBlock] = [Para(b.t("since.lead", title=base.title, date=when))]
    if base.as_published:
        out.append(Para(b.t("since.as_published", source=base.source or same("—")),
                        "note"))

    def label(row: ComparisonRow, group: str) -> Bi:
        """Plain text (the template escapes it): UI label, engine label, published note."""
        engine = since.labels.get(row.engine or "", same(row.engine or ""))
        return b.ui.plain(f"since.{group}.{row.key}", engine=engine)

    def shown(value: Any, spec: str = "") -> Bi:
        if isinstance(value, Bi):
            return value
        if isinstance(value, str):
            return same(value)
        if isinstance(value, bool):
            return same(str(value).lower())
        return same(fmt(value, spec) if spec else fmt_g(value))

    def old(row: ComparisonRow) -> Bi:
        """The baseline's value; as published: at the precision printed, with its note."""
        spec = row.spec if not base.as_published or row.spec.endswith("pct") else ""
        text = shown(row.old, spec)
        if row.note is None:
            return text
        return b.ui.plain("since.with_note", value=text, note=row.note)

    if since.setup:
        out.append(Heading(b.t("since.setup_heading")))
        cols = [Column(b.t("since.col_setting")), Column(b.t("since.col_baseline")),
                Column(b.t("since.col_current"))]
        out.append(Table(cols, [Row([Cell(label(r, "setup")), Cell(old(r)),
                                     Cell(shown(r.new))]) for r in since.setup],
                         None, variant="since"))
    if since.unchanged:
        names = [label(r, "setup") for r in since.unchanged]
        out.append(Para(b.t("since.unchanged", names=Bi(
            *("; ".join(n.get(lang) for n in names) for lang in LANGS))), "note"))
    if since.figures:
        out.append(Heading(b.t("since.figures_heading")))
        cols = [Column(b.t("since.col_figure")), Column(b.t("since.col_baseline"), True),
                Column(b.t("since.col_current"), True),
                Column(b.t("since.col_delta"), True),
                Column(b.t("since.col_change"), True)]
        rows = []
        for r in since.figures:
            d, change = since_delta(r)
            rows.append(Row([Cell(label(r, "figure")), Cell(old(r), True),
                             Cell(shown(r.new, r.spec), True),
                             Cell(same(signed_delta(d, r.spec)), True),
                             Cell(same(signed_change(change)), True)]))
        out.append(Table(cols, rows, None, variant="since"))
    if base.tiers.empty:
        out.append(Para(b.t("since.no_curves"), "note"))
    else:
        out.append(Para(b.t("since.curves"), "note"))
    return out

