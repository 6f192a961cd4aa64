"""Graph reuse (llama-server): reuse on both bases per tier, and Figure 5."""

from __future__ import annotations

import math

from reportgen.page.builder import Builder
from reportgen.page.cells import tier_cell, tier_row
from reportgen.page.model import Block, Column, Heading, PageBlock, Para, Table
from reportgen.text.formatting import fmt


def graph_reuse(b: Builder) -> list[PageBlock]:
    d = b.d
    reuse = d.a.graph_reuse
    if reuse is None or reuse.empty or "engine" not in reuse.columns:
        return []
    out: list[PageBlock] = [Heading(b.t("anomalies.reuse_title")),
                            Para(b.t("anomalies.reuse_lead")),
                            Block(b.ui.block("anomalies.reuse_bases"))]
    for e in d.order:
        own = d.rows(e, reuse)
        if own.empty:
            continue
        rows = []
        sources: set[str] = set()
        for c, excl, r in b.engine_tier_rows(e, reuse):
            if r.get("decode_steps_batched_source"):
                sources.add(str(r["decode_steps_batched_source"]))
            rows.append(tier_row([
                tier_cell(c, excl),
                *(b.frame_cell("graph_reuse", e, c, r, column, spec) for column, spec in (
                    ("print_timing_lines", "d"), ("decode_steps", "d"),
                    ("graphs_reused_delta", "d"), ("reuse", ".2pct"),
                    ("decode_steps_batched", "d"), ("reuse_batched", ".1pct"),
                    ("itl_p50_ms", ".2f"), ("roofline_attainment", ".1pct"))),
            ], excl))
        keys = ("col_c", "col_lines", "col_steps", "col_delta", "col_reuse", "col_steps_b",
                "col_reuse_b", "col_itl", "col_att")
        cols = [Column(b.t(f"anomalies.{k}"), True) for k in keys]
        ceiling = own["theoretical_max_reuse"].iloc[0] if "theoretical_max_reuse" in own \
            else math.nan
        out.append(Table(cols, rows, b.t("anomalies.reuse_caption", engine=d.label(e),
                                         max=fmt(ceiling, ".1pct"))))
        for source in sorted(sources & {"log", "metrics"}):
            out.append(Para(b.t(f"anomalies.steps_source_{source}"), "note"))
    out += b.figure("reuse")
    out.append(Para(b.t("anomalies.correlation"), "note"))
    return out

