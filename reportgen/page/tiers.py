"""The data section: the full tiers table, Figure 6 and the inputs behind them."""

from __future__ import annotations

import math

from markupsafe import Markup

from reportgen.analyze import tier_metrics
from reportgen.analyze.distributions import needed
from reportgen.page.builder import Builder
from reportgen.page.cells import same, tcell, tier_cell, tier_row, with_mark
from reportgen.page.data import num
from reportgen.page.distributions import FEW_MARK
from reportgen.page.inputs import inputs_tables
from reportgen.page.model import Cell, Column, PageBlock, Para, Table
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import fmt, fmt_g


def data(b: Builder) -> list[PageBlock]:
    d = b.d
    out: list[PageBlock] = [Para(b.t("data.lead"))]
    # the tier metrics that name a heading under [data] (analyze/tier_metrics.py)
    spec = [(m.label, m.column, m.spec) for m in tier_metrics.on_page()]
    repeats = "repeats" in d.tiers.columns and bool((d.tiers["repeats"] > 1).any())
    rows = []
    few = False
    for e in d.order:
        for c, excl, r in b.engine_tier_rows(e):
            cells = [tcell(d.label(e)), tier_cell(c, excl)]
            cells += [b.frame_cell("tiers", e, c, r, column, fspec,
                                   bad=column == "failed" and num(r.get(column)) > 0)
                      for _, column, fspec in spec]
            # TTFT p99 rests on the tier's completed requests: under 100 it is marked *
            # (analyze.distributions.needed), the n is the row's completed column
            at = [column for _, column, _ in spec].index("ttft_p99_ms") + 2 \
                if "ttft_p99_ms" in [column for _, column, _ in spec] else -1
            n = num(r.get("completed"))
            if at >= 0 and math.isfinite(num(r.get("ttft_p99_ms"))) and 0 < n < needed(99.0):
                cells[at] = with_mark(cells[at], FEW_MARK)
                few = True
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
        caption = b.client_caption(None, [c for _, c, _ in spec])
        if few:
            note = b.t("data.few_note")
            caption = note if caption is None else Bi(*(
                Markup(caption.get(lang)) + Markup("" if lang == "zh" else " ")
                + Markup(note.get(lang))
                for lang in LANGS))
        out.append(Table(cols, rows, caption, variant="wide"))
    out += b.figure("tradeoff", b.t("batching.tradeoff_caption"))
    out.append(Para(b.t("data.download"), "note"))
    return out + inputs_tables(b)

