"""Revisions: what changed since a previously published report, grouped by input."""

from __future__ import annotations

from reportgen.page.builder import Builder
from reportgen.page.cells import same, tcell
from reportgen.page.model import Cell, Column, PageBlock, Para, Row, Table
from reportgen.text.formatting import change_texts


def revisions(b: Builder) -> list[PageBlock]:
    """One row per changed figure, grouped by the input it belongs to (its label on the
    group's first row): old, new, and the change as delta and percent."""
    rev = b.revisions
    if rev is None:
        return []
    diff = rev.diff
    if not diff.groups:
        return [Para(b.t("revisions.none", previous=rev.previous))]
    rows = []
    for group in diff.groups:
        item = group.input
        workload = f"{item.workload} · " if item.workload else ""
        if item.engine:
            label = b.t("revisions.input", engine=b.d.label(item.engine),
                           point=diff.point_label(item.point), workload=workload)
        else:
            label = b.t("revisions.input_round", workload=workload)
        for i, f in enumerate(group.figures):
            old, new, delta, rel = change_texts(f.old, f.new, f.delta, f.relative)
            change = f"{delta} ({rel})" if delta and rel else delta or rel
            rows.append(Row([tcell(same("") if i else label, "nowrap"),
                             tcell(f.name, "mono"),
                             Cell(same(old), True), Cell(same(new), True),
                             Cell(same(change), True)]))
    cols = [Column(b.t(f"revisions.col_{k}"), k in ("old", "new", "change"))
            for k in ("input", "figure", "old", "new", "change")]
    counts = {k: str(v) for k, v in diff.counts().items()}
    return [Para(b.t("revisions.lead", previous=rev.previous, inputs=str(len(diff.groups)),
                        **counts)),
            Table(cols, rows, None, variant="revisions")]

