"""The data section: the full tiers table, Figure 6 and the inputs behind them."""

from __future__ import annotations

from reportgen.analyze import tier_metrics
from reportgen.formatting import fmt, fmt_g
from reportgen.page.builder import Builder
from reportgen.page.cells import same, tcell, tier_cell, tier_row
from reportgen.page.data import num
from reportgen.page.inputs import inputs_tables
from reportgen.page.model import Cell, Column, PageBlock, Para, Table


def data(b: Builder) -> list[PageBlock]:
    d = b.d
    out: list[PageBlock] = [Para(b.t("data.lead"))]
    # the tier metrics that name a heading under [data] (analyze/tier_metrics.py)
    spec = [(m.label, m.column, m.spec) for m in tier_metrics.on_page()]
    repeats = "repeats" in d.tiers.columns and bool((d.tiers["repeats"] > 1).any())
    rows = []
    for e in d.order:
        for c, excl, r in b.engine_tier_rows(e):
            cells = [tcell(d.label(e)), tier_cell(c, excl)]
            cells += [b.frame_cell("tiers", e, c, r, column, fspec,
                                   bad=column == "failed" and num(r.get(column)) > 0)
                      for _, column, fspec in spec]
            if repeats:
                cells.append(Cell(same(
                    f"{fmt_g(r.get('repeats'))} ({fmt(r.get('output_tok_s_min'), '.1f')}–"
                    f"{fmt(r.get('output_tok_s_max'), '.1f')})"), True))
            rows.append(tier_row(cells, excl))
    if rows:
        cols = [Column(b.t("data.col_engine")), Column(b.t("data.col_c"), True)]
        cols += [Column(b.client_column(b.t(f"data.{k}"), column), True)
                 for k, column, _ in spec]
        if repeats:
            cols.append(Column(b.t("inputs.repeats_col"), True))
        out.append(Table(cols, rows, b.client_caption(None, [c for _, c, _ in spec]),
                         variant="wide"))
    out += b.figure("tradeoff", b.t("batching.tradeoff_caption"))
    out.append(Para(b.t("data.download"), "note"))
    return out + inputs_tables(b)

